// The hooks tuios writes into a harness's own hooks table, and how it finds them again: every
// entry runs `... agent-hook HARNESS --integration N`, the marker that tells ours from the user's
// and an older install from a current one. Pure: a document in, a document out.
import { obj } from '../hooks/plan.js';

export const MARKER_RE = /\bagent-hook\s+([a-z0-9-]+)\b.*?--integration\s+(\d+)/;
const MCP_MARKER_RE = /\bmcp\b.*--integration\s+\d+/;

/** The integration version an entry's command carries, or null for the user's own. */
export function markerVersion(command: unknown): number | null {
  if (typeof command !== 'string') return null;
  const m = MARKER_RE.exec(command);
  return m ? Number(m[2]) : null;
}

export function isOurs(command: unknown): boolean {
  return markerVersion(command) !== null && !MCP_MARKER_RE.test(String(command));
}

/** One shell word: a path with spaces or quotes is single-quoted. */
export function shellWord(s: string): string {
  return /^[\w@%+=:,./~-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`;
}

export function hookCommand(program: string, harness: string, version: number, event?: string): string {
  return `${shellWord(program)} agent-hook ${harness}${event ? ` --event ${event}` : ''} --integration ${version}`;
}

export interface EventEntry {
  event: string;
  /** The entry as the harness's table takes it. */
  entry: Record<string, unknown>;
}

/** Where a table's entry keeps its command: nested in `hooks` (Claude Code's shape) or on itself. */
export type Shape = 'nested' | 'flat';

function entryCommands(e: unknown, shape: Shape, key: string): unknown[] {
  const o = obj(e);
  if (!o) return [];
  if (shape === 'flat') return [o[key]];
  return Array.isArray(o.hooks) ? o.hooks.map((h) => obj(h)?.[key]) : [];
}

/** Every version of ours in a hooks table; [] when none. */
export function versionsIn(table: unknown, shape: Shape, key = 'command'): number[] {
  const t = obj(table);
  const out: number[] = [];
  if (!t) return out;
  for (const list of Object.values(t)) {
    if (!Array.isArray(list)) continue;
    for (const e of list) for (const c of entryCommands(e, shape, key)) if (isOurs(c)) out.push(markerVersion(c)!);
  }
  return out;
}

/**
 * The table without our entries. An entry of the user's that held one of ours beside their own
 * hooks keeps theirs; an event list we emptied goes, as does the table when nothing is left.
 */
export function withoutOurs(table: Record<string, unknown>, shape: Shape, key = 'command'): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [event, list] of Object.entries(table)) {
    if (!Array.isArray(list)) {
      out[event] = list;
      continue;
    }
    let touched = false;
    const kept: unknown[] = [];
    for (const e of list) {
      const o = obj(e);
      if (shape === 'flat') {
        if (o && isOurs(o[key])) touched = true;
        else kept.push(e);
        continue;
      }
      if (!o || !Array.isArray(o.hooks)) {
        kept.push(e);
        continue;
      }
      const hooks = o.hooks.filter((h) => !isOurs(obj(h)?.[key]));
      if (hooks.length === o.hooks.length) kept.push(e);
      else {
        touched = true;
        if (hooks.length) kept.push({ ...o, hooks });
      }
    }
    if (touched && kept.length === 0) continue;
    out[event] = kept;
  }
  return out;
}

/** The table with ours (replacing any older ones), appended after the user's entries of each event. */
export function withOurs(table: Record<string, unknown>, entries: EventEntry[], shape: Shape, key = 'command'): Record<string, unknown> {
  const out = withoutOurs(table, shape, key);
  for (const { event, entry } of entries) {
    const list = Array.isArray(out[event]) ? [...(out[event] as unknown[])] : [];
    list.push(entry);
    out[event] = list;
  }
  return out;
}
