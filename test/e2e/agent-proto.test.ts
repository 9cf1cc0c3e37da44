// start-agent --protocol acp against a real daemon and a real agent-proto, the agent being the
// small ACP program of test/helpers/acp-agent.mjs (scripted, or hostile): the state sequence and
// the metadata keys from `subscribe`, a permission answered in the pane and one from the Inbox, a
// cancelled turn, a failed turn, an agent that exits, and a hostile agent whose escape sequences,
// unknown requests and flood reach neither the pane's state, title nor clipboard. The real
// opencode is agent-proto-opencode's.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { TestDaemon, ROOT } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import type { RpcClient } from '../../core/rpc/client.js';

interface Ev {
  type: string;
  window_id?: string;
  state?: string;
  source?: string;
  message?: string;
  kind?: string;
  meta?: Record<string, string>;
}
interface InboxItem {
  id: number;
  kind: string;
  window_id: string | null;
  summary: string;
  held?: boolean;
  ref: Record<string, string>;
}

let d: TestDaemon;
let person: RpcClient;
let nonce = '';
const evs: Ev[] = [];
const AGENT = join(ROOT, 'test', 'helpers', 'acp-agent.mjs');
const cmd = (mode: string) => `${process.execPath} ${AGENT} ${mode}`;

test.before(async () => {
  d = await TestDaemon.start({ env: { TUIOS_AGENT_STALL_SECONDS: '0' } });
  const c = await d.client();
  await c.stream('subscribe', { types: ['agent-state', 'agent-meta', 'notification'] }, (e) => evs.push(e as Ev));
  // The person: a control client attached from outside every pane, looking at a session of its own.
  await d.ok(['new-session', 'person']);
  person = await d.client();
  const att = await person.stream<{ nonce: string | null }>('attach', { mode: 'control', session: 'person' }, () => {});
  nonce = att.nonce ?? '';
});

test.after(async () => {
  person?.close();
  await d.stop();
});

const statesOf = (w: string, from = 0) => evs.slice(from).filter((e) => e.type === 'agent-state' && e.window_id === w).map((e) => e.state);
const metaOf = (w: string) => [...evs].reverse().find((e) => e.type === 'agent-meta' && e.window_id === w)?.meta ?? {};
const stateNow = async (w: string) => (await d.call<{ state: string; source: string | null; message: string; kind: string; meta: Record<string, string>; protocol?: string }>('get-agent-state', { window: w }));
const waitState = (w: string, state: string, what: string) => waitFor(async () => ((await stateNow(w)).state === state ? true : null), { timeout: 30_000, what });

async function start(name: string, mode: string, prompt?: string): Promise<{ window_id: string; state: string; ready: boolean; harness: string; protocol?: string; prompt_status?: string }> {
  const r = await d.cli(['start-agent', '--protocol', 'acp', cmd(mode), '--name', name, '-s', 'agents', ...(prompt ? ['--prompt', prompt] : []), '--json']);
  assert.is(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

async function typeLine(w: string, text: string): Promise<void> {
  await d.ok(['send-keys', '-w', w, '-l', text]);
  await d.ok(['send-keys', '-w', w, 'Enter']);
}

test('start-agent --protocol acp: ready on the pane\'s report, model in the first line, a turn to done with its metadata', async () => {
  await d.ok(['new-session', 'agents']);
  const from = evs.length;
  const r = await start('fake', 'scripted', 'say hello');
  // The prompt was typed once the pane reported idle, and taken: it reported working at once.
  assert.is(r.protocol, 'acp');
  assert.is(r.harness, 'acp');
  assert.is(r.prompt_status, 'taken');
  await waitState(r.window_id, 'done', 'the turn to end');
  await waitFor(() => (metaOf(r.window_id).plan ? true : null), { timeout: 20_000, what: 'the plan key' });
  assert.equal(statesOf(r.window_id, from), ['idle', 'working', 'done']);
  for (const e of evs.slice(from).filter((x) => x.type === 'agent-state' && x.window_id === r.window_id)) assert.is(e.source, 'report');
  const s = await stateNow(r.window_id);
  assert.is(s.message, 'All done here.');
  assert.is(s.protocol, 'acp');
  const m = metaOf(r.window_id);
  assert.is(m.model, 'Fake Model');
  assert.is(m.context, '27% ctx');
  assert.is(m.cost, '$0.42');
  assert.is(m.plan, 'plan 1/2');
  assert.is(m.now, undefined, 'a finished turn leaves no now');
  const screen = await d.screen(r.window_id);
  assert.match(screen, /connected to fake-acp 0\.1 \(Fake Model\)/);
  assert.match(screen, /All done here\.\s*\n\s*Second line\./);
  const list = await d.json<{ agents: Array<{ window_id: string; protocol?: string }> }>(['list-agents', '--json']);
  assert.is(list.agents.find((a) => a.window_id === r.window_id)?.protocol, 'acp');
  const text = await d.ok(['list-agents']);
  assert.match(text, /fake\s+\S+\s+acp\s+done/);
});

test('a permission answered in the pane: needs_input with its line, a digit after half a second, working, done', async () => {
  const r = await start('perm', 'scripted');
  assert.is(r.state, 'idle');
  assert.is(r.ready, true, 'ready on the pane\'s idle report');
  const from = evs.length;
  await typeLine(r.window_id, 'perm please');
  await waitState(r.window_id, 'needs_input', 'the permission');
  const s = await stateNow(r.window_id);
  assert.is(s.kind, 'approval');
  assert.is(s.message, 'touch hello.txt');
  const shown = Date.now();
  await d.waitScreen(r.window_id, /2 Always allow/);
  // A pasted digit and Enter never answer (a digit too soon is the unit test's: on a loaded box the
  // keys may arrive after the half second).
  await d.ok(['send-keys', '-w', r.window_id, 'Enter']);
  await d.call('send-text', { window: r.window_id, text: '2' });
  await waitFor(() => (Date.now() - shown > 200 ? true : null), { timeout: 5000 });
  assert.is((await stateNow(r.window_id)).state, 'needs_input', 'nothing answered too early');
  await waitFor(() => (Date.now() - shown > 700 ? true : null), { timeout: 5000, what: 'half a second on screen' });
  await d.ok(['send-keys', '-w', r.window_id, '2']);
  await waitState(r.window_id, 'done', 'the turn to end');
  assert.equal(statesOf(r.window_id, from), ['working', 'needs_input', 'working', 'done']);
  assert.match(await d.screen(r.window_id), /answered: Always allow[\s\S]*permission answered: always/);
});

test('a one-line permission held for the Inbox and allowed from it: the pane says who answered', async () => {
  const r = await start('inbox', 'scripted');
  await typeLine(r.window_id, 'perm please');
  const item = await waitFor(async () => (await d.call<{ items: InboxItem[] }>('list-attention')).items.find((i) => i.window_id === r.window_id && i.held && i.ref.request_id), { timeout: 30_000, what: 'the held approval' });
  assert.is(item.kind, 'approval');
  assert.is(item.ref.line, 'approve run: touch hello.txt');
  assert.is(item.ref.offers, '1,3');
  await waitFor(async () => {
    try {
      return await person.call('reply-approval', { request_id: item.ref.request_id, answer: '1', line: item.ref.line, nonce });
    } catch (e) {
      if (/just arrived/.test((e as Error).message)) return null;
      throw e;
    }
  }, { timeout: 5000, what: 'the answer to be taken' });
  await waitState(r.window_id, 'done', 'the turn to end');
  assert.match(await d.screen(r.window_id), /answered from the Inbox by the person: Allow once[\s\S]*permission answered: once/);
});

test('a cancelled turn reports idle; a failed turn errored with why; an agent that exits errored', async () => {
  const r = await start('turns', 'scripted');
  await typeLine(r.window_id, 'slow please');
  await waitState(r.window_id, 'working', 'the turn to start');
  await d.waitScreen(r.window_id, /working slowly/);
  await d.ok(['send-keys', '-w', r.window_id, 'C-c']);
  await waitState(r.window_id, 'idle', 'the cancel');
  // The line is drawn through the pane's emulator, whose parse may finish after the state is set.
  await d.waitScreen(r.window_id, /turn cancelled/);
  await typeLine(r.window_id, 'fail please');
  await waitState(r.window_id, 'errored', 'the failure');
  assert.match((await stateNow(r.window_id)).message, /the model API answered 500/);
  await typeLine(r.window_id, 'exit please');
  await waitFor(async () => (/exited with code 3/.test((await stateNow(r.window_id)).message) ? true : null), { timeout: 30_000, what: 'the exit' });
  assert.is((await stateNow(r.window_id)).state, 'errored');
});

test('an agent that does not start: errored, and start-agent is not ready on it', async () => {
  const r = await d.cli(['start-agent', '--protocol', 'acp', `${process.execPath} -e process.exit(4)`, '--name', 'dead', '-s', 'agents', '--timeout', '20000', '--json']);
  assert.is(r.code, 0, r.stderr);
  const res = JSON.parse(r.stdout);
  assert.is(res.ready, false);
  await waitState(res.window_id, 'errored', 'the failed start');
});

test('a hostile agent: escape sequences, unknown requests and a flood reach neither state, title nor clipboard', async () => {
  const r = await start('hostile', 'hostile');
  const from = evs.length;
  const cap0 = await d.call<{ title: string }>('capture-pane', { window: r.window_id });
  await typeLine(r.window_id, 'hello');
  await waitState(r.window_id, 'done', 'the hostile turn to end');
  const screen = await d.waitScreen(r.window_id, /codes: /);
  // Every request the client never advertised was answered method not found.
  assert.match(screen, /codes: -32601,-32601,-32601,-32601/);
  assert.equal(statesOf(r.window_id, from), ['working', 'done']);
  for (const e of evs.slice(from).filter((x) => x.type === 'agent-state' && x.window_id === r.window_id)) assert.is(e.source, 'report');
  const cap = await d.call<{ lines: string[]; title: string }>('capture-pane', { window: r.window_id, escapes: true });
  assert.is(cap.title, cap0.title, 'the title is unchanged');
  assert.not.match(cap.title, /owned-title|flood-title/);
  // No sequence reached the pane's terminal: no colour from the C1 CSI, no notification, and the
  // OSC 52 payload is not in the pane (the clipboard is written by nothing the pane drew).
  assert.not.match(cap.lines.join('\n'), /\x1b\[[0-9;]*31m/);
  // The flood scrolled it off the screen; the turn's first line is the done message, cleaned.
  assert.is((await stateNow(r.window_id)).message, 'title clip state csi bell c1 end');
  assert.not.match(screen, /aGVsbG8/);
  assert.is(evs.slice(from).filter((e) => e.type === 'notification').length, 0, 'no notification');
  assert.ok(await d.answers(), 'the daemon is up');
});

test.run();
