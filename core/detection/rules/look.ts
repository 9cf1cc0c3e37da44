// One look = the title half and the screen half together. The louder reading wins across the two
// tiers: a rest glyph in the title does not hide a permission prompt on the screen, an empty
// prompt box does not hide a spinner in the title, and a spinner in the title does not hide a
// prompt on the screen (the quieter reading is dropped, not applied first). Pure.
import type { CompiledRules, RuleState } from './compile.js';
import { evaluateScreen, evaluateTitle, type Evaluation, type Verdict } from './evaluate.js';

const LOUDNESS: Record<RuleState, number> = { needs_input: 3, working: 2, idle: 1, done: 1 };

export interface LookDecision {
  screen: Evaluation | null;
  title: Evaluation | null;
  /** What to do with each tier's claim: a verdict to apply, null to withdraw, 'keep' to leave it. */
  applyScreen: Verdict | null | 'keep';
  applyTitle: Verdict | null;
  /** The reading the look stands for (the louder one), or null when neither tier decides. */
  decided: Verdict | null;
  freeze: boolean;
}

export function decideLook(rules: CompiledRules, screen: string[], title: string, trace = false): LookDecision {
  const s = rules.screen?.enabled ? evaluateScreen(rules.screen, screen, trace) : null;
  const t = rules.title?.enabled && title ? evaluateTitle(rules.title, title, 'title', trace) : rules.title?.enabled && trace ? evaluateTitle(rules.title, '', 'title', trace) : null;
  const sv = s?.verdict ?? null;
  const tv = t?.verdict ?? null;
  const freeze = !!sv?.freeze;
  const sState = sv && !sv.freeze ? sv.state : null;
  const tState = tv?.state ?? null;
  let applyScreen: LookDecision['applyScreen'] = freeze ? 'keep' : sState ? sv : null;
  let applyTitle: Verdict | null = tState ? tv : null;
  if (sState && tState && LOUDNESS[sState] !== LOUDNESS[tState]) {
    if (LOUDNESS[sState] > LOUDNESS[tState]) applyTitle = null;
    else applyScreen = freeze ? 'keep' : null;
  }
  // Both tiers say a person is waited on: the title's claim still outranks the screen's (osc above
  // screen), but the kind is the screen's. A title says only that something needs action (Codex
  // writes the same "[ ! ] Action Required" over an approval and over a question form); the screen
  // shows which form it is. The title claim then carries the screen's kind, so the published kind
  // is the one the look stands for, and a title claim with no words of its own borrows the screen's
  // (record.ts borrows only from a claim of the same kind).
  if (applyTitle && sv && sState === 'needs_input' && applyTitle.state === 'needs_input' && sv.kind && applyTitle.kind !== sv.kind) {
    applyTitle = { ...applyTitle, kind: sv.kind };
  }
  let decided: Verdict | null = null;
  // On a tie the screen stands for the look: it carries the message, the kind and the answers
  // a title has no room for.
  if (applyTitle && (!sState || LOUDNESS[applyTitle.state!] > LOUDNESS[sState])) decided = applyTitle;
  else if (sState && applyScreen !== null) decided = sv;
  return { screen: s, title: t, applyScreen, applyTitle, decided, freeze };
}
