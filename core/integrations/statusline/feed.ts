// The tuios side of the status line feed: a run's values, or a turn's end, turned into at most one
// set-agent-meta for the pane (source `statusline`), through the pane's throttle file. The caller
// owns the connection and the deadline; nothing here waits on anything else.
import { stateFilePath, readState, writeState } from './state-file.js';
import { atTurnEnd, decide, unsent, type Decision, type ThrottleState } from './throttle.js';
import type { StatusValues } from './payload.js';

export const STATUSLINE_SOURCE = 'statusline';

export interface FeedTarget {
  call(verb: string, params: Record<string, unknown>): Promise<unknown>;
  /** The pane's id, as the daemon names it. */
  window: string;
  /** The daemon's socket: the throttle file lives beside it. */
  socket: string;
  /** Starts reaching the daemon ahead of the call (the throttle file is written meanwhile). */
  warm?: () => void;
  explain(line: string): void;
}

async function send(t: FeedTarget, values: StatusValues): Promise<boolean> {
  try {
    await t.call('set-agent-meta', { window: t.window, values, source: STATUSLINE_SOURCE });
    t.explain(`set-agent-meta ${Object.entries(values).map(([k, v]) => `${k}=${v}`).join(' ')}`);
    return true;
  } catch (e) {
    t.explain(`set-agent-meta refused (${(e as { code?: string }).code ?? 'error'}): ${(e as Error).message}`);
    return false;
  }
}

function save(t: FeedTarget, path: string | null, before: ThrottleState | null, after: ThrottleState): void {
  if (!path || JSON.stringify(before) === JSON.stringify(after)) return;
  try {
    writeState(path, after);
  } catch (e) {
    t.explain(`the throttle file was not written: ${(e as Error).message}`);
  }
}

/** One status line run for `agent` (its conversation and process): sent, held or dropped. */
export async function feedStatusLine(t: FeedTarget, agent: string, values: StatusValues, now = Date.now()): Promise<Decision> {
  const path = stateFilePath(t.socket, t.window);
  const prev = path ? readState(path) : null;
  const d = decide(prev, agent, values, now);
  t.explain(d.why);
  if (!d.send) {
    save(t, path, prev, d.next);
    return d;
  }
  // Kept as held before the call: a call cut off by the wrapper's deadline leaves it for the Stop.
  // The connection is made while the file is written.
  t.warm?.();
  const pending = unsent(prev, d);
  save(t, path, prev, pending);
  if (await send(t, d.send)) save(t, path, pending, d.next);
  return d;
}

/**
 * A turn ended (Claude Code's `Stop`): what the interval held back goes now, and the next status
 * line run goes at once. A pane with no throttle file has no status line feed: nothing is done.
 */
export async function feedAtTurnEnd(t: FeedTarget, now = Date.now()): Promise<Decision | null> {
  const path = stateFilePath(t.socket, t.window);
  const prev = path ? readState(path) : null;
  if (!path || !prev) return null;
  const d = atTurnEnd(prev, now);
  t.explain(`status line: ${d.why}`);
  // The turn's end is written first: if the call is cut off, the next status line run still goes at once.
  const ended = { ...prev, stopAt: now };
  save(t, path, prev, ended);
  if (d.send && !(await send(t, d.send))) return d;
  save(t, path, ended, d.next);
  return d;
}
