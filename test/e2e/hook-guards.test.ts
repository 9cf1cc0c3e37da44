// The nested and foreign event guards, through the real hook process (spec: Nested and foreign
// events): a `claude -p` a tool call starts mid-turn cannot mark the pane done, the pane's own
// conversation still can, a new conversation takes the pane over at rest, and Codex's shared
// server refuses another conversation at rest and mid-turn (its report, and the model it names).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { TestDaemon, BIN } from '../helpers/daemon.js';
import { stateOf } from '../helpers/agent-state.js';

let d: TestDaemon;
let w = '';

/**
 * A harness process of its own (a node parent, as a harness's process would be) that runs the hook
 * once per payload it is given and stays alive in between: the daemon drops a report whose
 * harness_pid has exited, so a parent that ended with each hook would race the check.
 */
class Harness {
  private readonly p: ChildProcess;
  private out = '';
  private waiting: Array<() => void> = [];
  constructor(readonly name: string) {
    const child = `const { spawnSync } = require('child_process'); const rl = require('readline').createInterface({ input: process.stdin });
rl.on('line', (line) => { const r = spawnSync(process.execPath, [${JSON.stringify(BIN)}, 'agent-hook', ${JSON.stringify(name)}, '--explain', '--timeout', '3000'], { input: line, encoding: 'utf8' }); process.stdout.write(JSON.stringify({ code: r.status, stderr: r.stderr }) + '\\n'); });`;
    this.p = spawn(process.execPath, ['-e', child], { env: { ...d.env, TUIOS_PANE_ID: w }, stdio: ['pipe', 'pipe', 'inherit'] });
    this.p.stdout!.on('data', (b) => {
      this.out += b;
      let i;
      while ((i = this.out.indexOf('\n')) >= 0) {
        const line = this.out.slice(0, i);
        this.out = this.out.slice(i + 1);
        this.results.push(JSON.parse(line));
        this.waiting.shift()?.();
      }
    });
  }
  private results: Array<{ code: number | null; stderr: string }> = [];
  run(payload: Record<string, unknown>): Promise<{ code: number | null; stderr: string }> {
    return new Promise((resolve) => {
      this.waiting.push(() => resolve(this.results.shift()!));
      this.p.stdin!.write(JSON.stringify(payload) + '\n');
    });
  }
  close(): void {
    this.p.kill();
  }
}

const harnesses: Harness[] = [];
function harness(name: string): Harness {
  const h = new Harness(name);
  harnesses.push(h);
  return h;
}

test.before(async () => {
  d = await TestDaemon.start();
  await d.ok(['new-session', 'g']);
  w = (await d.json<{ windows: Array<{ id: string }> }>(['list-windows'])).windows[0]!.id;
});
test.after(async () => {
  for (const h of harnesses) h.close();
  await d.stop();
});

test('Claude Code: a nested run mid-turn is refused; the pane\'s own conversation ends the turn; at rest a new one takes over', async () => {
  const claude = harness('claude-code');
  const nestedRun = harness('claude-code');
  await claude.run({ hook_event_name: 'UserPromptSubmit', session_id: 'conv-A', prompt: 'work' });
  assert.is((await stateOf(d, w)).state, 'working');
  const nested = await nestedRun.run({ hook_event_name: 'Stop', session_id: 'conv-B', last_assistant_message: 'nested done' });
  assert.is(nested.code, 0);
  assert.match(nested.stderr, /foreign_session/);
  let r = await stateOf(d, w);
  assert.is(r.state, 'working', 'the nested Stop did not mark the pane done');
  assert.is(r.agent_session_id, 'conv-A');
  await claude.run({ hook_event_name: 'Stop', session_id: 'conv-A', last_assistant_message: 'all done' });
  r = await stateOf(d, w);
  assert.is(r.state, 'done');
  assert.is(r.message, 'all done');
  await claude.run({ hook_event_name: 'SessionStart', session_id: 'conv-C', source: 'clear' });
  r = await stateOf(d, w);
  assert.is(r.state, 'idle');
  assert.is(r.agent_session_id, 'conv-C', 'at rest a new conversation takes the pane over');
  const items = (await d.call<{ items: Array<{ window_id: string; kind: string }> }>('list-attention')).items.filter((i) => i.window_id === w && i.kind !== 'done');
  assert.is(items.length, 0, 'a refusal makes no Inbox item');
  await claude.run({ hook_event_name: 'SessionEnd', session_id: 'conv-C' });
  assert.is((await stateOf(d, w)).state, 'none');
});

test('Codex: SessionStart sets the owner; another conversation is refused at rest and mid-turn; a compaction takes nothing over', async () => {
  // One shared Codex server process hosts both conversations.
  const codex = harness('codex');
  await codex.run({ hook_event_name: 'SessionStart', session_id: 'cx-1', source: 'startup', model: 'gpt-mine' });
  assert.is((await stateOf(d, w)).state, 'idle');
  assert.equal((await d.call<{ meta: Record<string, string> }>('get-agent-state', { window: w })).meta, { model: 'gpt-mine' }, 'Codex names its model on every event');
  const other = await codex.run({ hook_event_name: 'UserPromptSubmit', session_id: 'cx-2', prompt: 'from another terminal', model: 'gpt-other' });
  assert.match(other.stderr, /foreign_session/);
  assert.is((await stateOf(d, w)).state, 'idle', 'refused at rest');
  assert.is((await d.call<{ meta: Record<string, string> }>('get-agent-state', { window: w })).meta.model, 'gpt-mine', 'and its model with it');
  await codex.run({ hook_event_name: 'UserPromptSubmit', session_id: 'cx-1', prompt: 'mine' });
  assert.is((await stateOf(d, w)).state, 'working');
  const mid = await codex.run({ hook_event_name: 'Stop', session_id: 'cx-2' });
  assert.match(mid.stderr, /foreign_session/);
  assert.is((await stateOf(d, w)).state, 'working', 'refused mid-turn');
  await codex.run({ hook_event_name: 'SessionStart', session_id: 'cx-1', source: 'compact' });
  await codex.run({ hook_event_name: 'Stop', session_id: 'cx-1', last_assistant_message: 'ok' });
  assert.is((await stateOf(d, w)).state, 'done');
});

test.run();
