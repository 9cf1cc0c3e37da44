// wait-for agent-state: satisfied by an observed transition into a target state, never by a
// level (ADR-0076 point 5). It listens first, records each pane's baseline, and completes only
// on a change after it; an edge missed by the listener is recovered by re-reading on a cadence.
import { z } from 'zod';
import type { WaitParams } from './wait.js';
import { TuiosError } from '../errors.js';
import type { VerbContext } from '../rpc/verb.js';
import type { Window } from '../model/window.js';
import { STATES, type AgentState } from '../agent-state/state.js';
import { agentPanes, selectorRow } from './agents.js';
import { parseSelector, matches } from '../agent-state/selector.js';

/** wait-for agent-state: the pane whose transition ended the wait (with --every, each pane that moved). */
export const stateWaitSchema = z.object({
  window_id: z.string(),
  name: z.string(),
  state: z.enum(STATES),
  baseline: z.enum(STATES),
  transition_observed: z.literal(true),
  matched_by: z.enum(['transition', 'poll']),
  waited_ms: z.number().int(),
  panes: z.array(z.object({ window_id: z.string(), name: z.string(), state: z.enum(STATES) })).optional(),
});

export type StateWaitResult = z.input<typeof stateWaitSchema>;

/** The re-read that heals a missed event: level-triggered recovery of an edge. */
const RECHECK_MS = 1000;
const DEFAULT_UNTIL: AgentState[] = ['idle', 'done', 'needs_input'];

interface Watched {
  w: Window;
  baseline: AgentState;
  last: AgentState;
  done: boolean;
}

export async function waitAgentState(ctx: VerbContext<WaitParams>, deadline: number): Promise<StateWaitResult> {
  const { svc, params } = ctx;
  const until = new Set<AgentState>((params.until as AgentState[] | undefined) ?? DEFAULT_UNTIL);
  const sel = params.select ? parseSelector(params.select) : null;
  if (params.every && !sel) throw new TuiosError('invalid_params', '--every needs --select.', undefined, { field: 'every' });
  const started = Date.now();
  const watched = new Map<string, Watched>();
  const watch = (w: Window) => {
    if (watched.has(w.id)) return;
    const s = svc.agents.stateOf(w);
    watched.set(w.id, { w, baseline: s, last: s, done: false });
  };

  if (sel) {
    for (const w of agentPanes(svc, { select: params.select })) watch(w);
  } else {
    const w = ctx.window;
    if (!w) throw new TuiosError('window_not_found', 'wait-for agent-state needs a window.', 'Name one with -w, or use --select.');
    watch(w);
  }

  return new Promise((resolve, reject) => {
    const subs: Array<{ dispose(): void }> = [];
    let finished = false;
    const cleanup = () => {
      finished = true;
      for (const s of subs) s.dispose();
      clearTimeout(timer);
      clearInterval(poll);
      ctx.signal.removeEventListener('abort', onAbort);
    };
    const complete = (x: Watched, matchedBy: 'transition' | 'poll') => {
      x.done = true;
      if (params.every && [...watched.values()].some((o) => !o.done)) return;
      cleanup();
      const panes = [...watched.values()].filter((o) => o.done);
      const one = { window_id: x.w.id, name: x.w.name, state: x.last, baseline: x.baseline, transition_observed: true as const, matched_by: matchedBy, waited_ms: Date.now() - started };
      resolve(params.every ? { ...one, panes: panes.map((o) => ({ window_id: o.w.id, name: o.w.name, state: o.last })) } : one);
    };
    const see = (x: Watched, state: AgentState, by: 'transition' | 'poll') => {
      if (finished || x.done || state === x.last) return;
      const prev = x.last;
      x.last = state;
      if (state === 'none' && prev !== 'none') {
        if (sel && !params.every) return; // one pane leaving does not end a wait over many
        cleanup();
        reject(new TuiosError('not_found', `The agent left ${x.w.name} (its state is none) while the wait ran.`));
        return;
      }
      if (until.has(state)) complete(x, by);
    };
    subs.push(
      svc.bus.on('agent-state', (ev) => {
        const x = watched.get(ev.window_id);
        if (x) see(x, ev.state, 'transition');
        else if (sel) {
          const w = svc.model.windows.get(ev.window_id);
          if (w && matches(sel, selectorRow(w, svc))) {
            watched.set(w.id, { w, baseline: ev.old_state, last: ev.old_state, done: false });
            see(watched.get(w.id)!, ev.state, 'transition');
          }
        }
      }),
      svc.bus.on('window-closed', (ev) => {
        const x = watched.get(ev.window_id);
        if (!x || finished) return;
        if (sel && !params.every) {
          watched.delete(ev.window_id);
          return;
        }
        cleanup();
        reject(new TuiosError('window_not_found', `The window ${x.w.name} closed while the wait ran.`));
      }),
    );
    const poll = setInterval(() => {
      for (const x of watched.values()) if (!x.w.closed) see(x, svc.agents.stateOf(x.w), 'poll');
    }, RECHECK_MS);
    poll.unref();
    const timer = setTimeout(() => {
      cleanup();
      const resting = [...watched.values()].filter((x) => x.last === x.baseline && until.has(x.baseline));
      const names = [...until].join(', ');
      if (resting.length > 0) {
        const x = resting[0]!;
        reject(new TuiosError('timeout', `${x.w.name} was already ${x.baseline} when the wait began and did not move; a wait completes on a transition into ${names}, never on a level.`, 'To act on the state as it is, read it with get-agent-state.'));
      } else {
        reject(new TuiosError('timeout', `No transition into ${names} within ${deadline - started} ms.`));
      }
    }, Math.max(0, deadline - Date.now()));
    const onAbort = () => {
      cleanup();
      reject(new TuiosError('timeout', 'The caller went away.'));
    };
    ctx.signal.addEventListener('abort', onAbort);
    if (watched.size === 0 && !sel) {
      cleanup();
      reject(new TuiosError('not_found', 'No pane to wait on.'));
    }
  });
}

