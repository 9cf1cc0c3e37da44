// worktree pull's content transfer over real repositories: packWorktree on one clone, unpackWorktree
// into another, through a byte stream as the link will carry it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { PassThrough, Readable, Writable } from 'node:stream';
import { listHaves, packWorktree, unpackWorktree, type PullProgress } from '../../core/git/transfer.js';
import { FrameReader, PULL_MAGIC, frame, FRAME_DATA, FRAME_END, FRAME_FILE, FRAME_GONE, FRAME_HEADER, FRAME_PACK } from '../../core/git/transfer-frames.js';
import { TuiosError } from '../../core/errors.js';
import { FileSpool } from '../../core/git/transfer-files.js';
import { waitFor } from '../helpers/wait.js';
import { commit, identity, log, makeMessyWork, makeRepo, removeDir, sh, sha256File, status, tempDir, write } from '../helpers/worktree-repos.js';

let root: string;
let origin: string;
let wt: string;
let clone: string;

/** Everything packWorktree writes, as one buffer. */
async function packToBuffer(src: string, haves: string[], earlyBase = false): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const sink = new Writable({
    write(c: Buffer, _e, cb) {
      chunks.push(c);
      cb();
    },
  });
  await packWorktree(src, sink, { haves, earlyBase });
  return Buffer.concat(chunks);
}

function mtimes(dir: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const f of ['mod.txt', 'staged.txt', 'keep.txt', 'new/untracked.txt', 'feature.txt']) out[f] = statSync(join(dir, f)).mtimeMs;
  return out;
}

test.before(() => {
  root = tempDir('tuios-pull-');
  origin = makeRepo(join(root, 'origin'));
  sh(root, ['clone', '-q', origin, join(root, 'clone')]);
  clone = join(root, 'clone');
  identity(clone);
  wt = join(root, 'wt');
  sh(origin, ['worktree', 'add', '-q', '-b', 'feat/retry', wt, 'main']);
  makeMessyWork(wt);
});

test.after(() => removeDir(root));

const cloneOf = () => clone;

test('pull recreates commits with their hashes and the uncommitted work as it was, touching nothing at the source', async () => {
  const indexPath = sh(wt, ['rev-parse', '--path-format=absolute', '--git-path', 'index']).trim();
  const index0 = sha256File(indexPath);
  const status0 = status(wt);
  const times0 = mtimes(wt);
  const log0 = log(wt);
  assert.match(status0, /^ M mod\.txt$/m);
  assert.match(status0, /^M  staged\.txt$/m);
  assert.match(status0, /^ D del\.txt$/m);
  assert.match(status0, /^\?\? new\/untracked\.txt$/m);

  const haves = await listHaves(clone);
  const pipe = new PassThrough();
  const phases = new Set<string>();
  const onProgress = (p: PullProgress) => phases.add(p.phase);
  const dest = join(root, 'pulled', 'feat-retry');
  const [res] = await Promise.all([unpackWorktree(pipe, { repo: clone, dest, onProgress }), packWorktree(wt, pipe, { haves, onProgress })]);

  assert.is(res.path, dest);
  assert.is(res.branch, 'feat/retry');
  assert.equal(log(dest), log0, 'the same commits, the same hashes');
  assert.is(sh(dest, ['symbolic-ref', '--short', 'HEAD']).trim(), 'feat/retry');
  assert.is(status(dest), status0.replace(/^!!.*\n/gm, ''), 'git status reads the same');
  assert.is(readFileSync(join(dest, 'mod.txt'), 'utf8'), 'mod.txt changed, not staged\n');
  assert.is(readFileSync(join(dest, 'new/untracked.txt'), 'utf8'), 'a new file nobody added\n');
  assert.not.ok(existsSync(join(dest, 'del.txt')), 'the deleted file stays deleted');
  assert.not.ok(existsSync(join(dest, 'debug.log')), 'an ignored file is not sent');
  assert.is(sh(dest, ['diff', '--cached', '--name-only']).trim(), 'staged.txt', 'the staged change is staged');
  assert.equal(res.counts, { staged: 1, modified: 1, deleted: 1, untracked: 1 });
  for (const p of ['receive', 'pack', 'checkout', 'done']) assert.ok(phases.has(p), `progress phase ${p}`);

  assert.is(sha256File(indexPath), index0, 'the source index is unchanged');
  assert.is(status(wt), status0, 'the source status is unchanged');
  assert.equal(mtimes(wt), times0, 'no source file was rewritten');
  assert.equal(log(wt), log0);
  assert.ok(sh(clone, ['worktree', 'list']).includes(dest));
  assert.equal(readdirSync(join(root, 'pulled')), ['feat-retry'], 'no temporary folder is left beside it');
});

test('a branch the clone has already gets a suffixed name', async () => {
  const haves = await listHaves(clone);
  const pipe = new PassThrough();
  const dest = join(root, 'pulled', 'again');
  const [res] = await Promise.all([unpackWorktree(pipe, { repo: clone, dest }), packWorktree(wt, pipe, { haves })]);
  assert.is(res.branch, 'feat/retry-2');
  assert.is(status(dest), status(join(root, 'pulled', 'feat-retry')));
});

test('a clone that has none of the history gets all of it', async () => {
  const lone = join(root, 'lone');
  sh(root, ['init', '-q', '-b', 'main', lone]);
  identity(lone);
  commit(lone, 'other.txt', 'unrelated\n', 'unrelated root');
  const pipe = new PassThrough();
  const dest = join(root, 'pulled', 'lone');
  const [res, sum] = await Promise.all([unpackWorktree(pipe, { repo: lone, dest }), packWorktree(wt, pipe, { haves: await listHaves(lone) })]);
  assert.equal(sum.header.prerequisites, []);
  assert.equal(log(dest), log(wt));
  assert.is(res.base_commit, null);
  assert.is(status(dest), status(wt));
});

/** What a path is in a worktree: a link and its target, or a file, its exec bit and its bytes' hash. */
function shapeOf(dir: string, rel: string): string {
  const full = join(dir, rel);
  let st;
  try {
    st = lstatSync(full);
  } catch {
    return 'none';
  }
  if (st.isSymbolicLink()) return `link -> ${readlinkSync(full)}`;
  if (st.isDirectory()) return 'folder';
  return `file ${st.mode & 0o100 ? 'x' : '-'} ${createHash('sha256').update(readFileSync(full)).digest('hex').slice(0, 16)}`;
}

test('every kind of change arrives as it is: links, modes, a file become a folder and back, empty files, files past a frame', async () => {
  const dir = join(root, 'kinds');
  const org = makeRepo(join(dir, 'origin'));
  write(join(org, 'tool.sh'), 'echo tool\n');
  symlinkSync('keep.txt', join(org, 'link-a'));
  write(join(org, 'dir2/inner.txt'), 'inner\n');
  write(join(org, 'asfile.txt'), 'a file, for now\n');
  writeFileSync(join(org, 'big-tracked.bin'), randomBytes(2_500_000));
  sh(org, ['add', '-A']);
  sh(org, ['commit', '-q', '-m', 'kinds']);
  const c = join(dir, 'clone');
  sh(dir, ['clone', '-q', org, c]);
  identity(c);
  const w = join(dir, 'wt');
  sh(org, ['worktree', 'add', '-q', '-b', 'feat/kinds', w, 'main']);
  chmodSync(join(w, 'tool.sh'), 0o755); // a mode change alone
  rmSync(join(w, 'link-a'));
  symlinkSync('mod.txt', join(w, 'link-a')); // a link pointed elsewhere
  rmSync(join(w, 'keep.txt'));
  symlinkSync('sub/x.txt', join(w, 'keep.txt')); // a file become a link
  rmSync(join(w, 'asfile.txt'));
  write(join(w, 'asfile.txt/now-a-folder.txt'), 'a folder now\n'); // a file become a folder
  rmSync(join(w, 'dir2'), { recursive: true });
  writeFileSync(join(w, 'dir2'), 'a file now\n'); // a folder become a file
  writeFileSync(join(w, 'empty.txt'), '');
  const big = readFileSync(join(w, 'big-tracked.bin'));
  big.writeUInt8(big.readUInt8(1_700_000) ^ 0xff, 1_700_000);
  writeFileSync(join(w, 'big-tracked.bin'), big); // past a frame, tracked
  writeFileSync(join(w, 'blob.bin'), randomBytes(3_100_000)); // past a frame, untracked
  write(join(w, 'staged.txt'), 'staged v1\n');
  sh(w, ['add', '--', 'staged.txt']);
  write(join(w, 'staged.txt'), 'staged v1, then changed again\n'); // staged, then changed
  symlinkSync('nowhere', join(w, 'dangling')); // an untracked link to nothing
  write(join(w, 'run.sh'), 'echo run\n');
  chmodSync(join(w, 'run.sh'), 0o755);
  const pipe = new PassThrough();
  const dest = join(root, 'pulled', 'kinds');
  const [res, sum] = await Promise.all([unpackWorktree(pipe, { repo: c, dest }), packWorktree(w, pipe, { haves: await listHaves(c) })]);
  assert.is(res.path, dest);
  assert.is(status(dest), status(w), 'git status reads the same');
  assert.is(sh(dest, ['diff', '--cached', '--binary']), sh(w, ['diff', '--cached', '--binary']), 'the same index');
  assert.is(sh(dest, ['diff', '--binary']), sh(w, ['diff', '--binary']), 'the same unstaged changes');
  for (const rel of ['tool.sh', 'link-a', 'keep.txt', 'asfile.txt', 'asfile.txt/now-a-folder.txt', 'dir2', 'dir2/inner.txt', 'empty.txt', 'big-tracked.bin', 'blob.bin', 'staged.txt', 'dangling', 'run.sh', 'del.txt']) {
    assert.is(shapeOf(dest, rel), shapeOf(w, rel), rel);
  }
  assert.ok(sum.bytes > 5_600_000, 'both large files travelled');
});

/**
 * A whole stream with its files replaced by `parts` ([type, payload]) and its end record made to
 * match them: what a peer that means harm sends, which no check of sums catches.
 */
function withFiles(whole: Buffer, parts: Array<[number, Buffer]>): Buffer {
  const frames = new FrameReader().feed(whole);
  const out: Buffer[] = [PULL_MAGIC];
  const hash = createHash('sha256');
  const rec = { files: 0, gone: 0, bytes: 0, sha256: '' };
  for (const f of frames) {
    if (f.type === FRAME_FILE || f.type === FRAME_DATA || f.type === FRAME_GONE) continue;
    if (f.type !== FRAME_END) {
      out.push(frame(f.type, f.payload));
      continue;
    }
    for (const [type, payload] of parts) {
      if (type === FRAME_FILE) rec.files++;
      if (type === FRAME_GONE) rec.gone++;
      rec.bytes += payload.length;
      hash.update(payload);
      out.push(frame(type, payload));
    }
    rec.sha256 = hash.digest('hex');
    const end = JSON.parse(f.payload.toString()) as { files: unknown };
    end.files = rec;
    out.push(frame(FRAME_END, Buffer.from(JSON.stringify(end))));
  }
  return Buffer.concat(out);
}

const fileRec = (path: string, data: string, mode = '100644'): Array<[number, Buffer]> => [
  [FRAME_FILE, Buffer.from(JSON.stringify({ path, mode, size: Buffer.byteLength(data) }))],
  [FRAME_DATA, Buffer.from(data)],
];

test('a peer\'s file paths that lead out of the worktree, into .git or through a link are refused, and nothing is written', async () => {
  // A repository whose index holds a link to a folder outside it: a file sent under the link
  // must not land there.
  const dir = join(root, 'evil');
  const outside = join(dir, 'outside');
  mkdirSync(outside, { recursive: true });
  const org = makeRepo(join(dir, 'origin'));
  symlinkSync(outside, join(org, 'ilnk'));
  sh(org, ['add', '-A']);
  sh(org, ['commit', '-q', '-m', 'a link out']);
  const c = join(dir, 'clone');
  sh(dir, ['clone', '-q', '--single-branch', '-b', 'main', org, c]);
  identity(c);
  sh(c, ['reset', '-q', '--hard', 'HEAD~1']); // the clone lacks the link's commit: it comes as history
  const w = join(dir, 'wt');
  sh(org, ['worktree', 'add', '-q', '-b', 'feat/evil', w, 'main']);
  write(join(w, 'mod.txt'), 'changed\n');
  const whole = await packToBuffer(w, await listHaves(c));
  const cases: Array<[string, Array<[number, Buffer]>]> = [
    ['up and out', fileRec('../escaped', 'x')],
    ['absolute', fileRec(`${outside}/escaped`, 'x')],
    ['through ..', fileRec('sub/../../escaped', 'x')],
    ['into .git', fileRec('.git/hooks/post-checkout', '#!/bin/sh\n', '100755')],
    ['into .GIT.', fileRec('sub/.GIT./config', 'x')],
    ['under a link it sends', [...fileRec('lnk', outside, '120000'), ...fileRec('lnk/escaped', 'x')]],
    ['under a link the index holds', fileRec('ilnk/escaped', 'x')],
    ['gone, up and out', [[FRAME_GONE, Buffer.from(JSON.stringify({ path: '../outside/keep' }))]]],
    ['a mode git does not know', fileRec('odd', 'x', '040000')],
    ['more bytes than its size', [[FRAME_FILE, Buffer.from(JSON.stringify({ path: 'a', mode: '100644', size: 1 }))], [FRAME_DATA, Buffer.from('xy')]]],
    ['a file without its bytes', [[FRAME_FILE, Buffer.from(JSON.stringify({ path: 'a', mode: '100644', size: 5 }))]]],
  ];
  writeFileSync(join(outside, 'keep'), 'stays\n');
  for (const [name, parts] of cases) {
    await expectNothingMade(Readable.from([withFiles(whole, parts)]), join(root, 'pulled', `evil-${name.replace(/\W+/g, '-')}`), 'bad_stream', c);
    assert.equal(readdirSync(outside), ['keep'], `${name}: nothing written outside`);
    assert.not.ok(existsSync(join(dir, 'escaped')) || existsSync(join(root, 'escaped')), `${name}: nothing escaped`);
  }
  // The same stream with its own files is taken: the refusals are the paths', not the framing's.
  const ok = join(root, 'pulled', 'evil-ok');
  await unpackWorktree(Readable.from([withFiles(whole, fileRec('mod.txt', 'changed\n'))]), { repo: c, dest: ok });
  assert.is(status(ok), status(w));
  assert.is(readlinkSync(join(ok, 'ilnk')), outside);
});

async function expectNothingMade(input: Readable, dest: string, reason: string, clone = cloneOf()) {
  const branches0 = sh(clone, ['branch', '--list']);
  const wts0 = sh(clone, ['worktree', 'list']);
  const pulls0 = readdirSync(join(clone, '.git')).filter((f) => f.startsWith('tuios-pull-'));
  try {
    await unpackWorktree(input, { repo: clone, dest, branch: 'cut/attempt' });
    assert.unreachable('the unpack should fail');
  } catch (e) {
    assert.instance(e, TuiosError);
    assert.is((e as TuiosError).extra.reason, reason, (e as Error).message);
  }
  assert.not.ok(existsSync(dest), 'no worktree');
  assert.is(sh(clone, ['branch', '--list']), branches0, 'no branch');
  assert.is(sh(clone, ['worktree', 'list']), wts0, 'no worktree registered');
  assert.equal(readdirSync(join(clone, '.git')).filter((f) => f.startsWith('tuios-pull-')), pulls0, 'no spool left');
  assert.equal(readdirSync(join(clone, '.git', 'objects', 'pack')).filter((f) => f.startsWith('tmp_')), [], 'no half-written pack in the clone');
  assert.ok(!readdirSync(join(root, 'pulled')).some((f) => f.includes('.tmp-') || f.startsWith('pull.')), 'no temporary worktree, no spooled files');
}

test('a stream cut midway leaves no worktree, no branch and no spool', async () => {
  const whole = await packToBuffer(wt, await listHaves(clone));
  for (const at of [4, 20, Math.floor(whole.length / 2), whole.length - 3]) {
    await expectNothingMade(Readable.from([whole.subarray(0, at)]), join(root, 'pulled', `cut-${at}`), 'cut');
  }
});

test('a stream broken by its sender (an error, as a link going down) leaves nothing', async () => {
  const whole = await packToBuffer(wt, await listHaves(clone));
  const pipe = new PassThrough();
  pipe.write(whole.subarray(0, Math.floor(whole.length / 2)));
  setImmediate(() => pipe.destroy(new Error('ECONNRESET')));
  await expectNothingMade(pipe, join(root, 'pulled', 'broken'), 'cut');
});

test('a changed byte in the pack is caught as a damaged stream, not only as a pack git refuses', async () => {
  const whole = Buffer.from(await packToBuffer(wt, await listHaves(clone)));
  whole.writeUInt8(whole.readUInt8(whole.length - 200) ^ 0xff, whole.length - 200);
  await expectNothingMade(Readable.from([whole]), join(root, 'pulled', 'flipped'), 'bad_stream');
});

test('an index commit that does not sit on the header\'s HEAD is a bad stream, caught beside the checkout, and nothing is left', async () => {
  const whole = await packToBuffer(wt, await listHaves(clone));
  const out: Buffer[] = [PULL_MAGIC];
  for (const f of new FrameReader().feed(whole)) {
    if (f.type !== FRAME_HEADER) {
      out.push(frame(f.type, f.payload));
      continue;
    }
    // HEAD named as the clone's own commit: the index commit's parent is another.
    const h = JSON.parse(f.payload.toString()) as { head: string };
    h.head = sh(clone, ['rev-parse', 'HEAD']).trim();
    out.push(frame(FRAME_HEADER, Buffer.from(JSON.stringify(h))));
  }
  const dest = join(root, 'pulled', 'not-on-head');
  await expectNothingMade(Readable.from([Buffer.concat(out)]), dest, 'bad_stream');
  await unpackWorktree(Readable.from([Buffer.concat(out)]), { repo: clone, dest, branch: 'cut/again' }).then(
    () => assert.unreachable('the unpack should fail'),
    (e: unknown) => assert.match((e as Error).message, /index commit does not sit on its HEAD/),
  );
});

test('a changed byte in the history pack is caught too, after HEAD was checked out early, and that checkout goes', async () => {
  const whole = Buffer.from(await packToBuffer(wt, await listHaves(clone)));
  const at = whole.indexOf('PACK') + 60;
  whole.writeUInt8(whole.readUInt8(at) ^ 0xff, at);
  await expectNothingMade(Readable.from([whole]), join(root, 'pulled', 'flipped-history'), 'bad_stream');
});

/** A clone of a repository of 30 files, and a worktree of it whose work changes five. */
function biggerRepo(): { clone: string; wt: string } {
  const dir = join(root, 'bigger');
  const org = makeRepo(join(dir, 'origin'));
  for (let i = 0; i < 24; i++) commit(org, `more/f${i}.txt`, `file ${i}\n`, `file ${i}`);
  const c = join(dir, 'clone');
  sh(dir, ['clone', '-q', org, c]);
  identity(c);
  const w = join(dir, 'wt');
  sh(org, ['worktree', 'add', '-q', '-b', 'feat/based', w, 'main']);
  makeMessyWork(w);
  return { clone: c, wt: w };
}

test('with a base the clone has, its files are written before the packs arrive, and the pull ends the same', async () => {
  const b = biggerRepo();
  const whole = await packToBuffer(b.wt, await listHaves(b.clone), true);
  // The magic, then the BASE frame: [type 5][length u32][JSON].
  assert.is(whole.readUInt8(8), 5, 'the base goes first');
  const upTo = 8 + 5 + whole.readUInt32BE(9);
  const base = (JSON.parse(whole.subarray(13, upTo).toString()) as { commit: string }).commit;
  assert.is(base, sh(b.clone, ['rev-parse', 'main']).trim(), 'the base is where the branch left the clone\'s main');
  const pipe = new PassThrough();
  const dest = join(root, 'pulled', 'based');
  const pending = unpackWorktree(pipe, { repo: b.clone, dest });
  pipe.write(whole.subarray(0, upTo));
  // Nothing else has come: the base's files are written all the same, under a temporary name.
  const staging = await waitFor(() => readdirSync(join(root, 'pulled')).find((f) => f.includes('.tmp-') && existsSync(join(root, 'pulled', f, 'more', 'f23.txt'))), { what: 'the base checked out early' });
  assert.ok(existsSync(join(root, 'pulled', staging, 'del.txt')), 'the base\'s own files, before W deletes one');
  pipe.end(whole.subarray(upTo));
  const res = await pending;
  assert.is(res.path, dest);
  assert.equal(log(dest), log(b.wt));
  assert.is(sh(dest, ['symbolic-ref', '--short', 'HEAD']).trim(), 'feat/based');
  assert.is(status(dest), status(b.wt).replace(/^!!.*\n/gm, ''));
  assert.not.ok(existsSync(join(dest, 'del.txt')), 'the deleted file is gone');
  assert.is(readFileSync(join(dest, 'mod.txt'), 'utf8'), 'mod.txt changed, not staged\n');
  assert.is(readFileSync(join(dest, 'feature.txt'), 'utf8'), 'feature v2\n');
  assert.not.ok(readdirSync(join(root, 'pulled')).some((f) => f.includes('.tmp-')), 'no temporary worktree');

  // A stream cut right after its base, a little later, or midway leaves nothing either.
  for (const at of [upTo, upTo + 40, Math.floor(whole.length / 2)]) {
    await expectNothingMade(Readable.from([whole.subarray(0, at)]), join(root, 'pulled', `cut-based-${at}`), 'cut', b.clone);
  }
});

test('an index pack thin against the history\'s own objects is indexed once the history is in', async () => {
  // A large file changed in a commit the clone lacks, and again, a line, staged: the index's pack
  // carries that change as a delta on the commit's version, which only the history pack brings.
  // The index pack's last bytes wait for the history to be indexed.
  const dir = join(root, 'thin');
  const org = makeRepo(join(dir, 'origin'));
  const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `line ${i} of the large file, ${tag} ${(i * 2654435761) % 1000003}`).join('\n') + '\n';
  commit(org, 'large.txt', lines(3000, 'v0'), 'large');
  const c = join(dir, 'clone');
  sh(dir, ['clone', '-q', org, c]);
  identity(c);
  const w = join(dir, 'wt');
  sh(org, ['worktree', 'add', '-q', '-b', 'feat/thin', w, 'main']);
  commit(w, 'large.txt', lines(3000, 'v1'), 'large, every line changed');
  writeFileSync(join(w, 'large.txt'), lines(3000, 'v1').replace('line 7 of', 'line seven of'));
  sh(w, ['add', '--', 'large.txt']);
  const pipe = new PassThrough();
  const dest = join(root, 'pulled', 'thin');
  const [res, sum] = await Promise.all([unpackWorktree(pipe, { repo: c, dest }), packWorktree(w, pipe, { haves: await listHaves(c) })]);
  assert.is(status(dest), status(w));
  assert.is(readFileSync(join(dest, 'large.txt'), 'utf8'), readFileSync(join(w, 'large.txt'), 'utf8'));
  assert.equal(log(dest), log(w));
  // The history carries the large file once; the index adds only a delta on it.
  assert.ok(res.pack_bytes < statSync(join(w, 'large.txt')).size, `${res.pack_bytes} bytes of packs for a ${statSync(join(w, 'large.txt')).size}-byte file changed twice`);
  assert.ok(sum.pack_bytes === res.pack_bytes);
});

test('no base when the work changes most of its files: the index\'s files are written once, at the end', async () => {
  // The small repository: 6 files, of which the commits and the work change 5.
  const whole = await packToBuffer(wt, await listHaves(clone), true);
  assert.is(whole.readUInt8(8), 1, 'the header goes first');
});

test('frames: magic first, a frame split across chunks reads whole, an oversized frame is refused', () => {
  const r = new FrameReader();
  const f = frame(FRAME_PACK, Buffer.from('hello'));
  const all = Buffer.concat([PULL_MAGIC, f]);
  assert.equal(r.feed(all.subarray(0, 3)), []);
  assert.equal(r.feed(all.subarray(3, 12)), []);
  const out = r.feed(all.subarray(12));
  assert.is(out.length, 1);
  assert.is(out[0]!.payload.toString(), 'hello');
  assert.is(r.pending, 0);
  assert.throws(() => new FrameReader().feed(Buffer.from('NOTMAGIC')), /not start as a tuios/);
  const big = Buffer.alloc(5);
  big.writeUInt8(FRAME_PACK, 0);
  big.writeUInt32BE(64 * 1024 * 1024, 1);
  assert.throws(() => new FrameReader().feed(Buffer.concat([PULL_MAGIC, big])), /past its limit/);
});

test('frames: a PACK or DATA frame comes in pieces as its reads come, each a view; a HEADER only whole', () => {
  const r = new FrameReader();
  // Reads of their own (not Node's shared pool), so a view can be told from a copy.
  const read = (b: Buffer) => {
    const own = Buffer.alloc(b.length);
    b.copy(own);
    return own;
  };
  const pack = randomBytes(3000);
  const all = Buffer.concat([PULL_MAGIC, frame(FRAME_HEADER, Buffer.from('{"a":1}')), frame(FRAME_PACK, pack), frame(FRAME_DATA, Buffer.alloc(0)), frame(FRAME_DATA, Buffer.from('xyz'))]);
  const cuts = [5, 14, 20, 1000, 2500, all.length];
  const got: Array<{ type: number; payload: Buffer }> = [];
  let last: Buffer | null = null;
  let at = 0;
  for (const cut of cuts) {
    last = read(all.subarray(at, cut));
    const out = r.feed(last);
    got.push(...out);
    if (cut === 1000) {
      assert.is(out.at(-1)!.type, FRAME_PACK);
      assert.ok(r.pending > 0, 'the pack still owes bytes');
      last[999 - at]! ^= 0xff;
      assert.is(out.at(-1)!.payload.at(-1), last[999 - at], 'a piece is a view of its read');
      last[999 - at]! ^= 0xff;
    }
    at = cut;
  }
  assert.is(r.pending, 0);
  assert.equal(got.filter((f) => f.type === FRAME_HEADER).map((f) => f.payload.toString()), ['{"a":1}'], 'a header split across reads comes whole');
  const pieces = got.filter((f) => f.type === FRAME_PACK);
  assert.ok(pieces.length >= 3, `the pack came in ${pieces.length} pieces`);
  assert.ok(Buffer.concat(pieces.map((f) => f.payload)).equals(pack));
  assert.equal(got.filter((f) => f.type === FRAME_DATA).map((f) => f.payload.toString()), ['', 'xyz'], 'an empty DATA frame is still an entry');
  const cut = new FrameReader();
  cut.feed(Buffer.concat([PULL_MAGIC, frame(FRAME_PACK, pack)]).subarray(0, 100));
  assert.ok(cut.pending > 0, 'a stream cut inside a pack is not whole');
});

test('a spool write that fails is the transfer\'s typed failure', async () => {
  const where = tempDir('tuios-spool-');
  const spool = new FileSpool(() => where);
  const rec = (path: string, size: number) => Buffer.from(JSON.stringify({ path, mode: '100644', size }));
  try {
    spool.onFile(rec('a.txt', 3));
    await spool.onData(Buffer.from('one'));
    await spool.close();
    const [folder] = readdirSync(where);
    assert.ok(folder?.startsWith('pull.files-'));
    assert.is(readFileSync(join(where, folder!, '0'), 'utf8'), 'one');
    // The folder goes: the next file's write fails, as a typed failure.
    rmSync(join(where, folder!), { recursive: true });
    spool.onFile(rec('b.txt', 3));
    const failed = await spool.onData(Buffer.from('two')).then(() => spool.close()).then(() => null, (e: unknown) => e);
    assert.instance(failed, TuiosError);
    assert.is((failed as TuiosError).code, 'git_failed');
    assert.match((failed as TuiosError).message, /could not be written here \(ENOENT\)/);
  } finally {
    await spool.remove();
    removeDir(where);
  }
});

test.run();

test.run();
