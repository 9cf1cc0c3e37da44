// The away recap in the dock (spec: The away recap): when focus lands on an agent pane that
// finished at least one turn while you were away from it for at least [agents.recap] away, the
// dock says what it did in one line. Away is per client: when you last had each pane in front of
// you is kept in sidebar.json (recap_seen), beside the rail's own state, with the turn count then.
// A pane you never had in front of you gets the recap of its whole ring. The numbers come from the
// ring (agent-activity); a pane whose harness sends no hooks gets only the turns this client
// counted. Nothing runs on a timer: the read happens when focus lands.
import { join } from 'node:path';
import { readJson, writeJsonAtomic } from '../core/store/atomic.js';
import type { Services } from '../core/daemon/services.js';
import type { Window } from '../core/model/window.js';
import type { Acts } from './acts.js';
import type { Dock } from './alerts.js';
import { awayLine, ago } from '../core/activity/recap.js';
import { durationMs } from '../core/activity/duration.js';
import type { ActivityResult } from '../core/verbs/activity.js';

/** Panes whose last time in front sidebar.json keeps: the newest. */
export const RECAP_SEEN_MAX = 256;

/**
 * How long after focus moves the times are written. Focus moves as a frame is drawn, and the
 * write reads the file, writes it whole and syncs it: in the frame it held the frame for the disk
 * (tens of ms on a busy disk, each time focus moved). Later, and once for a burst of moves.
 */
export const RECAP_SAVE_DELAY_MS = 1000;

/** When a pane was last in front of you, and how many turns it had finished then. */
type Seen = [at: number, turns: number];

export interface RecapHost {
  readonly svc: Services;
  readonly acts: Acts;
  readonly dock: Dock;
}

export class AwayRecaps {
  private front: { id: string; turns: number } | null = null;
  private seen: Map<string, Seen> | null = null;
  private saveTimer: NodeJS.Timeout | null = null;

  constructor(private readonly host: RecapHost) {}

  private file(): string {
    return join(this.host.svc.paths.stateDir, 'sidebar.json');
  }

  private load(): Map<string, Seen> {
    if (this.seen) return this.seen;
    this.seen = new Map();
    try {
      const raw = (readJson(this.file()) as { recap_seen?: Record<string, unknown> } | null)?.recap_seen ?? {};
      for (const [id, v] of Object.entries(raw)) if (Array.isArray(v) && typeof v[0] === 'number' && typeof v[1] === 'number') this.seen.set(id, [v[0], v[1]]);
    } catch {
      // No file yet, or one we cannot read: every pane is one never seen.
    }
    return this.seen;
  }

  /** A write soon, out of the frame (see RECAP_SAVE_DELAY_MS). */
  private saveSoon(): void {
    if (this.saveTimer) return;
    this.saveTimer = setTimeout(() => this.save(), RECAP_SAVE_DELAY_MS);
    this.saveTimer.unref();
  }

  private save(): void {
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = null;
    const seen = this.load();
    // The bound: the panes seen longest ago go first.
    const kept = [...seen.entries()].sort((a, b) => b[1][0] - a[1][0]).slice(0, RECAP_SEEN_MAX);
    try {
      let cur: Record<string, unknown> = {};
      try {
        cur = (readJson(this.file()) as Record<string, unknown> | null) ?? {};
      } catch {
        cur = {};
      }
      writeJsonAtomic(this.file(), { ...cur, recap_seen: Object.fromEntries(kept) });
    } catch (e) {
      this.host.svc.log.warn('recap state not saved', { error: String(e) });
    }
  }

  private turnsOf(w: Window): number {
    return Number(this.host.svc.agents.info(w).completion_seq ?? 0);
  }

  /** The pane in front of you now (null: none, a view covers them); called as each frame is drawn. */
  inFront(w: Window | null, now = Date.now()): void {
    if ((w?.id ?? null) === (this.front?.id ?? null)) return;
    this.leave(now);
    if (!w) return;
    this.front = { id: w.id, turns: this.turnsOf(w) };
    this.arrive(w, now);
  }

  /** The pane in front leaves it (focus moved, a view covers it, the client goes). */
  leave(now = Date.now()): void {
    if (!this.front) return;
    const w = this.host.svc.model.windows.get(this.front.id);
    this.load().set(this.front.id, [now, w ? this.turnsOf(w) : this.front.turns]);
    this.front = null;
    this.saveSoon();
  }

  private arrive(w: Window, now: number): void {
    const svc = this.host.svc;
    const cfg = svc.config.current.agents.recap;
    if (cfg.mode !== 'toast') return;
    const awayMs = durationMs(cfg.away) ?? 600_000;
    const seen = this.load().get(w.id);
    const turns = this.turnsOf(w);
    const ring = svc.activity.ringOf(w);
    if (seen) {
      if (now - seen[0] < awayMs || turns <= seen[1]) return;
    } else {
      // Never in front: the whole ring, when it holds a finished turn and goes back far enough.
      const first = ring?.list()[0];
      if (!ring || !first || now - first.at < awayMs || !ring.lastOf('said')) return;
    }
    const name = w.name;
    if (!ring) {
      const n = turns - seen![1];
      this.host.dock.say(`${name} while you were away (${ago(now - seen![0])}): ${n} turn${n === 1 ? '' : 's'}`);
      return;
    }
    void (async () => {
      const r = await this.host.acts.call<ActivityResult>('agent-activity', { window: w.id, recap: true, ...(seen ? { since_ms: seen[0] } : {}) });
      if (!r.ok || !r.value.recap) return;
      const since = seen ? seen[0] : r.value.recap.since;
      this.host.dock.say(awayLine(name, now - since, r.value.recap));
    })();
  }

  /** The client goes: what it saw is written now. */
  dispose(): void {
    this.leave();
    if (this.saveTimer) this.save();
  }
}

/** When this machine's clients last had the pane in front of them (sidebar.json), or null. */
export function lastInFront(svc: Services, windowId: string): number | null {
  try {
    const v = (readJson(join(svc.paths.stateDir, 'sidebar.json')) as { recap_seen?: Record<string, unknown> } | null)?.recap_seen?.[windowId];
    return Array.isArray(v) && typeof v[0] === 'number' ? v[0] : null;
  } catch {
    return null;
  }
}
