import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Bus, type BusEvent } from '../../core/bus.js';
import { Model, type PaneStarter } from '../../core/model/model.js';
import { AgentStore } from '../../core/agent-state/store.js';
import type { Window } from '../../core/model/window.js';
import { MetaTable, checkMetaCall } from '../../core/agent-state/meta.js';
import { META_KEYS_PER_PANE } from '../../core/limits.js';
import { nullLogger } from '../../core/log.js';
import { waitFor } from '../helpers/wait.js';

// Windows without processes: the store reads only their output counter and ids.
const starter: PaneStarter = {
  prepare: (_s, spec) => ({ name: spec.name ?? 'w', argv: ['x'], startCwd: '/', cols: 80, rows: 24, scrollback: 10, isShell: false, env: {} }),
  start: () => {},
};

function setup(stallMs = 0, lastLook?: (w: Window) => boolean) {
  const bus = new Bus();
  const model = new Model(bus, nullLogger, starter, '/');
  const store = new AgentStore({ bus, model, log: nullLogger, stallMs, lastLook });
  const s = model.createSession({ name: 's' });
  const w = model.createWindow(s, { name: 'a' });
  const published: Array<BusEvent<'agent-state'>> = [];
  bus.on('agent-state', (e) => published.push(e));
  return { bus, model, store, w, published };
}

test('the edge filter: only a change of (harness, state, kind, message) is published', () => {
  const { store, w, published } = setup();
  store.report(w, { state: 'working', message: 'Bash: make' });
  for (let i = 0; i < 50; i++) store.report(w, { state: 'working', message: 'Bash: make' });
  assert.is(published.length, 1);
  store.report(w, { state: 'working', message: 'Bash: make test' });
  store.report(w, { state: 'working', message: 'Bash: make test', harness: 'claude-code' });
  assert.is(published.length, 3);
  store.report(w, { state: 'needs_input', message: 'approve Bash: rm' });
  assert.is(published[3]!.kind, 'approval');
  assert.is(published[3]!.old_state, 'working');
});

test('a look that reads back its claim publishes nothing; output alone publishes nothing', () => {
  const { store, w, published } = setup();
  store.attribute(w, 'claude-code', 'manifest');
  store.look(w, 'screen', { state: 'working' });
  const n = published.length;
  for (let i = 0; i < 20; i++) {
    w.outputBytes += 1000;
    store.look(w, 'screen', { state: 'working' });
  }
  assert.is(published.length, n);
});

test('none clears the state, the attribution and the metadata', () => {
  const { store, w } = setup();
  store.report(w, { state: 'working', harness: 'codex' });
  store.setMeta(w, { model: 'gpt' }, 'report', null);
  store.report(w, { state: 'none' });
  const i = store.info(w);
  assert.is(i.state, 'none');
  assert.is(i.harness_id, null);
  assert.equal(i.meta, {});
  assert.is(store.holdsAgent(w), false);
});

test('needs_you, ready, blocked_by and confidence in the info', () => {
  const { store, w } = setup();
  store.report(w, { state: 'needs_input', message: 'Which database?' , harness: 'gemini-cli' });
  const i = store.info(w);
  assert.equal([i.needs_you, i.ready, i.blocked_by, i.identity, i.confidence], [true, false, 'question', 'report', 'certain']);
  store.report(w, { state: 'needs_input', message: 'log in please', kind: 'auth' });
  assert.is(store.info(w).blocked_by, 'auth');
  store.report(w, { state: 'needs_input' });
  assert.is(store.info(w).blocked_by, '', 'an empty message says nothing');
});

test('the stall: a working pane that goes quiet is demoted (idle with no screen tier, unknown with one)', async () => {
  const a = setup(150);
  a.store.report(a.w, { state: 'working' });
  await waitFor(() => a.store.stateOf(a.w) === 'idle', { timeout: 10_000, what: 'the stall demotion' });
  assert.is(a.store.info(a.w).source, 'stall');
  const b = setup(150, () => false);
  b.store.report(b.w, { state: 'working' });
  await waitFor(() => b.store.stateOf(b.w) === 'unknown', { timeout: 10_000, what: 'the demotion to unknown' });
  const c = setup(150, () => true); // the screen answered: left alone
  c.store.report(c.w, { state: 'needs_input', message: 'q' });
  c.store.report(c.w, { state: 'working' });
  await new Promise((r) => setTimeout(r, 400));
  assert.is(c.store.stateOf(c.w), 'working');
});

test('the stall: output keeps a working pane busy; the silence clock starts at the last output', async () => {
  const a = setup(300);
  a.store.report(a.w, { state: 'working' });
  const t0 = Date.now();
  let demoted = false;
  // Output flows for three silence windows.
  await waitFor(() => {
    a.w.lastOutputAt = Date.now();
    if (a.store.stateOf(a.w) !== 'working') demoted = true;
    return demoted || Date.now() - t0 > 900;
  }, { interval: 30, timeout: 10_000 });
  assert.not.ok(demoted, 'printing reads as busy');
  const quiet = Date.now();
  await waitFor(() => a.store.stateOf(a.w) === 'idle', { timeout: 10_000, what: 'the demotion once output stops' });
  assert.ok(Date.now() - quiet >= 250, 'demoted a silence window after the last output');
});

test('finished_unread: true at rest after a finished turn, until a person looks', () => {
  const { store, w } = setup();
  store.report(w, { state: 'working' });
  store.report(w, { state: 'done' });
  assert.equal([store.info(w).completion_seq, store.info(w).finished_unread], [1, true]);
  store.markSeen(w);
  assert.is(store.info(w).finished_unread, false);
  store.report(w, { state: 'working' });
  store.report(w, { state: 'done', message: 'again' });
  assert.is(store.info(w).finished_unread, true);
  store.report(w, { state: 'working' });
  assert.is(store.info(w).finished_unread, false, 'not while it works');
});

test('metadata: per-call and per-pane limits, values cut, same value changes nothing, TTL expiry', () => {
  assert.not.ok(checkMetaCall(Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v']))).ok);
  assert.not.ok(checkMetaCall({ now: 'x' }).ok);
  assert.not.ok(checkMetaCall({ '1bad': 'x' }).ok);
  assert.ok(checkMetaCall({ model: 'opus', context: '42%' }).ok);
  const t = new MetaTable();
  assert.equal(t.set({ model: 'opus\u001b[31m' + 'x'.repeat(100) }, 's', null, 0), { changed: true });
  assert.is(t.toJSON().model!.length, 80);
  assert.equal(t.set({ model: 'opus' + '[31m' + 'x'.repeat(100) }, 's', null, 0), { changed: false });
  for (let i = 0; i < META_KEYS_PER_PANE - 1; i++) t.set({ [`k${i}`]: 'v' }, 's', null, 0);
  assert.ok('error' in t.set({ extra: 'v' }, 's', null, 0));
  t.reset();
  t.set({ a: '1' }, 's', 1000, 0);
  t.set({ a: '1' }, 's', 1000, 400); // more than half left: not renewed
  assert.is(t.nextExpiry(), 1000);
  t.set({ a: '1' }, 's', 1000, 600); // less than half left: renewed
  assert.is(t.nextExpiry(), 1600);
  assert.ok(t.expire(1600));
  assert.equal(t.toJSON(), {});
});

test('one look of both tiers is one write: one event, with the source that stands after both', () => {
  const { store, w, published } = setup();
  store.attribute(w, 'codex', 'manifest', true);
  const n = published.length;
  store.lookTiers(w, { state: 'working' }, { state: 'working' });
  assert.is(published.length, n + 1, 'the screen half and the title half publish once');
  assert.is(published.at(-1)!.source, 'osc');
  assert.is(store.info(w).source, 'osc');
  store.lookTiers(w, 'keep', null);
  assert.is(published.length, n + 1, 'the title withdrawn: the screen still says working');
});

test('list-agents names the source of the change published: another tier agreeing later changes neither', () => {
  const { store, w, published } = setup();
  store.attribute(w, 'claude-code', 'manifest', true);
  store.look(w, 'screen', { state: 'working' });
  assert.is(published.at(-1)!.source, 'screen');
  const n = published.length;
  // The title's spinner arrives a look later: the same state, nothing to publish, and the row keeps saying screen.
  store.look(w, 'osc:title', { state: 'working' });
  assert.is(published.length, n);
  assert.is(store.info(w).source, 'screen');
  assert.is(store.info(w).state, 'working');
  // The next change is published with the source that stands for it, and the row says the same.
  store.look(w, 'osc:title', { state: 'idle' });
  store.look(w, 'screen', { state: 'idle' });
  assert.is(published.at(-1)!.state, 'idle');
  assert.is(store.info(w).source, published.at(-1)!.source);
});

test('a report taking over a state the tiers read is published, and the row says report', () => {
  const { store, w, published } = setup();
  store.attribute(w, 'claude-code', 'manifest', true);
  store.look(w, 'screen', { state: 'idle' });
  const n = published.length;
  store.report(w, { state: 'idle' });
  assert.is(published.length, n + 1);
  assert.equal([published.at(-1)!.old_state, published.at(-1)!.state, published.at(-1)!.source], ['idle', 'idle', 'report']);
  assert.is(store.info(w).source, 'report');
});

test('subagents in the store: subagent_list in the info, a lead done while they run stays done, tool calls pushed at most 4 a second a session, a finished one goes after its minute', async () => {
  let t = 1_000_000;
  const bus = new Bus();
  const model = new Model(bus, nullLogger, starter, '/');
  const store = new AgentStore({ bus, model, log: nullLogger, stallMs: 0, clock: { now: () => t } });
  const s = model.createSession({ name: 's' });
  const w = model.createWindow(s, { name: 'lead' });
  const pushes: number[] = [];
  bus.on('agent-meta', () => pushes.push(Date.now()));
  store.report(w, { state: 'working', harness: 'claude-code' });
  store.subagentActivity(w, 'subagent_update', { agent_type: 'Explore', text: 'Map the callers', status: 'running' });
  assert.is(store.subagentActivity(w, 'subagent_start', { agent_id: 'a1', agent_type: 'Explore' }), 'changed');
  store.report(w, { state: 'done', message: 'Handed off.' });
  let info = store.info(w) as { state: string; subagents: number; subagent_list: Array<{ description: string; state: string }> };
  assert.equal([info.state, info.subagents, info.subagent_list[0]!.description, info.subagent_list[0]!.state], ['done', 1, 'Map the callers', 'running']);
  // A burst of tool calls: the first is pushed at once, the rest wait for the next quarter second, together.
  const before = pushes.length;
  for (let i = 0; i < 20; i++) store.subagentActivity(w, 'subagent_update', { agent_id: 'a1', text: `Read: f${i}`, call: 'start' });
  assert.is(pushes.length - before, 1);
  await waitFor(() => pushes.length - before === 2 || null, { timeout: 5000, what: 'the held push' });
  info = store.info(w) as typeof info;
  assert.is((info.subagent_list[0] as unknown as { now: string }).now, 'Read: f19', 'the held push carries the newest call');
  store.subagentActivity(w, 'subagent_stop', { agent_id: 'a1', text: 'Found them.' });
  t += 60_000;
  assert.is((store.info(w) as typeof info).subagent_list.length, 1, 'read before its timer: still there');
  store.subagentActivity(w, 'subagent_update', { agent_id: 'zz', text: 'x', call: 'start' });
  assert.is((store.info(w) as typeof info).subagent_list.length, 0, 'gone after its minute');
  store.dispose();
});

test.run();
