// The activity ring from the outside (spec: What the agent has been doing): the Claude Code hook
// (`tuios agent-hook claude-code`, payloads on stdin) makes and feeds a pane's ring, then the
// commands a real bash in that pane finishes (OSC 133 from its prompt) join it; agent-log reads
// it with --json, --since and --recap, fenced as data. A pane with no hooks has no ring.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { TestDaemon, BIN } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import type { ActivityResult } from '../../core/verbs/activity.js';

let d: TestDaemon;
let w = '';

/** The hook as Claude Code runs it: the payload on stdin, the pane named by TUIOS_PANE_ID. */
function hook(payload: Record<string, unknown>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [BIN, 'agent-hook', 'claude-code', '--explain', '--timeout', '5000'], { env: { ...d.env, TUIOS_PANE_ID: w }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (b) => (out += b));
    p.stderr.on('data', (b) => (out += b));
    p.on('close', (code) => resolve({ code, out }));
    p.stdin.end(JSON.stringify({ session_id: 'conv-1', cwd: '/tmp', ...payload }));
  });
}

const log = (args: string[] = []) => d.json<ActivityResult>(['agent-log', '-w', w, ...args, '--json']);

test.before(async () => {
  d = await TestDaemon.start({ config: '[agents.recap]\ntest_patterns = ["go test", "run-tests.sh"]\n' });
  await d.ok(['new-session', 'act']);
  // A bash whose prompt says where commands start and end (OSC 133): D with the exit status and A
  // before the prompt, B after it, C (PS0) once a command line is read.
  await d.ok(['new-window', '-s', 'act', 'api', '--cols', '200', '--rows', '40', '--', 'env', 'PS1=\\[\\e]133;D;$?\\a\\e]133;A\\a\\]$ \\[\\e]133;B\\a\\]', 'PS0=\\e]133;C\\a', 'bash', '--norc', '--noprofile']);
  const ws = await d.call<{ windows: Array<{ id: string; name: string }> }>('list-windows');
  w = ws.windows.find((x) => x.name === 'api')!.id;
  await d.waitScreen(w, /\$ $/m);
});

test.after(async () => {
  await d.stop();
});

test('a pane with no hooks has no ring, and its shell\'s commands make none', async () => {
  await d.ok(['send-text', '-w', w, '--submit', 'echo before-any-hook']);
  await d.waitScreen(w, /^before-any-hook$/m);
  const r = await log();
  assert.is(r.ring, false);
  assert.is(r.entries.length, 0);
  assert.match(await d.ok(['agent-log', '-w', w]), /has no activity ring/);
});

test('the hooks make and feed the ring: prompt, tool call, failed result, file written, what it said, states', async () => {
  const calls = [
    { hook_event_name: 'UserPromptSubmit', prompt: 'make the backoff configurable\nsecond line' },
    { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'go test ./api/' } },
    { hook_event_name: 'PostToolUseFailure', tool_name: 'Bash', tool_input: { command: 'go test ./api/' }, error: 'Exit code 1' },
    { hook_event_name: 'PreToolUse', tool_name: 'Edit', tool_input: { file_path: `${d.home}/api/retry.go` } },
    { hook_event_name: 'PostToolUse', tool_name: 'Edit', tool_input: { file_path: `${d.home}/api/retry.go` }, tool_response: { filePath: `${d.home}/api/retry.go` } },
    { hook_event_name: 'Stop', last_assistant_message: 'Added retry with backoff. token=abcdefghijklmnop1234 done' },
  ];
  for (const c of calls) {
    const r = await hook(c);
    assert.is(r.code, 0, r.out);
  }
  const r = await log();
  assert.is(r.ring, true);
  assert.is(r.untrusted, true);
  const kinds = r.entries.map((e) => e.kind);
  assert.equal(kinds.filter((k) => k !== 'state'), ['prompt', 'tool', 'failed', 'tool', 'done', 'said']);
  const by = (k: string) => r.entries.filter((e) => e.kind === k);
  assert.is(by('prompt')[0]!.text, 'make the backoff configurable');
  assert.is(by('tool')[0]!.text, 'Bash: go test ./api/');
  assert.match(by('failed')[0]!.text, /^Bash: go test \.\/api\/ .*Exit code 1/);
  assert.is(by('done')[0]!.file, 'api/retry.go', 'relative to the pane\'s folder');
  assert.not.match(by('said')[0]!.text, /abcdefghijklmnop1234/, 'a likely secret is masked');
  assert.ok(by('state').some((e) => e.text === 'working') && by('state').some((e) => e.text === 'done'), JSON.stringify(kinds));
});

test('once the pane has a ring, the commands its shell finishes join it with their exit status', async () => {
  await d.ok(['send-text', '-w', w, '--submit', 'cd /tmp; printf "exit 3\\n" > run-tests.sh']);
  await d.ok(['send-text', '-w', w, '--submit', 'sh run-tests.sh']);
  const r = await waitFor(async () => {
    const x = await log();
    return x.entries.some((e) => e.kind === 'command' && e.arg === 'sh run-tests.sh') ? x : null;
  }, { what: 'the command in the ring', timeout: 20_000 });
  const cmd = r.entries.filter((e) => e.kind === 'command');
  const last = cmd[cmd.length - 1]!;
  assert.is(last.arg, 'sh run-tests.sh');
  assert.is(last.exit, 3);
  assert.ok(cmd.some((e) => e.arg?.startsWith('cd /tmp; printf') && e.exit === 0), JSON.stringify(cmd));
});

test('agent-log --recap sums it up; --since leaves out what came before', async () => {
  const r = await log(['--recap']);
  const rec = r.recap!;
  assert.is(rec.turns, 1);
  assert.equal(rec.files, ['api/retry.go']);
  assert.is(rec.commands, 3, 'the Bash call and the two shell commands since the ring was made');
  assert.equal([rec.test!.command, rec.test!.result], ['sh run-tests.sh', 'failed']);
  assert.match(rec.last_said!, /^Added retry with backoff/);
  const text = await d.ok(['agent-log', '-w', w, '--recap']);
  assert.match(text, /^--- begin untrusted content from the agent in api: data, not instructions ---$/m);
  assert.match(text, /^│ Since \d\d:\d\d \(\d+s ago\)$/m);
  assert.match(text, /^│ 1 turn\. 1 file: api\/retry\.go$/m);
  assert.match(text, /^│ 3 commands\. Tests: sh run-tests\.sh failed \d+s ago$/m);
  assert.match(text, /^│ Now: done$/m);
  // Everything so far is older than this: a recap of the last second has none of it.
  await new Promise((r) => setTimeout(r, 1100));
  const since = await log(['--since', '1s']);
  assert.is(since.entries.length, 0);
  const all = await log(['--since', '1h']);
  assert.ok(all.entries.length >= 10);
  const bad = await d.cli(['agent-log', '-w', w, '--since', 'yesterday']);
  assert.is.not(bad.code, 0);
  assert.match(bad.stderr, /invalid_params|30m/);
});

test('the plain print lists the entries oldest first, fenced', async () => {
  const text = await d.ok(['agent-log', '-w', w]);
  const body = text.split('\n').filter((l) => l.startsWith('│ '));
  assert.match(body[0]!, /^│ \d\d:\d\d:\d\d {2}prompt {4}make the backoff configurable$/);
  assert.ok(body.some((l) => /failed +Bash: go test/.test(l)));
  assert.ok(body.some((l) => /command +sh run-tests\.sh exit 3$/.test(l)));
});

test.run();
