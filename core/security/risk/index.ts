// Risk rules (spec: Risk rules): is an approval risky, and which rules say so. Pure: no daemon, no
// I/O but the injected `realpath`. The daemon calls it for every approval and requires an allow
// of a risky one to name exactly `riskAck(result)`.
import { readApprovalLine } from './line.js';
import { patchPaths } from './patch.js';
import { PathJudge, type Realpath } from './paths.js';
import { shippedHits, type RuleEnv } from './rules.js';
import { splitShell } from './shell.js';
import { covers, DEFAULT_RISK_RULES, isFileTool, isShellTool, type RiskRules } from './user-rules.js';
import { HOME, shown } from './words.js';

export { RULE_NAMES, type RuleName } from './rules.js';
export { compileRiskRules, DEFAULT_RISK_RULES, SHELL_TOOLS, FILE_TOOLS, type RiskConfig, type RiskRules, type UserRuleConfig } from './user-rules.js';
export { approvalLine, readApprovalLine, type ApprovalLine } from './line.js';
export { splitShell, type SplitOptions } from './shell.js';
export { chooseRoot, type Realpath } from './paths.js';
export type { SimpleCommand, Split, Word, Redirect } from './words.js';

/** The name an allow acknowledges for a line that does not show the whole call. */
export const CUT_SHORT = 'cut short';

/** A held call's whole command, or a line as a pane or hook reports it. */
export type RiskInput = { tool: string | null; command: string } | { line: string };

export interface RiskContext {
  rules?: RiskRules;
  /** The pane's root (spec: the pane's root); null when no folder qualifies. */
  root?: string | null;
  /** The folder the call runs in; null when not known. */
  cwd?: string | null;
  home?: string | null;
  realpath?: Realpath;
}

export interface Finding {
  rule: string;
  why: string;
  /** The command (or path) as written, that the rule matched. */
  command: string;
}

export interface RiskAssessment {
  /** A rule matched, or the line is cut short. */
  risky: boolean;
  cutShort: boolean;
  findings: Finding[];
}

type Kind = 'shell' | 'file' | 'patch' | 'other';

export function assessApproval(input: RiskInput, ctx: RiskContext = {}): RiskAssessment {
  const rules = ctx.rules ?? DEFAULT_RISK_RULES;
  const home = ctx.home ?? null;
  const cwd = ctx.cwd ?? null;
  let tool: string | null;
  let what: string;
  let cut = false;
  let tailCut = false;
  let patch: boolean;
  if ('line' in input) {
    const l = readApprovalLine(typeof input.line === 'string' ? input.line : '');
    ({ tool, what, tailCut, patch } = l);
    cut = l.cutShort;
  } else {
    tool = input.tool ?? null;
    what = typeof input.command === 'string' ? input.command : '';
    patch = tool?.toLowerCase() === 'apply_patch' || what.trimStart().startsWith('*** Begin Patch');
  }
  const kind: Kind = patch ? 'patch' : isShellTool(tool) ? 'shell' : isFileTool(tool) ? 'file' : 'other';
  const judge = new PathJudge({ root: ctx.root ?? null, home, realpath: ctx.realpath });
  const findings: Finding[] = [];
  const seen = new Set<string>();
  const add = (f: Finding) => {
    const key = `${f.rule}\0${f.command}\0${f.why}`;
    if (seen.has(key)) return;
    seen.add(key);
    findings.push(f);
  };
  const userRules = (text: string) => {
    for (const r of rules.user) if (covers(r, tool) && r.pattern.test(text)) add({ rule: r.name, why: `matches your rule ${JSON.stringify(r.name)}`, command: text });
  };

  if (kind === 'shell') {
    const split = splitShell(what, { cwd, home, partialTail: tailCut });
    if (split.clipped) cut = true;
    const env: RuleEnv = { judge, home, all: split.commands };
    for (const cmd of split.commands) {
      const text = shown(cmd.text);
      if (rules.builtin) for (const h of shippedHits(cmd, env)) add({ rule: h.rule, why: h.why, command: text });
      userRules(text);
    }
  } else if (kind === 'file' || kind === 'patch') {
    const paths = kind === 'file' ? [{ value: what.trim(), partial: tailCut || what.includes('***') }] : patchPaths(what, 'line' in input, tailCut);
    if (rules.builtin) {
      for (const p of paths) {
        const value = p.value.startsWith('~/') || p.value === '~' ? HOME + p.value.slice(1) : p.value;
        if (value !== '' && judge.outside(value, p.partial, cwd)) add({ rule: 'outside the worktree', why: `${tool ?? 'the patch'} changes ${p.value}, outside the worktree`, command: p.value });
      }
    }
    userRules(what);
  } else userRules(what);

  const cutShort = cut && (rules.builtin || rules.user.length > 0);
  return { risky: cutShort || findings.length > 0, cutShort, findings };
}

/** Exactly the names an allow of this call must acknowledge (`risk_ack`), sorted. */
export function riskAck(a: RiskAssessment): string[] {
  const names = new Set(a.findings.map((f) => f.rule));
  if (a.cutShort) names.add(CUT_SHORT);
  return [...names].sort();
}

/** The acknowledgement names exactly the rules the call matched; always true for a call that is not risky. */
export function ackMatches(a: RiskAssessment, ack: readonly string[]): boolean {
  if (!a.risky) return true;
  const want = riskAck(a);
  const got = [...new Set(ack)].sort();
  return want.length === got.length && want.every((n, i) => n === got[i]);
}

/** The Inbox row: `risky: ` before the line of a risky approval. */
export function riskyRow(line: string, a: RiskAssessment): string {
  return a.risky ? `risky: ${line}` : line;
}

/** The detail under the list: each rule and why, and the cut. */
export function riskDetail(a: RiskAssessment): string[] {
  const lines = a.findings.map((f) => `${f.rule}: ${f.why}`);
  if (a.cutShort) lines.push(`${CUT_SHORT}: the line does not show the whole call, so a risky part may not be there to match`);
  return lines;
}
