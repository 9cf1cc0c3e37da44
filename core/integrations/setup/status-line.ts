// Claude Code's `statusLine` entry in settings.json, as `tuios integration install claude-code
// --statusline [--then CMD]` writes it (spec: The status line feed). Claude Code has one status
// line slot and it may be the person's: one they wrote is never replaced. Install refuses it and
// names the command that keeps it (`--then` with their command); with that, the entry keeps every
// key it had and only its command changes. Uninstall removes the entry, or puts their command
// back. Pure: a document in, a document (or a refusal) out.
import { obj } from '../hooks/plan.js';
import { shellWord } from './hook-entries.js';

/** The version marker of the status line command: how a later install and uninstall find it. */
export const STATUS_LINE_VERSION = 1;
const OURS_RE = /\bagent-statusline\s+claude-code\b.*?\s--integration\s+(\d+)/;
const THEN_RE = /\s--then\s+('(?:[^']|'\\'')*'|[^\s']+)\s*$/;

/** A shell word always quoted: what the person pastes keeps `~` and `$` as they wrote them. */
export function quoted(s: string): string {
  return `'${s.replace(/'/g, "'\\''")}'`;
}

/** The inverse of quoted() (and of shellWord's bare words). */
function unquoted(word: string): string {
  return word.startsWith("'") ? word.slice(1, -1).replace(/'\\''/g, "'") : word;
}

export function statusLineCommand(program: string, then: string | null): string {
  return `${shellWord(program)} agent-statusline claude-code --integration ${STATUS_LINE_VERSION}${then !== null ? ` --then ${quoted(then)}` : ''}`;
}

export interface OursCommand {
  version: number;
  /** The person's own command it chains to, or null. */
  then: string | null;
}

/** What a status line command of ours says; null for anyone else's. */
export function parseOurs(command: unknown): OursCommand | null {
  if (typeof command !== 'string') return null;
  const m = OURS_RE.exec(command);
  if (!m) return null;
  const t = THEN_RE.exec(command);
  return { version: Number(m[1]), then: t ? unquoted(t[1]!) : null };
}

/** The command that keeps the person's own status line and adds the feed. */
export function keepCommand(theirs: string): string {
  return `tuios integration install claude-code --statusline --then ${quoted(theirs)}`;
}

export type StatusLineEdit = { ok: true; doc: Record<string, unknown> } | { ok: false; why: string };

/** The document with our status line (`then`: the --then given, or null). */
export function withStatusLine(doc: Record<string, unknown>, program: string, then: string | null): StatusLineEdit {
  const had = doc.statusLine;
  const entry = obj(had);
  if (had === undefined || had === null) {
    return { ok: true, doc: { ...doc, statusLine: { type: 'command', command: statusLineCommand(program, then) } } };
  }
  if (!entry) return { ok: false, why: 'its statusLine is not an object; tuios does not replace it' };
  const ours = parseOurs(entry.command);
  if (ours) {
    // Installing again without --then keeps the chain; another --then would lose the command chained now.
    if (then !== null && ours.then !== null && then !== ours.then) {
      return { ok: false, why: `its status line already chains to ${quoted(ours.then)}; run tuios integration uninstall claude-code --statusline to put that back first` };
    }
    return { ok: true, doc: { ...doc, statusLine: { ...entry, command: statusLineCommand(program, then ?? ours.then) } } };
  }
  const theirs = typeof entry.command === 'string' ? entry.command : null;
  if (theirs === null || (entry.type !== undefined && entry.type !== 'command')) {
    return { ok: false, why: 'it has a status line that is not a command; tuios does not replace it' };
  }
  if (then !== theirs) {
    return { ok: false, why: `it has a status line of yours, which tuios does not replace. To keep it and add the feed, run:\n  ${keepCommand(theirs)}` };
  }
  return { ok: true, doc: { ...doc, statusLine: { ...entry, command: statusLineCommand(program, then) } } };
}

/** The document without our status line: the entry goes, or the person's command comes back. */
export function withoutStatusLine(doc: Record<string, unknown>): Record<string, unknown> {
  const entry = obj(doc.statusLine);
  const ours = entry ? parseOurs(entry.command) : null;
  if (!entry || !ours) return doc;
  if (ours.then !== null) return { ...doc, statusLine: { ...entry, command: ours.then } };
  const out = { ...doc };
  delete out.statusLine;
  return out;
}

export interface StatusLineStatus {
  /** installed: ours and current; out of date: ours, older; not installed: none; other: the person's own. */
  state: 'installed' | 'out of date' | 'not installed' | 'other';
  version: number | null;
  /** The person's command ours chains to. */
  then: string | null;
}

export function statusLineStatus(doc: Record<string, unknown>): StatusLineStatus {
  const entry = obj(doc.statusLine);
  if (!entry) return { state: 'not installed', version: null, then: null };
  const ours = parseOurs(entry.command);
  if (!ours) return { state: 'other', version: null, then: null };
  return { state: ours.version >= STATUS_LINE_VERSION ? 'installed' : 'out of date', version: ours.version, then: ours.then };
}
