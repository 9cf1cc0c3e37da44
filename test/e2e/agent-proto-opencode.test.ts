// The real opencode from npm as an ACP agent (`opencode acp`), against the local fake Chat
// Completions API, through start-agent --protocol acp: the pane's state sequence and its metadata
// keys from `subscribe`, a shell permission answered once in the pane and once from the Inbox, a
// cancelled turn, a failed turn (the API answering 500) and an agent that exits.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestDaemon } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { agentHome, descendants, ensureAgent, startFakeFor, type AgentRun, type InstalledAgent } from '../helpers/agents.js';
import { prerequisite } from '../helpers/prereq.js';
import type { FakeApi } from '../fake-apis/common.js';
import type { RpcClient } from '../../core/rpc/client.js';

interface Ev {
  type: string;
  window_id?: string;
  state?: string;
  source?: string;
  meta?: Record<string, string>;
}
interface InboxItem {
  id: number;
  kind: string;
  window_id: string | null;
  held?: boolean;
  ref: Record<string, string>;
}

const opencode = prerequisite('opencode from npm');
const it = opencode.gate(test);
let agent: InstalledAgent;
let api: FakeApi;
let run: AgentRun;
let d: TestDaemon;
let person: RpcClient;
let nonce = '';
let project = '';
const evs: Ev[] = [];

test.before(async () => {
  const got = ensureAgent('opencode');
  if ('skip' in got) return opencode.missing(got.skip);
  agent = got;
  api = await startFakeFor('opencode', { command: 'touch hello.txt', finalText: 'Created hello.txt for you.' });
  project = mkdtempSync(join(tmpdir(), 'tuios-acp-opencode-'));
  run = agentHome('opencode', { apiUrl: api.url, cwd: project });
  // The daemon runs with the agent's home, so agent-proto and opencode under it read that config.
  d = await TestDaemon.start({ env: { ...run.env, PATH: `${agent.binDir}:${process.env.PATH ?? '/usr/bin:/bin'}`, TUIOS_AGENT_STALL_SECONDS: '0' } });
  const c = await d.client();
  await c.stream('subscribe', { types: ['agent-state', 'agent-meta'] }, (e) => evs.push(e as Ev));
  await d.ok(['new-session', 'person']);
  person = await d.client();
  nonce = (await person.stream<{ nonce: string | null }>('attach', { mode: 'control', session: 'person' }, () => {})).nonce ?? '';
  await d.ok(['new-session', '-c', project, 'agents']);
});

test.after(async () => {
  person?.close();
  await d?.stop();
  await api?.close();
  run?.cleanup();
  if (project) rmSync(project, { recursive: true, force: true });
});

let w = '';
const statesOf = (from: number) => evs.slice(from).filter((e) => e.type === 'agent-state' && e.window_id === w).map((e) => `${e.state}:${e.source}`);
const metaNow = () => [...evs].reverse().find((e) => e.type === 'agent-meta' && e.window_id === w)?.meta ?? {};
const row = () => d.call<{ state: string; message: string; kind: string; source: string | null }>('get-agent-state', { window: w });
const waitState = (state: string, what: string, timeout = 90_000) => waitFor(async () => ((await row()).state === state ? true : null), { timeout, what }).catch(async (e) => {
  throw new Error(`${(e as Error).message}\nrow: ${JSON.stringify(await row())}\nscreen:\n${await d.screen(w)}`);
});
async function typeLine(text: string): Promise<void> {
  await d.ok(['send-keys', '-w', w, '-l', text]);
  await d.ok(['send-keys', '-w', w, 'Enter']);
}

it('opencode acp opens: idle on its report, ready, the model named', async () => {
  const r = await d.cli(['start-agent', '--protocol', 'acp', 'opencode acp', '--name', 'oc', '-s', 'agents', '--cwd', project, '--timeout', '90000', '--json']);
  assert.is(r.code, 0, r.stderr);
  const res = JSON.parse(r.stdout);
  w = res.window_id;
  assert.is(res.harness, 'opencode');
  assert.is(res.protocol, 'acp');
  assert.is(res.ready, true, `ready: ${r.stdout}\n${await d.screen(w)}`);
  assert.is(res.state, 'idle');
  const s = await d.screen(w);
  assert.match(s, new RegExp(`connected to OpenCode ${agent.version.replace(/\./g, '\\.')} \\(Fake/Fake Model\\)`));
  console.log(`# opencode ${agent.version}: ${s.split('\n').find((l) => l.includes('connected')) ?? ''}`);
});

it('a turn with a shell permission answered in the pane: working, needs_input, working, done; metadata keys', async () => {
  const from = evs.length;
  await typeLine('Please create hello.txt');
  await waitState('needs_input', 'the permission');
  const q = await row();
  assert.is(q.kind, 'approval');
  const shown = await d.waitScreen(w, /permission:[\s\S]*\n\s*1 /, 30_000);
  const started = Date.now();
  await waitFor(() => (Date.now() - started > 600 ? true : null), { timeout: 5000, what: 'half a second on screen' });
  await d.ok(['send-keys', '-w', w, '1']);
  await waitState('done', 'the turn to end');
  assert.ok(existsSync(join(project, 'hello.txt')), `the allowed command ran\n${shown}`);
  const states = statesOf(from);
  assert.equal(states, ['working:report', 'needs_input:report', 'working:report', 'done:report']);
  // A CI run read the meta with context (0% ctx) and no cost yet: a usage_update without cost came first. Wait for all three keys.
  await waitFor(() => (metaNow().context && metaNow().model && metaNow().cost ? true : null), { timeout: 20_000, what: 'the model, context and cost keys' }).catch((e) => {
    throw new Error(`${(e as Error).message}\nmeta: ${JSON.stringify(metaNow())}`);
  });
  const m = metaNow();
  console.log(`# metadata after a turn: ${JSON.stringify(m)}`);
  assert.is(m.model, 'Fake/Fake Model');
  assert.match(m.context ?? '', /^\d+% ctx$/);
  assert.match(m.cost ?? '', /^\$\d+\.\d\d$/);
});

it('a one-line permission held for the Inbox and denied from it', async () => {
  api.setCommand('touch second.txt');
  const from = evs.length;
  await typeLine('Please create second.txt');
  const item = await waitFor(async () => (await d.call<{ items: InboxItem[] }>('list-attention')).items.find((i) => i.window_id === w && i.held && i.ref.request_id), { timeout: 90_000, what: 'the held approval' }).catch(async (e) => {
    throw new Error(`${(e as Error).message}\nrow: ${JSON.stringify(await row())}\nscreen:\n${await d.screen(w)}`);
  });
  assert.match(item.ref.line ?? '', /touch second\.txt/);
  await waitFor(async () => {
    try {
      return await person.call('reply-approval', { request_id: item.ref.request_id, answer: '3', line: item.ref.line, nonce });
    } catch (e) {
      if (/just arrived/.test((e as Error).message)) return null;
      throw e;
    }
  }, { timeout: 5000, what: 'the answer to be taken' });
  await waitFor(async () => ((await row()).state !== 'needs_input' ? true : null), { timeout: 60_000, what: 'the turn to go on' });
  await waitFor(async () => (['done', 'errored', 'idle'].includes((await row()).state) ? true : null), { timeout: 90_000, what: 'the turn to end' });
  assert.not.ok(existsSync(join(project, 'second.txt')), 'the denied command did not run');
  assert.match(await d.screen(w), /answered from the Inbox by the person/);
  assert.ok(statesOf(from).includes('needs_input:report'));
});

it('a cancelled turn reports idle', async () => {
  api.setCommand(null);
  api.hold();
  await typeLine('Say something slowly');
  await waitState('working', 'the turn to start');
  await api.waitHeld(1, 60_000);
  await d.ok(['send-keys', '-w', w, 'C-c']);
  await waitState('idle', 'the cancel');
  api.release();
});

it('a failed turn (the API answering 500) reports errored', async () => {
  api.failWith(500);
  await typeLine('This will fail');
  await waitState('errored', 'the failure', 120_000);
  console.log(`# failed turn: ${(await row()).message}`);
  api.failWith(null);
});

it('an agent that exits reports errored', async () => {
  const win = (await d.call<{ windows: Array<{ id: string; pid: number | null }> }>('list-windows', { session: 'agents' })).windows.find((x) => x.id === w);
  assert.ok(win?.pid, 'the pane runs agent-proto');
  // opencode is agent-proto's child, in a session of its own with no controlling terminal.
  const kids = descendants(win!.pid!, 1).filter((k) => k.depth === 1);
  assert.ok(kids.length > 0, 'opencode runs under agent-proto');
  for (const k of kids) {
    const stat = readFileSync(`/proc/${k.pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    assert.is(Number(f[3]), k.pid, 'it leads a session of its own');
    assert.is(Number(f[4]), 0, 'it has no controlling terminal');
  }
  for (const p of kids.map((k) => k.pid)) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      // gone
    }
  }
  // The failed turn left it errored already: the exit's own message says it went.
  await waitFor(async () => (/stopped by SIGKILL/.test((await row()).message) ? true : null), { timeout: 30_000, what: 'the exit' });
  assert.is((await row()).state, 'errored');
  assert.match(await d.screen(w), /the agent exited: it was stopped by SIGKILL/);
});

test.run();
