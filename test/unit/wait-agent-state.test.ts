// wait-for agent-state over the real store and bus (no PTY): satisfied by a transition, never by
// a level, and a transition whose event was missed is recovered by the re-read (ADR-0076 point 5).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Bus } from '../../core/bus.js';
import { Model, type PaneStarter } from '../../core/model/model.js';
import { AgentStore } from '../../core/agent-state/store.js';
import { nullLogger } from '../../core/log.js';
import { waitFor as waitVerb } from '../../core/verbs/wait-for.js';
import type { WaitParams } from '../../core/verbs/wait.js';
import type { VerbContext } from '../../core/rpc/verb.js';
import type { Services } from '../../core/daemon/services.js';
import type { Window } from '../../core/model/window.js';

const starter: PaneStarter = {
  prepare: (_s, spec) => ({ name: spec.name ?? 'w', argv: ['x'], startCwd: '/', cols: 80, rows: 24, scrollback: 10, isShell: false, env: {} }),
  start: () => {},
};

function setup() {
  const bus = new Bus();
  const model = new Model(bus, nullLogger, starter, '/');
  const agents = new AgentStore({ bus, model, log: nullLogger, stallMs: 0 });
  const w = model.createWindow(model.createSession({ name: 's' }), { name: 'a' });
  const svc = { bus, model, agents } as unknown as Services;
  const wait = (window: Window, params: Partial<WaitParams>) =>
    waitVerb.run({ params: { condition: 'agent-state', ...params } as WaitParams, svc, window, session: null, signal: new AbortController().signal } as unknown as VerbContext<WaitParams>) as Promise<Record<string, unknown>>;
  return { agents, w, wait };
}

test('a transition whose event was missed is recovered by the re-read', async () => {
  const { agents, w, wait } = setup();
  agents.report(w, { state: 'working' });
  const p = wait(w, { until: ['idle'], timeout: 20_000 });
  // The record changes without a commit: no event is published, as if the listener missed it.
  agents.recordOf(w)!.apply({ origin: 'report', state: 'idle' });
  const r = await p;
  assert.is(r.state, 'idle');
  assert.is(r.baseline, 'working');
  assert.is(r.matched_by, 'poll');
});

test('an observed event completes it at once', async () => {
  const { agents, w, wait } = setup();
  agents.report(w, { state: 'working' });
  const p = wait(w, { until: ['idle', 'done'], timeout: 20_000 });
  agents.report(w, { state: 'done' });
  const r = await p;
  assert.equal([r.state, r.matched_by, r.transition_observed], ['done', 'transition', true]);
});

test('a level is never a transition: a pane resting in the target times out and says so', async () => {
  const { agents, w, wait } = setup();
  agents.report(w, { state: 'idle' });
  const e = await wait(w, { until: ['idle'], timeout: 1500 }).then(() => null, (x: Error & { code?: string }) => x);
  assert.is(e?.code, 'timeout');
  assert.match(e!.message, /already idle/);
});

test('a move through states outside the set does not end it; the agent leaving does, with not_found', async () => {
  const { agents, w, wait } = setup();
  agents.report(w, { state: 'working' });
  const p = wait(w, { until: ['done'], timeout: 20_000 }).then(() => null, (x: Error & { code?: string }) => x);
  agents.report(w, { state: 'needs_input', message: 'q' });
  agents.report(w, { state: 'none' });
  const e = await p;
  assert.is(e?.code, 'not_found');
  assert.match(e!.message, /agent left/);
});

test.run();
