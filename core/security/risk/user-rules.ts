// The person's own risk rules from `[[agents.approvals.risk.rule]]`: a name, the tools it covers,
// and an RE2 pattern matched per command. Harnesses name the same tool differently, so naming one
// shell tool (or one file tool) covers them all.
import { compilePattern, type Pattern } from '../../re.js';

export const SHELL_TOOLS: ReadonlySet<string> = new Set(['bash', 'shell', 'exec_command', 'local_shell', 'run_shell_command', 'execute', 'terminal']);
export const FILE_TOOLS: ReadonlySet<string> = new Set(['write', 'edit', 'multiedit', 'notebookedit', 'patch', 'write_file', 'replace']);

export interface UserRuleConfig {
  name: string;
  /** Empty or absent: every tool. */
  tools?: readonly string[];
  /** RE2. */
  pattern: string;
}

export interface RiskConfig {
  /** false turns the shipped rules off. */
  builtin?: boolean;
  rules?: readonly UserRuleConfig[];
}

export interface UserRule {
  name: string;
  /** Lower-cased tool names; null: every tool. */
  tools: ReadonlySet<string> | null;
  shell: boolean;
  file: boolean;
  pattern: Pattern;
}

/** What `assessApproval` runs: compiled once per config load. */
export interface RiskRules {
  builtin: boolean;
  user: readonly UserRule[];
}

export const DEFAULT_RISK_RULES: RiskRules = { builtin: true, user: [] };

/** Compiles the config's rules; throws an invalid_params TuiosError naming the bad pattern's field. */
export function compileRiskRules(cfg: RiskConfig = {}): RiskRules {
  const user = (cfg.rules ?? []).map((r, i): UserRule => {
    const tools = (r.tools ?? []).map((t) => t.toLowerCase());
    const set = new Set(tools);
    return {
      name: r.name,
      tools: set.size === 0 ? null : set,
      shell: tools.some((t) => SHELL_TOOLS.has(t)),
      file: tools.some((t) => FILE_TOOLS.has(t)),
      pattern: compilePattern(r.pattern, `agents.approvals.risk.rule[${i}].pattern`),
    };
  });
  return { builtin: cfg.builtin !== false, user };
}

/** The rule applies to a call of this tool (null: a line that names no tool, read as a command). */
export function covers(rule: UserRule, tool: string | null): boolean {
  if (rule.tools === null) return true;
  if (tool === null) return rule.shell;
  const t = tool.toLowerCase();
  return rule.tools.has(t) || (rule.shell && SHELL_TOOLS.has(t)) || (rule.file && FILE_TOOLS.has(t));
}

export const isShellTool = (tool: string | null): boolean => tool === null || SHELL_TOOLS.has(tool.toLowerCase());
export const isFileTool = (tool: string | null): boolean => tool !== null && FILE_TOOLS.has(tool.toLowerCase());
