// What the review overlay shows of one file (pure): the hunks' lines, each note under the line it
// is on, a note on a hunk under the hunk's last line, notes whose line is gone at the top marked
// outdated with the line they quoted, and for a binary file or one past the diff's limits its
// counts and why no text is shown. Everything from the repository or a note is cleaned.
import { parseHunks } from '../core/review/patch.js';
import { findHunk } from '../core/review/place.js';
import { clean } from './text.js';
import type { NoteJson, DiffResult, DiffFileJson } from '../core/verbs/review.js';

/** The review verbs' own types: the overlay reads what review-diff answers, field for field. */
export type ReviewNote = Pick<NoteJson, 'id' | 'file' | 'side' | 'line' | 'hunk' | 'quote' | 'text' | 'author' | 'author_name' | 'outdated' | 'sent_at'>;
export type ReviewFile = DiffFileJson;
export type ReviewData = Pick<DiffResult, 'window_id' | 'pane' | 'session' | 'base' | 'against' | 'files' | 'added' | 'deleted' | 'truncated'> & { notes: ReviewNote[] };

export type ReviewRow =
  | { kind: 'outdated'; note: ReviewNote }
  | { kind: 'hunk'; text: string }
  | { kind: 'line'; mark: ' ' | '+' | '-' | '\\'; old: number | null; new: number | null; text: string }
  | { kind: 'note'; note: ReviewNote }
  | { kind: 'why'; text: string };

const WHY: Record<string, string> = {
  binary: 'A binary file: counts only, no text is shown.',
  too_long: 'Past the diff\'s limit of 5000 lines in one file: counts only.',
  past_limit: 'Past the diff\'s limits (400 files or 2 MiB of text): counts only.',
  stat: 'Counts only.',
};

/** The rows of one file, in the order they are drawn. */
export function fileRows(f: ReviewFile, notes: readonly ReviewNote[]): ReviewRow[] {
  const mine = notes.filter((n) => n.file === f.path);
  const rows: ReviewRow[] = mine.filter((n) => n.outdated).map((note) => ({ kind: 'outdated', note }));
  const placed = mine.filter((n) => !n.outdated);
  if (!f.patch) {
    rows.push({ kind: 'why', text: f.changed ? `${WHY[f.why ?? 'stat']} +${f.added ?? '-'} -${f.deleted ?? '-'}` : 'No longer changed; its notes are kept until you resolve them.' });
    for (const note of placed) rows.push({ kind: 'note', note });
    return rows;
  }
  const shown = new Set<string>();
  const hunks = parseHunks(f.patch);
  // A note on a hunk: the hunk with its header, else the one holding its line; under its last line.
  const hunkOf = new Map(placed.filter((n) => n.hunk).map((n) => [n.id, findHunk(hunks, n.hunk!, n.line)]));
  for (const h of hunks) {
    rows.push({ kind: 'hunk', text: clean(h.header) });
    const last = h.lines[h.lines.length - 1];
    for (const l of h.lines) {
      rows.push({ kind: 'line', mark: l.kind, old: l.old, new: l.new, text: clean(l.text) });
      for (const n of placed) {
        if (shown.has(n.id)) continue;
        const on = n.hunk ? l === last && hunkOf.get(n.id) === h : n.side === 'old' ? l.kind === '-' && l.old === n.line : l.kind !== '-' && l.new === n.line;
        if (on) {
          rows.push({ kind: 'note', note: n });
          shown.add(n.id);
        }
      }
    }
  }
  // A note on a line outside every hunk (unchanged text) goes at the end, so it can still be read.
  for (const n of placed) if (!shown.has(n.id)) rows.push({ kind: 'note', note: n });
  return rows;
}

/** Where a note added on this row goes: a line of the new side, or a removed line on the old. */
export function notePlace(r: ReviewRow | undefined): { line: number; side: 'new' | 'old' } | null {
  if (!r || r.kind !== 'line' || r.mark === '\\') return null;
  if (r.mark === '-') return r.old === null ? null : { line: r.old, side: 'old' };
  return r.new === null ? null : { line: r.new, side: 'new' };
}
