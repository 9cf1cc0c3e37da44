// The risk rules applied to a prompt a pane shows (spec: Risk rules): peek-prompt reports what an
// allow must acknowledge, and respond refuses an allow that does not name exactly that, or that
// comes from a pane while panes_may_allow is off. The assessment itself is core/security/risk.
import { assessApproval, compileRiskRules, riskAck, ackMatches, riskDetail, CUT_SHORT, chooseRoot, type RiskRules, type RiskAssessment } from '../security/risk/index.js';
import { TuiosError } from '../errors.js';
import type { ConfigStore } from '../config/config.js';
import type { Model } from '../model/model.js';

/** What judging a prompt's risk takes: the risk rules, where the pane's project is, the home folder. */
export interface RiskDeps {
  readonly config: ConfigStore;
  readonly model: Model;
  readonly baseEnv: Record<string, string | undefined>;
}
import type { Window } from '../model/window.js';
import type { Prompt } from './prompt.js';
import type { Config } from '../config/schema.js';

export interface PromptRisk {
  risky: boolean;
  /** Exactly what `risk_ack` must name to allow it. */
  ack: string[];
  /** Each rule and why, for the detail under the list. */
  detail: string[];
  root: string | null;
}

let compiled: { from: Config['agents']['approvals']['risk']; rules: RiskRules } | null = null;

/** The rules of the current config, compiled once per config (the schema already checked the patterns). */
function rulesOf(svc: RiskDeps): RiskRules {
  const cfg = svc.config.current.agents.approvals.risk;
  if (compiled?.from !== cfg) compiled = { from: cfg, rules: compileRiskRules({ builtin: cfg.builtin, rules: cfg.rule }) };
  return compiled.rules;
}

/** The pane's root: the session's worktree when tuios made it, else the folder the pane started in. */
export function paneRoot(svc: RiskDeps, w: Window): string | null {
  const s = svc.model.sessions.get(w.sessionId);
  const wt = s?.attrs.get('worktree') as { path?: unknown } | undefined;
  const home = svc.baseEnv.HOME ?? null;
  return chooseRoot([typeof wt?.path === 'string' ? wt.path : null, w.startCwd], home);
}

function assess(svc: RiskDeps, w: Window, p: Prompt): RiskAssessment | null {
  if (p.kind !== 'approval') return null;
  const home = svc.baseEnv.HOME ?? null;
  // An approval whose command the screen did not show cannot be checked: it counts as cut short.
  if (!p.message) return { risky: true, cutShort: true, findings: [] };
  return assessApproval({ line: p.message }, { rules: rulesOf(svc), root: paneRoot(svc, w), cwd: w.currentCwd(), home });
}

export function assessPrompt(svc: RiskDeps, w: Window, p: Prompt): PromptRisk {
  const a = assess(svc, w, p);
  const root = paneRoot(svc, w);
  if (!a || !a.risky) return { risky: false, ack: [], detail: [], root };
  return { risky: true, ack: riskAck(a), detail: riskDetail(a), root };
}

/**
 * Refuses an allow of a risky prompt that does not acknowledge exactly its rules, and any allow of
 * one by a pane unless panes_may_allow. Nothing is pressed when this throws.
 */
export function checkRiskAck(svc: RiskDeps, w: Window, p: Prompt, ack: readonly string[], fromPane: boolean): void {
  const a = assess(svc, w, p);
  if (!a || !a.risky) return;
  const want = riskAck(a);
  if (fromPane && !svc.config.current.agents.approvals.risk.panes_may_allow) {
    throw new TuiosError('forbidden', `${w.name} asks to allow a risky call (${want.join(', ')}); a pane may deny it but not allow it. Nothing was pressed.`, 'The person allows it from the Inbox, or sets panes_may_allow = true under [agents.approvals.risk].', { risk_ack: want });
  }
  if (!ackMatches(a, ack)) {
    const hint = want.includes(CUT_SHORT) ? 'The line does not show the whole call: read the pane before allowing it.' : 'Read the prompt with peek-prompt, then allow it naming these rules in risk_ack.';
    throw new TuiosError('confirm_required', `Allowing this call needs risk_ack naming exactly: ${want.join(', ')}. Nothing was pressed.`, hint, { risk_ack: want });
  }
}
