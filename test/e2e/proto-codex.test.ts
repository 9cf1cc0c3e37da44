// `tuios start-agent --protocol codex codex` with the real Codex (0.171.0 from npm) against the
// fake OpenAI Responses API: the pane's process is tuios agent-proto, which speaks to
// `codex app-server` over its JSON-RPC. Through a turn whose permission is answered once from the
// pane and once from the Inbox, a cancelled turn, a failed turn and an agent that exits, the
// state sequence and the metadata keys are asserted from `subscribe`; and the time from Codex's
// turn/completed leaving it to the daemon's `done` event reaching a subscriber is measured.
//
// `codex` on the pane's PATH is a wrapper: node test/helpers/codex-tee.mjs in front of the real
// binary, which logs when each turn/completed leaves Codex, with model retries off (a failed
// turn fails at once). The command start-agent runs is `codex`, as a person types it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TestDaemon } from '../helpers/daemon.js';
import { agentHome, ensureAgent, killProcessesUsing, pidsUsing, screenText, type AgentRun, type InstalledAgent } from '../helpers/agents.js';
import { startFakeOpenAI, type FakeApi } from '../fake-apis/openai.js';
import { prerequisite } from '../helpers/prereq.js';
import { waitFor } from '../helpers/wait.js';
import type { RpcClient } from '../../core/rpc/client.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const TEE = join(HERE, '..', 'helpers', 'codex-tee.mjs');

interface Ev {
  type: string;
  window_id?: string;
  state?: string;
  kind?: string;
  message?: string;
  source?: string | null;
  meta?: Record<string, string>;
  at: number;
}

const t = suite('agent-proto: Codex app-server');
const codex = prerequisite('@openai/codex 0.171.0 installed from npm');
const it = codex.gate(t);
let agent: InstalledAgent;
let api: FakeApi;
let run: AgentRun;
let d: TestDaemon;
let stream: RpcClient | null = null;
let person: RpcClient | null = null;
let nonce = '';
let window = '';
let base = '';
let teeLog = '';
const events: Ev[] = [];

const states = (from = 0) => events.slice(from).filter((e) => e.type === 'agent-state' && e.window_id === window);
const metaNow = () => {
  const m = events.filter((e) => e.type === 'agent-meta' && e.window_id === window).pop();
  return m?.meta ?? {};
};
const waitEvent = (what: string, pred: (e: Ev) => boolean, from = 0, timeout = Number(process.env.PROTO_E2E_WAIT_MS ?? 120_000)) =>
  waitFor(() => events.slice(from).find((e) => e.window_id === window && pred(e)), { timeout, what }).catch(async (e) => {
    const row = await d.call('get-agent-state', { window }).catch((x: Error) => x.message);
    throw new Error(`${(e as Error).message}\nstates: ${states(from).map((s) => `${s.state}(${s.source}) ${s.message ?? ''}`).join(' → ')}\nlast events: ${JSON.stringify(events.slice(-4))}\nrow: ${JSON.stringify(row)}\nscreen:\n${await screenText(d, window).catch(() => '')}`);
  });
const codexPids = () =>
  pidsUsing(run.home).filter((p) => {
    try {
      return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('app-server');
    } catch {
      return false;
    }
  });
const say = async (text: string) => {
  await d.ok(['send-text', '-w', window, text]);
  await d.ok(['send-keys', '-w', window, 'Enter']);
};

t.before(async () => {
  const a = ensureAgent('codex');
  if ('skip' in a) return codex.missing(a.skip);
  agent = a;
  api = await startFakeOpenAI({ command: 'touch hello.txt', finalText: 'Done! I created hello.txt.\nNothing else.' });
  // Codex warns about a home under /tmp: /var/tmp, as the capture script does.
  base = join('/var/tmp', `tuios-e2e-proto-codex-${process.pid}`);
  rmSync(base, { recursive: true, force: true });
  run = agentHome('codex', { apiUrl: api.url, cwd: join(base, 'project'), home: join(base, 'home') });
  teeLog = join(base, 'turn-completed.jsonl');
  const bin = join(base, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'codex'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(TEE)} ${JSON.stringify(teeLog)} ${JSON.stringify(a.bin)} -c model_providers.fake.request_max_retries=0 -c model_providers.fake.stream_max_retries=0 "$@"\n`);
  chmodSync(join(bin, 'codex'), 0o755);
  d = await TestDaemon.start({
    env: { CODEX_HOME: run.env.CODEX_HOME!, FAKE_API_KEY: run.env.FAKE_API_KEY!, PATH: `${bin}:${a.binDir}:${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin` },
  });
  stream = await d.client();
  await stream.stream('subscribe', { types: ['agent-state', 'agent-meta'] }, (e) => events.push({ ...(e as Omit<Ev, 'at'>), at: Date.now() }));
  person = await d.client();
  const att = await person.stream<{ nonce: string | null }>('attach', { mode: 'control' }, () => {});
  nonce = att.nonce ?? '';
});

t.after(async () => {
  stream?.close();
  person?.close();
  if (d) await d.stop();
  if (run) {
    await killProcessesUsing(run.home);
    run.cleanup();
  }
  if (api) await api.close();
  if (base) rmSync(base, { recursive: true, force: true });
});

it('start-agent --protocol codex codex: ready on the pane\'s own idle report; protocol codex; model from thread/start', async () => {
  const out = await d.call<{ window_id: string; ready: boolean; state: string; harness: string; protocol?: string }>('start-agent', { harness: 'codex', protocol: 'codex', cwd: run.cwd, name: 'codex', timeout: 120_000 });
  window = out.window_id;
  assert.is(out.ready, true);
  assert.is(out.state, 'idle');
  assert.is(out.protocol, 'codex');
  assert.is(out.harness, 'codex');
  const first = states()[0];
  assert.is(first?.state, 'idle');
  assert.is(first?.source, 'report');
  const rows = await d.call<{ agents: Array<{ window_id: string; protocol?: string }> }>('list-agents', {});
  assert.is(rows.agents.find((r) => r.window_id === window)?.protocol, 'codex');
  await waitEvent('the model key', (e) => e.type === 'agent-meta' && e.meta?.model === 'fake-model');
  assert.match(await screenText(d, window), /codex 0\.171\.0/);
});

it('a permission answered from the pane: working → needs_input (approval, the command\'s line) → working → done with the reply\'s first line; context from the token usage', async () => {
  const from = events.length;
  await say('Please create hello.txt');
  const ask = await waitEvent('needs_input', (e) => e.state === 'needs_input', from);
  assert.is(ask.kind, 'approval');
  assert.match(ask.message ?? '', /touch hello\.txt/);
  // A digit counts once the question has been on screen half a second: wait on the screen, then a bit more.
  await waitFor(async () => /1 accept/.test(await screenText(d, window)), { timeout: 30_000, what: 'the answers on screen' });
  await new Promise((r) => setTimeout(r, 700));
  assert.ok(!existsSync(join(run.cwd, 'hello.txt')), 'nothing ran before the answer');
  // A key, not send-text: a paste never answers.
  await d.ok(['send-keys', '-w', window, '1']);
  const done = await waitEvent('done', (e) => e.state === 'done', from);
  assert.is(done.message, 'Done! I created hello.txt.');
  assert.ok(existsSync(join(run.cwd, 'hello.txt')), 'the command ran');
  assert.equal(states(from).map((e) => e.state), ['working', 'needs_input', 'working', 'done']);
  assert.ok(states(from).every((e) => e.source === 'report'));
  await waitEvent('the context key', (e) => e.type === 'agent-meta' && e.meta?.context !== undefined, from);
  assert.match(metaNow().context ?? '', /^\d+%$/);
  assert.is(metaNow().cost, undefined, 'Codex sends no cost');
});

it('a permission answered from the Inbox: held one-line, allow once from the attached client, the command runs', async () => {
  api.setCommand('touch second.txt');
  const from = events.length;
  await say('Please create second.txt');
  await waitEvent('needs_input', (e) => e.state === 'needs_input', from);
  const item = await waitFor(async () => {
    const l = await d.call<{ items: Array<{ id: number; window_id: string | null; held?: boolean; kind: string; ref: Record<string, string> }> }>('list-attention');
    return l.items.find((i) => i.window_id === window && i.held && i.ref.request_id);
  }, { timeout: 60_000, what: 'the held approval in the Inbox' });
  assert.is(item.kind, 'approval');
  assert.match(item.ref.line ?? '', /touch second\.txt/);
  await waitFor(async () => {
    try {
      return await person!.call('reply-approval', { request_id: item.ref.request_id, answer: '1', line: item.ref.line, nonce });
    } catch (e) {
      if (/just arrived/.test((e as Error).message)) return null;
      throw e;
    }
  }, { timeout: 10_000, what: 'the answer to be taken' });
  await waitEvent('done', (e) => e.state === 'done', from);
  assert.ok(existsSync(join(run.cwd, 'second.txt')), 'the command ran');
  assert.match(await screenText(d, window), /answered from the Inbox/);
  assert.equal(states(from).map((e) => e.state).filter((s, i, a) => s !== a[i - 1]), ['working', 'needs_input', 'working', 'done']);
});

it('a cancelled turn: ctrl+c sends turn/interrupt, the pane reports idle', async () => {
  api.setCommand(null);
  api.hold();
  const from = events.length;
  await say('Take your time.');
  await api.waitHeld(1, 60_000);
  await waitEvent('working', (e) => e.state === 'working', from);
  await d.ok(['send-keys', '-w', window, 'C-c']);
  await waitEvent('idle', (e) => e.state === 'idle', from);
  api.release();
  assert.equal(states(from).map((e) => e.state), ['working', 'idle']);
});

it('a failed turn: HTTP 500 from the model API, errored with Codex\'s words', async () => {
  api.failWith(500);
  const from = events.length;
  await say('Say something.');
  const err = await waitEvent('errored', (e) => e.state === 'errored', from);
  assert.match(err.message ?? '', /high demand|500|error/i);
  api.failWith(null);
  assert.equal(states(from).map((e) => e.state), ['working', 'errored']);
});

// A figure beside its goal (issue 27: p99 <= 20 ms), not a pass or fail: on the shared 2-core box
// it swings with the load beside it. The test holds each turn to its done event, in order.
it('measures turn/completed leaving Codex to the daemon\'s done event reaching a subscriber, over 30 turns', async () => {
  api.setCommand(null);
  api.setFinalText('Okay.');
  const lat: number[] = [];
  for (let i = 0; i < 30; i++) {
    const from = events.length;
    const logged = existsSync(teeLog) ? readFileSync(teeLog, 'utf8').split('\n').filter(Boolean).length : 0;
    await say(`Turn ${i}.`);
    const done = await waitEvent('done', (e) => e.state === 'done', from);
    // The tee logs the turn/completed after it passed it on, so the done event it caused can come
    // first: wait for the line rather than read a log that may not hold it yet.
    const line = await waitFor(() => (existsSync(teeLog) ? readFileSync(teeLog, 'utf8').split('\n').filter(Boolean)[logged] : undefined), { timeout: 10_000, what: `the tee's line for turn ${i}` });
    const tc = JSON.parse(line) as { forwardedAt: number; emittedAtMs: number; status: string };
    assert.is(tc.status, 'completed');
    lat.push(done.at - tc.forwardedAt);
  }
  lat.sort((a, b) => a - b);
  const p = (q: number) => lat[Math.min(lat.length - 1, Math.ceil(q * lat.length) - 1)]!;
  console.log(`# turn/completed -> done event over ${lat.length} turns: p50 ${p(0.5)} ms, p99 ${p(0.99)} ms (goal p99 <= 20 ms: ${p(0.99) <= 20 ? 'met' : 'missed'}); all: ${lat.join(' ')}`);
  assert.ok(lat.every((x) => x >= 0), 'each done event came after its turn/completed');
});

it('the agent exits: killed by pid, the pane reports errored; closing the window leaves no Codex process', async () => {
  const from = events.length;
  // Codex's processes only (the daemon has CODEX_HOME in its environment too): the wrapper, the
  // npm launcher and the native binary, each with app-server on its command line.
  const pids = codexPids();
  assert.ok(pids.length >= 2, 'codex is running');
  for (const p of pids) process.kill(p, 'SIGKILL');
  const err = await waitEvent('errored', (e) => e.state === 'errored', from);
  assert.match(err.message ?? '', /exited|killed|status/);
  await d.ok(['close-window', '-w', window]);
  await waitFor(() => codexPids().length === 0, { timeout: 20_000, what: 'no Codex process left' });
});

t.run();
