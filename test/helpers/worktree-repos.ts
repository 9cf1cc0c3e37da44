// Real git repositories in temp folders for the worktree tests. Each repository sets its own
// identity, so the machine's git identity (or its absence on CI) does not matter.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export function sh(cwd: string, args: string[], input?: string): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', input, env: { ...process.env, GIT_AUTHOR_DATE: '2024-01-01T00:00:00Z', GIT_COMMITTER_DATE: '2024-01-01T00:00:00Z' } });
}

export function tempDir(prefix = 'tuios-git-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

export function identity(repo: string): void {
  sh(repo, ['config', 'user.name', 'Test Person']);
  sh(repo, ['config', 'user.email', 'test@example.invalid']);
  sh(repo, ['config', 'commit.gpgsign', 'false']);
}

/** A repository with one commit on main: keep, mod, del, staged, sub/x, and *.log ignored. */
export function makeRepo(dir: string): string {
  mkdirSync(dir, { recursive: true });
  sh(dir, ['init', '-q', '-b', 'main']);
  identity(dir);
  write(join(dir, '.gitignore'), '*.log\n');
  for (const f of ['keep.txt', 'mod.txt', 'del.txt', 'staged.txt', 'sub/x.txt']) write(join(dir, f), `${f} v0\n`);
  sh(dir, ['add', '-A']);
  sh(dir, ['commit', '-q', '-m', 'first']);
  return dir;
}

export function commit(dir: string, file: string, text: string, msg: string): string {
  write(join(dir, file), text);
  sh(dir, ['add', '--', file]);
  sh(dir, ['commit', '-q', '-m', msg]);
  return sh(dir, ['rev-parse', 'HEAD']).trim();
}

/**
 * The work the issue names, in a worktree that already has two commits: a modified tracked file,
 * a staged change, a deleted file, a new untracked file, and an ignored one (never sent).
 */
export function makeMessyWork(wt: string): void {
  commit(wt, 'feature.txt', 'feature v1\n', 'feature: one');
  commit(wt, 'feature.txt', 'feature v2\n', 'feature: two');
  write(join(wt, 'mod.txt'), 'mod.txt changed, not staged\n');
  write(join(wt, 'staged.txt'), 'staged.txt changed and staged\n');
  sh(wt, ['add', '--', 'staged.txt']);
  execFileSync('rm', [join(wt, 'del.txt')]);
  write(join(wt, 'new/untracked.txt'), 'a new file nobody added\n');
  write(join(wt, 'debug.log'), 'ignored, stays home\n');
}

export function status(dir: string): string {
  return sh(dir, ['status', '--porcelain=v1', '--untracked-files=all']);
}

export function log(dir: string): string[] {
  return sh(dir, ['log', '--format=%H']).trim().split('\n');
}

export function sha256File(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
