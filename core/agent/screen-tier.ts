// The screen tier: runs a look's decision against a pane and applies it through the store, with
// the asymmetric hysteresis of ADR-0046 point 6. Transitions that demand a person (needs_input)
// and working publish on the first look; working → idle holds for three looks at least 100 ms
// apart, or 700 ms, and for 3 s after a harness is first seen no idle reading counts.
import type { Window } from '../model/window.js';
import type { AgentStore } from './store.js';
import type { ManifestSet } from './manifest.js';
import type { ProgressReport, Notification } from '../screen/emulator.js';
import { decideLook } from './rules/look.js';
import { evaluateNotify, evaluateTitle, type Verdict } from './rules/evaluate.js';
import { progressText } from '../verbs/capture.js';
import type { OscReaders } from './osc.js';

export const IDLE_CONFIRM_LOOKS = 3;
export const IDLE_CONFIRM_GAP_MS = 100;
export const IDLE_CONFIRM_MAX_MS = 700;
export const STARTUP_GRACE_MS = 3000;

interface PaneTier {
  harness: string | null;
  firstSeenAt: number;
  idleSince: number | null;
  idleLooks: number;
  lastIdleLookAt: number;
  confirmTimer: NodeJS.Timeout | null;
}

function reading(v: Verdict) {
  return { state: v.state!, kind: v.kind, message: v.message };
}

export class ScreenTier implements OscReaders {
  private readonly panes = new Map<string, PaneTier>();
  /** Asks the detector for another look (the confirmation looks of the idle hold). */
  requestLook: ((w: Window) => void) | null = null;

  constructor(
    private readonly store: AgentStore,
    private readonly manifests: () => ManifestSet,
  ) {}

  private rulesOf(w: Window) {
    const h = this.store.harnessOf(w);
    return h ? (this.manifests().byId.get(h)?.rules ?? null) : null;
  }

  private pane(w: Window, harness: string): PaneTier {
    let p = this.panes.get(w.id);
    if (!p || p.harness !== harness) {
      if (p?.confirmTimer) clearTimeout(p.confirmTimer);
      p = { harness, firstSeenAt: Date.now(), idleSince: null, idleLooks: 0, lastIdleLookAt: 0, confirmTimer: null };
      this.panes.set(w.id, p);
    }
    return p;
  }

  forget(id: string): void {
    const p = this.panes.get(id);
    if (p?.confirmTimer) clearTimeout(p.confirmTimer);
    this.panes.delete(id);
  }

  /** One look at a pane the detector attributed. */
  look(w: Window): void {
    const harness = this.store.harnessOf(w);
    const rules = this.rulesOf(w);
    if (!harness || !rules) return;
    const p = this.pane(w, harness);
    const d = decideLook(rules, w.screen.screenLines(), w.title);
    const idleish = (v: Verdict | null | 'keep') => v !== null && v !== 'keep' && v.state === 'idle';
    if (idleish(d.applyScreen) || (d.applyTitle?.state === 'idle' && !d.applyScreen)) {
      if (!this.idleCounts(w, p)) {
        // Held: the idle reading is not applied yet; a louder reading would have been.
        return;
      }
    } else {
      this.resetIdle(p);
    }
    if (d.applyScreen !== 'keep') this.store.look(w, 'screen', d.applyScreen ? reading(d.applyScreen) : null);
    this.store.look(w, 'osc:title', d.applyTitle ? reading(d.applyTitle) : null);
  }

  /** Whether an idle reading may be applied now, scheduling the looks that confirm it. */
  private idleCounts(w: Window, p: PaneTier): boolean {
    const now = Date.now();
    if (now - p.firstSeenAt < STARTUP_GRACE_MS) {
      this.scheduleConfirm(w, p, STARTUP_GRACE_MS - (now - p.firstSeenAt) + 10);
      return false;
    }
    if (this.store.stateOf(w) !== 'working') return true; // any other state takes the idle at once
    if (p.idleSince === null) {
      p.idleSince = now;
      p.idleLooks = 0;
      p.lastIdleLookAt = now;
    } else if (now - p.lastIdleLookAt >= IDLE_CONFIRM_GAP_MS) {
      p.idleLooks++;
      p.lastIdleLookAt = now;
    }
    if (p.idleLooks >= IDLE_CONFIRM_LOOKS || now - p.idleSince >= IDLE_CONFIRM_MAX_MS) {
      this.resetIdle(p);
      return true;
    }
    this.scheduleConfirm(w, p, IDLE_CONFIRM_GAP_MS);
    return false;
  }

  private scheduleConfirm(w: Window, p: PaneTier, ms: number): void {
    if (p.confirmTimer) return;
    p.confirmTimer = setTimeout(() => {
      p.confirmTimer = null;
      if (!w.closed) this.requestLook?.(w);
    }, ms);
    p.confirmTimer.unref();
  }

  private resetIdle(p: PaneTier): void {
    p.idleSince = null;
    p.idleLooks = 0;
  }

  /**
   * The stall's last look: does the screen answer? The title's own reading of working does not
   * count, since a spinner that has not turned for the whole stall window is a frame left behind.
   */
  lastLook(w: Window): boolean {
    const rules = this.rulesOf(w);
    if (!rules) return false;
    const d = decideLook(rules, w.screen.screenLines(), w.title);
    const answered = (d.applyScreen !== null && d.applyScreen !== 'keep') || (d.applyTitle !== null && d.applyTitle.state !== 'working') || d.freeze;
    if (answered) this.look(w);
    return answered;
  }

  /** A manifest reading OSC 9;4 its own way: its osc_progress title rules take the report. */
  progressRule(w: Window, prog: ProgressReport): boolean {
    const rules = this.rulesOf(w);
    const block = rules?.title;
    if (!block?.enabled || !block.rules.some((r) => r.region === 'osc_progress')) return false;
    const v = evaluateTitle(block, progressText(prog) ?? '', 'osc_progress').verdict;
    if (!v.state) return false;
    this.store.claim(w, { origin: 'osc:progress', ...reading(v) });
    return true;
  }

  /** Notify rules: the harness speaking once; its claim goes stale when the pane writes again. */
  notifyRule(w: Window, n: Notification): void {
    const block = this.rulesOf(w)?.notify;
    if (!block?.enabled) return;
    const v = evaluateNotify(block, n.title, n.body).verdict;
    if (!v.state) return;
    this.store.claim(w, { origin: 'osc:notify', ...reading(v), staleOnOutput: true });
  }
}
