// Turn checkpoints against real repositories in temp folders: taking one, nothing when nothing
// changed, untracked and ignored files, a diff, a restore (exact files, the index and HEAD
// untouched, untracked files back) and its safety checkpoint.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Checkpoints, cleanLabel } from '../../core/git/checkpoints.js';
import { TuiosError } from '../../core/errors.js';
import { makeRepo, removeDir, sh, sha256File, status, tempDir, write } from '../helpers/worktree-repos.js';

const W = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
let root: string;
let repo: string;
let cps: Checkpoints;

function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of sh(dir, ['ls-files', '-z', '--cached', '--others', '--exclude-standard']).split('\0').filter(Boolean)) {
    if (existsSync(join(dir, f))) out[f] = sha256File(join(dir, f));
  }
  return out;
}

test.before.each(() => {
  root = tempDir('tuios-cp-');
  repo = makeRepo(join(root, 'repo'));
  cps = new Checkpoints(join(root, 'cache'));
});
test.after.each(() => {
  cps.dispose();
  removeDir(root);
});

test('a first turn that leaves the tree as HEAD has it takes none; the first change then does', async () => {
  const first = await cps.take(repo, W, { turn: 1, state: 'needs_input', label: 'asks first' });
  assert.is(first.checkpoint, null);
  assert.is(sh(repo, ['for-each-ref', `refs/tuios/checkpoints/${W}/`]), '');
  write(join(repo, 'mod.txt'), 'changed by turn 1\n');
  const second = await cps.take(repo, W, { turn: 1, state: 'done', label: 'wrote' });
  assert.is(second.checkpoint?.n, 1);
});

test('a checkpoint is a commit under refs/tuios/checkpoints/<window>/<n>, and the index, HEAD and branch stay', async () => {
  write(join(repo, 'mod.txt'), 'changed by turn 1\n');
  write(join(repo, 'staged.txt'), 'staged by the person\n');
  sh(repo, ['add', 'staged.txt']);
  write(join(repo, 'new/u.txt'), 'untracked\n');
  write(join(repo, 'debug.log'), 'ignored\n');
  const indexBefore = readFileSync(join(repo, '.git/index'));
  const headBefore = sh(repo, ['rev-parse', 'HEAD']).trim();
  const statusBefore = status(repo);
  const r = await cps.take(repo, W, { turn: 1, state: 'done', label: 'fix the \x1b[31mbug\x1b[0m\nplease' });
  assert.ok(r.checkpoint);
  assert.is(r.checkpoint!.n, 1);
  assert.is(r.checkpoint!.parent, headBefore);
  assert.is(r.checkpoint!.state, 'done');
  assert.is(r.checkpoint!.turn, 1);
  assert.not.match(r.checkpoint!.label, /\x1b|\n/);
  assert.is(sh(repo, ['rev-parse', `refs/tuios/checkpoints/${W}/1`]).trim(), r.checkpoint!.commit);
  const files = sh(repo, ['ls-tree', '-r', '--name-only', r.checkpoint!.commit]).split('\n');
  assert.ok(files.includes('new/u.txt'), 'untracked file saved');
  assert.ok(!files.includes('debug.log'), 'ignored file not saved');
  assert.is(sh(repo, ['show', `${r.checkpoint!.commit}:mod.txt`]), 'changed by turn 1\n');
  assert.is(sh(repo, ['show', `${r.checkpoint!.commit}:staged.txt`]), 'staged by the person\n');
  assert.ok(readFileSync(join(repo, '.git/index')).equals(indexBefore), 'index unchanged');
  assert.is(sh(repo, ['rev-parse', 'HEAD']).trim(), headBefore);
  assert.is(sh(repo, ['symbolic-ref', 'HEAD']).trim(), 'refs/heads/main');
  assert.is(status(repo), statusBefore);
  assert.is(sh(repo, ['stash', 'list']), '');
});

test('nothing changed since the last checkpoint: no new checkpoint, in the quick look and after a restart', async () => {
  write(join(repo, 'mod.txt'), 'turn 1\n');
  assert.is((await cps.take(repo, W, { turn: 1 })).checkpoint?.n, 1);
  const again = await cps.take(repo, W, { turn: 2 });
  assert.is(again.checkpoint, null);
  assert.is(again.latest?.n, 1);
  // A fresh instance (a restarted daemon) compares trees with the newest ref.
  const fresh = new Checkpoints(join(root, 'cache2'));
  assert.is((await fresh.take(repo, W, { turn: 2 })).checkpoint, null);
  // A touched file with the same content is no change either.
  writeFileSync(join(repo, 'mod.txt'), 'turn 1\n');
  assert.is((await cps.take(repo, W, { turn: 2 })).checkpoint, null);
  // A committed change leaves the files as they are: no checkpoint.
  sh(repo, ['commit', '-qam', 'person commits']);
  assert.is((await cps.take(repo, W, { turn: 2 })).checkpoint, null);
  write(join(repo, 'new.txt'), 'a new untracked file\n');
  const r = await cps.take(repo, W, { turn: 2 });
  assert.is(r.checkpoint?.n, 2);
  assert.is((await cps.list(repo, W)).map((c) => c.n).join(','), '2,1');
});

test('an untracked file over max_untracked_mb is left out and listed; keep prunes the oldest', async () => {
  write(join(repo, 'big.bin'), 'x'.repeat(2000));
  write(join(repo, 'small.txt'), 'small\n');
  const r = await cps.take(repo, W, { turn: 1 }, { maxUntrackedBytes: 1000, keep: 2 });
  assert.equal(r.skipped, [{ path: 'big.bin', bytes: 2000 }]);
  const files = sh(repo, ['ls-tree', '-r', '--name-only', r.checkpoint!.commit]).split('\n');
  assert.ok(!files.includes('big.bin'));
  assert.ok(files.includes('small.txt'));
  // The skipped file alone changing is not a checkpoint (it is not in any).
  write(join(repo, 'big.bin'), 'y'.repeat(3000));
  assert.is((await cps.take(repo, W, { turn: 2 }, { maxUntrackedBytes: 1000, keep: 2 })).checkpoint, null);
  for (let i = 2; i <= 4; i++) {
    write(join(repo, 'mod.txt'), `turn ${i}\n`);
    await cps.take(repo, W, { turn: i }, { maxUntrackedBytes: 1000, keep: 2 });
  }
  assert.is((await cps.list(repo, W)).map((c) => c.n).join(','), '4,3');
});

test('diff: N against the checkpoint before it, the first against HEAD, or between two named', async () => {
  write(join(repo, 'mod.txt'), 'turn 1\n');
  await cps.take(repo, W, { turn: 1 });
  write(join(repo, 'mod.txt'), 'turn 2\n');
  write(join(repo, 'added.txt'), 'new in 2\n');
  rmSync(join(repo, 'keep.txt'));
  await cps.take(repo, W, { turn: 2 });
  const d1 = await cps.diff(repo, W, 1);
  assert.is(d1.from_n, null);
  assert.equal(d1.files.map((f) => `${f.status} ${f.path}`), ['M mod.txt']);
  const d2 = await cps.diff(repo, W, 2);
  assert.is(d2.from_n, 1);
  assert.equal(d2.files.map((f) => `${f.status} ${f.path}`).sort(), ['A added.txt', 'D keep.txt', 'M mod.txt']);
  assert.match(d2.patch, /-turn 1\n\+turn 2/);
  assert.is(d2.added, 2);
  const both = await cps.diff(repo, W, 2, 1);
  assert.is(both.from_n, 1);
  try {
    await cps.diff(repo, W, 9);
    assert.unreachable();
  } catch (e) {
    assert.is((e as TuiosError).code, 'not_found');
  }
});

test('restore brings back checkpoint N exactly, after a safety checkpoint; index and HEAD untouched; large unsaved files kept', async () => {
  write(join(repo, 'mod.txt'), 'turn 1\n');
  write(join(repo, 'notes/u1.txt'), 'untracked in turn 1\n');
  await cps.take(repo, W, { turn: 1 }, { maxUntrackedBytes: 1000 });
  write(join(repo, 'mod.txt'), 'turn 2\n');
  write(join(repo, 'sub/x.txt'), 'sub changed in 2\n');
  write(join(repo, 'later/u2.txt'), 'untracked in turn 2\n');
  rmSync(join(repo, 'notes/u1.txt'));
  rmSync(join(repo, 'keep.txt'));
  write(join(repo, 'debug.log'), 'ignored, never touched\n');
  await cps.take(repo, W, { turn: 2 }, { maxUntrackedBytes: 1000 });
  const turn2 = snapshot(repo);
  // The person keeps working after turn 2 and stages something.
  write(join(repo, 'mod.txt'), 'the person edits\n');
  write(join(repo, 'person.txt'), 'the person adds\n');
  write(join(repo, 'huge.bin'), 'z'.repeat(5000));
  sh(repo, ['add', 'mod.txt']);
  const indexBefore = readFileSync(join(repo, '.git/index'));
  const headBefore = sh(repo, ['rev-parse', 'HEAD']).trim();
  const afterWork = snapshot(repo);

  const r1 = await cps.restore(repo, W, 1, { maxUntrackedBytes: 1000 });
  assert.is(r1.restored.n, 1);
  assert.is(r1.safety.n, 3);
  assert.is(r1.safety.kind, 'safety');
  assert.ok(r1.safety_taken);
  assert.equal(r1.kept, [{ path: 'huge.bin', bytes: 5000 }]);
  assert.is(readFileSync(join(repo, 'mod.txt'), 'utf8'), 'turn 1\n');
  assert.is(readFileSync(join(repo, 'notes/u1.txt'), 'utf8'), 'untracked in turn 1\n');
  assert.ok(existsSync(join(repo, 'keep.txt')));
  assert.not.ok(existsSync(join(repo, 'later')), 'a file turn 1 did not have is removed, and its empty folder');
  assert.not.ok(existsSync(join(repo, 'person.txt')));
  assert.ok(existsSync(join(repo, 'huge.bin')), 'unsaved work is kept');
  assert.is(readFileSync(join(repo, 'debug.log'), 'utf8'), 'ignored, never touched\n');
  assert.ok(readFileSync(join(repo, '.git/index')).equals(indexBefore), 'index unchanged');
  assert.is(sh(repo, ['rev-parse', 'HEAD']).trim(), headBefore);

  // Turn 2 comes back exactly.
  const r2 = await cps.restore(repo, W, 2, { maxUntrackedBytes: 1000 });
  assert.is(r2.safety.n, 4);
  const now = snapshot(repo);
  delete now['huge.bin'];
  assert.equal(now, turn2);
  // And the safety checkpoint undoes it all: the person's work is back.
  await cps.restore(repo, W, 3, { maxUntrackedBytes: 1000 });
  assert.equal(snapshot(repo), afterWork);
  assert.ok(readFileSync(join(repo, '.git/index')).equals(indexBefore));
  // A restore with nothing changed since the newest checkpoint uses it as the safety one.
  assert.is((await cps.take(repo, W, { turn: 3 }, { maxUntrackedBytes: 1000 })).checkpoint?.n, 6);
  const r4 = await cps.restore(repo, W, 3, { maxUntrackedBytes: 1000 });
  assert.not.ok(r4.safety_taken);
  assert.is(r4.safety.n, 6);
  assert.is(r4.written_count + r4.removed_count, 0);
});

test('after a few looks the tree is watched: each change, in a new folder too, is seen at once; an ignored folder is not watched', async () => {
  write(join(repo, '.gitignore'), '*.log\nbuild/\n');
  write(join(repo, 'build/out.o'), 'ignored\n');
  let n = 0;
  for (let i = 1; i <= 3; i++) {
    write(join(repo, 'mod.txt'), `warm ${i}\n`);
    n = (await cps.take(repo, W, { turn: i })).checkpoint!.n;
  }
  const steps: Array<[string, () => void]> = [
    ['a file edited in a folder', () => write(join(repo, 'sub/x.txt'), 'edited\n')],
    ['a file in a new nested folder', () => write(join(repo, 'a/b/c/new.txt'), 'deep\n')],
    ['a file in the folder made by the step before', () => write(join(repo, 'a/b/c/more.txt'), 'more\n')],
    ['a file removed', () => rmSync(join(repo, 'keep.txt'))],
    ['a folder removed', () => rmSync(join(repo, 'a'), { recursive: true })],
    ['a folder made with a file', () => write(join(repo, 'again/f.txt'), 'one\n')],
    ['that folder removed and made again with its file', () => {
      rmSync(join(repo, 'again'), { recursive: true });
      write(join(repo, 'again/f.txt'), 'two\n');
    }],
    ['the file in the folder made again edited, its size the same', () => write(join(repo, 'again/f.txt'), 'six\n')],
    ['.gitignore no longer ignores build/', () => write(join(repo, '.gitignore'), '*.log\n')],
    ['a file in build/ edited once it is not ignored', () => write(join(repo, 'build/out.o'), 'tracked now\n')],
    ['again, the watcher opened with what is ignored now', () => write(join(repo, 'build/out.o'), 'edited again\n')],
    ['build/ ignored again', () => write(join(repo, '.gitignore'), '*.log\nbuild/\n')],
  ];
  for (const [what, change] of steps) {
    change();
    const r = await cps.take(repo, W, { turn: n + 1 });
    assert.is(r.checkpoint?.n, n + 1, what);
    n++;
    assert.is((await cps.take(repo, W, { turn: n })).checkpoint, null, `${what}: nothing more`);
  }
  // A file in an ignored folder is no checkpoint.
  assert.not.ok(sh(repo, ['ls-tree', '-r', '--name-only', `refs/tuios/checkpoints/${W}/${n}`]).includes('build/'), 'build/ is ignored again');
  write(join(repo, 'build/out2.o'), 'ignored too\n');
  write(join(repo, 'x.log'), 'ignored\n');
  assert.is((await cps.take(repo, W, { turn: n })).checkpoint, null);
  cps.dispose();
});

test('a lock a killed git left on the private index does not stop the next checkpoint', async () => {
  write(join(repo, 'mod.txt'), 'turn 1\n');
  await cps.take(repo, W, { turn: 1 });
  writeFileSync(join(root, 'cache', `${W}.index.lock`), '');
  write(join(repo, 'mod.txt'), 'turn 2\n');
  assert.is((await cps.take(repo, W, { turn: 2 })).checkpoint?.n, 2);
  // A restarted daemon finds the lock too.
  writeFileSync(join(root, 'cache', `${W}.index.lock`), '');
  write(join(repo, 'mod.txt'), 'turn 3\n');
  const fresh = new Checkpoints(join(root, 'cache'));
  assert.is((await fresh.take(repo, W, { turn: 3 })).checkpoint?.n, 3);
  assert.is(sh(repo, ['show', `refs/tuios/checkpoints/${W}/3:mod.txt`]), 'turn 3\n');
});

test('diff caps of review-diff: 400 files, 2 MiB of text, the rest truncated', async () => {
  for (let i = 0; i < 401; i++) write(join(repo, `many/f${i}.txt`), `file ${i}\n`);
  await cps.take(repo, W, { turn: 1 });
  const d1 = await cps.diff(repo, W, 1);
  assert.is(d1.files.length, 400);
  assert.ok(d1.truncated);
  assert.is(d1.added, 401, 'the counts cover every file');
  write(join(repo, 'big.txt'), 'a line of text that repeats\n'.repeat(110_000));
  await cps.take(repo, W, { turn: 2 });
  const d2 = await cps.diff(repo, W, 2);
  assert.ok(d2.truncated);
  assert.ok(d2.patch.length <= 2 * 1024 * 1024, `patch ${d2.patch.length} bytes`);
  assert.is(d2.files.length, 1);
});

test('not a work tree: not_repo; a bad window id: invalid_params; labels are one clean line', async () => {
  const plain = tempDir('tuios-cp-plain-');
  try {
    await cps.take(plain, W);
    assert.unreachable();
  } catch (e) {
    assert.is((e as TuiosError).code, 'not_repo');
  } finally {
    removeDir(plain);
  }
  try {
    await cps.take(repo, '../x');
    assert.unreachable();
  } catch (e) {
    assert.is((e as TuiosError).code, 'invalid_params');
  }
  assert.is(cleanLabel('a\x07b\r\nc   d'), 'a b c d');
  assert.is(cleanLabel('x'.repeat(300)).length, 100);
});

test.run();
