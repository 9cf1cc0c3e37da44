// When a pane's status line values go to the daemon (spec: The status line feed, What feeds it):
// only when a value changed, at most once every STATUSLINE_INTERVAL_MS while they keep changing,
// and at once for a model change, context use crossing STATUSLINE_CONTEXT_MARK, the first run of
// an agent, and the first run after a turn's end. What the interval holds back is kept, and the
// turn's `Stop` sends it, so a pane never shows values from up to 15 seconds before its turn ended.
// Pure: a state and a reading in, what to send and the next state out.
import { STATUSLINE_CONTEXT_MARK, STATUSLINE_INTERVAL_MS } from '../../limits.js';
import { percentOf, STATUS_KEYS, type StatusValues } from './payload.js';

export interface ThrottleState {
  /** The agent the values belong to: its conversation and its process. Another agent starts afresh. */
  agent: string;
  /** What the daemon was last sent, and when (ms since the epoch). */
  sent: StatusValues;
  sentAt: number;
  /** The latest values the interval held back, or null. */
  held: StatusValues | null;
  /** When the last turn ended (its Stop hook ran); 0 for never. */
  stopAt: number;
}

export interface Decision {
  /** The values to send now, or null. */
  send: StatusValues | null;
  /** Why, for --explain. */
  why: string;
  next: ThrottleState;
}

function changedKeys(from: StatusValues, to: StatusValues): string[] {
  return STATUS_KEYS.filter((k) => to[k] !== undefined && to[k] !== from[k]);
}

function crossesMark(from: string | undefined, to: string | undefined): boolean {
  const a = percentOf(from);
  const b = percentOf(to);
  return a !== null && b !== null && a >= STATUSLINE_CONTEXT_MARK !== b >= STATUSLINE_CONTEXT_MARK;
}

/** One status line run: its values, for the agent it names, at `now`. */
export function decide(prev: ThrottleState | null, agent: string, values: StatusValues, now: number): Decision {
  const fresh = !prev || prev.agent !== agent;
  const state: ThrottleState = fresh ? { agent, sent: {}, sentAt: 0, held: null, stopAt: 0 } : prev;
  const changed = changedKeys(state.sent, values);
  if (changed.length === 0) return { send: null, why: 'no value changed', next: { ...state, held: null } };
  const sentNow = (why: string): Decision => ({ send: values, why, next: { ...state, sent: { ...state.sent, ...values }, sentAt: now, held: null } });
  if (fresh) return sentNow('the first run for this agent');
  if (state.stopAt >= state.sentAt && state.stopAt > 0) return sentNow('the first run after the turn ended');
  if (values.model !== undefined && state.sent.model !== undefined && values.model !== state.sent.model) return sentNow('the model changed');
  if (crossesMark(state.sent.context, values.context)) return sentNow(`context use crossed ${STATUSLINE_CONTEXT_MARK}%`);
  // A clock set back counts as the interval having passed: a pane is never held for good.
  if (now - state.sentAt >= STATUSLINE_INTERVAL_MS || now < state.sentAt) return sentNow(`${changed.join(', ')} changed`);
  return { send: null, why: `held: ${changed.join(', ')} changed ${now - state.sentAt} ms after the last write`, next: { ...state, held: { ...(state.held ?? {}), ...values } } };
}

/** The send failed: what was decided stays held, for the next run or the Stop. */
export function unsent(prev: ThrottleState | null, d: Decision): ThrottleState {
  const base = prev && prev.agent === d.next.agent ? prev : { ...d.next, sent: {}, sentAt: 0, stopAt: 0 };
  return { ...base, held: { ...(base.held ?? {}), ...(d.send ?? {}) } };
}

/** A turn ended: the held values to send now (null when none differ from what was sent). */
export function atTurnEnd(prev: ThrottleState, now: number): Decision {
  const held = prev.held ?? {};
  const changed = changedKeys(prev.sent, held);
  const base = { ...prev, held: null, stopAt: now };
  if (changed.length === 0) return { send: null, why: 'nothing was held', next: base };
  return { send: held, why: `the turn ended: ${changed.join(', ')} held back`, next: { ...base, sent: { ...prev.sent, ...held }, sentAt: now } };
}
