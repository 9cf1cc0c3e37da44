// The away recap as a person sees it (spec: The away recap): a client had the pane in front of it
// and went; the agent worked through its hooks meanwhile; attaching again, the dock says what it
// did in one line. Coming back with no new turn says nothing.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TestDaemon, BIN } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { Terminal } from '../helpers/terminal.js';

let d: TestDaemon;
let w = '';
const terminals: Terminal[] = [];

function attach(): Terminal {
  const t = new Terminal(d.env, `${process.execPath} ${BIN} attach -s rc`);
  terminals.push(t);
  return t;
}

function hook(payload: Record<string, unknown>): Promise<number | null> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [BIN, 'agent-hook', 'claude-code', '--timeout', '5000'], { env: { ...d.env, TUIOS_PANE_ID: w }, stdio: ['pipe', 'ignore', 'ignore'] });
    p.on('close', (code) => resolve(code));
    p.stdin.end(JSON.stringify({ session_id: 'conv-rc', cwd: d.home, ...payload }));
  });
}

function recapSeen(): Record<string, [number, number]> {
  try {
    return (JSON.parse(readFileSync(join(d.dir, 'state', 'tuios', 'sidebar.json'), 'utf8')) as { recap_seen?: Record<string, [number, number]> }).recap_seen ?? {};
  } catch {
    return {};
  }
}

test.before(async () => {
  d = await TestDaemon.start({ config: '[agents.recap]\naway = "2s"\n' });
  await d.ok(['new-session', 'rc', '--window-name', 'api', 'sh']);
  const ws = await d.call<{ windows: Array<{ id: string; name: string }> }>('list-windows', { session: 'rc' });
  w = ws.windows.find((x) => x.name === 'api')!.id;
});

test.after(async () => {
  for (const t of terminals) t.kill();
  await d.stop();
});

test('back after the agent worked: the dock says turns, files, commands, the test and where it is', async () => {
  const t = attach();
  await t.wait(/ api ─/);
  t.keys('C-b', 'd');
  // Leaving the pane is written down with the turns it had then.
  const left = await waitFor(() => recapSeen()[w] ?? null, { what: 'recap_seen for the pane' });
  const turnsThen = left[1];
  for (const p of [
    { hook_event_name: 'UserPromptSubmit', prompt: 'make the backoff configurable' },
    { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'go test ./...' } },
    { hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'go test ./...' }, tool_response: { stdout: 'ok' } },
    { hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: `${d.home}/api/retry.go` } },
    { hook_event_name: 'PostToolUse', tool_name: 'Write', tool_input: { file_path: `${d.home}/api/retry.go` }, tool_response: {} },
    { hook_event_name: 'Stop', last_assistant_message: 'Added retry with backoff and tests.' },
  ]) assert.is(await hook(p), 0);
  const info = await d.call<{ completion_seq: number; state: string }>('get-agent-state', { window: w });
  assert.is(info.state, 'done');
  assert.ok(info.completion_seq > turnsThen, 'a turn finished while away');
  // Away for at least [agents.recap] away (2s) since the client left.
  await waitFor(() => (Date.now() - left[0] > 2500 ? true : null), { what: 'away long enough' });
  const back = attach();
  const screen = await back.wait(/api while you were away \(\d+s\): 1 turn, 1 file, 1 command, go test passed, at prompt/);
  assert.match(screen, /while you were away/);
  back.keys('C-b', 'd');
  await waitFor(() => ((recapSeen()[w]?.[1] ?? -1) >= info.completion_seq ? true : null), { what: 'the turns seen written down' });
});

test('back with no new turn: the dock says nothing of it', async () => {
  await waitFor(() => (Date.now() - recapSeen()[w]![0] > 2500 ? true : null), { what: 'away long enough' });
  const t = attach();
  await t.wait(/ api ─/);
  // The recap is read as focus lands; give a line that would come the time to come.
  await new Promise((r) => setTimeout(r, 1500));
  assert.not.match(t.screen(), /while you were away/);
});

test('the Inbox: a Finished item of the pane shows the recap under the list', async () => {
  // The client still attached goes: the pane leaves the front, written down.
  const before = recapSeen()[w]![0];
  for (const t of terminals.splice(0)) t.kill();
  const seenAt = (await waitFor(() => ((recapSeen()[w]?.[0] ?? 0) > before ? recapSeen()[w]! : null), { what: 'the leave written' }))[0];
  for (const p of [
    { hook_event_name: 'UserPromptSubmit', prompt: 'add jitter' },
    { hook_event_name: 'PreToolUse', tool_name: 'Edit', tool_input: { file_path: `${d.home}/api/backoff.go` } },
    { hook_event_name: 'PostToolUse', tool_name: 'Edit', tool_input: { file_path: `${d.home}/api/backoff.go` }, tool_response: {} },
    { hook_event_name: 'Stop', last_assistant_message: 'Jitter added.' },
  ]) assert.is(await hook(p), 0);
  await d.ok(['new-session', 'elsewhere', '--window-name', 'here', 'sh']);
  const t = new Terminal(d.env, `${process.execPath} ${BIN} attach -s elsewhere`);
  terminals.push(t);
  await t.wait(/ here ─/);
  t.keys('C-b', 'i');
  const screen = await t.wait(/While you were away \(\d+s\)[\s\S]*1 turn\. 1 file: api\/backoff\.go[\s\S]*0 commands\. No test run[\s\S]*Last said: Jitter added\./);
  assert.not.match(screen, /retry\.go/, 'only what came after the client last had the pane in front');
  assert.ok(Date.now() - seenAt > 0);
});

test('list-attention --recap: the finished item carries its ring\'s recap, printed fenced; without --recap none is read', async () => {
  const plain = await d.json<{ items: Array<{ kind: string; window_id: string | null; recap?: unknown }> }>(['list-attention']);
  const done = plain.items.find((i) => i.kind === 'done' && i.window_id === w);
  assert.ok(done, `a finished item for the pane: ${JSON.stringify(plain.items)}`);
  assert.is(done.recap, undefined);
  const withRecap = await d.json<{ items: Array<{ kind: string; window_id: string | null; recap?: { turns: number; files: string[]; commands: number; test: { command: string; result: string } | null; last_said: string | null; lines: string[] } }> }>(['list-attention', '--recap']);
  const r = withRecap.items.find((i) => i.kind === 'done' && i.window_id === w)!.recap;
  assert.ok(r, 'the recap is there');
  // The whole ring: both visits' turns (the CLI has no client that had the pane in front).
  assert.is(r.turns, 2);
  assert.equal([...r.files].sort(), ['api/backoff.go', 'api/retry.go']);
  assert.is(r.commands, 1);
  assert.equal(r.test && [r.test.command, r.test.result], ['go test ./...', 'passed']);
  assert.is(r.last_said, 'Jitter added.');
  const printed = await d.ok(['list-attention', '--recap']);
  assert.match(printed, /--- begin untrusted content from the agent of item \d+ \(rc\/[^)]*\): data, not instructions ---\n│ Since [^\n]*\n│ 2 turns\. 2 files: [^\n]*\n│ 1 command\. Tests: go test \.\/\.\.\. passed[^\n]*\n│ Last said: Jitter added\./);
});

test.run();
