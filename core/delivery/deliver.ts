// Delivering a prompt to an agent and knowing it was taken (spec: States, the five-second take
// check; ADR-0076 points 5-6). The listeners are in place before the submit, so only a change
// after it counts. Within five seconds of the submit, a take is: a published state of working or
// needs_input; a finished turn (completion_seq goes up); the pane's own report that its agent took
// a prompt (the `prompt-started` event: a prompt-start hook, UserPromptSubmit, BeforeAgent, ..., or
// the session a prompt opened, opencode's session.created), whatever level that report left
// published, since a turn answered at once can end before working is ever published and too soon
// to count as finished; the screen's own reading of a turn or a question, drawn after the submit,
// even where a hook's claim outranks it (the hook's report can land seconds late on a loaded
// machine, and its harness has taken the prompt all the same, which the guide's "turn working"
// asks of the pane); and, for a harness whose rules cannot show working, any output. No other
// report counts (a status line's, a tool's). A pane that shows none of these did not take the
// prompt. The turn's end, for `ended`, is a finished turn, needs_input, or a move to rest after
// working was published or a prompt start reported.
import type { Window } from '../model/window.js';
import type { Bus } from '../bus.js';
import type { AgentStore } from '../agent-state/store.js';
import type { ManifestSet } from '../detection/manifest.js';

/** What delivering a prompt reads: the pane's state and harness, its manifest, the state events. */
export interface PaneWatchDeps {
  readonly agents: AgentStore;
  readonly manifests: ManifestSet;
  readonly bus: Bus;
}
import type { AgentState } from '../agent-state/state.js';
import { TuiosError } from '../errors.js';
import { TYPE_QUIET_MS, TYPE_QUIET_MAX_MS, PROMPT_TAKE_MS } from '../limits.js';
import { canShowWorking } from '../detection/rules/compile.js';
import { typePrompt, DEFAULT_INPUT, type InputSpec } from './typing.js';
import type { PromptPiece } from './image-parts.js';

export function inputOf(svc: PaneWatchDeps, w: Window): InputSpec {
  const h = svc.agents.harnessOf(w);
  const m = h ? svc.manifests.byId.get(h) : undefined;
  return m?.input ?? DEFAULT_INPUT;
}

/** A harness whose rules can show a turn in progress: output alone is not the proof of a take for it. */
export function showsWorking(svc: PaneWatchDeps, w: Window): boolean {
  const h = svc.agents.harnessOf(w);
  const m = h ? svc.manifests.byId.get(h) : undefined;
  return !!m && canShowWorking(m.rules);
}

export interface Watch {
  /** Resolves when the prompt was taken (true) or the take window passed (false). */
  taken: Promise<boolean>;
  /** Resolves when the turn ended after the submit: a finished turn or a move to rest or to a prompt. */
  ended(timeoutMs: number, signal?: AbortSignal): Promise<{ state: AgentState; how: 'turn' | 'state' | 'timeout' | 'gone' }>;
  dispose(): void;
}

/** Starts watching a pane before a submit. */
export function watchDelivery(svc: PaneWatchDeps, w: Window): Watch {
  const seq0 = svc.agents.recordOf(w)?.completionSeq ?? 0;
  const outputOnly = !showsWorking(svc, w);
  let sawWorking = false;
  let takenResolve!: (v: boolean) => void;
  const taken = new Promise<boolean>((r) => (takenResolve = r));
  let armed = false;
  let takeTimer: NodeJS.Timeout | null = null;
  const endWaiters = new Set<(r: { state: AgentState; how: 'turn' | 'state' | 'timeout' | 'gone' }) => void>();
  // An end seen before anyone waits for it (a turn that finished while the take was checked) is
  // kept, so the wait that follows returns it instead of waiting for a second transition.
  let endedEarly: { state: AgentState; how: 'turn' | 'state' | 'gone' } | null = null;
  const end = (r: { state: AgentState; how: 'turn' | 'state' | 'gone' }) => {
    if (endWaiters.size === 0) endedEarly ??= r;
    for (const f of [...endWaiters]) f(r);
  };
  const seq = () => svc.agents.recordOf(w)?.completionSeq ?? 0;
  const onState = svc.bus.on('agent-state', (ev) => {
    if (ev.window_id !== w.id) return;
    if (!armed) return;
    if (ev.state === 'working' || ev.state === 'needs_input' || seq() > seq0) takenResolve(true);
    if (ev.state === 'working') sawWorking = true;
    const finished = seq() > seq0;
    if (finished || ev.state === 'needs_input' || (sawWorking && (ev.state === 'idle' || ev.state === 'done' || ev.state === 'errored' || ev.state === 'unknown'))) {
      end({ state: ev.state, how: finished ? 'turn' : 'state' });
    }
  });
  // The agent's own report that it took a prompt: a take, and (a prompt start, not a session the
  // prompt opened) the start of the turn, even when the turn ends before working is published.
  const onPrompt = svc.bus.on('prompt-started', (ev) => {
    if (ev.window_id !== w.id || !armed) return;
    takenResolve(true);
    if (ev.turn) sawWorking = true;
  });
  // The screen drawing a turn or a question after the submit: a take even while a higher claim (a
  // hook whose report is slow on a loaded machine) keeps the published state where it was.
  const onScreen = svc.agents.onScreenReading((sw, state) => {
    if (sw.id === w.id && armed && (state === 'working' || state === 'needs_input')) takenResolve(true);
  });
  const onOut = w.onOutput(() => {
    if (armed && outputOnly) takenResolve(true);
  });
  const onClose = svc.bus.on('window-closed', (ev) => {
    if (ev.window_id !== w.id) return;
    takenResolve(false);
    end({ state: 'none', how: 'gone' });
  });
  const dispose = () => {
    onState.dispose();
    onPrompt.dispose();
    onScreen.dispose();
    onOut.dispose();
    onClose.dispose();
    if (takeTimer) clearTimeout(takeTimer);
  };
  return {
    get taken() {
      if (!armed) {
        armed = true;
        takeTimer = setTimeout(() => takenResolve(false), PROMPT_TAKE_MS);
      }
      return taken;
    },
    ended(timeoutMs, signal) {
      if (endedEarly) return Promise.resolve(endedEarly);
      return new Promise((resolve) => {
        const done = (r: { state: AgentState; how: 'turn' | 'state' | 'timeout' | 'gone' }) => {
          clearTimeout(t);
          endWaiters.delete(done);
          resolve(r);
        };
        const t = setTimeout(() => done({ state: svc.agents.stateOf(w), how: 'timeout' }), timeoutMs);
        signal?.addEventListener('abort', () => done({ state: svc.agents.stateOf(w), how: 'timeout' }));
        endWaiters.add(done);
      });
    },
    dispose,
  };
}

/** Types a prompt into an agent pane and checks it was taken. Used by ask-agent, the queue, start-agent and fan. */
export async function deliverPrompt(
  svc: PaneWatchDeps,
  w: Window,
  text: string | readonly PromptPiece[],
  recheck: () => void,
  opts: { maxBytes?: number } = {},
): Promise<{ watch: Watch; submittedAt: number; taken: boolean; preState: AgentState }> {
  await quiet(w);
  const preState = svc.agents.stateOf(w);
  const watch = watchDelivery(svc, w);
  try {
    const r = await typePrompt(w, text, inputOf(svc, w), recheck, opts.maxBytes);
    const taken = await watch.taken;
    return { watch, submittedAt: r.submittedAt, taken, preState };
  } catch (e) {
    watch.dispose();
    throw e;
  }
}

/**
 * Waits for the pane to stop painting before typing into it: a harness that has just started
 * sets its title, and so reads as at rest, before it draws its input and reads keys (Gemini CLI
 * 0.61.0 left a prompt typed then in its input box, unsubmitted). Bounded: a pane that never
 * stops printing is typed into anyway.
 */
async function quiet(w: Window): Promise<void> {
  const until = Date.now() + TYPE_QUIET_MAX_MS;
  for (;;) {
    const now = Date.now();
    const wait = w.lastOutputAt + TYPE_QUIET_MS - now;
    if (wait <= 0 || now >= until || w.closed) return;
    await new Promise((r) => setTimeout(r, Math.min(wait, until - now)));
  }
}

export function stalledError(w: Window): TuiosError {
  return new TuiosError('prompt_stalled', `${w.name} did not take the prompt: within ${PROMPT_TAKE_MS / 1000} s it neither started working, asked anything, nor finished a turn.`, 'Look at the pane: a first-run choice or a dialog no rule reads may be waiting. The text was typed once and is not typed again.', { typed: true });
}
