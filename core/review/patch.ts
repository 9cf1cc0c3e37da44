// A unified diff read as files, hunks and numbered lines (pure): review-diff answers each file's
// part of the patch on its own, the overlay draws notes under the lines these numbers name, and a
// note on a hunk finds its hunk again by header.
import { REVIEW_FILE_MAX_LINES } from '../limits.js';

export interface PatchLine {
  /** ' ' context, '+' added, '-' removed, '\\' a "no newline" marker. */
  kind: ' ' | '+' | '-' | '\\';
  /** Its number on the old side (the base), null for an added line. */
  old: number | null;
  /** Its number on the new side (the work tree), null for a removed line. */
  new: number | null;
  text: string;
}

export interface Hunk {
  /** The whole `@@ -a,b +c,d @@ ...` line. */
  header: string;
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: PatchLine[];
}

export interface FilePatch {
  path: string;
  /** This file's part of the patch, from its `diff --git` line. */
  text: string;
  lines: number;
}

const HUNK_RE = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** The path a `diff --git a/X b/X` section is about (the b side; the a side for a deletion). */
function pathOf(section: string[]): string | null {
  for (const l of section) {
    if (l.startsWith('+++ b/')) return l.slice(6);
    if (l.startsWith('--- a/') && section.some((x) => x === '+++ /dev/null')) return l.slice(6);
    if (l.startsWith('@@')) break;
  }
  // A binary or mode-only change has no ---/+++ lines: `diff --git a/P b/P` with P twice.
  const m = /^diff --git a\/(.*) b\/(.*)$/.exec(section[0] ?? '');
  if (m && m[1] === m[2]) return m[1]!;
  return m ? m[2]! : null;
}

/** Splits a patch (diff-tree -p) into one part per file, in order. */
export function splitPatch(patch: string): FilePatch[] {
  const out: FilePatch[] = [];
  const lines = patch.split('\n');
  let cur: string[] | null = null;
  const flush = () => {
    if (!cur) return;
    const path = pathOf(cur);
    if (path !== null) out.push({ path, text: cur.join('\n') + '\n', lines: cur.length });
  };
  for (const l of lines) {
    if (l.startsWith('diff --git ')) {
      flush();
      cur = [l];
    } else if (cur) cur.push(l);
  }
  if (cur && cur[cur.length - 1] === '') cur.pop();
  flush();
  return out;
}

/** A file's patch past the per-file limit: it is listed with counts only. */
export function overFileLimit(f: FilePatch, max = REVIEW_FILE_MAX_LINES): boolean {
  return f.lines > max;
}

/** The hunks of one file's patch, every line numbered on the side it is on. */
export function parseHunks(text: string): Hunk[] {
  const hunks: Hunk[] = [];
  let h: Hunk | null = null;
  let o = 0;
  let n = 0;
  for (const l of text.split('\n')) {
    const m = HUNK_RE.exec(l);
    if (m) {
      h = { header: l, oldStart: Number(m[1]), oldLines: m[2] === undefined ? 1 : Number(m[2]), newStart: Number(m[3]), newLines: m[4] === undefined ? 1 : Number(m[4]), lines: [] };
      hunks.push(h);
      o = h.oldStart;
      n = h.newStart;
      continue;
    }
    if (!h) continue;
    const k = l[0];
    if (k === '+') h.lines.push({ kind: '+', old: null, new: n++, text: l.slice(1) });
    else if (k === '-') h.lines.push({ kind: '-', old: o++, new: null, text: l.slice(1) });
    else if (k === ' ') h.lines.push({ kind: ' ', old: o++, new: n++, text: l.slice(1) });
    else if (k === '\\') h.lines.push({ kind: '\\', old: null, new: null, text: l });
  }
  return hunks;
}

/** The header part tuios matches a hunk by: `@@ -a,b +c,d @@` without the function context. */
export function hunkKey(header: string): string {
  const m = /^@@ [^@]* @@/.exec(header);
  return m ? m[0] : header;
}

/** The new-side range a hunk covers, for "FILE:100-105" (old side when it adds nothing). */
export function hunkRange(h: Hunk): { start: number; end: number } {
  if (h.newLines > 0) return { start: h.newStart, end: h.newStart + h.newLines - 1 };
  return { start: h.oldStart, end: h.oldStart + Math.max(0, h.oldLines - 1) };
}
