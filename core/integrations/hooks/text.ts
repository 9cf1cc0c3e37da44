// The words a hook report carries out of the pane (spec: What each event reports): one line,
// whitespace collapsed, anything that looks like a credential replaced by `***`, cut to 100
// characters. The message reaches every attached client, alerts and after-agent-state hooks, so
// it is cleaned here, in the reporter, before it leaves the harness. Pure, and it imports nothing
// but its cut (core/limits.ts): it runs in every hook call.
import { HOOK_MESSAGE_MAX } from '../../limits.js';

const CUT = '...';
export const MASK = '***';

const SECRET_WORD = '(?:token|secret|password|passwd|passphrase|api[_-]?key|access[_-]?key|private[_-]?key|key|auth|credential)';

/** Each credential shape, and how it is masked: the name stays, the value goes. */
const MASKS: Array<[RegExp, string]> = [
  // NAME=value where the name says token, secret, password or key (also "name": "value" in JSON).
  [new RegExp(`\\b([A-Za-z_][A-Za-z0-9_.-]*${SECRET_WORD}[A-Za-z0-9_]*["']?\\s*[:=]\\s*)("[^"]*"|'[^']*'|[^\\s"',;&|]+)`, 'gi'), `$1${MASK}`],
  // --token value, --api-key=value, -p pass is not guessed (a short flag says nothing).
  [new RegExp(`(--[A-Za-z0-9-]*${SECRET_WORD}[A-Za-z0-9-]*)(=|\\s+)("[^"]*"|'[^']*'|[^\\s"']+)`, 'gi'), `$1$2${MASK}`],
  // Authorization headers.
  [/\b(Bearer|Basic|Token|Digest)(\s+)[A-Za-z0-9._~+/=-]{6,}/g, `$1$2${MASK}`],
  // Credentials in a URL: scheme://user:password@host.
  [/(\b[a-z][a-z0-9+.-]*:\/\/)[^\s/:@]+:[^\s/@]+@/gi, `$1${MASK}@`],
  // The shapes of common keys.
  [/\b(?:sk-[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|xox[abpr]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,}|glpat-[A-Za-z0-9_-]{20,}|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})/g, MASK],
  // Long runs mixing letters and digits (a key with no known prefix, a session cookie).
  [/(?<![A-Za-z0-9])(?=[A-Za-z0-9]*[A-Za-z])(?=[A-Za-z0-9]*[0-9])[A-Za-z0-9]{20,}(?![A-Za-z0-9])/g, MASK],
];

/** Control and invisible characters (C0, C1, DEL, zero-width and bidi controls) go. */
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/g;

export function maskSecrets(text: string): string {
  let t = text;
  for (const [re, to] of MASKS) t = t.replace(re, to);
  return t;
}

/** One line: controls become spaces, runs of whitespace one space. */
export function oneLine(text: string): string {
  return text.replace(CONTROLS, ' ').replace(/\s+/g, ' ').trim();
}

/** Cut to `max` characters (code points), with `...` at the end when anything was cut. */
export function cut(text: string, max = HOOK_MESSAGE_MAX): string {
  const cps = [...text];
  if (cps.length <= max) return text;
  return cps.slice(0, max - CUT.length).join('').trimEnd() + CUT;
}

/** A message for a report: one line, masked, cut. */
export function cleanMessage(text: unknown): string {
  if (typeof text !== 'string') return '';
  return cut(maskSecrets(oneLine(text)));
}

/** The first non-empty line of a text, cleaned like a message (a `done` message, a prompt). */
export function firstLine(text: unknown): string {
  if (typeof text !== 'string') return '';
  const line = text.split(/\r?\n/).find((l) => l.trim() !== '') ?? '';
  return cleanMessage(line);
}

/** `approve <Tool>: <what>`, masked, then cut (the line the risk rules read back). */
export function approvalMessage(tool: string, what: string): string {
  const w = oneLine(what);
  return cleanMessage(w ? `approve ${tool}: ${w}` : `approve ${tool}`);
}

/** The raw line of a call before any masking or cutting, for the hold's whole-line rule. */
export function rawApprovalLine(tool: string, what: string): string {
  return `approve ${tool}: ${what}`;
}

/** True when the text has a character the Inbox cannot draw as it is (controls, invisibles, tabs, newlines). */
export function hasUndrawable(text: string): boolean {
  CONTROLS.lastIndex = 0;
  return new RegExp(CONTROLS.source).test(text) || /[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180e\u3164\uffa0\ufe00-\ufe0f]/.test(text);
}

/** The text the session name prints as in the context lines: controls escaped, quoted, 64 characters. */
export function quoteName(name: string): string {
  const escaped = [...name]
    .slice(0, 64)
    .map((c) => {
      const cp = c.codePointAt(0)!;
      if (c === '"' || c === '\\') return `\\${c}`;
      if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || /[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/.test(c)) return `\\u${cp.toString(16).padStart(4, '0')}`;
      return c;
    })
    .join('');
  return `"${escaped}"`;
}
