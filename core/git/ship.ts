// From a reviewed worktree to a merged change (spec: Shipping a worktree): a commit of the agent's
// work, a merge of its branch into the base in the main checkout, a push, and a pull request with
// your own gh. Every step that changes a repository is written to the journal first
// (ship-journal.ts), so a daemon killed mid-step leaves nothing half done after its next start.
// git runs as you for you (your identity, hooks and signing), and with no hooks for a pane.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { TuiosError } from '../errors.js';
import { git, gitText } from './run.js';
import { statusOf } from './repo.js';
import type { ShipState } from './ship-journal.js';
import type { PullRequest } from './pr.js';

export type { PullRequest } from './pr.js';
export { prToken } from './pr.js';
import { GIT_TRANSFER_TIMEOUT_MS, SHIP_GH_TIMEOUT_MS, SHIP_PR_TEXT_MAX } from '../limits.js';

/** A step a long ship call reports while it runs (ship-progress events). */
export type ShipProgress = (step: string) => void;

export interface ShipRun {
  journal: ShipState;
  /** The person's git (hooks, signing) or a pane's (none). */
  asPerson: boolean;
  signal?: AbortSignal;
  progress?: ShipProgress;
}

async function head(cwd: string, signal?: AbortSignal): Promise<string | null> {
  return (await git(['rev-parse', '-q', '--verify', 'HEAD^{commit}'], { cwd, signal, okCodes: [0, 1] })).stdout.toString().trim() || null;
}

async function indexPath(cwd: string, signal?: AbortSignal): Promise<string> {
  return gitText(['rev-parse', '--path-format=absolute', '--git-path', 'index'], { cwd, signal });
}

/**
 * Commits everything the worktree holds (tracked changes and untracked files that are not
 * ignored). The index is copied first; when a hook or signing refuses the commit it goes back.
 */
export async function shipCommit(top: string, message: string, o: ShipRun): Promise<{ commit: string; files: number; branch: string | null }> {
  const st = await statusOf(top, o.signal);
  if (st.conflicted) throw new TuiosError('conflict', `The worktree ${top} has unresolved merge conflicts.`, 'Resolve them there first.');
  if (st.dirty === 0) throw new TuiosError('conflict', `The worktree ${top} has nothing to commit.`, 'Nothing changed since its last commit.', { reason: 'nothing_to_commit' });
  const branch = (await git(['symbolic-ref', '--short', '-q', 'HEAD'], { cwd: top, signal: o.signal, okCodes: [0, 1] })).stdout.toString().trim() || null;
  const before = await head(top, o.signal);
  const j = o.journal.begin({ op: 'commit', step: 'stage', cwd: top, branch, head_before: before, index_path: await indexPath(top, o.signal) });
  try {
    o.progress?.('stage');
    await git(['add', '-A', '--', '.'], { cwd: top, signal: o.signal, timeoutMs: GIT_TRANSFER_TIMEOUT_MS, onSpawn: j.gitPid });
    j.step('commit');
    o.progress?.('commit');
    try {
      await git(['commit', '-q', '-m', message], { cwd: top, signal: o.signal, timeoutMs: GIT_TRANSFER_TIMEOUT_MS, asPerson: o.asPerson, onSpawn: j.gitPid });
    } catch (e) {
      o.journal.restoreIndex(j.entry);
      if (e instanceof TuiosError && e.code === 'git_failed') {
        throw new TuiosError('git_failed', `The commit was refused: ${e.message.replace(/^git commit failed: /, '')}`, 'A hook or signing refused it; the index is as it was. Fix what it says and commit again.', { stderr: e.extra.stderr });
      }
      throw e;
    }
    const commit = (await head(top, o.signal))!;
    j.done();
    return { commit, files: st.dirty, branch };
  } catch (e) {
    j.done();
    throw e;
  }
}

export interface MergeOptions extends ShipRun {
  squash?: boolean;
  ffOnly?: boolean;
}

/**
 * Merges `branch` into `base` in the main checkout, which must have the base checked out and no
 * uncommitted change to a tracked file (checkout_dirty). A conflict is undone with
 * `git reset --merge` and its files listed (merge_conflict). Nothing is forced.
 */
export async function shipMerge(main: string, branch: string, base: string, o: MergeOptions): Promise<{ commit: string; fast_forward: boolean; squashed: boolean }> {
  const current = (await git(['symbolic-ref', '--short', '-q', 'HEAD'], { cwd: main, signal: o.signal, okCodes: [0, 1] })).stdout.toString().trim();
  if (current !== base) {
    throw new TuiosError('conflict', `The main checkout ${main} has ${current || 'a detached HEAD'} checked out, not the base ${base}.`, `Check out ${base} there first.`, { reason: 'checkout_branch' });
  }
  const tracked = await git(['status', '--porcelain=v1', '--untracked-files=no'], { cwd: main, signal: o.signal });
  if (tracked.stdout.length > 0) {
    const files = tracked.stdout.toString('utf8').split('\n').filter(Boolean).slice(0, 50);
    throw new TuiosError('checkout_dirty', `The main checkout ${main} has uncommitted changes to tracked files.`, 'Commit or stash them there first; tuios merges only into a clean checkout.', { files });
  }
  const before = (await head(main, o.signal))!;
  const tip = await gitText(['rev-parse', '--verify', '--end-of-options', `refs/heads/${branch}^{commit}`], { cwd: main, signal: o.signal });
  const j = o.journal.begin({ op: 'merge', step: 'merge', cwd: main, branch, head_before: before });
  try {
    o.progress?.('merge');
    const args = ['merge', '--no-stat', ...(o.squash ? ['--squash'] : ['--no-edit']), ...(o.ffOnly ? ['--ff-only'] : []), '--end-of-options', `refs/heads/${branch}`];
    const r = await git(args, { cwd: main, signal: o.signal, timeoutMs: GIT_TRANSFER_TIMEOUT_MS, okCodes: [0, 1, 128], asPerson: o.asPerson, onSpawn: j.gitPid });
    if (r.code !== 0) {
      const files = (await git(['diff', '--name-only', '--diff-filter=U', '-z'], { cwd: main, signal: o.signal, okCodes: [0, 1] })).stdout.toString().split('\0').filter(Boolean);
      j.step('undo');
      await git(['reset', '--merge'], { cwd: main, signal: o.signal, okCodes: [0, 1, 128] });
      if (o.squash) await git(['reset', '--merge', before], { cwd: main, signal: o.signal, okCodes: [0, 1, 128] });
      if (files.length) throw new TuiosError('merge_conflict', `Merging ${branch} into ${base} conflicts in ${files.length} file${files.length === 1 ? '' : 's'}; the merge was undone and the main checkout is as it was.`, 'Resolve it by hand, or rebase the branch on the base first.', { files: files.slice(0, 200) });
      if (o.ffOnly && /fast-forward/i.test(r.stderr)) throw new TuiosError('conflict', `${branch} cannot be fast-forwarded onto ${base}.`, 'Merge without --ff-only, or rebase the branch first.', { reason: 'not_fast_forward' });
      throw new TuiosError('git_failed', `git merge failed: ${r.stderr.trim().split('\n').slice(-2).join(' ').slice(0, 400)}`, 'The main checkout is as it was.');
    }
    if (o.squash) {
      j.step('commit');
      o.progress?.('commit');
      const staged = await git(['diff', '--cached', '--quiet'], { cwd: main, signal: o.signal, okCodes: [0, 1] });
      if (staged.code === 0) throw new TuiosError('conflict', `${branch} holds nothing ${base} lacks.`, 'Nothing to merge.', { reason: 'nothing_to_merge' });
      try {
        await git(['commit', '-q', '--no-edit'], { cwd: main, signal: o.signal, timeoutMs: GIT_TRANSFER_TIMEOUT_MS, asPerson: o.asPerson, onSpawn: j.gitPid });
      } catch (e) {
        await git(['reset', '--merge', before], { cwd: main, signal: o.signal, okCodes: [0, 1, 128] });
        throw e;
      }
    }
    const after = (await head(main, o.signal))!;
    j.done();
    return { commit: after, fast_forward: !o.squash && after === tip && after !== before, squashed: !!o.squash };
  } catch (e) {
    j.done();
    throw e;
  }
}

/** What a push would send: the branch, its commit and the remote; the token is their hash. */
export interface PushPlan {
  branch: string;
  commit: string;
  remote: string;
  /** Commits the remote's branch lacks (all of them for a new branch), as far as this clone knows. */
  commits: number;
  pr: string | null;
  token: string;
}

export function planToken(p: Omit<PushPlan, 'token' | 'commits'>): string {
  return createHash('sha256').update(JSON.stringify([p.branch, p.commit, p.remote, p.pr])).digest('hex').slice(0, 16);
}

/** The remote a branch pushes to: its upstream's, else the only remote, else origin. */
export async function pushPlan(top: string, o: { remote?: string; pr?: string | null; signal?: AbortSignal }): Promise<PushPlan> {
  const branch = (await git(['symbolic-ref', '--short', '-q', 'HEAD'], { cwd: top, signal: o.signal, okCodes: [0, 1] })).stdout.toString().trim();
  if (!branch) throw new TuiosError('conflict', `The worktree ${top} is on a detached HEAD; there is no branch to push.`, 'Check out a branch there first.');
  const commit = (await head(top, o.signal))!;
  let remote = o.remote;
  if (!remote) remote = (await git(['config', '--get', `branch.${branch}.remote`], { cwd: top, signal: o.signal, okCodes: [0, 1] })).stdout.toString().trim();
  if (!remote) {
    const all = (await gitText(['remote'], { cwd: top, signal: o.signal })).split('\n').filter(Boolean);
    remote = all.length === 1 ? all[0]! : all.includes('origin') ? 'origin' : '';
  }
  if (!remote || remote.startsWith('-')) throw new TuiosError('not_found', `The repository of ${top} has no remote to push to.`, 'Add one (git remote add origin URL), or name it with --remote.', { field: 'remote' });
  const known = (await git(['rev-parse', '-q', '--verify', `refs/remotes/${remote}/${branch}^{commit}`], { cwd: top, signal: o.signal, okCodes: [0, 1] })).stdout.toString().trim();
  // A new branch: the commits no branch of that remote holds, as far as this clone knows.
  const commits = Number(await gitText(['rev-list', '--count', ...(known ? [`${known}..${commit}`] : [commit, '--not', `--remotes=${remote}`])], { cwd: top, signal: o.signal }));
  const pr = o.pr ?? null;
  return { branch, commit, remote, commits, pr, token: planToken({ branch, commit, remote, pr }) };
}

/** Pushes the branch, never forced; sets its upstream. */
export async function shipPush(top: string, plan: PushPlan, o: ShipRun): Promise<void> {
  const j = o.journal.begin({ op: 'push', step: 'push', cwd: top, branch: plan.branch, head_before: plan.commit });
  try {
    o.progress?.('push');
    await git(['push', '--porcelain', '-u', '--end-of-options', plan.remote, `refs/heads/${plan.branch}:refs/heads/${plan.branch}`], { cwd: top, signal: o.signal, timeoutMs: GIT_TRANSFER_TIMEOUT_MS, asPerson: o.asPerson, onSpawn: j.gitPid });
  } catch (e) {
    if (e instanceof TuiosError && e.code === 'git_failed' && /rejected|non-fast-forward|fetch first/i.test(String(e.extra.stderr ?? e.message))) {
      throw new TuiosError('conflict', `${plan.remote} refused ${plan.branch}: its branch has commits this one lacks. Nothing is forced.`, 'Pull or rebase the branch first.', { reason: 'push_rejected' });
    }
    throw e;
  } finally {
    j.done();
  }
}

/** Runs your gh with an argv; its output, bounded. */
export function runGh(args: string[], cwd: string, signal?: AbortSignal): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn('gh', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, GH_PROMPT_DISABLED: '1', NO_COLOR: '1', GH_NO_UPDATE_NOTIFIER: '1' } });
    let out = '';
    let err = '';
    const cap = 1024 * 1024;
    p.stdout.on('data', (d) => (out = (out + d).slice(0, cap)));
    p.stderr.on('data', (d) => (err = (err + d).slice(0, 64 * 1024)));
    const t = setTimeout(() => p.kill('SIGKILL'), SHIP_GH_TIMEOUT_MS);
    const onAbort = () => p.kill('SIGKILL');
    signal?.addEventListener('abort', onAbort, { once: true });
    p.on('error', () => {
      clearTimeout(t);
      resolve({ code: 127, stdout: '', stderr: 'gh is not installed' });
    });
    p.on('close', (code) => {
      clearTimeout(t);
      signal?.removeEventListener('abort', onAbort);
      resolve({ code: code ?? -1, stdout: out, stderr: err });
    });
  });
}

/** gh on PATH and logged in, before anything is pushed; gh_unavailable otherwise. */
export async function checkGh(cwd: string, signal?: AbortSignal): Promise<void> {
  const r = await runGh(['auth', 'status'], cwd, signal);
  if (r.code === 127) throw new TuiosError('gh_unavailable', 'ship pr runs your own gh, and gh is not on the daemon\'s PATH. Nothing was pushed.', 'Install the GitHub CLI (gh), log in with gh auth login, and try again; or push with tuios ship push and open the pull request yourself.');
  if (r.code !== 0) throw new TuiosError('gh_unavailable', 'gh is not logged in. Nothing was pushed.', 'Run gh auth login, then try again.');
}

function checksOf(rollup: unknown): PullRequest['checks'] {
  if (!Array.isArray(rollup) || rollup.length === 0) return 'none';
  const states = rollup.map((c) => String((c as { conclusion?: unknown; state?: unknown }).conclusion || (c as { state?: unknown }).state || '').toUpperCase());
  if (states.some((s) => /FAIL|ERROR|CANCELLED|TIMED_OUT|ACTION_REQUIRED/.test(s))) return 'fail';
  if (states.some((s) => s === '' || /PENDING|QUEUED|IN_PROGRESS|EXPECTED/.test(s))) return 'pending';
  return 'pass';
}

/** `gh pr view BRANCH --json ...` read into the record; null when the branch has no pull request. */
export async function viewPr(cwd: string, branch: string, signal?: AbortSignal): Promise<PullRequest | null> {
  const r = await runGh(['pr', 'view', branch, '--json', 'number,url,state,title,statusCheckRollup'], cwd, signal);
  if (r.code !== 0) {
    if (/no (open )?pull requests? found|could not find/i.test(r.stderr)) return null;
    throw new TuiosError('gh_unavailable', `gh pr view failed: ${r.stderr.trim().split('\n')[0]?.slice(0, 300) ?? ''}`, 'Check gh auth status and the repository\'s remote.');
  }
  let j: Record<string, unknown>;
  try {
    j = JSON.parse(r.stdout) as Record<string, unknown>;
  } catch {
    throw new TuiosError('gh_unavailable', 'gh pr view answered something that is not JSON.', 'Update gh.');
  }
  const state = String(j.state ?? '').toLowerCase();
  const cut = (s: unknown) => String(s ?? '').replace(/[\x00-\x1f\x7f-\x9f]/g, '').slice(0, SHIP_PR_TEXT_MAX); // eslint-disable-line no-control-regex
  return { number: Number(j.number) || 0, url: cut(j.url), state: state === 'merged' ? 'merged' : state === 'closed' ? 'closed' : 'open', checks: checksOf(j.statusCheckRollup), title: cut(j.title), at: Date.now() };
}

/** `gh pr create` for the pushed branch (the push updates an open one instead). */
export async function createPr(cwd: string, o: { branch: string; base: string; title: string; body: string; draft: boolean; signal?: AbortSignal }): Promise<void> {
  const args = ['pr', 'create', '--head', o.branch, '--base', o.base, '--title', o.title, '--body', o.body, ...(o.draft ? ['--draft'] : [])];
  const r = await runGh(args, cwd, o.signal);
  if (r.code !== 0) throw new TuiosError('gh_unavailable', `gh pr create failed: ${r.stderr.trim().split('\n')[0]?.slice(0, 300) ?? ''}`, 'The branch was pushed; open the pull request with gh pr create yourself.');
}

/** The subject of the branch's newest commit, for a pull request's title. */
export async function lastSubject(top: string, signal?: AbortSignal): Promise<string> {
  return (await gitText(['log', '-1', '--format=%s'], { cwd: top, signal })).slice(0, SHIP_PR_TEXT_MAX);
}

export function inWorktree(path: string): boolean {
  return existsSync(join(path, '.git'));
}
