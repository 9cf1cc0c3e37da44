// When the ages on agent rows are drawn again (spec: Indicator): once a minute, and while a row
// waits on you, when its figure changes (every second under a minute); and when a row at rest
// comes to fold. Nothing else polls.
import { needsYouRow, type AgentRow } from './rows.js';
import { AGE_TICK_MS } from './limits.js';

export class AgeTicker {
  /** When the pending tick fires (0: none pending), and its generation (a sooner one replaces it). */
  private at = 0;
  private gen = 0;
  /** Ticks so far: in the rail's key, so a tick always draws the rail with its new figures. */
  ticks = 0;

  constructor(
    private readonly later: (ms: number, fn: () => void) => void,
    /** The tick: `minute` when it is the minute's, on which the rows are read again. */
    private readonly tick: (minute: boolean) => void,
  ) {}

  /**
   * The next tick: when the soonest shown wait changes its figure, else in a minute. A tick that is
   * due sooner than the one pending replaces it.
   */
  schedule(now: number, rows: AgentRow[], restFoldMs?: number): void {
    let due = now + AGE_TICK_MS;
    let minute = true;
    // A row at rest folds when it has rested `restFoldMs`: drawn again then (rail.ts restFolded).
    if (restFoldMs !== undefined) {
      for (const r of rows) {
        if (r.state !== 'idle' && r.state !== 'unknown' && r.state !== 'done') continue;
        const at = r.stateSince + restFoldMs + 1;
        if (at > now && at < due) {
          due = at;
          minute = false;
        }
      }
    }
    for (const r of rows) {
      if (!needsYouRow(r)) continue;
      const waited = Math.max(0, now - r.stateSince);
      const step = waited < 60_000 ? 1000 : waited < 3_600_000 ? 60_000 : 0;
      if (step === 0) continue;
      const at = now + step - (waited % step);
      if (at < due) {
        due = at;
        minute = false;
      }
    }
    if (this.at !== 0 && this.at <= due) return;
    this.at = due;
    const gen = ++this.gen;
    this.later(Math.max(20, due - now), () => {
      if (gen !== this.gen) return;
      this.at = 0;
      this.ticks++;
      this.tick(minute);
    });
  }
}
