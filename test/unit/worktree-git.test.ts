// Running git safely: no hooks, no program only the repository's own config names (a global one
// still runs), bounded in time and output. Real repositories in temp folders.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { git, gitTunables, neutralisingArgs } from '../../core/git/run.js';
import { addWorktree, diffWorktree, repoAt, statusOf, workingTrees, worktreeDelta, worktreePathFor } from '../../core/git/repo.js';
import { TuiosError } from '../../core/errors.js';
import { makeRepo, removeDir, sh, tempDir, write } from '../helpers/worktree-repos.js';

let root: string;
let repo: string;
const marker = (name: string) => join(root, `ran-${name}`);

test.before(() => {
  root = tempDir('tuios-gitsafe-');
  // A global config of our own (read by every git this process starts, the runner's included).
  const globalCfg = join(root, 'global.gitconfig');
  writeFileSync(globalCfg, `[user]\n\tname = Test Person\n\temail = test@example.invalid\n[filter "trusted"]\n\tclean = "sh -c 'echo \\"$GLIBC_TUNABLES\\" > ${marker('trusted-clean')}; cat'"\n`);
  process.env.GIT_CONFIG_GLOBAL = globalCfg;
  repo = makeRepo(join(root, 'repo'));
  write(join(repo, '.gitattributes'), '*.evil filter=evil diff=evil\n*.trusted filter=trusted\n');
  write(join(repo, 'a.evil'), 'evil v0\n');
  write(join(repo, 'a.trusted'), 'trusted v0\n');
  sh(repo, ['add', '-A']);
  sh(repo, ['commit', '-q', '-m', 'attributes']);
  // What a cloned repository could carry in .git/config and .git/hooks.
  const prog = (n: string) => `sh -c 'touch ${marker(n)}; cat'`;
  sh(repo, ['config', 'filter.evil.clean', prog('clean')]);
  sh(repo, ['config', 'filter.evil.smudge', prog('smudge')]);
  sh(repo, ['config', 'filter.evil.process', `sh -c 'touch ${marker('process')}'`]);
  sh(repo, ['config', 'filter.evil.required', 'true']);
  sh(repo, ['config', 'diff.evil.textconv', `sh -c 'touch ${marker('textconv')}; cat "$1"' --`]);
  sh(repo, ['config', 'diff.external', `sh -c 'touch ${marker('external')}'`]);
  sh(repo, ['config', 'core.fsmonitor', `sh -c 'touch ${marker('fsmonitor')}'`]);
  sh(repo, ['config', 'filter.trusted.clean', prog('repo-overrides-trusted')]);
  for (const h of ['post-checkout', 'pre-commit', 'post-index-change', 'reference-transaction']) {
    write(join(repo, '.git', 'hooks', h), `#!/bin/sh\ntouch ${marker(`hook-${h}`)}\n`);
    chmodSync(join(repo, '.git', 'hooks', h), 0o755);
  }
});

test.after(() => removeDir(root));

test('neutralisingArgs: a repository program is emptied, a global one is put back', () => {
  const args = neutralisingArgs([
    { scope: 'global', key: 'filter.lfs.clean', value: 'git-lfs clean -- %f' },
    { scope: 'local', key: 'filter.lfs.clean', value: 'evil' },
    { scope: 'local', key: 'filter.x.smudge', value: 'evil' },
    { scope: 'worktree', key: 'filter.x.required', value: 'true' },
    { scope: 'local', key: 'user.name', value: 'not a program' },
    { scope: 'global', key: 'credential.helper', value: 'store' },
    { scope: 'local', key: 'credential.helper', value: 'evil' },
    { scope: 'global', key: 'diff.tool.textconv', value: 'left alone: the repository does not set it' },
  ]);
  assert.equal(args, [
    '-c', 'credential.helper=', '-c', 'credential.helper=store',
    '-c', 'filter.lfs.clean=git-lfs clean -- %f',
    '-c', 'filter.x.required=false',
    '-c', 'filter.x.smudge=',
  ]);
});

test('status, working trees and diffs run no filter, textconv, diff program or fsmonitor the repository names', async () => {
  write(join(repo, 'a.evil'), 'evil v1\n');
  write(join(repo, 'b.evil'), 'new evil\n');
  const st = await statusOf(repo);
  assert.is(st.modified, 1);
  const trees = await workingTrees(repo);
  assert.match(trees.workTree, /^[0-9a-f]{40}$/);
  const d = await diffWorktree(repo, sh(repo, ['rev-parse', 'HEAD']).trim());
  assert.ok(d.files.some((f) => f.path === 'a.evil' && f.status === 'M'));
  assert.ok(d.files.some((f) => f.path === 'b.evil' && f.status === 'U'), 'an untracked file shows as U');
  assert.match(d.patch, /\+evil v1/, 'the file as it is on disk');
  for (const n of ['clean', 'smudge', 'process', 'textconv', 'external', 'fsmonitor', 'repo-overrides-trusted']) assert.not.ok(existsSync(marker(n)), `${n} did not run`);
});

test('an edit of the same size in the same clock tick as the last index write is still seen (racy git)', async () => {
  // A coarse file clock makes the edit's stat equal the cached one; only the index file's own
  // mtime tells git to look at the content. Pinned here by setting the times by hand (ctime cannot
  // be set, so the repository stops trusting it, as core.trustctime=false does on such systems).
  const r = makeRepo(join(root, 'racy'));
  sh(r, ['config', 'core.trustctime', 'false']);
  const t = new Date(1_700_000_000_000);
  write(join(r, 'same.txt'), 'version 0\n');
  utimesSync(join(r, 'same.txt'), t, t);
  sh(r, ['add', 'same.txt']);
  sh(r, ['commit', '-q', '-m', 'v0']);
  utimesSync(join(r, '.git', 'index'), t, t);
  write(join(r, 'same.txt'), 'version 1\n');
  utimesSync(join(r, 'same.txt'), t, t);
  const trees = await workingTrees(r);
  assert.is.not(trees.workTree, sh(r, ['rev-parse', 'HEAD^{tree}']).trim(), 'the edit is in the working tree');
  const d = await diffWorktree(r, null);
  assert.match(d.patch, /\+version 1/);
});

test('a filter the global config names still runs (the repository cannot replace it)', async () => {
  write(join(repo, 'a.trusted'), 'trusted v1\n');
  await workingTrees(repo);
  assert.ok(existsSync(marker('trusted-clean')), 'the global clean filter ran');
  assert.not.ok(existsSync(marker('repo-overrides-trusted')));
  // What git and its children run with: glibc keeps freed heap (run.ts, MALLOC_TUNABLE).
  assert.is(readFileSync(marker('trusted-clean'), 'utf8').trim(), 'glibc.malloc.trim_threshold=268435456');
});

test('gitTunables: the trim threshold added to the user\'s own tunables; theirs wins', () => {
  assert.is(gitTunables(undefined), 'glibc.malloc.trim_threshold=268435456');
  assert.is(gitTunables('glibc.malloc.arena_max=2'), 'glibc.malloc.arena_max=2:glibc.malloc.trim_threshold=268435456');
  assert.is(gitTunables('glibc.malloc.trim_threshold=1024'), 'glibc.malloc.trim_threshold=1024');
  assert.is(gitTunables('glibc.malloc.arena_max=2:glibc.malloc.trim_threshold=1024'), 'glibc.malloc.arena_max=2:glibc.malloc.trim_threshold=1024');
});

test('worktree delta: the index\'s tree, the files that differ from it and the untracked ones, none of them read', async () => {
  const r = makeRepo(join(root, 'delta'));
  write(join(r, 'mod.txt'), 'mod.txt changed, not staged\n');
  write(join(r, 'staged.txt'), 'staged.txt changed and staged\n');
  sh(r, ['add', '--', 'staged.txt']);
  rmSync(join(r, 'del.txt'));
  write(join(r, 'new/untracked.txt'), 'nobody added me\n');
  write(join(r, 'big.bin'), 'x'.repeat(64));
  write(join(r, 'debug.log'), 'ignored\n');
  const staged = sh(r, ['write-tree']).trim();
  const index0 = readFileSync(join(r, '.git', 'index'));
  const d = await worktreeDelta(r, { maxUntrackedBytes: 32 });
  assert.is(d.indexTree, staged, 'the tree of the index as staged');
  assert.equal(d.modified, ['mod.txt'], 'the unstaged change; the staged one is in the index');
  assert.equal(d.untracked, ['new/untracked.txt'], 'the untracked file, not the ignored one');
  assert.equal(d.gone, ['del.txt']);
  assert.equal(d.skipped, [{ path: 'big.bin', bytes: 64 }]);
  assert.ok(readFileSync(join(r, '.git', 'index')).equals(index0), 'the index is untouched');
});

test('a new worktree runs no hook', async () => {
  const info = await repoAt(repo);
  const path = worktreePathFor(join(root, 'state'), info, 'feat/hooks');
  const wt = await addWorktree(info, { branch: 'feat/hooks', path });
  assert.ok(existsSync(join(wt.path, 'keep.txt')));
  assert.is(wt.base, 'main');
  for (const h of ['post-checkout', 'post-index-change', 'reference-transaction']) assert.not.ok(existsSync(marker(`hook-${h}`)), `${h} did not run through tuios`);
});

test('a call past its deadline is stopped, its process group with it', async () => {
  const forever = new Readable({ read() {} });
  const t0 = Date.now();
  try {
    await git(['hash-object', '--stdin'], { cwd: repo, input: forever, timeoutMs: 300 });
    assert.unreachable('it should time out');
  } catch (e) {
    assert.instance(e, TuiosError);
    assert.is((e as TuiosError).code, 'timeout');
  }
  assert.ok(Date.now() - t0 < 5000, 'it answered soon after its deadline');
  forever.destroy();
});

test('output past the bound fails, or is cut when the caller asks', async () => {
  for (let i = 0; i < 40; i++) write(join(repo, `many/f${i}.txt`), 'x\n'.repeat(100));
  try {
    await git(['ls-files', '--others'], { cwd: repo, maxOutputBytes: 64 });
    assert.unreachable('too much output');
  } catch (e) {
    assert.is((e as TuiosError).code, 'git_failed');
    assert.match((e as Error).message, /more than/);
  }
  const r = await git(['ls-files', '--others'], { cwd: repo, maxOutputBytes: 64, cut: true });
  assert.ok(r.truncated);
  assert.is(r.stdout.length, 64);
});

test('not a repository: not_repo with a hint', async () => {
  try {
    await repoAt(root);
    assert.unreachable();
  } catch (e) {
    assert.is((e as TuiosError).code, 'not_repo');
  }
});

test.run();
