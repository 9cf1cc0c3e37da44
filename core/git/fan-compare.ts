// Comparing the attempts of a fan (spec: Comparing a fan): what each changed against the fan's
// base, and what two did differently. Both read the work as it is through a temporary copy of the
// worktree's index (workingTrees), so an attempt's index and files are never touched.
import { diffTreeFiles, diffWorktree, workingTrees, type DiffFile } from './repo.js';
import { git } from './run.js';
import { TuiosError } from '../errors.js';
import { DIFF_MAX_BYTES, GIT_DIFF_BUDGET_MS } from '../limits.js';
import { FAN_DIFF_FILES_MAX } from '../limits.js';

export interface AttemptChanges {
  files: number;
  added: number;
  deleted: number;
  /** Commits on the attempt's branch past the base. */
  commits: number;
  /** More files changed than diffWorktree lists (DIFF_MAX_FILES): files is that many, the line counts cover all. */
  truncated: boolean;
}

/** What an attempt changed against its base: committed and uncommitted work, untracked files included. */
export async function attemptChanges(path: string, baseCommit: string, signal?: AbortSignal): Promise<AttemptChanges> {
  const d = await diffWorktree(path, baseCommit, { signal, patch: false, budgetMs: GIT_DIFF_BUDGET_MS });
  return { files: d.files.length, added: d.added, deleted: d.deleted, commits: d.commits, truncated: d.truncated };
}

export interface AttemptsDiff {
  files: DiffFile[];
  added: number;
  deleted: number;
  /** More files differ than are listed, or the patch was cut. */
  truncated: boolean;
  patch: string;
}

/**
 * What attempt B has that attempt A has not, file by file: A's work as it is against B's. The two
 * worktrees share one object store, so the trees one writes are read in the other.
 */
export async function diffAttempts(a: string, b: string, o: { signal?: AbortSignal; patch?: boolean } = {}): Promise<AttemptsDiff> {
  const deadline = Date.now() + GIT_DIFF_BUDGET_MS;
  const left = () => {
    const ms = deadline - Date.now();
    if (ms <= 0) throw new TuiosError('timeout', 'The diff ran past its time budget.', 'The repository may be very large; try again.');
    return ms;
  };
  const ta = await workingTrees(a, { signal: o.signal, timeoutMs: left() });
  const tb = await workingTrees(b, { signal: o.signal, timeoutMs: left() });
  const { files, added, deleted } = await diffTreeFiles(a, ta.workTree, tb.workTree, { signal: o.signal, left });
  let truncated = files.length > FAN_DIFF_FILES_MAX;
  let patch = '';
  if (o.patch) {
    const r = await git(['diff-tree', '-p', '-r', '--no-renames', '--no-ext-diff', '--no-textconv', '--no-color', ta.workTree, tb.workTree], { cwd: a, signal: o.signal, maxOutputBytes: DIFF_MAX_BYTES, cut: true, timeoutMs: left() });
    patch = r.stdout.toString('utf8');
    truncated ||= r.truncated;
  }
  return { files: files.slice(0, FAN_DIFF_FILES_MAX), added, deleted, truncated, patch };
}
