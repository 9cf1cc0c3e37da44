// Where a review note is now (pure; spec: Reviewing an agent's changes, "Notes"). A note keeps the
// text of its line; each diff finds the line again: the same text within 50 lines of where it was,
// else the nearest match in the file. White space at the ends and a change in indentation do not
// count. A line that is gone makes the note outdated, until it comes back. A note on a hunk moves
// to the hunk with the same header, else the one that holds its line.
import { TuiosError } from '../errors.js';
import { REVIEW_FIND_WINDOW } from '../limits.js';
import { hunkKey, type Hunk } from './patch.js';

/** A line as notes compare it: its ends trimmed, so indentation and trailing space do not count. */
export function lineKey(s: string): string {
  return s.trim();
}

export interface Placement {
  /** The line's number now (1-based), null when it is gone. */
  line: number | null;
  outdated: boolean;
}

/**
 * Finds a note's quoted line in `lines` (the file as it is now on the note's side): the nearest
 * match within `window` lines of `was`, else the nearest anywhere, else outdated. An empty quote
 * (a blank line) stays where it was while the file is that long.
 */
export function findLine(lines: readonly string[], quote: string, was: number, window = REVIEW_FIND_WINDOW): Placement {
  const key = lineKey(quote);
  if (key === '') return was >= 1 && was <= lines.length && lineKey(lines[was - 1]!) === '' ? { line: was, outdated: false } : { line: null, outdated: true };
  const near = (from: number, to: number): number | null => {
    let best: number | null = null;
    for (let n = Math.max(1, from); n <= Math.min(lines.length, to); n++) {
      if (lineKey(lines[n - 1]!) === key && (best === null || Math.abs(n - was) < Math.abs(best - was))) best = n;
    }
    return best;
  };
  // Close by first (the line moved with edits above it), then anywhere in the file.
  const n = near(was - window, was + window) ?? near(1, lines.length);
  return n === null ? { line: null, outdated: true } : { line: n, outdated: false };
}

/** The hunk a note on a hunk belongs to now: the same header, else the one holding its line. */
export function findHunk(hunks: readonly Hunk[], header: string, line: number | null): Hunk | null {
  const key = hunkKey(header);
  const same = hunks.find((h) => hunkKey(h.header) === key);
  if (same) return same;
  if (line === null) return null;
  return hunks.find((h) => h.newLines > 0 && line >= h.newStart && line < h.newStart + h.newLines) ?? null;
}

export interface NotePlace {
  file: string;
  /** null for a note on a whole hunk named by its header. */
  line: number | null;
}

/**
 * `FILE:LINE` as the CLI takes it (the last colon splits, so a path may hold one), or `FILE` alone
 * with a hunk header given apart. Paths are repository paths: no leading slash, no `..`.
 */
export function parsePlace(at: string, hunk: string | undefined): NotePlace {
  const bad = (why: string) => new TuiosError('invalid_params', `"${at.slice(0, 200)}" is not a place for a note: ${why}.`, "Name it as FILE:LINE (a path in the repository and a line number), or FILE with --hunk '@@ -a,b +c,d @@'.", { field: 'at' });
  const m = /^(.*):(\d+)$/.exec(at);
  const file = m ? m[1]! : at;
  if (!file || file.startsWith('/') || file.split('/').includes('..') || file.includes('\0')) throw bad('the file must be a path inside the repository');
  if (m) {
    const line = Number(m[2]);
    if (!Number.isSafeInteger(line) || line < 1) throw bad('lines count from 1');
    return { file, line };
  }
  if (!hunk) throw bad('it names no line and no hunk');
  if (!/^@@ -\d+(,\d+)? \+\d+(,\d+)? @@/.test(hunk)) throw new TuiosError('invalid_params', 'A hunk is named by its header, "@@ -a,b +c,d @@".', 'Copy the header from tuios review.', { field: 'hunk' });
  return { file, line: null };
}
