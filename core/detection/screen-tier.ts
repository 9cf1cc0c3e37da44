// The screen tier: runs a look's decision against a pane and applies it through the store, with
// the asymmetric hysteresis of ADR-0046 point 6. Transitions that demand a person (needs_input)
// and working publish on the first look; working → idle holds for three looks at least 100 ms
// apart, or 700 ms. For 3 s after a harness is first seen an idle reading counts only on a screen
// that has held still as long (the grace is for a frame painted in pieces, not for a prompt that
// is up). A look that reads nothing where the tiers' rest reading stands gives it up only once the
// screen has been quiet for 700 ms: the frames between a submitted line and the turn, and an
// agent's last screen before it exits, publish no unknown.
import type { Window } from '../model/window.js';
import type { AgentStore } from '../agent-state/store.js';
import type { ManifestSet } from './manifest.js';
import type { ProgressReport, Notification } from '../screen/osc-reports.js';
import { decideLook } from './rules/look.js';
import { evaluateNotify, evaluateTitle, type Verdict } from './rules/evaluate.js';
import { progressText } from '../screen/osc-reports.js';
import type { OscReaders } from './osc.js';

export const IDLE_CONFIRM_LOOKS = 3;
export const IDLE_CONFIRM_GAP_MS = 100;
export const IDLE_CONFIRM_MAX_MS = 700;
export const STARTUP_GRACE_MS = 3000;
/** A look that reads nothing gives up a rest reading after at most this long, quiet or not. */
export const RELEASE_MAX_MS = 3000;

interface PaneTier {
  harness: string | null;
  firstSeenAt: number;
  idleSince: number | null;
  idleLooks: number;
  lastIdleLookAt: number;
  confirmTimer: NodeJS.Timeout | null;
  /** When the pending confirmation look is due. */
  confirmAt: number;
  /** In the start-up grace: the screen and title an idle reading was last made on, and since when and on how many looks it held. */
  graceShot: string | null;
  graceSince: number;
  graceLooks: number;
  graceLookAt: number;
  /** Since when looks have read nothing while a rest reading of the tiers stood (null: not now). */
  releaseSince: number | null;
}

function reading(v: Verdict) {
  return { state: v.state!, kind: v.kind, message: v.message };
}

export class ScreenTier implements OscReaders {
  private readonly panes = new Map<string, PaneTier>();
  constructor(
    private readonly store: AgentStore,
    private readonly manifests: () => ManifestSet,
    /** Asks the detector for another look (the confirmation looks of the idle hold). */
    private readonly requestLook: ((w: Window) => void) | null = null,
  ) {}

  private rulesOf(w: Window) {
    const h = this.store.harnessOf(w);
    return h ? (this.manifests().byId.get(h)?.rules ?? null) : null;
  }

  private pane(w: Window, harness: string): PaneTier {
    let p = this.panes.get(w.id);
    if (!p || p.harness !== harness) {
      if (p?.confirmTimer) clearTimeout(p.confirmTimer);
      p = { harness, firstSeenAt: Date.now(), idleSince: null, idleLooks: 0, lastIdleLookAt: 0, confirmTimer: null, confirmAt: 0, graceShot: null, graceSince: 0, graceLooks: 0, graceLookAt: 0, releaseSince: null };
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
    const lines = w.screen.screenLines();
    const d = decideLook(rules, lines, w.title);
    const idleish = (v: Verdict | null | 'keep') => v !== null && v !== 'keep' && v.state === 'idle';
    if (idleish(d.applyScreen) || (d.applyTitle?.state === 'idle' && !d.applyScreen)) {
      if (!this.idleCounts(w, p, lines)) {
        // Held: the idle reading is not applied yet; a louder reading would have been.
        return;
      }
    } else {
      this.resetIdle(p);
    }
    if (d.applyScreen === null && d.applyTitle === null) {
      // Held: the look reads nothing, and the rest reading it would withdraw still stands.
      if (this.releaseHeld(w, p)) return;
    } else {
      p.releaseSince = null;
    }
    this.store.lookTiers(w, d.applyScreen === 'keep' ? 'keep' : d.applyScreen ? reading(d.applyScreen) : null, d.applyTitle ? reading(d.applyTitle) : null);
  }

  /**
   * Whether a look that reads nothing waits before it withdraws the tiers' rest reading (idle or
   * done): until the screen has been quiet for IDLE_CONFIRM_MAX_MS (RELEASE_MAX_MS at most). A
   * submitted line clears the prompt a moment before the turn's first frame, and an agent that
   * quits paints a last screen with no prompt on it before its shell is back; neither is the
   * agent leaving its rest for an unknown, and a look that reads anything ends the wait.
   */
  private releaseHeld(w: Window, p: PaneTier): boolean {
    const v = this.store.recordOf(w)?.view();
    if (!v || (v.state !== 'idle' && v.state !== 'done') || (v.origin !== 'screen' && v.origin !== 'osc:title')) {
      p.releaseSince = null;
      return false;
    }
    const now = Date.now();
    if (p.releaseSince === null) p.releaseSince = now;
    const quiet = now - Math.max(p.releaseSince, w.lastOutputAt);
    if (quiet >= IDLE_CONFIRM_MAX_MS || now - p.releaseSince >= RELEASE_MAX_MS) {
      p.releaseSince = null;
      return false;
    }
    this.scheduleConfirm(w, p, Math.max(IDLE_CONFIRM_GAP_MS, Math.min(IDLE_CONFIRM_MAX_MS - quiet, p.releaseSince + RELEASE_MAX_MS - now)) + 10);
    return true;
  }

  /** Whether an idle reading may be applied now, scheduling the looks that confirm it. */
  private idleCounts(w: Window, p: PaneTier, lines: string[]): boolean {
    const now = Date.now();
    if (now - p.firstSeenAt < STARTUP_GRACE_MS && !this.settled(w, p, lines, now)) {
      // A TUI that is starting paints its frame in pieces: the reading counts once the screen holds still.
      this.scheduleConfirm(w, p, IDLE_CONFIRM_GAP_MS);
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

  /**
   * In the start-up grace: the idle reading was made on the same screen and title for three looks
   * at least 100 ms apart, or for 700 ms (the idle hold's numbers), so the frame is not still
   * being painted.
   */
  private settled(w: Window, p: PaneTier, lines: string[], now: number): boolean {
    const shot = `${w.title}\n${lines.join('\n')}`;
    if (p.graceShot !== shot) {
      p.graceShot = shot;
      p.graceSince = now;
      p.graceLooks = 0;
      p.graceLookAt = now;
      return false;
    }
    if (now - p.graceLookAt >= IDLE_CONFIRM_GAP_MS) {
      p.graceLooks++;
      p.graceLookAt = now;
    }
    return p.graceLooks >= IDLE_CONFIRM_LOOKS || now - p.graceSince >= IDLE_CONFIRM_MAX_MS;
  }

  /** One confirmation look per pane, at the earliest time one was asked for. */
  private scheduleConfirm(w: Window, p: PaneTier, ms: number): void {
    const at = Date.now() + ms;
    if (p.confirmTimer) {
      if (p.confirmAt <= at) return;
      clearTimeout(p.confirmTimer);
    }
    p.confirmAt = at;
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
