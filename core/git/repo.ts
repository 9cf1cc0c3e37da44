// Repositories and worktrees as tuios uses them: where a folder's repository is, a new worktree
// (its path chosen by tuios, its base recorded), the state of a worktree's uncommitted work, its
// diff against its base, and removing it (merging is core/git/ship.ts). Every call goes through
// the safe runner (core/git/run.ts).
import { createHash } from 'node:crypto';
import { copyFile, lstat, mkdir, mkdtemp, rm, stat, utimes } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { TuiosError } from '../errors.js';
import { git, gitText, forgetSafety } from './run.js';
import { DIFF_MAX_BYTES, DIFF_MAX_FILES, GIT_TIMEOUT_MS, GIT_TRANSFER_TIMEOUT_MS, MAX_UNTRACKED_FILE_BYTES } from '../limits.js';

export const SHA_RE = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

export interface RepoInfo {
  /** The top of the worktree holding the folder. */
  top: string;
  /** This worktree's git dir (.git, or .git/worktrees/NAME). */
  gitDir: string;
  /** The repository's shared git dir: one per repository, whatever the worktree. */
  commonDir: string;
  /** The main checkout (the first entry of `git worktree list`), null for a bare repository. */
  main: string | null;
  /** A short name for the repository: its main checkout's folder name. */
  name: string;
  /** The checked-out branch (short name), null on a detached HEAD. */
  branch: string | null;
  /** The HEAD commit, null in a repository with no commits yet. */
  head: string | null;
}

/** The repository holding `dir`; not_repo when there is none. */
export async function repoAt(dir: string, signal?: AbortSignal): Promise<RepoInfo> {
  if (!existsSync(dir)) throw new TuiosError('not_repo', `The folder ${dir} does not exist.`, 'Name a folder inside a git repository with --repo.');
  let lines: string[];
  try {
    lines = (await gitText(['rev-parse', '--path-format=absolute', '--show-toplevel', '--git-dir', '--git-common-dir'], { cwd: dir, signal, noRepo: true })).split('\n');
  } catch (e) {
    if (e instanceof TuiosError && e.code === 'git_failed') {
      throw new TuiosError('not_repo', `${dir} is not inside a git repository.`, 'Run it from a folder of the repository, or name one with --repo PATH.');
    }
    throw e;
  }
  const [top, gitDir, commonDir] = lines as [string, string, string];
  if (!top || !gitDir || !commonDir) throw new TuiosError('not_repo', `${dir} is not inside a worktree of a git repository (a bare repository has none).`, 'Name a checkout with --repo PATH.');
  const [branch, head, list] = await Promise.all([
    git(['symbolic-ref', '--short', '-q', 'HEAD'], { cwd: top, signal, okCodes: [0, 1] }).then((r) => r.stdout.toString().trim() || null),
    git(['rev-parse', '-q', '--verify', 'HEAD^{commit}'], { cwd: top, signal, okCodes: [0, 1] }).then((r) => r.stdout.toString().trim() || null),
    gitText(['worktree', 'list', '--porcelain'], { cwd: top, signal }),
  ]);
  const first = /^worktree (.+)$/m.exec(list)?.[1] ?? null;
  const bare = /^bare$/m.test(list.split('\n\n')[0] ?? '');
  const main = bare ? null : first;
  return { top, gitDir, commonDir, main, name: basename(main ?? dirname(commonDir)).replace(/\.git$/, '') || 'repo', branch, head };
}

/** Refuses a branch name git would refuse, or one that reads as a flag. */
export async function checkBranchName(name: string, cwd: string): Promise<void> {
  const bad = () => new TuiosError('invalid_params', `"${name}" is not a branch name git accepts.`, 'Use letters, digits, - _ . and /, e.g. feat/retry.', { field: 'branch' });
  // eslint-disable-next-line no-control-regex
  if (name.length === 0 || name.length > 200 || name.startsWith('-') || /[\x00-\x20\x7f~^:?*[\\]/.test(name)) throw bad();
  const r = await git(['check-ref-format', '--branch', name], { cwd, okCodes: [0, 1, 128] });
  if (r.code !== 0) throw bad();
}

export async function branchExists(cwd: string, name: string, signal?: AbortSignal): Promise<boolean> {
  const r = await git(['show-ref', '--verify', '--quiet', `refs/heads/${name}`], { cwd, signal, okCodes: [0, 1] });
  return r.code === 0;
}

/** A commit id for a revision, or null when it names none. */
export async function resolveCommit(cwd: string, rev: string, signal?: AbortSignal): Promise<string | null> {
  if (rev.startsWith('-')) return null;
  const r = await git(['rev-parse', '-q', '--verify', '--end-of-options', `${rev}^{commit}`], { cwd, signal, okCodes: [0, 1] });
  const out = r.stdout.toString().trim();
  return r.code === 0 && SHA_RE.test(out) ? out : null;
}

function slug(s: string): string {
  return s.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '').slice(0, 80) || 'wt';
}

/** Where tuios puts a worktree of `repo` for `branch`: under the state folder, never over anything. */
export function worktreePathFor(stateDir: string, repo: RepoInfo, branch: string): string {
  const hash = createHash('sha1').update(repo.commonDir).digest('hex').slice(0, 8);
  const root = join(stateDir, 'worktrees', `${slug(repo.name)}-${hash}`);
  const stem = slug(branch.replace(/\//g, '-'));
  for (let i = 1; ; i++) {
    const p = join(root, i === 1 ? stem : `${stem}-${i}`);
    if (!existsSync(p) && !existsSync(`${p}.tmp`)) return p;
  }
}

export interface NewWorktree {
  path: string;
  branch: string;
  /** What the worktree was made from as named (a branch, or a commit on a detached HEAD). */
  base: string;
  base_commit: string;
  created_branch: boolean;
}

/** `git worktree add`: a new branch from `base` (default: the repository's HEAD), or an existing branch. */
export async function addWorktree(repo: RepoInfo, o: { branch: string; base?: string; path: string; signal?: AbortSignal }): Promise<NewWorktree> {
  await checkBranchName(o.branch, repo.top);
  if (!repo.head) throw new TuiosError('not_ready', `The repository ${repo.name} has no commits yet, so a worktree has nothing to start from.`, 'Make a first commit.');
  const base = o.base ?? repo.branch ?? repo.head;
  const baseCommit = await resolveCommit(repo.top, base, o.signal);
  if (!baseCommit) throw new TuiosError('invalid_params', `The base "${base}" names no commit in ${repo.name}.`, 'Name a branch, a tag or a commit with --base.', { field: 'base' });
  const exists = await branchExists(repo.top, o.branch, o.signal);
  await mkdir(dirname(o.path), { recursive: true, mode: 0o700 });
  const args = exists ? ['worktree', 'add', '--quiet', o.path, o.branch] : ['worktree', 'add', '--quiet', '--no-track', '-b', o.branch, o.path, baseCommit];
  try {
    await git(args, { cwd: repo.top, signal: o.signal, timeoutMs: GIT_TRANSFER_TIMEOUT_MS });
  } catch (e) {
    if (e instanceof TuiosError && /already (checked out|used by worktree)/.test(e.message)) {
      throw new TuiosError('conflict', `The branch ${o.branch} is checked out in another worktree already.`, 'Pick another branch name.', { field: 'branch' });
    }
    throw e;
  }
  return { path: o.path, branch: o.branch, base, base_commit: baseCommit, created_branch: !exists };
}

export interface StatusEntry {
  /** Porcelain v1 XY: index then worktree ("??" untracked). */
  xy: string;
  path: string;
}

export interface WorktreeStatus {
  entries: StatusEntry[];
  /** Entries of any kind: the dirty count. */
  dirty: number;
  staged: number;
  modified: number;
  deleted: number;
  untracked: number;
  conflicted: number;
}

/** The uncommitted work of a worktree, read without writing its index (GIT_OPTIONAL_LOCKS=0). */
export async function statusOf(dir: string, signal?: AbortSignal): Promise<WorktreeStatus> {
  const r = await git(['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames', '--ignore-submodules=dirty'], { cwd: dir, signal });
  const fields = r.stdout.toString('utf8').split('\0');
  const entries: StatusEntry[] = [];
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    if (f.length < 4) continue;
    const xy = f.slice(0, 2);
    entries.push({ xy, path: f.slice(3) });
    if (xy[0] === 'R' || xy[0] === 'C') i++; // the old path follows
  }
  const st: WorktreeStatus = { entries, dirty: entries.length, staged: 0, modified: 0, deleted: 0, untracked: 0, conflicted: 0 };
  for (const { xy } of entries) {
    if (xy === '??') st.untracked++;
    else if (/U/.test(xy) || xy === 'AA' || xy === 'DD') st.conflicted++;
    else {
      if (xy[0] !== ' ') st.staged++;
      if (xy[1] === 'M' || xy[1] === 'T') st.modified++;
      if (xy[1] === 'D' || xy[0] === 'D') st.deleted++;
    }
  }
  return st;
}

export interface WorkingTrees {
  head: string | null;
  /** The tree of the worktree's index as it is (what is staged). */
  indexTree: string;
  /** The tree of its files as they are: tracked changes and untracked files that are not ignored. */
  workTree: string;
  /** Untracked files not read, past the size limit. */
  skipped: Array<{ path: string; bytes: number }>;
}

/**
 * Runs `fn` on the worktree holding `dir` (its top and HEAD) with a temporary copy of its index,
 * as old as the index (git's racy-clean check needs that), removed after.
 */
async function withIndexCopy<T>(dir: string, signal: AbortSignal | undefined, fn: (top: string, head: string | null, env: { GIT_INDEX_FILE: string }) => Promise<T>): Promise<T> {
  const top = await gitText(['rev-parse', '--show-toplevel'], { cwd: dir, signal });
  const head = (await git(['rev-parse', '-q', '--verify', 'HEAD^{commit}'], { cwd: top, signal, okCodes: [0, 1] })).stdout.toString().trim() || null;
  const indexPath = resolve(top, await gitText(['rev-parse', '--path-format=absolute', '--git-path', 'index'], { cwd: top, signal }));
  const tmp = await mkdtemp(join(tmpdir(), 'tuios-index-'));
  const env = { GIT_INDEX_FILE: join(tmp, 'index') };
  try {
    if (existsSync(indexPath)) {
      await copyFile(indexPath, env.GIT_INDEX_FILE);
      // The copy keeps the index's own mtime: git trusts a cached stat only for an entry older than
      // its index file ("racy git"), so a fresh mtime would hide a same-size edit made in the same
      // clock tick as the last index write. Date truncates to the millisecond, never later.
      const s = await stat(indexPath);
      await utimes(env.GIT_INDEX_FILE, s.atime, s.mtime);
    }
    else if (head) await git(['read-tree', head], { cwd: top, env, signal });
    return await fn(top, head, env);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** The tree of an index as it is; a conflicted index (a merge in progress) is refused. */
async function indexTreeOf(top: string, env: Record<string, string>, signal: AbortSignal | undefined, timeoutMs: number): Promise<string> {
  try {
    return await gitText(['write-tree'], { cwd: top, env, signal, timeoutMs });
  } catch (e) {
    if (e instanceof TuiosError && /unmerged|not able to write/i.test(e.message)) {
      throw new TuiosError('conflict', `The worktree ${top} has unresolved merge conflicts, so its work has no single state.`, 'Resolve or abort the merge there first.');
    }
    throw e;
  }
}

/** Untracked files that are not ignored, less those past the size limit (listed apart). */
async function untrackedFiles(top: string, env: Record<string, string>, signal: AbortSignal | undefined, timeoutMs: number, maxUntracked: number): Promise<{ take: string[]; skipped: WorkingTrees['skipped'] }> {
  const others = (await git(['ls-files', '--others', '--exclude-standard', '-z'], { cwd: top, env, signal, timeoutMs })).stdout.toString('utf8').split('\0').filter((p) => p && !p.endsWith('/'));
  const take: string[] = [];
  const skipped: WorkingTrees['skipped'] = [];
  for (const p of others) {
    let st;
    try {
      st = await lstat(join(top, p));
    } catch {
      continue; // gone since it was listed
    }
    if (st.isDirectory()) continue; // a nested repository
    if (st.size > maxUntracked) skipped.push({ path: p, bytes: st.size });
    else take.push(p);
  }
  return { take, skipped };
}

/**
 * The worktree's index and its files as two trees, written through a temporary copy of its index:
 * its index, its files and what was staged are never changed. The objects are loose objects git gc
 * collects. A conflicted index (a merge in progress) is refused: it has no single tree.
 */
export async function workingTrees(dir: string, o: { signal?: AbortSignal; maxUntrackedBytes?: number; timeoutMs?: number } = {}): Promise<WorkingTrees> {
  const { signal } = o;
  const timeoutMs = o.timeoutMs ?? GIT_TIMEOUT_MS;
  return withIndexCopy(dir, signal, async (top, head, env) => {
    const indexTree = await indexTreeOf(top, env, signal, timeoutMs);
    await git(['add', '--update', '--', '.'], { cwd: top, env, signal, timeoutMs });
    const { take, skipped } = await untrackedFiles(top, env, signal, timeoutMs, o.maxUntrackedBytes ?? MAX_UNTRACKED_FILE_BYTES);
    if (take.length) await git(['add', '--pathspec-from-file=-', '--pathspec-file-nul'], { cwd: top, env, signal, input: take.join('\0'), timeoutMs });
    const workTree = await gitText(['write-tree'], { cwd: top, env, signal, timeoutMs });
    return { head, indexTree, workTree, skipped };
  });
}

export interface WorktreeDelta {
  head: string | null;
  /** The tree of the worktree's index as it is (what is staged). */
  indexTree: string;
  /** Files of the index whose contents may differ (by their stat: an unchanged file whose stat changed is among them). */
  modified: string[];
  /** Files git does not track and does not ignore, within the size limit. */
  untracked: string[];
  /** Files of the index missing from the worktree. */
  gone: string[];
  /** Untracked files not listed, past the size limit. */
  skipped: Array<{ path: string; bytes: number }>;
}

/**
 * What a worktree's files add to its index, without reading a file: the index's tree, and the
 * paths whose files differ from it, through one copy of its index so all three agree. Submodules
 * are left out (their commits are not files). Nothing of the worktree is changed.
 */
export async function worktreeDelta(dir: string, o: { signal?: AbortSignal; maxUntrackedBytes?: number; timeoutMs?: number } = {}): Promise<WorktreeDelta> {
  const { signal } = o;
  const timeoutMs = o.timeoutMs ?? GIT_TIMEOUT_MS;
  return withIndexCopy(dir, signal, async (top, head, env) => {
    const indexTree = await indexTreeOf(top, env, signal, timeoutMs);
    const diff = (await git(['diff-files', '-z', '--name-status', '--no-renames', '--ignore-submodules=all'], { cwd: top, env, signal, timeoutMs })).stdout.toString('utf8').split('\0');
    const modified: string[] = [];
    const gone: string[] = [];
    for (let i = 0; i + 1 < diff.length; i += 2) {
      const [letter, path] = [diff[i]!, diff[i + 1]!];
      if (!path) continue;
      (letter === 'D' ? gone : modified).push(path);
    }
    const { take, skipped } = await untrackedFiles(top, env, signal, timeoutMs, o.maxUntrackedBytes ?? MAX_UNTRACKED_FILE_BYTES);
    return { head, indexTree, modified, untracked: take, gone, skipped };
  });
}

export interface DiffFile {
  path: string;
  /** A added, M modified, D deleted, T type changed, U untracked (new, not in the index). */
  status: string;
  added: number | null;
  deleted: number | null;
  binary: boolean;
}

export interface WorktreeDiff {
  base_commit: string | null;
  /** The commit the diff runs from: the merge base of the base and HEAD. */
  from: string | null;
  files: DiffFile[];
  added: number;
  deleted: number;
  patch: string;
  truncated: boolean;
  skipped: WorkingTrees['skipped'];
  commits: number;
}

/** The files two trees differ in, with their line counts (null for a binary file) and git's status letter. */
export async function diffTreeFiles(dir: string, fromTree: string, toTree: string, o: { signal?: AbortSignal; left: () => number }): Promise<{ files: DiffFile[]; added: number; deleted: number }> {
  const args = ['-r', '-z', '--no-renames', '--no-ext-diff', '--no-textconv'];
  const ns = (await git(['diff-tree', ...args, '--numstat', fromTree, toTree], { cwd: dir, signal: o.signal, timeoutMs: o.left() })).stdout.toString('utf8');
  const st = (await git(['diff-tree', ...args, '--name-status', fromTree, toTree], { cwd: dir, signal: o.signal, timeoutMs: o.left() })).stdout.toString('utf8').split('\0');
  const statusOfPath = new Map<string, string>();
  for (let i = 0; i + 1 < st.length; i += 2) statusOfPath.set(st[i + 1]!, st[i]!);
  const files: DiffFile[] = [];
  let added = 0;
  let deleted = 0;
  for (const rec of ns.split('\0')) {
    const m = /^(-|\d+)\t(-|\d+)\t(.*)$/s.exec(rec);
    if (!m) continue;
    const path = m[3]!;
    const binary = m[1] === '-';
    const a = binary ? null : Number(m[1]);
    const d = binary ? null : Number(m[2]);
    added += a ?? 0;
    deleted += d ?? 0;
    files.push({ path, status: statusOfPath.get(path) ?? 'M', added: a, deleted: d, binary });
  }
  return { files, added, deleted };
}

/** What a worktree changed against its base: its commits and its uncommitted work, untracked files included. */
export async function diffWorktree(dir: string, baseCommit: string | null, o: { signal?: AbortSignal; patch?: boolean; budgetMs?: number; maxUntrackedBytes?: number } = {}): Promise<WorktreeDiff> {
  const deadline = Date.now() + (o.budgetMs ?? GIT_TIMEOUT_MS);
  const left = () => {
    const ms = deadline - Date.now();
    if (ms <= 0) throw new TuiosError('timeout', 'The diff ran past its time budget.', 'The repository may be very large; try again.');
    return ms;
  };
  const { signal } = o;
  const trees = await workingTrees(dir, { signal, timeoutMs: left(), maxUntrackedBytes: o.maxUntrackedBytes });
  let from = trees.head;
  if (baseCommit && trees.head) {
    const r = await git(['merge-base', baseCommit, trees.head], { cwd: dir, signal, okCodes: [0, 1], timeoutMs: left() });
    from = r.stdout.toString().trim() || baseCommit;
  }
  const fromTree = from ?? '4b825dc642cb6eb9a060e54bf8d69288fbee4904'; // the empty tree
  const indexPaths = new Set(
    (await git(['ls-tree', '-r', '-z', '--name-only', trees.indexTree], { cwd: dir, signal, timeoutMs: left() })).stdout.toString('utf8').split('\0').filter(Boolean),
  );
  const { files, added, deleted } = await diffTreeFiles(dir, fromTree, trees.workTree, { signal, left });
  // Added in the work tree but not in the index: an untracked file.
  for (const f of files) if (f.status === 'A' && !indexPaths.has(f.path)) f.status = 'U';
  let patch = '';
  let truncated = files.length > DIFF_MAX_FILES;
  if (o.patch !== false) {
    const r = await git(['diff-tree', '-p', '-r', '--no-renames', '--no-ext-diff', '--no-textconv', '--no-color', fromTree, trees.workTree], { cwd: dir, signal, maxOutputBytes: DIFF_MAX_BYTES, cut: true, timeoutMs: left() });
    patch = r.stdout.toString('utf8');
    truncated ||= r.truncated;
  }
  const commits = baseCommit && trees.head ? Number((await gitText(['rev-list', '--count', `${from}..${trees.head}`], { cwd: dir, signal, timeoutMs: left() })) || 0) : 0;
  return { base_commit: baseCommit, from, files: files.slice(0, DIFF_MAX_FILES), added, deleted, patch, truncated, skipped: trees.skipped, commits };
}

/** Removes a worktree; refuses uncommitted work (tracked changes or untracked files) unless forced. */
export async function removeWorktree(path: string, o: { force?: boolean; signal?: AbortSignal } = {}): Promise<void> {
  if (!existsSync(path)) {
    return; // already gone: `git worktree prune` tidies its record
  }
  const repo = await repoAt(path, o.signal);
  if (repo.main && resolve(repo.main) === resolve(repo.top)) {
    throw new TuiosError('forbidden', `${path} is the repository's main checkout, not a worktree tuios made.`, 'Only worktrees can be removed.');
  }
  if (!o.force) {
    const st = await statusOf(path, o.signal);
    if (st.dirty > 0) throw dirtyError(path, st);
  }
  await git(['worktree', 'remove', ...(o.force ? ['--force', '--force'] : []), path], { cwd: repo.main ?? repo.commonDir, signal: o.signal, timeoutMs: GIT_TRANSFER_TIMEOUT_MS });
  forgetSafety(path);
}

export function dirtyError(path: string, st: WorktreeStatus): TuiosError {
  const parts = [st.modified && `${st.modified} modified`, st.staged && `${st.staged} staged`, st.deleted && `${st.deleted} deleted`, st.untracked && `${st.untracked} untracked`, st.conflicted && `${st.conflicted} conflicted`].filter(Boolean);
  return new TuiosError('dirty_worktree', `The worktree ${path} has uncommitted work (${parts.join(', ')}).`, 'Commit it, or pass --force to remove it anyway.', { files: st.entries.slice(0, 50).map((e) => `${e.xy} ${e.path}`), dirty: st.dirty });
}

/** Deletes a branch only when it holds no commit its base lacks; true when deleted. */
export async function deleteBranchIfEmpty(cwd: string, branch: string, baseCommit: string, signal?: AbortSignal): Promise<boolean> {
  const tip = await resolveCommit(cwd, `refs/heads/${branch}`, signal);
  if (!tip) return false;
  const ahead = Number(await gitText(['rev-list', '--count', `${baseCommit}..${tip}`], { cwd, signal }));
  if (ahead > 0) return false;
  await git(['branch', '-D', '--', branch], { cwd, signal });
  return true;
}
