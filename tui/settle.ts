// The 0.4 s rule (spec: The agents view): a row moves to a new group only once the agent has
// been in the new state that long, so a hook that flips working, needs you, working in a moment
// does not move it twice. Level-triggered: each read compares what the row is now with what
// it shows, and asks for one more look when a move is due.
import { SETTLE_MS } from './limits.js';

export class GroupSettler<G extends string> {
  private readonly shown = new Map<string, { group: G; pending: G | null; since: number }>();

  /**
   * The group to show for `key` now. `wake(ms)` is asked to look again once a pending move is
   * due. A row seen for the first time goes straight to its group.
   */
  group(key: string, now: G, at: number, wake: (ms: number) => void): G {
    const s = this.shown.get(key);
    if (!s) {
      this.shown.set(key, { group: now, pending: null, since: at });
      return now;
    }
    if (now === s.group) {
      s.pending = null;
      return s.group;
    }
    if (s.pending !== now) {
      s.pending = now;
      s.since = at;
    }
    const left = s.since + SETTLE_MS - at;
    if (left <= 0) {
      s.group = now;
      s.pending = null;
      return now;
    }
    wake(left + 5);
    return s.group;
  }

  /** Forgets rows no longer listed. */
  keep(keys: Set<string>): void {
    for (const k of this.shown.keys()) if (!keys.has(k)) this.shown.delete(k);
  }
}
