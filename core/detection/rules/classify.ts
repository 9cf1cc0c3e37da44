// One capture (a screen, its title, its last OSC 9;4 report) classified as the daemon would
// publish it from that capture alone, on a pane attributed to the harness whose rules these are.
// Shared by `npm run accuracy`, explain-agent-screen and any test that wants the published
// reading rather than the look alone. Pure.
//
// It runs what the daemon runs, on one pane record (core/agent-state/record.ts AgentRecord, with a
// clock and an output counter of its own), in the order the daemon would meet a settled capture:
//
//   1. the progress report, as core/detection/osc.ts and ScreenTier.progressRule read it: a manifest
//      with osc_progress title rules takes the report when one of them decides a state, otherwise
//      it is the sequence's published meaning (progressMeaning). A claim of source osc, no kind.
//      (The daemon counts it only on a pane known to hold an agent; a capture here is one.)
//   2. output (the screen the capture shows is painted), then LOAN_STALE_MS and more pass;
//   3. one look (decideLook), applied as ScreenTier.look applies it: the screen claim first
//      (unless a skip-state rule keeps it), then the title claim (source osc).
//
// So the precedence is record.ts's own: osc above screen, the later of two osc claims (the title,
// here) standing, a screen needs_input taking the pane from a stale osc claim that says anything
// else (the visible blocker), and a claim with no message borrowing a lower one's that agrees.
//
// What a capture cannot say, and is therefore assumed (the accuracy script's header repeats it):
// - the capture is settled: the idle hold and the 3 s start-up grace have passed (an idle reading
//   is applied), and the progress report came before the last look, over 2 s before it;
// - when the title and the report disagree, the title is the later osc claim and stands
//   (`orderAssumed` marks a classification this decided);
// - a skip-state rule keeps a screen claim the capture does not have: the screen holds none;
// - the detector's presence claim (`unknown`, source detect) is left out, so a capture no rule
//   decides reads `none` where a live pane would show `unknown`;
// - notifications are not part of a capture.
import type { CompiledRules } from './compile.js';
import { decideLook, type LookDecision } from './look.js';
import { evaluateTitle, type Evaluation, type Verdict } from './evaluate.js';
import { progressMeaning } from '../osc.js';
import type { AgentState, BlockKind } from '../../agent-state/state.js';
import { AgentRecord, LOAN_STALE_MS, type Origin } from '../../agent-state/record.js';
import type { ProgressReport } from '../../screen/osc-reports.js';

export interface Capture {
  /** The live screen, one string per row. */
  lines: string[];
  /** The window title ('' for none). */
  title: string;
  /** The last OSC 9;4 report as herdr keeps it: `4;<state>` or `4;<state>;<percent>`. */
  progress?: string | null;
}

export type ClaimTier = 'screen' | 'title' | 'progress';

export interface TierClaim {
  tier: ClaimTier;
  state: AgentState;
  kind: BlockKind;
  message: string;
  /** The rule id that made it; for a progress report read by its published meaning, `osc-9;4`. */
  rule: string | null;
}

export interface Classification {
  /** The state the pane would be published with; 'none' when nothing claims it. */
  state: AgentState;
  kind: BlockKind;
  message: string;
  /** The rule behind the standing claim (see TierClaim.rule). */
  rule: string | null;
  /** The tier whose claim stands; null when none does. */
  tier: ClaimTier | null;
  /** A skip-state screen rule matched: the screen keeps a claim the capture does not have. */
  freeze: boolean;
  /** The title and the progress report disagreed, and which was later decided it (see above). */
  orderAssumed: boolean;
  /** Every tier's claim, highest rank first. */
  claims: TierClaim[];
  look: LookDecision;
  /** The osc_progress rules' evaluation of the report (null: no report, or no such rules). */
  progressRules: Evaluation | null;
  /** The report as read, or null when there is none (or it does not parse). */
  progressReport: ProgressReport | null;
}

const RANK: Record<ClaimTier, number> = { title: 4, progress: 4, screen: 3 };

/** `4;3`, `4;1;50` (an optional leading `9;` is accepted) → the report; null when it is not one. */
export function parseProgress(text: string | null | undefined): ProgressReport | null {
  if (!text) return null;
  const m = /^(?:9;)?4;([0-4])(?:;(\d{1,3}))?$/.exec(text.trim());
  if (!m) return null;
  const state = Number(m[1]) as ProgressReport['state'];
  const pct = m[2] === undefined ? null : Math.min(100, Number(m[2]));
  return { state, percent: state === 0 || state === 3 ? null : pct };
}

/** The report as osc_progress rules read it (the same text capture-pane writes). */
export function progressReportText(p: ProgressReport): string {
  return p.state === 0 || p.state === 3 || p.percent === null ? `4;${p.state}` : `4;${p.state};${p.percent}`;
}

function fromVerdict(tier: ClaimTier, v: Verdict): TierClaim {
  return { tier, state: v.state!, kind: v.state === 'needs_input' ? v.kind : '', message: v.message, rule: v.rule?.id ?? null };
}

/** What the daemon would publish for this capture alone (see the header for what is assumed). */
export function classifyCapture(rules: CompiledRules, c: Capture, trace = false): Classification {
  const look = decideLook(rules, c.lines, c.title, trace);
  let now = 0;
  let output = 0;
  const record = new AgentRecord({ now: () => now }, () => output);
  const claims: TierClaim[] = [];
  const byOrigin = new Map<Origin, TierClaim>();
  const put = (origin: Origin, t: TierClaim) => {
    claims.push(t);
    byOrigin.set(origin, t);
  };

  // 1. The progress report.
  const report = parseProgress(c.progress);
  let progressRules: Evaluation | null = null;
  if (report) {
    const block = rules.title;
    let own: Verdict | null = null;
    if (block?.enabled && block.rules.some((r) => r.region === 'osc_progress')) {
      progressRules = evaluateTitle(block, progressReportText(report), 'osc_progress', trace);
      if (progressRules.verdict.state) own = progressRules.verdict;
    }
    const t: TierClaim = own ? fromVerdict('progress', own) : { tier: 'progress', state: progressMeaning(report), kind: '', message: '', rule: 'osc-9;4' };
    record.apply({ origin: 'osc:progress', state: t.state, kind: t.kind, message: t.message });
    put('osc:progress', t);
  }
  // 2. The screen is painted, and the report goes stale.
  output++;
  now += LOAN_STALE_MS + 1000;
  // 3. One look: the screen claim, then the title claim.
  if (look.applyScreen !== 'keep') {
    const v = look.applyScreen;
    if (v) put('screen', fromVerdict('screen', v));
    record.look('screen', v ? { state: v.state!, kind: v.kind, message: v.message } : null);
  }
  const tv = look.applyTitle;
  if (tv) put('osc:title', fromVerdict('title', tv));
  record.look('osc:title', tv ? { state: tv.state!, kind: tv.kind, message: tv.message } : null);

  const view = record.view();
  const standing = view.origin ? (byOrigin.get(view.origin) ?? null) : null;
  const title = byOrigin.get('osc:title');
  const prog = byOrigin.get('osc:progress');
  const orderAssumed = !!(standing && standing === title && prog && (prog.state !== title.state || prog.kind !== title.kind));
  return {
    state: view.state,
    kind: view.kind,
    message: view.message,
    rule: standing?.rule ?? null,
    tier: standing?.tier ?? null,
    freeze: look.freeze,
    orderAssumed,
    claims: claims.sort((x, y) => RANK[y.tier] - RANK[x.tier]),
    look,
    progressRules,
    progressReport: report,
  };
}

/** What a fixture's [expect] asks, against a classification: right, and a false needs_input. */
export function judge(c: Classification, expect: { state: string; kind?: string; freeze?: boolean }): { right: boolean; falseNeedsInput: boolean; got: string } {
  const got = `${c.state}${c.kind ? ` (${c.kind})` : ''}${c.freeze ? ' (freeze)' : ''}`;
  // As the golden suite reads [expect]: a freeze fixture needs the skip-state rule; any other
  // needs its state, and its kind when it names one.
  const right = expect.freeze ? c.freeze : c.state === expect.state && (expect.kind === undefined || c.kind === expect.kind);
  const falseNeedsInput = c.state === 'needs_input' && (expect.state !== 'needs_input' || !!expect.freeze);
  return { right, falseNeedsInput, got };
}
