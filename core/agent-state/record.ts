// One pane's agent record: the claims each source holds, which one stands, the visible-blocker
// loan, and turn counting. Pure: time and the pane's output counter are injected, so every rule
// of precedence is unit tested without a PTY.
import { RANK, type AgentState, type BlockKind, type Source, type Identity } from './state.js';

export interface Clock {
  now(): number;
}

/** Where a claim came from inside its source: the osc source has three origins. */
export type Origin = 'report' | 'program' | 'transcript' | 'osc:title' | 'osc:progress' | 'osc:notify' | 'screen' | 'detect' | 'stall';

export function sourceOf(o: Origin): Source {
  return (o.startsWith('osc:') ? 'osc' : o) as Source;
}

export interface Claim {
  origin: Origin;
  source: Source;
  state: AgentState;
  kind: BlockKind;
  message: string;
  /** When the claim was stamped (set or refreshed by its source). */
  stampedAt: number;
  /** The pane's output counter when stamped: output since then means the screen was repainted. */
  outputMark: number;
  /** A notification is said once: it no longer stands against lower sources once the pane writes. */
  staleOnOutput: boolean;
}

export interface ClaimInput {
  origin: Origin;
  state: AgentState;
  kind?: BlockKind;
  message?: string;
  staleOnOutput?: boolean;
}

export interface ApplyResult {
  applied: boolean;
  /** The state that stands after the call. */
  state: AgentState;
  source: Source | null;
}

export interface View {
  state: AgentState;
  kind: BlockKind;
  message: string;
  source: Source | null;
  origin: Origin | null;
}

/** Unrefreshed for this long, a higher claim gives way to a blocker painted on the screen. */
export const LOAN_STALE_MS = 2000;
/** A turn shorter than this that ends at rest is a flicker, not a finished turn (an explicit done always counts). */
export const MIN_TURN_MS = 5000;

export class AgentRecord {
  readonly claims = new Map<Origin, Claim>();
  /** The screen claim that took over a stale higher claim; the displaced claim stays in `claims`. */
  loan: Claim | null = null;
  attribution: { harness: string; identity: Identity } | null = null;
  /** Last evidence about the state: a report, a detector change, the silence timer. */
  evidenceAt: number | null = null;
  /** When the standing state last changed value (the "waiting since" of a row). */
  enteredAt: number;
  completionSeq = 0;
  /** completionSeq when a person last looked at the pane. */
  seenSeq = 0;
  private turnStart: number | null = null;

  constructor(
    private readonly clock: Clock,
    private readonly output: () => number,
  ) {
    this.enteredAt = clock.now();
  }

  /** The claim that stands: the loan, else the highest rank, the latest stamp among equals. */
  standing(): Claim | null {
    if (this.loan) return this.loan;
    return this.highestExcept(null);
  }

  /** A notification the pane has painted over ranks below every other claim. */
  private rankOf(c: Claim): number {
    return c.staleOnOutput && this.output() > c.outputMark ? 0 : RANK[c.source];
  }

  view(): View {
    const c = this.standing();
    if (!c) return { state: 'none', kind: '', message: '', source: null, origin: null };
    const kind = c.state === 'needs_input' ? c.kind : '';
    return { state: c.state, kind, message: c.message || this.detailFor(c, kind), source: c.source, origin: c.origin };
  }

  /**
   * A claim that wins on rank but says nothing (Codex's title: "Action Required") borrows the
   * words of a lower claim that agrees with it (the screen, which names the command).
   */
  private detailFor(c: Claim, kind: string): string {
    let best: Claim | null = null;
    for (const o of this.claims.values()) {
      if (o === c || !o.message || o.state !== c.state || (c.state === 'needs_input' && o.kind !== kind)) continue;
      if (!best || this.rankOf(o) > this.rankOf(best)) best = o;
    }
    return best?.message ?? '';
  }

  private stamp(i: ClaimInput): Claim {
    return {
      origin: i.origin,
      source: sourceOf(i.origin),
      state: i.state,
      kind: i.kind ?? '',
      message: i.message ?? '',
      stampedAt: this.clock.now(),
      outputMark: this.output(),
      staleOnOutput: !!i.staleOnOutput,
    };
  }

  /** A claim stands against a lower source unless it is a notification the pane has since painted over. */
  private blocks(c: Claim, by: Source): boolean {
    return this.rankOf(c) > RANK[by];
  }

  /**
   * A source's claim. It writes over claims ranked at or below its own and always updates its
   * own; a claim above it stands and the answer says so (`applied: false`). A report of `none`
   * clears the pane.
   */
  apply(i: ClaimInput, opts: { ifState?: AgentState[] } = {}): ApplyResult {
    const before = this.view().state;
    if (opts.ifState && !opts.ifState.includes(before)) return this.result(false);
    const src = sourceOf(i.origin);
    if (src === 'report' && i.state === 'none') {
      this.clear();
      return this.result(true);
    }
    const c = this.stamp(i);
    this.dropStale(c.origin);
    this.claims.set(c.origin, c);
    if (src !== 'screen' && this.loan && RANK[src] > RANK.screen) this.loan = null; // a fresh higher answer ends the loan
    if (src === 'report') this.evidenceAt = c.stampedAt;
    return this.result(this.standing() === c);
  }

  /**
   * A look by the screen tier (or a title rule, origin osc:title). `null` is no opinion: the
   * look's claim is withdrawn and a loan it held is returned exactly. Reading back the claim it
   * already holds writes nothing, so a spinner left on screen does not keep restamping it.
   */
  look(origin: 'screen' | 'osc:title', reading: Omit<ClaimInput, 'origin'> | null): ApplyResult {
    const held = this.claims.get(origin);
    if (!reading) {
      if (held) this.claims.delete(origin);
      if (origin === 'screen') this.loan = null;
      return this.result(!!held);
    }
    if (held && held.state === reading.state && held.message === (reading.message ?? '') && held.kind === (reading.kind ?? '')) {
      return this.result(this.standing() === held);
    }
    const src = sourceOf(origin);
    const c = this.stamp({ ...reading, origin });
    this.dropStale(origin);
    this.claims.set(origin, c);
    const top = this.highestExcept(origin);
    if (!top || !this.blocks(top, src)) {
      if (origin === 'screen' && this.loan) this.loan = c;
      return this.result(true);
    }
    // The visible blocker: a prompt on the screen over a higher claim that has gone stale.
    if (origin === 'screen' && c.state === 'needs_input' && top.state !== 'needs_input' && this.output() > top.outputMark) {
      const atRestClaim = top.state === 'idle' || top.state === 'unknown';
      if (atRestClaim || this.clock.now() - top.stampedAt >= LOAN_STALE_MS) {
        this.loan = c;
        return this.result(true);
      }
    }
    if (origin === 'screen' && this.loan) this.loan = null;
    return this.result(false);
  }

  /** The silence timer: a pane that stopped printing while working is demoted to `state` (unknown). */
  demoteStall(state: AgentState): ApplyResult {
    if (this.view().state !== 'working') return this.result(false);
    for (const o of [...this.claims.values()]) if (o.state === 'working') this.claims.delete(o.origin);
    if (this.loan?.state === 'working') this.loan = null;
    const c = this.stamp({ origin: 'stall', state });
    this.claims.set('stall', c);
    this.evidenceAt = c.stampedAt;
    // The stall claim is the lowest rank: anything that still stands above it keeps the pane.
    return this.result(this.standing() === c);
  }

  /** Withdraws one origin's claim (the detector giving up presence, a title that cleared). */
  withdraw(origin: Origin): void {
    this.claims.delete(origin);
    if (this.loan?.origin === origin) this.loan = null;
  }

  clear(): void {
    this.claims.clear();
    this.loan = null;
    this.attribution = null;
    this.evidenceAt = this.clock.now();
    this.turnStart = null;
  }

  /** Notifications the pane has painted over since are dropped, so lower sources can replace them. */
  private dropStale(except: Origin): void {
    for (const o of [...this.claims.values()]) {
      if (o.origin !== except && o.staleOnOutput && this.output() > o.outputMark) this.claims.delete(o.origin);
    }
  }

  private highestExcept(origin: Origin | null): Claim | null {
    let best: Claim | null = null;
    for (const c of this.claims.values()) {
      if (c.origin === origin) continue;
      const a = this.rankOf(c);
      const b = best ? this.rankOf(best) : -1;
      if (a > b || (a === b && c.stampedAt >= best!.stampedAt)) best = c;
    }
    return best;
  }

  private result(applied: boolean): ApplyResult {
    const v = this.view();
    return { applied, state: v.state, source: v.source };
  }

  /**
   * Called when the published state changes: starts and ends turns. A turn ends on a move from
   * working (or needs_input mid-turn) to idle, done or unknown after at least MIN_TURN_MS, or on
   * any explicit done; errored ends it uncounted. `lastOutputAt` measures a turn the silence
   * timer ended to its last output, not to when the timer noticed.
   */
  transition(from: AgentState, to: AgentState, source: Source | null, lastOutputAt: number): boolean {
    const now = this.clock.now();
    if (from !== to) this.enteredAt = now;
    if (to === 'working') {
      if (this.turnStart === null) this.turnStart = now;
      return false;
    }
    if (to === 'needs_input') return false;
    if (to === 'done' && source !== null && source !== 'stall' && from !== 'done') {
      this.turnStart = null;
      this.completionSeq++;
      return true;
    }
    if ((to === 'idle' || to === 'unknown' || to === 'done') && this.turnStart !== null) {
      const end = source === 'stall' ? Math.max(lastOutputAt, this.turnStart) : now;
      const long = end - this.turnStart >= MIN_TURN_MS;
      this.turnStart = null;
      if (long) {
        this.completionSeq++;
        return true;
      }
      return false;
    }
    if (to === 'errored' || to === 'none') this.turnStart = null;
    return false;
  }

  get inTurn(): boolean {
    return this.turnStart !== null;
  }
}
