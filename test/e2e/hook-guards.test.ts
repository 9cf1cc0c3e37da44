// The nested and foreign event guards, through the real hook process (spec: Nested and foreign
// events): a `claude -p` a tool call starts mid-turn cannot mark the pane done, the pane's own
// conversation still can, a new conversation takes the pane over at rest, and Codex's shared
// server refuses another conversation at rest and mid-turn.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { TestDaemon, BIN } from '../helpers/daemon.js';

let d: TestDaemon;
let w = '';

/** The hook under a harness process of its own: a node parent, as a harness's process would be. */
function hookUnder(harness: string, payload: Record<string, unknown>): Promise<{ code: number | null; stderr: string }> {
  const child = `require('child_process').spawnSync(process.execPath, [${JSON.stringify(BIN)}, 'agent-hook', ${JSON.stringify(harness)}, '--explain', '--timeout', '3000'], { input: ${JSON.stringify(JSON.stringify(payload))}, stdio: ['pipe', 'inherit', 'inherit'] })`;
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['-e', child], { env: { ...d.env, TUIOS_PANE_ID: w }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    p.stderr.on('data', (b) => (stderr += b));
    p.on('close', (code) => resolve({ code, stderr }));
  });
}

const row = () => d.call<{ state: string; message: string; agent_session_id: string | null; source: string | null }>('get-agent-state', { window: w });

test.before(async () => {
  d = await TestDaemon.start();
  await d.ok(['new-session', 'g']);
  w = (await d.json<{ windows: Array<{ id: string }> }>(['list-windows'])).windows[0]!.id;
});
test.after(() => d.stop());

test('Claude Code: a nested run mid-turn is refused; the pane\'s own conversation ends the turn; at rest a new one takes over', async () => {
  await hookUnder('claude-code', { hook_event_name: 'UserPromptSubmit', session_id: 'conv-A', prompt: 'work' });
  assert.is((await row()).state, 'working');
  const nested = await hookUnder('claude-code', { hook_event_name: 'Stop', session_id: 'conv-B', last_assistant_message: 'nested done' });
  assert.is(nested.code, 0);
  assert.match(nested.stderr, /foreign_session/);
  let r = await row();
  assert.is(r.state, 'working', 'the nested Stop did not mark the pane done');
  assert.is(r.agent_session_id, 'conv-A');
  await hookUnder('claude-code', { hook_event_name: 'Stop', session_id: 'conv-A', last_assistant_message: 'all done' });
  r = await row();
  assert.is(r.state, 'done');
  assert.is(r.message, 'all done');
  await hookUnder('claude-code', { hook_event_name: 'SessionStart', session_id: 'conv-C', source: 'clear' });
  r = await row();
  assert.is(r.state, 'idle');
  assert.is(r.agent_session_id, 'conv-C', 'at rest a new conversation takes the pane over');
  const items = (await d.call<{ items: Array<{ window_id: string; kind: string }> }>('list-attention')).items.filter((i) => i.window_id === w && i.kind !== 'done');
  assert.is(items.length, 0, 'a refusal makes no Inbox item');
  await hookUnder('claude-code', { hook_event_name: 'SessionEnd', session_id: 'conv-C' });
  assert.is((await row()).state, 'none');
});

test('Codex: SessionStart sets the owner; another conversation is refused at rest and mid-turn; a compaction takes nothing over', async () => {
  await hookUnder('codex', { hook_event_name: 'SessionStart', session_id: 'cx-1', source: 'startup' });
  assert.is((await row()).state, 'idle');
  const other = await hookUnder('codex', { hook_event_name: 'UserPromptSubmit', session_id: 'cx-2', prompt: 'from another terminal' });
  assert.match(other.stderr, /foreign_session/);
  assert.is((await row()).state, 'idle', 'refused at rest');
  await hookUnder('codex', { hook_event_name: 'UserPromptSubmit', session_id: 'cx-1', prompt: 'mine' });
  assert.is((await row()).state, 'working');
  const mid = await hookUnder('codex', { hook_event_name: 'Stop', session_id: 'cx-2' });
  assert.match(mid.stderr, /foreign_session/);
  assert.is((await row()).state, 'working', 'refused mid-turn');
  await hookUnder('codex', { hook_event_name: 'SessionStart', session_id: 'cx-1', source: 'compact' });
  await hookUnder('codex', { hook_event_name: 'Stop', session_id: 'cx-1', last_assistant_message: 'ok' });
  assert.is((await row()).state, 'done');
});

test.run();
