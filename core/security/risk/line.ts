// An approval line, as panes and tuios's hooks report it: `approve <Tool>: <what>`, clipped to 100
// characters with `...`, a part that looks like a key replaced with `***`. Such a line may hide
// the risky part, so it is "cut short" (spec: Risk rules).
import { APPROVAL_LINE_MAX } from '../../limits.js';

const CUT = '...';
/** What dialogs add when the message is not the whole call (spec: Crush permission prompts). */
const NOT_ALL_SHOWN = '(not all shown)';
export const PATCH_START = '*** Begin Patch';

export interface ApprovalLine {
  /** The tool the line names; null when it is not an `approve <Tool>:` line. */
  tool: string | null;
  /** The command or path, without the cut. */
  what: string;
  /** The line does not show the whole call. */
  cutShort: boolean;
  /** The end of the line is the cut: its last word (or path) is only a beginning. */
  tailCut: boolean;
  /** A Codex apply_patch line. */
  patch: boolean;
}

const APPROVE = /^approve\s+([^\s:]+):[ \t]?/;

export function readApprovalLine(line: string): ApprovalLine {
  let text = line.trim();
  let cutShort = false;
  let tailCut = false;
  if (text.endsWith(NOT_ALL_SHOWN)) {
    text = text.slice(0, -NOT_ALL_SHOWN.length).trimEnd();
    cutShort = tailCut = true;
  }
  // Only a `...` at the very end is the cut; anywhere else it is part of what is shown.
  if (text.endsWith(CUT) || text.endsWith('…')) {
    text = text.slice(0, text.endsWith(CUT) ? -CUT.length : -1);
    cutShort = tailCut = true;
  } else if (text.length >= APPROVAL_LINE_MAX) cutShort = tailCut = true;
  const m = APPROVE.exec(text);
  const tool = m ? m[1]! : null;
  const what = m ? text.slice(m[0].length) : text;
  const patch = what.trimStart().startsWith(PATCH_START);
  // A patch's own `***` headers cannot be told from a redacted part.
  if (patch || what.includes('***')) cutShort = true;
  return { tool, what, cutShort, tailCut, patch };
}

/** Values that look like a credential: `token=...`, `Bearer ...`, and the shapes of common keys. */
const KEYISH = [
  /((?:token|secret|password|passwd|api[_-]?key|access[_-]?key|auth)["']?\s*[:=]\s*)("[^"]*"|'[^']*'|[^\s"']+)/gi,
  /(\bBearer\s+)([A-Za-z0-9._~+/=-]+)/g,
  /()\b(sk-[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|xox[abpr]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,}|glpat-[A-Za-z0-9_-]{20,}|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})/g,
];

/** The line a hook reports for a call: key-like parts masked, then clipped to APPROVAL_LINE_MAX with `...`. */
export function approvalLine(tool: string | null, what: string): string {
  let text = (tool ? `approve ${tool}: ${what}` : what).replace(/\s+/g, ' ').trim();
  for (const re of KEYISH) text = text.replace(re, '$1***');
  return text.length > APPROVAL_LINE_MAX ? text.slice(0, APPROVAL_LINE_MAX - CUT.length) + CUT : text;
}
