// What review-diff reads: the pane's changes against its base (or one turn's, from its checkpoints,
// or another attempt's), cut into one patch per file within the caps, and the pane's notes placed
// on the lines as they are now.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { git } from '../git/run.js';
import { diffTreeFiles, diffWorktree, workingTrees, type DiffFile } from '../git/repo.js';
import { DIFF_MAX_BYTES, DIFF_MAX_FILES, GIT_DIFF_BUDGET_MS, REVIEW_FILE_READ_MAX_BYTES } from '../limits.js';
import { TuiosError } from '../errors.js';
import { overFileLimit, parseHunks, splitPatch } from './patch.js';
import { findHunk, findLine } from './place.js';
import type { Note } from './notes.js';

export interface ReviewFile extends DiffFile {
  /** This file's part of the patch; null with `why` when no text is shown. */
  patch: string | null;
  why: 'binary' | 'too_long' | 'past_limit' | 'stat' | null;
  /** false for a file listed only because it still has notes. */
  changed: boolean;
}

export interface ReviewDiff {
  from: string | null;
  files: ReviewFile[];
  added: number;
  deleted: number;
  truncated: boolean;
  skipped: Array<{ path: string; bytes: number }>;
  commits: number;
}

/** Cuts the whole patch into files; a file past the caps keeps its counts only. */
export function perFile(files: DiffFile[], patch: string, truncated: boolean, withPatch: boolean): { files: ReviewFile[]; truncated: boolean } {
  const split = splitPatch(patch);
  const parts = new Map(split.map((p) => [p.path, p]));
  // A patch cut at its byte cap ends mid-file: that file's text is partial, so it shows counts only.
  const partial = Buffer.byteLength(patch) >= DIFF_MAX_BYTES ? split[split.length - 1]?.path : undefined;
  let cut = truncated;
  const out = files.map((f): ReviewFile => {
    if (!withPatch) return { ...f, patch: null, why: 'stat', changed: true };
    if (f.binary) return { ...f, patch: null, why: 'binary', changed: true };
    const p = parts.get(f.path);
    if (!p || f.path === partial) return { ...f, patch: null, why: 'past_limit', changed: true };
    if (overFileLimit(p)) {
      cut = true;
      return { ...f, patch: null, why: 'too_long', changed: true };
    }
    return { ...f, patch: p.text, why: null, changed: true };
  });
  return { files: out, truncated: cut };
}

/** The worktree against a base commit (merge base with HEAD), or HEAD when null. */
export async function diffAgainstBase(top: string, baseCommit: string | null, o: { signal?: AbortSignal; patch: boolean; maxUntrackedBytes?: number }): Promise<ReviewDiff> {
  const d = await diffWorktree(top, baseCommit, { signal: o.signal, patch: o.patch, budgetMs: GIT_DIFF_BUDGET_MS, maxUntrackedBytes: o.maxUntrackedBytes });
  const { files, truncated } = perFile(d.files, d.patch, d.truncated, o.patch);
  return { from: d.from, files, added: d.added, deleted: d.deleted, truncated, skipped: d.skipped, commits: d.commits };
}

/** Two attempts of a fan with each other: their work trees as they are, untracked files included. */
export async function diffAttempts(top: string, other: string, o: { signal?: AbortSignal; patch: boolean; maxUntrackedBytes?: number }): Promise<ReviewDiff> {
  const deadline = Date.now() + GIT_DIFF_BUDGET_MS;
  const left = () => {
    const ms = deadline - Date.now();
    if (ms <= 0) throw new TuiosError('timeout', 'The diff ran past its time budget.', 'Try again.');
    return ms;
  };
  const [mine, theirs] = await Promise.all([workingTrees(top, { signal: o.signal, timeoutMs: left(), maxUntrackedBytes: o.maxUntrackedBytes }), workingTrees(other, { signal: o.signal, timeoutMs: left(), maxUntrackedBytes: o.maxUntrackedBytes })]);
  const { files, added, deleted } = await diffTreeFiles(top, theirs.workTree, mine.workTree, { signal: o.signal, left });
  let patch = '';
  let truncated = files.length > DIFF_MAX_FILES;
  if (o.patch) {
    const r = await git(['diff-tree', '-p', '-r', '--no-renames', '--no-ext-diff', '--no-textconv', '--no-color', theirs.workTree, mine.workTree], { cwd: top, signal: o.signal, maxOutputBytes: DIFF_MAX_BYTES, cut: true, timeoutMs: left() });
    patch = r.stdout.toString('utf8');
    truncated ||= r.truncated;
  }
  const pf = perFile(files.slice(0, DIFF_MAX_FILES), patch, truncated, o.patch);
  return { from: null, files: pf.files, added, deleted, truncated: pf.truncated, skipped: [...mine.skipped, ...theirs.skipped], commits: 0 };
}

/** A file's lines on one side: the work tree's file, or the base's blob; null when unreadable or too large. */
export async function sideLines(top: string, file: string, side: 'new' | 'old', from: string | null, signal?: AbortSignal): Promise<string[] | null> {
  try {
    if (side === 'new') {
      const path = join(top, file);
      if ((await stat(path)).size > REVIEW_FILE_READ_MAX_BYTES) return null;
      return (await readFile(path, 'utf8')).split('\n');
    }
    if (!from) return null;
    const r = await git(['cat-file', 'blob', `${from}:${file}`], { cwd: top, signal, okCodes: [0, 128], maxOutputBytes: REVIEW_FILE_READ_MAX_BYTES, cut: true });
    return r.code === 0 ? r.stdout.toString('utf8').split('\n') : null;
  } catch {
    return null;
  }
}

export interface PlacedNote {
  note: Note;
  line: number | null;
  outdated: boolean;
  /** A note on a hunk: the header of the hunk it is on now. */
  hunk: string | null;
}

/** Each note where its line is now (spec: "every review-diff finds the line again"). */
export async function placeNotes(top: string, from: string | null, notes: Note[], files: ReviewFile[], signal?: AbortSignal): Promise<PlacedNote[]> {
  const cache = new Map<string, string[] | null>();
  const out: PlacedNote[] = [];
  for (const n of notes) {
    if (n.hunk) {
      const f = files.find((x) => x.path === n.file);
      const h = f?.patch ? findHunk(parseHunks(f.patch), n.hunk, n.line) : null;
      out.push({ note: n, line: h ? h.newStart + Math.max(0, h.newLines - 1) : null, outdated: !h, hunk: h?.header ?? n.hunk });
      continue;
    }
    const key = `${n.side}:${n.file}`;
    if (!cache.has(key)) cache.set(key, await sideLines(top, n.file, n.side, from, signal));
    const lines = cache.get(key);
    const p = lines ? findLine(lines, n.quote, n.line ?? 1) : { line: null, outdated: true };
    out.push({ note: n, line: p.line, outdated: p.outdated, hunk: null });
  }
  return out;
}
