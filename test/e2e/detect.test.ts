// Recognising a harness from real processes in real panes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, writeFileSync, copyFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { TestDaemon, BIN } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { agentRow, stateOf, waitRow, waitState, type AgentRow, type AgentState } from '../helpers/agent-state.js';

let d: TestDaemon;
let bin: string;
let cli: string;

/** Opens a window named `name` in session det running `argv`; its id. */
const open = async (name: string, ...argv: string[]) => (await d.ok(['new-window', '-s', 'det', name, ...argv])).trim();

/** The window's list-agents row once it is attributed to `harness`. */
async function attributed(w: string, harness: string): Promise<AgentRow & { identity: string }> {
  return (await waitRow(d, w, (a) => a.harness_id === harness, { timeout: 20_000, what: `${w} attributed to ${harness}` })) as AgentRow & { identity: string };
}

test.before(async () => {
  d = await TestDaemon.start({ env: { TUIOS_AGENT_DETECT_SECONDS: '0.3' } });
  bin = join(d.dir, 'bin');
  mkdirSync(bin);
  // A program named like an agent: a copy of sleep called claude.
  copyFileSync('/usr/bin/sleep', join(bin, 'claude'));
  chmodSync(join(bin, 'claude'), 0o755);
  copyFileSync('/usr/bin/sleep', join(bin, 'codex'));
  chmodSync(join(bin, 'codex'), 0o755);
  // An "agent" that can exec another program in its own place: a copy of dash named claude.
  mkdirSync(join(d.dir, 'sbin'));
  copyFileSync('/bin/dash', join(d.dir, 'sbin', 'claude'));
  chmodSync(join(d.dir, 'sbin', 'claude'), 0o755);
  copyFileSync('/bin/dash', join(d.dir, 'sbin', 'aider'));
  chmodSync(join(d.dir, 'sbin', 'aider'), 0o755);
  // A node script laid out the way npm installs Claude Code's JS build.
  const pkg = join(d.dir, 'lib', 'node_modules', '@anthropic-ai', 'claude-code');
  mkdirSync(pkg, { recursive: true });
  cli = join(pkg, 'cli.js');
  writeFileSync(cli, 'setInterval(() => {}, 1000);\n');
  await d.ok(['new-session', 'det']);
});

test.after(async () => {
  await d.stop();
});

test('a binary named like an agent is attributed by its name', async () => {
  const native = await open('native', join(bin, 'claude'), '600');
  const a = await attributed(native, 'claude-code');
  assert.is(a.identity, 'manifest');
  assert.is(a.state, 'unknown', 'present, and nothing says what it does');
});

test('node .../node_modules/@anthropic-ai/claude-code/cli.js is attributed by its script path', async () => {
  await attributed(await open('js', process.execPath, cli), 'claude-code');
  const e = await d.json<{ predicate: string; interpreter: boolean; eligible_token: string }>(['explain-agent-detect', '-w', 'js']);
  assert.match(e.predicate, /^argv_path=/);
  assert.is(e.interpreter, true);
  assert.is(e.eligible_token, cli);
});

test('behind sh -c and timeout 600, with explain naming the chain', async () => {
  const wrapped = await open('wrapped', 'sh', '-c', `${join(bin, 'claude')} 600; true`);
  const timed = await open('timed', 'timeout', '600', process.execPath, cli);
  await attributed(wrapped, 'claude-code');
  await attributed(timed, 'claude-code');
  const e = await d.json<{ leader: { comm: string }; process: { comm: string }; behind: unknown[]; text: string }>(['explain-agent-detect', '-w', 'timed']);
  assert.is(e.leader.comm, 'timeout');
  assert.is(e.process.comm, 'node');
  assert.match(e.text, /runs claude-code behind timeout/);
  assert.match(e.text, /is a wrapper, so tuios read the processes behind it/);
});

test('TUIOS_AGENT=codex on a wrapper names the harness', async () => {
  const a = await attributed(await open('hinted', '--env', 'TUIOS_AGENT=codex', 'sh', '-c', 'sleep 600'), 'codex');
  assert.is(a.identity, 'hint');
  const e = await d.json<{ text: string }>(['explain-agent-detect', '-w', 'hinted']);
  assert.match(e.text, /named by TUIOS_AGENT=codex on pid \d+/);
});

test('a word in an argument is seen and not counted', async () => {
  const tailing = await open('tailing', 'sh', '-c', `mkdir -p ${d.dir}/dev/opencode; touch ${d.dir}/dev/opencode/main.go; exec tail -f ${d.dir}/dev/opencode/main.go`);
  const e = await waitFor(async () => {
    const x = await d.json<{ verdict: string; leader: { comm: string } | null; not_counted: string[] }>(['explain-agent-detect', '-w', 'tailing']);
    return x.leader?.comm === 'tail' ? x : null;
  }, { what: 'tail in the foreground' });
  assert.is(e.verdict, 'other');
  assert.ok(e.not_counted.some((n) => n.includes('"opencode"')), JSON.stringify(e.not_counted));
  // Every manifest, in lookup order, each with what it compared against.
  const full = await d.json<{ manifests: Array<{ id: string; matched: string | null; refused: string[] }>; text: string }>(['explain-agent-detect', '-w', 'tailing']);
  assert.ok(full.manifests.length >= 23, `${full.manifests.length} manifests`);
  assert.equal(full.manifests.map((m) => m.id), [...full.manifests.map((m) => m.id)].sort(), 'bundled manifests in id order');
  assert.ok(full.manifests.every((m) => m.matched === null && m.refused.length > 0), 'each says why it refused');
  assert.match(full.text, /words tuios saw and did not count:/);
  assert.match(full.text, /comm="tail"/);
  assert.is(await agentRow(d, tailing), undefined);
});

test('an agent started at a shell prompt is attributed, and exiting it clears the pane', async () => {
  const shell = await open('shell', 'sh');
  await d.ok(['send-text', '-w', 'shell', `${join(bin, 'claude')} 600\n`]);
  await attributed(shell, 'claude-code');
  await d.ok(['send-keys', '-w', 'shell', 'C-c']);
  await waitFor(async () => (await agentRow(d, shell)) === undefined, { what: 'the pane to clear when the shell is back' });
  const s = await stateOf(d, shell);
  assert.is(s.state, 'none');
  assert.is(s.harness_id, null);
});

test('another program in the agent\'s place (exec, same pid and group) clears the pane after six ticks', async () => {
  const execs = await open('execs', join(d.dir, 'sbin', 'claude'), '-c', 'read go; exec sleep 600');
  await attributed(execs, 'claude-code');
  await d.ok(['set-agent-state', '-w', 'execs', 'working', '--source', 'detect']);
  await d.ok(['send-keys', '-w', 'execs', 'Enter']);
  await waitFor(async () => (await d.json<{ leader: { comm: string } | null }>(['explain-agent-detect', '-w', 'execs'])).leader?.comm === 'sleep', { what: 'sleep in the agent\'s place' });
  await waitFor(async () => (await agentRow(d, execs)) === undefined, { what: 'the pane to clear after six ticks of another program' });
  assert.is((await stateOf(d, execs)).state, 'none');
});

test('presence_working: a harness with no working rule (aider) reads as working while it prints', async () => {
  const aid = await open('aid', join(d.dir, 'sbin', 'aider'), '-c', 'read go; while :; do echo thinking; sleep 0.2; done');
  const a = await attributed(aid, 'aider');
  assert.is(a.state, 'unknown', 'quiet: present, nothing says what it does');
  await d.ok(['send-keys', '-w', 'aid', 'Enter']);
  await waitRow(d, aid, 'working', { timeout: 20_000, what: 'working from output' });
  assert.is((await stateOf(d, aid)).source, 'detect');
});

test('an occupant change is a correction to unknown, never a none in between', async () => {
  const c = await d.client();
  const evs: Array<{ window_id: string; state: string; harness: string | null }> = [];
  await c.stream('subscribe', { types: ['agent-state'] }, (e) => evs.push(e as (typeof evs)[number]));
  const w = await d.call<{ id: string }>('new-window', { session: 'det', name: 'swap', argv: [join(d.dir, 'sbin', 'claude'), '-c', `read go; exec ${join(bin, 'codex')} 600`] });
  await attributed(w.id, 'claude-code');
  await d.ok(['set-agent-state', '-w', 'swap', 'working', '-m', 'claude at work']);
  await d.ok(['send-keys', '-w', 'swap', 'Enter']);
  const a = await attributed(w.id, 'codex');
  assert.is(a.state, 'unknown', 'the one state that cannot describe the wrong process');
  const mine = evs.filter((e) => e.window_id === w.id);
  assert.ok(mine.some((e) => e.state === 'working' && e.harness === 'claude-code'), JSON.stringify(mine));
  const after = mine.slice(mine.findIndex((e) => e.state === 'working'));
  assert.not.ok(after.some((e) => e.state === 'none'), `no retraction: ${JSON.stringify(after)}`);
  assert.equal(after[after.length - 1], { ...after[after.length - 1]!, state: 'unknown', harness: 'codex' });
  c.close();
});

test('a reported state whose harness process is gone clears once the pane is at its shell', async () => {
  await d.ok(['new-window', '-s', 'det', 'hooked', 'sh']);
  // A "harness" (a background sh) reports for itself with its own pid, then dies without a last report.
  await d.ok(['send-text', '-w', 'hooked', `sh -c '${process.execPath} ${BIN} set-agent-state working --harness-pid $$ && echo REPOR""TED; exec sleep 600' &\n`]);
  await d.waitScreen('hooked', /REPORTED/);
  const before = (await stateOf(d, 'hooked')) as AgentState & { harness_pid: number | null };
  assert.is(before.state, 'working');
  assert.ok(before.harness_pid, 'the harness process is recorded');
  await d.ok(['send-text', '-w', 'hooked', `kill -9 ${before.harness_pid}\n`]);
  await waitState(d, 'hooked', 'none', { timeout: 20_000, what: 'the report of a dead harness to clear' });
});

test.run();
