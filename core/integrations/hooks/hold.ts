// Which permission prompts the Inbox may hold (spec: Approvals from the Inbox). A prompt is held
// only when one line is the whole request: a call whose effect one argument decides, with nothing
// else that changes what it does, and that argument fits the line exactly (not cut, not masked,
// no newline, tab, doubled space, control or invisible character). The hook asks with it and the
// daemon checks it again before it holds, from the same code. Pure.
import { approvalMessage, hasUndrawable, rawApprovalLine } from './text.js';
import { HOLD_INPUT_MAX_BYTES, PLAN_MAX_BYTES } from '../../limits.js';

interface ToolRule {
  /** The one argument the line shows. */
  arg: string;
  /** Other keys that do not change what the call does. */
  allowed?: string[];
  /** Keys that change nothing while false or absent (and refuse the hold when set). */
  offWhenFalse?: string[];
}

/** The calls held per harness, by the tool name the harness gives. */
const HELD: Record<string, Record<string, ToolRule>> = {
  'claude-code': {
    Bash: { arg: 'command', allowed: ['description', 'timeout'], offWhenFalse: ['dangerouslyDisableSandbox', 'run_in_background'] },
    Read: { arg: 'file_path' },
    Glob: { arg: 'pattern' },
    Grep: { arg: 'pattern', allowed: ['output_mode', '-i', '-n', '-A', '-B', '-C', 'context', 'head_limit', 'multiline'] },
    WebFetch: { arg: 'url', allowed: ['prompt'] },
    WebSearch: { arg: 'query' },
  },
  opencode: {
    bash: { arg: 'command', allowed: ['description', 'timeout'] },
    read: { arg: 'filePath' },
    webfetch: { arg: 'url', allowed: ['format', 'timeout'] },
  },
  qwen: {
    run_shell_command: { arg: 'command', allowed: ['description', 'timeout'], offWhenFalse: ['is_background'] },
    read_file: { arg: 'absolute_path' },
    web_fetch: { arg: 'url', allowed: ['prompt'] },
  },
};
HELD.kilo = HELD.opencode!;


export interface HeldCall {
  tool: string;
  /** The argument, exactly as the harness sent it. */
  arg: string;
  /** `approve <tool>: <arg>`, the whole request. */
  line: string;
}

export type HoldCheck = { ok: true; call: HeldCall } | { ok: false; why: string };

function byteLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    n += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c < 0xdc00 ? (i++, 4) : 3;
  }
  return n;
}

/** Whether the call can be held whole on one line, and that line. */
export function holdableCall(harness: string, tool: unknown, input: unknown): HoldCheck {
  if (typeof tool !== 'string' || tool === '') return { ok: false, why: 'the request names no tool' };
  const rules = HELD[harness];
  if (!rules) return { ok: false, why: `${harness} approvals are answered in the pane` };
  const rule = Object.prototype.hasOwnProperty.call(rules, tool) ? rules[tool] : undefined;
  if (!rule) return { ok: false, why: `a ${tool} call is answered in the pane (its line cannot show it whole)` };
  if (!input || typeof input !== 'object' || Array.isArray(input)) return { ok: false, why: 'the tool input is not an object' };
  const inp = input as Record<string, unknown>;
  for (const [k, v] of Object.entries(inp)) {
    if (k === rule.arg || rule.allowed?.includes(k)) continue;
    if (rule.offWhenFalse?.includes(k) && (v === false || v === null || v === undefined)) continue;
    return { ok: false, why: `the call sets ${k}, which the line does not show` };
  }
  const arg = inp[rule.arg];
  if (typeof arg !== 'string' || arg === '') return { ok: false, why: `the call has no ${rule.arg}` };
  return lineFits(tool, arg);
}

/** The whole-line rule on its own: the argument drawn as it is, not cut, not masked. */
export function lineFits(tool: string, arg: string): HoldCheck {
  if (byteLength(arg) > HOLD_INPUT_MAX_BYTES) return { ok: false, why: 'the argument is too long for the line' };
  if (/[\n\r\t]/.test(arg)) return { ok: false, why: 'the argument holds a line break or a tab' };
  if (/ {2}/.test(arg) || arg !== arg.trim()) return { ok: false, why: 'the argument holds a doubled or an outer space' };
  if (hasUndrawable(arg) || hasUndrawable(tool)) return { ok: false, why: 'the argument holds a control or invisible character' };
  const raw = rawApprovalLine(tool, arg);
  const shown = approvalMessage(tool, arg);
  if (shown !== raw) return { ok: false, why: shown.endsWith('...') && !raw.endsWith('...') ? 'the line would be cut' : 'part of the line would be masked as a secret' };
  return { ok: true, call: { tool, arg, line: raw } };
}

export interface HeldPlan {
  plan: string;
  title: string;
  lines: number;
  /** `Refactor the retry loop (14 lines)`. */
  row: string;
}

export type PlanCheck = { ok: true; plan: HeldPlan } | { ok: false; why: string };

/** An ExitPlanMode call is held as a plan when it carries nothing but the plan (and its file) and fits. */
export function holdablePlan(input: unknown): PlanCheck {
  if (!input || typeof input !== 'object' || Array.isArray(input)) return { ok: false, why: 'the tool input is not an object' };
  const inp = input as Record<string, unknown>;
  for (const [k, v] of Object.entries(inp)) {
    if (k === 'plan' || k === 'planFilePath') continue;
    if (k === 'allowedPrompts' && (v === undefined || v === null || (Array.isArray(v) && v.length === 0))) continue;
    return { ok: false, why: k === 'allowedPrompts' ? 'the plan asks for command permissions (allowedPrompts)' : `the plan carries ${k}` };
  }
  const plan = inp.plan;
  if (typeof plan !== 'string' || plan.trim() === '') return { ok: false, why: 'the plan is empty' };
  if (byteLength(plan) > PLAN_MAX_BYTES) return { ok: false, why: 'the plan is longer than 32 KiB' };
  const lines = plan.replace(/\n+$/, '').split('\n').length;
  const title = planTitle(plan);
  return { ok: true, plan: { plan, title, lines, row: `${title} (${lines} line${lines === 1 ? '' : 's'})` } };
}

/** The plan's first heading, else its first line, without Markdown marks, one line of 80 characters. */
export function planTitle(plan: string): string {
  const lines = plan.split('\n').map((l) => l.trim()).filter(Boolean);
  const head = lines.find((l) => /^#{1,6}\s/.test(l)) ?? lines[0] ?? 'Plan';
  const t = head.replace(/^#{1,6}\s+/, '').replace(/[*_`]/g, '').replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ').replace(/\s+/g, ' ').trim();
  const cps = [...(t || 'Plan')];
  return cps.length > 80 ? cps.slice(0, 77).join('') + '...' : cps.join('');
}
