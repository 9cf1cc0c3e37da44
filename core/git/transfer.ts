// `worktree pull` content transfer: a worktree's state packed on one side as a byte stream and
// unpacked on the other into a new worktree of another clone. Pure over local repositories: the
// link carries the bytes later, piping packWorktree's output into unpackWorktree's input.
//
// What travels: the commits of the branch the receiver lacks (relative to commits it said it has),
// the index as a commit made with plumbing (I, whose tree is the index as staged, on HEAD; never
// touching a ref, the worktree or its index), and the files that differ from the index as they
// are, as tar carries them (transfer-files.ts): hashing them into objects on one side and writing
// them back out on the other cost more than the bytes they save on a link. The receiver recreates
// HEAD as a branch, I as the index and its files, then puts the sender's files over them, so `git
// status` reads the same on both sides and `git log` shows the same hashes.
//
// Wire format, version 2: the 8-byte magic "TUIOSWT1", then frames of [type u8][length u32 BE]
// [payload]: one HEADER (JSON), the PACK frames of the history pack (HEAD's commits the receiver
// lacks, as `git bundle` packs them; none when it lacks none), one NEXT, the PACK frames of the
// index's pack (I, thin against HEAD), the files (GONE for each file the worktree lost, FILE and
// its DATA for each file that may differ from the index or is untracked), one END (JSON: each
// pack's length and sha256, the files' count, length and sha256). Together the packs are a bundle
// whose prerequisites are the receiver's own commits. A stream that ends before END, or whose
// parts do not match END, is cut. The receiver indexes each pack as it arrives, into a quarantine
// object folder whose pack reaches the clone only once git has indexed it whole; it spools the
// files beside the new worktree, makes no ref before the transfer is whole and checked, and builds
// the worktree under a temporary name, renaming it at the end.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { PassThrough, Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { TuiosError } from '../errors.js';
import { FRAME_BASE, FRAME_DATA, FRAME_END, FRAME_FILE, FRAME_GONE, FRAME_HEADER, FRAME_NEXT, FRAME_PACK, FrameReader, PULL_FORMAT, PULL_MAGIC, badStream, cutStream, frame, frameHead, writeOut } from './transfer-frames.js';
import { git, gitText, forgetSafety } from './run.js';
import { branchExists, checkBranchName, repoAt, SHA_RE, statusOf, worktreeDelta, type RepoInfo, type WorkingTrees, type WorktreeStatus } from './repo.js';
import { FileSpool, sendFiles, type FilesRecord } from './transfer-files.js';
import { GIT_TRANSFER_TIMEOUT_MS, PULL_CHUNK_BYTES, PULL_MAX_BYTES, PULL_MAX_HAVES, PULL_PROGRESS_BYTES } from '../limits.js';

/**
 * Delta search window of both packs. A changed file's base, its other version (at HEAD, in an
 * earlier commit, or at the receiver's commit the pack is thin against), has its name and sorts
 * beside it: on 1,666 files with a line added, window 2 packs 557 KB, 10 packs 554 KB and 0 packs
 * 2 MB; tuios's own last 200 commits pack to 1,086,830 bytes at window 2 and 1,086,254 at git's 10.
 * A wide window searches thousands of new blobs for nothing: the bench's history (2,048 files of
 * 10 KB in 2 commits) packed in 1.58 CPU-s at 10 and 0.76 at 2, to the same size.
 */
const PULL_DELTA_WINDOW = 2;
/**
 * Processes that write the new worktree's files (git's parallel checkout). Writing thousands of
 * small files waits on the disk more than on the CPU: the bench's 8,000 files took 3.3 s
 * with one and 1.1-1.2 s with four, under load 6 on 2 cores.
 */
const PULL_CHECKOUT_WORKERS = 4;
/** The share of the base's files the pulled work may change for the receiver to write the base first. */
const PULL_BASE_REWRITES = 0.5;
/**
 * zlib level of both packs. Deflate is most of a pack's CPU: on 50 MB of source-like changes
 * level 1 packs in ~20% less CPU than git's default (6) for ~6% more bytes (bench: worktree).
 */
const PULL_PACK_COMPRESSION = 1;

/** Fixed identity and date of the index commit, so the same state always packs the same. */
const WORK_IDENTITY = {
  GIT_AUTHOR_NAME: 'tuios',
  GIT_AUTHOR_EMAIL: 'tuios@localhost',
  GIT_AUTHOR_DATE: '@0 +0000',
  GIT_COMMITTER_NAME: 'tuios',
  GIT_COMMITTER_EMAIL: 'tuios@localhost',
  GIT_COMMITTER_DATE: '@0 +0000',
};

export interface PullProgress {
  phase: 'scan' | 'pack' | 'receive' | 'index' | 'checkout' | 'done';
  /** Bytes of the transfer so far (sent by the packer, received by the unpacker). */
  bytes: number;
  /** Objects in the packs received so far, as each pack's header announces them (the unpacker). */
  objects?: number;
  /** Files received so far, each sent as it is (the unpacker). */
  files?: number;
}

export interface PackHeader {
  format: number;
  /** The branch the worktree has checked out, null on a detached HEAD. */
  branch: string | null;
  head: string;
  /** The index as staged, a commit on HEAD. */
  index_commit: string;
  /** The base the worktree was made from, when the sender knows it. */
  base: string | null;
  base_commit: string | null;
  /** Commits the pack leaves out: the receiver has them (it said so). */
  prerequisites: string[];
  counts: { staged: number; modified: number; deleted: number; untracked: number };
  /** Untracked files not sent, past the size limit. */
  skipped: WorkingTrees['skipped'];
}

export interface PackOptions {
  /** Commits the receiver has (listHaves on its clone); the pack leaves out what they reach. */
  haves?: string[];
  /** The worktree's recorded base, carried to the receiver. */
  base?: { name: string | null; commit: string | null };
  onProgress?: (p: PullProgress) => void;
  signal?: AbortSignal;
  maxUntrackedBytes?: number;
  /** The receiver reads a BASE frame (it said so when it asked): it is sent when there is one. */
  earlyBase?: boolean;
}

export interface PackSummary {
  header: PackHeader;
  /** Bytes written to the output, framing included. */
  bytes: number;
  pack_bytes: number;
}

export interface UnpackOptions {
  /** A folder of the receiving clone, or the clone as the caller read it already (no second look). */
  repo: string | RepoInfo;
  /**
   * Where the new worktree goes; must not exist. Its parent is made when missing. A function is
   * given the branch chosen (known once the header arrives) and names the place then.
   */
  dest: string | ((branch: string) => string);
  /** The branch name to use; default the sender's, suffixed (-2, -3...) when the clone has it. */
  branch?: string;
  onProgress?: (p: PullProgress) => void;
  signal?: AbortSignal;
  maxBytes?: number;
}

export interface UnpackResult {
  path: string;
  branch: string;
  head: string;
  base: string | null;
  /** The base commit when the receiver has it, else null. */
  base_commit: string | null;
  counts: PackHeader['counts'];
  skipped: PackHeader['skipped'];
  bytes: number;
  pack_bytes: number;
}

// ---- frames ----

/** Commits a clone has at its ref tips (branches, remote branches, tags, HEAD), newest first. */
export async function listHaves(repo: string, signal?: AbortSignal): Promise<string[]> {
  // Both at once: the offer is on the pull's path before its first byte.
  const [out, headRun] = await Promise.all([
    gitText(['for-each-ref', '--sort=-committerdate', '--format=%(objecttype) %(objectname) %(*objecttype) %(*objectname)', 'refs/heads', 'refs/remotes', 'refs/tags'], { cwd: repo, signal }),
    git(['rev-parse', '-q', '--verify', 'HEAD^{commit}'], { cwd: repo, signal, okCodes: [0, 1] }),
  ]);
  const seen = new Set<string>();
  const head = headRun.stdout.toString().trim();
  if (SHA_RE.test(head)) seen.add(head);
  for (const line of out.split('\n')) {
    const [t, id, pt, pid] = line.split(' ');
    const c = t === 'commit' ? id : pt === 'commit' ? pid : undefined;
    if (c && SHA_RE.test(c)) seen.add(c);
    if (seen.size >= PULL_MAX_HAVES) break;
  }
  return [...seen];
}

// ---- packing ----

/** Packs a worktree's state into `out` (ended on success, destroyed on failure: a cut for its reader). Touches nothing of it. */
export async function packWorktree(worktree: string, out: Writable, opts: PackOptions = {}): Promise<PackSummary> {
  const { signal } = opts;
  // Ends the running pack-objects: the caller's cancel, or a failure of this call.
  const packing = new AbortController();
  const stopPacking = () => packing.abort();
  signal?.addEventListener('abort', stopPacking, { once: true });
  let bytes = 0;
  let lastReport = 0;
  const report = (phase: PullProgress['phase'], force = false) => {
    if (!opts.onProgress) return;
    if (!force && bytes - lastReport < PULL_PROGRESS_BYTES) return;
    lastReport = bytes;
    opts.onProgress({ phase, bytes });
  };
  const send = async (buf: Buffer) => {
    await writeOut(out, buf, signal);
    bytes += buf.length;
  };
  try {
    report('scan', true);
    const top = await gitText(['rev-parse', '--show-toplevel'], { cwd: worktree, signal });
    // What the receiver has, of the commits this clone knows.
    const offered = (opts.haves ?? []).filter((h) => SHA_RE.test(h)).slice(0, PULL_MAX_HAVES);
    // Which offered commits this clone has, and its HEAD, at once: both are before the first pack.
    const [known, headRun] = await Promise.all([
      offered.length ? git(['cat-file', '--batch-check=%(objectname) %(objecttype)'], { cwd: top, signal, input: offered.join('\n') + '\n' }) : null,
      git(['rev-parse', '-q', '--verify', 'HEAD^{commit}'], { cwd: top, signal, okCodes: [0, 1] }),
    ]);
    const prerequisites = known ? known.stdout.toString().split('\n').filter((l) => l.endsWith(' commit')).map((l) => l.split(' ')[0]!) : [];
    const not = prerequisites.map((p) => `^${p}\n`).join('');
    const headNow = headRun.stdout.toString().trim() || null;
    await send(PULL_MAGIC);
    const statusNow = statusOf(top, signal);
    statusNow.catch(() => undefined); // awaited for the header

    // Two packs, both thin (as `git bundle` packs): the history, then the index commit, so a
    // modified file travels as a delta on the version the receiver has. Their delta search is
    // narrow (PULL_DELTA_WINDOW): a new version's best base sorts beside it.
    let packBytes = 0;
    const sums: Array<{ bytes: number; sha256: string }> = [];
    const packInto = (revs: string, extra: string[], stop: AbortSignal) => {
      const pass = new PassThrough({ highWaterMark: PULL_CHUNK_BYTES });
      const done = git(['-c', `pack.compression=${PULL_PACK_COMPRESSION}`, 'pack-objects', '--revs', '--stdout', '-q', '--delta-base-offset', ...extra], { cwd: top, signal: stop, input: revs, stdout: pass, timeoutMs: GIT_TRANSFER_TIMEOUT_MS }).then(
        () => void pass.end(),
        (e: unknown) => {
          pass.destroy(e as Error);
          throw e;
        },
      );
      done.catch(() => undefined); // awaited where its pack is sent
      return { pass, done };
    };
    // The history's pack starts before the work is listed, from HEAD as it is now: its counting
    // and delta search, most of its cost, run while the index and the files are read, and its output
    // waits in the pipe (a chunk) until the header has gone. Should HEAD move meanwhile (a commit
    // made there), it starts again from the HEAD the index commit sits on.
    const startHistory = async (head: string | null) => {
      if (!head) return null;
      const newCommits = Number(await gitText(['rev-list', '--count', '--stdin'], { cwd: top, signal, input: `${head}\n${not}` }));
      if (newCommits === 0) return null;
      const own = new AbortController();
      return { head, stop: () => own.abort(), ...packInto(`${head}\n${not}`, ['--thin', `--window=${PULL_DELTA_WINDOW}`], AbortSignal.any([packing.signal, own.signal])) };
    };
    let history = await startHistory(headNow);
    // Beside the hashing: the commit whose files the receiver may write while this side packs.
    const based = opts.earlyBase && headNow && prerequisites.length ? nearBase(top, headNow, prerequisites, statusNow, signal) : Promise.resolve(null);
    const baseSent = based.then(async (near) => {
      if (near) await send(frame(FRAME_BASE, Buffer.from(JSON.stringify({ commit: near }))));
    });
    baseSent.catch(() => undefined); // awaited before the header
    const [delta, status, branchOut] = await Promise.all([
      worktreeDelta(top, { signal, maxUntrackedBytes: opts.maxUntrackedBytes, timeoutMs: GIT_TRANSFER_TIMEOUT_MS }),
      statusNow,
      git(['symbolic-ref', '--short', '-q', 'HEAD'], { cwd: top, signal, okCodes: [0, 1] }),
    ]);
    if (!delta.head) throw new TuiosError('not_ready', `The worktree ${top} has no commits yet; there is nothing to pull.`, 'Make a first commit there.');
    const head = delta.head;
    if (head !== headNow) {
      history?.stop();
      history = await startHistory(head);
    }
    const commitTree = (tree: string, parents: string[], msg: string) =>
      gitText(['commit-tree', '--no-gpg-sign', tree, ...parents.flatMap((p) => ['-p', p]), '-m', msg], { cwd: top, signal, env: WORK_IDENTITY });
    const indexCommit = await commitTree(delta.indexTree, [head], 'tuios: index');
    const header: PackHeader = {
      format: PULL_FORMAT,
      branch: branchOut.stdout.toString().trim() || null,
      head,
      index_commit: indexCommit,
      base: opts.base?.name ?? null,
      base_commit: opts.base?.commit ?? null,
      prerequisites,
      counts: { staged: status.staged, modified: status.modified, deleted: status.deleted, untracked: status.untracked },
      skipped: delta.skipped,
    };
    await baseSent;
    await send(frame(FRAME_HEADER, Buffer.from(JSON.stringify(header))));
    report('pack', true);

    const sendFrom = async (p: { pass: PassThrough; done: Promise<void> }) => {
      const hash = createHash('sha256');
      let n = 0;
      for await (const chunk of p.pass as AsyncIterable<Buffer>) {
        for (let i = 0; i < chunk.length; i += PULL_CHUNK_BYTES) {
          const part = chunk.subarray(i, i + PULL_CHUNK_BYTES);
          hash.update(part);
          n += part.length;
          packBytes += part.length;
          await send(frameHead(FRAME_PACK, part.length));
          await send(part);
          report('pack');
        }
      }
      await p.done;
      sums.push({ bytes: n, sha256: hash.digest('hex') });
    };
    // The index's pack starts once its commit exists, while the history's goes out: its counting
    // and delta search run meanwhile, and its output waits in the pipe until the history has gone.
    const staged = packInto(`${indexCommit}\n^${head}\n${not}`, ['--thin', `--window=${PULL_DELTA_WINDOW}`], packing.signal);
    if (history) await sendFrom(history);
    else sums.push({ bytes: 0, sha256: createHash('sha256').digest('hex') });
    await send(frame(FRAME_NEXT, Buffer.alloc(0)));
    await sendFrom(staged);
    // Last, the files as they are: the receiver checks the index's files out while they come.
    const fileHash = createHash('sha256');
    const sent = await sendFiles(top, delta, async (b) => {
      await send(b);
      report('pack');
    }, fileHash);
    const files: FilesRecord = { ...sent, sha256: fileHash.digest('hex') };
    await send(frame(FRAME_END, Buffer.from(JSON.stringify({ packs: sums, files }))));
    await new Promise<void>((resolve) => out.end(resolve));
    report('done', true);
    return { header, bytes, pack_bytes: packBytes };
  } catch (e) {
    // The reader sees a cut (a premature close); the reason is this call's to report.
    packing.abort();
    out.destroy();
    throw e;
  } finally {
    signal?.removeEventListener('abort', stopPacking);
  }
}

/**
 * Where HEAD meets the receiver's commits, when the receiver writing its files first pays: when
 * the commits and the uncommitted work change fewer than PULL_BASE_REWRITES of its files. Past
 * that, writing the base and then the changes writes most files twice (the bench's repository
 * changes 60% of them), and the index's files are written once, at the end. Null when there is none.
 */
async function nearBase(top: string, head: string, prerequisites: string[], status: Promise<WorktreeStatus>, signal?: AbortSignal): Promise<string | null> {
  const near = (await git(['merge-base', head, ...prerequisites], { cwd: top, signal, okCodes: [0, 1] })).stdout.toString().trim();
  if (!SHA_RE.test(near)) return null;
  // A list past git's output cut counts as endless: a repository that large keeps most files.
  const count = async (args: string[]) => {
    const r = await git(args, { cwd: top, signal, cut: true, timeoutMs: GIT_TRANSFER_TIMEOUT_MS });
    return r.truncated ? Infinity : r.stdout.toString('utf8').split('\0').filter(Boolean).length;
  };
  const [files, committed, st] = await Promise.all([count(['ls-tree', '-r', '-z', '--name-only', near]), count(['diff', '--name-only', '-z', '--no-renames', near, head]), status]);
  return committed + st.dirty < files * PULL_BASE_REWRITES ? near : null;
}

// ---- unpacking ----

function checkHeader(raw: Buffer): PackHeader {
  let h: PackHeader;
  try {
    h = JSON.parse(raw.toString('utf8')) as PackHeader;
  } catch {
    throw badStream('its header is not JSON');
  }
  if (!h || typeof h !== 'object') throw badStream('its header is not an object');
  if (h.format !== PULL_FORMAT) throw new TuiosError('protocol_mismatch', `The worktree transfer is format ${String(h.format)}; this tuios reads format ${PULL_FORMAT}.`, 'Upgrade tuios on both machines to the same version.');
  for (const k of ['head', 'index_commit'] as const) if (typeof h[k] !== 'string' || !SHA_RE.test(h[k])) throw badStream(`its ${k} is not a commit id`);
  if (h.base_commit !== null && (typeof h.base_commit !== 'string' || !SHA_RE.test(h.base_commit))) throw badStream('its base_commit is not a commit id');
  if (h.branch !== null && typeof h.branch !== 'string') throw badStream('its branch is not a name');
  if (h.base !== null && typeof h.base !== 'string') throw badStream('its base is not a name');
  if (!Array.isArray(h.prerequisites) || !h.prerequisites.every((p) => typeof p === 'string' && SHA_RE.test(p))) throw badStream('its prerequisites are not commit ids');
  const c = h.counts ?? ({} as PackHeader['counts']);
  h.counts = { staged: num(c.staged), modified: num(c.modified), deleted: num(c.deleted), untracked: num(c.untracked) };
  h.skipped = Array.isArray(h.skipped) ? h.skipped.filter((s) => s && typeof s.path === 'string' && typeof s.bytes === 'number').slice(0, 1000) : [];
  return h;
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 0;
}

/** The number of packs a transfer holds: the history, then the index commit. */
const PACKS = 2;

/**
 * One pack on its way into the clone: `git index-pack --stdin` reads it as it arrives, into a
 * quarantine object folder of its own (as receive-pack does) whose alternate is the clone's, and
 * its files are moved into the clone only once it is whole and indexed. A pack cut midway leaves
 * its temporary file in the quarantine, which goes with the transfer's folder.
 */
interface Indexing {
  input: PassThrough;
  done: Promise<void>;
  /** Set once index-pack failed: the rest of the stream is still read, to tell a damaged transfer from a bad pack. */
  failed: boolean;
}

function indexInto(cwd: string, objects: string, quarantine: string, signal?: AbortSignal): Indexing {
  const input = new PassThrough({ highWaterMark: PULL_CHUNK_BYTES });
  // Destroyed with an error when the transfer stops: git's runner ends index-pack for it.
  input.on('error', noop);
  const ix: Indexing = { input, failed: false, done: Promise.resolve() };
  ix.done = (async () => {
    await mkdir(join(quarantine, 'pack'), { recursive: true, mode: 0o700 });
    await git(['index-pack', '--stdin', '--strict', '--fix-thin'], { cwd, signal, input, env: { GIT_OBJECT_DIRECTORY: quarantine, GIT_ALTERNATE_OBJECT_DIRECTORIES: objects }, timeoutMs: GIT_TRANSFER_TIMEOUT_MS });
    // Each pack's data before its index: git finds a pack by its .idx, never one without its data.
    const names = (await readdir(join(quarantine, 'pack'))).filter((n) => /^pack-[0-9a-f]+\.[a-z]+$/.test(n));
    names.sort((a, b) => Number(a.endsWith('.idx')) - Number(b.endsWith('.idx')));
    for (const n of names) await rename(join(quarantine, 'pack', n), join(objects, 'pack', n));
  })();
  ix.done.catch(() => {
    ix.failed = true;
  });
  return ix;
}

/** Gives index-pack one frame's bytes, waiting while its pipe is full; nothing once it has failed. */
async function feedIndex(ix: Indexing, payload: Buffer): Promise<void> {
  if (ix.failed || ix.input.write(payload)) return;
  await Promise.race([new Promise<void>((r) => ix.input.once('drain', () => r())), ix.done.then(noop, noop)]);
}

function noop(): void {}

/**
 * Reads the whole transfer, each pack into index-pack as it arrives, and answers the header once
 * both packs are in the clone; throws on a cut or bad stream (checked before a failure of
 * index-pack, which a damaged stream causes too). `onHistory` is called once the history's objects
 * are in the clone, while the index's pack is still on its way.
 *
 * The stream is read on while the history is indexed (a large history's deltas take minutes to
 * resolve, and a reader that stops that long has its stream ended `slow`): the index's pack goes to
 * its index-pack as it comes, less its last piece. index-pack needs the bases of a thin pack only
 * once it has read the pack whole, so that piece waits for the history's objects. `onPacks` is
 * called once both packs are in, while the files (which go to the spool as they come) may still be
 * on their way.
 */
async function receiveTransfer(
  input: Readable,
  o: {
    cwd: string;
    objects: string;
    work: string;
    maxBytes: number;
    signal?: AbortSignal;
    progress: (bytes: number, objects: number, files: number) => void;
    /** BASE, before the header: a commit id, checked. */
    onBase: (commit: string) => void;
    onHeader: (header: PackHeader) => void;
    /** The history has arrived, before its objects are waited for: a throw ends the transfer. */
    onNext: (header: PackHeader) => Promise<void>;
    onHistory: (header: PackHeader) => void;
    /** Both packs are in the clone (the files may still be coming). */
    onPacks: (header: PackHeader) => void;
    /** Where the files go as they come. */
    spool: FileSpool;
  },
): Promise<{ header: PackHeader; bytes: number; packBytes: number[] }> {
  const reader = new FrameReader();
  const indexing: Array<Indexing | null> = Array.from({ length: PACKS }, () => null);
  const hashes = indexing.map(() => createHash('sha256'));
  const packBytes = indexing.map(() => 0);
  // Each pack starts "PACK", version, object count (4 bytes each): the count is known early.
  const packHeads = indexing.map(() => Buffer.alloc(0));
  const objects = indexing.map(() => 0);
  let cur = 0;
  let header = null as PackHeader | null;
  let baseSeen = false;
  let end = null as { packs: Array<{ bytes: number; sha256: string }>; files?: FilesRecord } | null;
  /** The first pack that did not index: its error, once the stream is known to be whole. */
  let packError: unknown = null;
  /** The history's objects in the clone (or its failure in packError). */
  let historyDone: Promise<void> = Promise.resolve();
  /** The index's pack's last piece so far (its bytes from one read), held back from its index-pack until the history is in. */
  let held: Buffer | null = null;
  /** Both packs in the clone, once the files begin (or the end comes without any). */
  let packsDone = null as Promise<void> | null;
  const filesHash = createHash('sha256');
  const files = { files: 0, gone: 0, bytes: 0 };
  const finishPacks = (h: PackHeader) =>
    historyDone.then(async () => {
      const last = indexing[cur];
      if (last && packError === null) {
        if (held) await feedIndex(last, held);
        held = null;
        await settle(cur);
      }
      if (packError === null) o.onPacks(h);
    });
  const settle = async (i: number) => {
    const ix = indexing[i];
    if (!ix) return;
    ix.input.end();
    await ix.done.catch((e: unknown) => {
      packError ??= e;
    });
  };
  const onAbort = () => input.destroy(new TuiosError('timeout', 'The transfer was cancelled. Nothing was made.'));
  o.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const take = async (chunk: Buffer) => {
      if (reader.bytes + chunk.length > o.maxBytes) throw new TuiosError('limit_reached', `The worktree transfer is larger than ${Math.round(o.maxBytes / 1024 / 1024)} MB. Nothing was made.`);
      for (const f of reader.feed(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk))) {
        if (end) throw badStream('it goes on after its end');
        if (f.type === FRAME_BASE) {
          if (header || baseSeen) throw badStream('its base comes after its header, or twice');
          baseSeen = true;
          let commit: unknown;
          try {
            commit = (JSON.parse(f.payload.toString('utf8')) as { commit?: unknown }).commit;
          } catch {
            throw badStream('its base is not JSON');
          }
          if (typeof commit !== 'string' || !SHA_RE.test(commit)) throw badStream('its base is not a commit id');
          o.onBase(commit);
        } else if (f.type === FRAME_HEADER) {
          if (header) throw badStream('it has two headers');
          header = checkHeader(f.payload);
          o.onHeader(header);
        } else if (f.type === FRAME_FILE || f.type === FRAME_DATA || f.type === FRAME_GONE) {
          if (!header || cur !== PACKS - 1) throw badStream('its files come before its packs');
          packsDone ??= finishPacks(header);
          filesHash.update(f.payload);
          files.bytes += f.payload.length;
          if (f.type === FRAME_FILE) {
            files.files++;
            o.spool.onFile(f.payload);
          } else if (f.type === FRAME_GONE) {
            files.gone++;
            o.spool.onGone(f.payload);
          } else await o.spool.onData(f.payload);
        } else if (f.type === FRAME_PACK) {
          if (!header) throw badStream('its pack comes before its header');
          if (packsDone) throw badStream('a pack comes after its files');
          // Nothing to feed, and held back it would let the pack's real last bytes through.
          if (f.payload.length === 0) continue;
          hashes[cur]!.update(f.payload);
          packBytes[cur]! += f.payload.length;
          if (packHeads[cur]!.length < 12) {
            const h = (packHeads[cur] = Buffer.concat([packHeads[cur]!, f.payload.subarray(0, 12 - packHeads[cur]!.length)]));
            if (h.length === 12 && h.subarray(0, 4).toString('latin1') === 'PACK') objects[cur] = h.readUInt32BE(8);
          }
          if (packError !== null) continue;
          const ix = (indexing[cur] ??= indexInto(o.cwd, o.objects, join(o.work, `objects-${cur}`), o.signal));
          if (cur < PACKS - 1) await feedIndex(ix, f.payload);
          else {
            if (held) await feedIndex(ix, held);
            held = f.payload;
          }
        } else if (f.type === FRAME_NEXT) {
          if (!header || cur + 1 >= PACKS) throw badStream('it holds more packs than it may');
          // The history is whole: its objects go into the clone while the index's pack arrives.
          await o.onNext(header);
          const h = header;
          historyDone = settle(cur).then(() => {
            if (packError === null) o.onHistory(h);
          });
          cur++;
        } else {
          if (!header) throw badStream('it ends before its header');
          try {
            end = JSON.parse(f.payload.toString('utf8')) as NonNullable<typeof end>;
          } catch {
            throw badStream('its end is not JSON');
          }
          if (cur === PACKS - 1) packsDone ??= finishPacks(header);
        }
      }
      o.progress(reader.bytes, objects.reduce((a, b) => a + b, 0), files.files);
    };
    try {
      // Each read as it came, through a pipe: an async iterator's read() joins all the reads
      // buffered into one with a copy (a quarter of the receiving side's CPU for a 36 MB pull).
      await pipeline(input, new Writable({ highWaterMark: PULL_CHUNK_BYTES, write: (chunk: Buffer, _enc, cb) => void take(chunk).then(() => cb(), cb) }));
    } catch (e) {
      if (e instanceof TuiosError) throw e;
      // The input broke (a link that went down, a peer that failed): the same as a cut.
      throw cutStream(reader.bytes);
    }
    if (!header || !end || reader.pending) throw cutStream(reader.bytes);
    if (cur !== PACKS - 1 || !Array.isArray(end.packs) || end.packs.length !== PACKS) throw badStream('its packs do not match its end record');
    for (let i = 0; i < PACKS; i++) {
      if (end.packs[i]?.bytes !== packBytes[i] || end.packs[i]?.sha256 !== hashes[i]!.digest('hex')) throw badStream('its pack does not match its end record (bytes lost on the way)');
    }
    const f = end.files;
    if (!f || f.files !== files.files || f.gone !== files.gone || f.bytes !== files.bytes || f.sha256 !== filesHash.digest('hex')) throw badStream('its files do not match its end record (bytes lost on the way)');
    await o.spool.close();
    await packsDone;
    if (packError !== null) throw packError;
    return { header, bytes: reader.bytes, packBytes };
  } catch (e) {
    // An index-pack still reading is killed (an input that fails ends its git), and waited for,
    // so nothing writes into the transfer's folder once it is removed.
    for (const ix of indexing) if (ix && !ix.input.writableFinished) ix.input.destroy(new Error('the transfer stopped'));
    await Promise.all(indexing.map((ix) => ix?.done.catch(noop)));
    await historyDone;
    await packsDone?.catch(noop);
    throw e;
  } finally {
    o.signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * Unpacks a transfer into a new worktree of the clone at `repo`, at `dest`. Everything is read and
 * checked before git runs; the worktree is built at a temporary name and renamed at the end, and
 * a failure at any point removes what was made (the worktree, its branch, the spooled bytes). The
 * objects already written are unreferenced loose or packed objects, which git gc collects.
 */
export async function unpackWorktree(input: Readable, opts: UnpackOptions): Promise<UnpackResult> {
  // An input that breaks before it is read is a cut like any other, never an unhandled error.
  const onInputError = () => undefined;
  input.on('error', onInputError);
  try {
    return await unpackInto(input, opts);
  } finally {
    input.off('error', onInputError);
  }
}

async function unpackInto(input: Readable, opts: UnpackOptions): Promise<UnpackResult> {
  const { signal } = opts;
  const repo = typeof opts.repo === 'string' ? await repoAt(opts.repo, signal) : opts.repo;
  const taken = (p: string) => new TuiosError('conflict', `${p} exists already.`, 'Pick another place for the new worktree.');
  let dest = typeof opts.dest === 'string' ? opts.dest : '';
  if (dest && existsSync(dest)) throw taken(dest);
  const cwd = repo.main ?? repo.top;
  const work = await mkdtemp(join(repo.commonDir, 'tuios-pull-'));
  let lastReport = -PULL_PROGRESS_BYTES;
  // What has arrived so far: the later phases report it, and the receive goes on meanwhile.
  let received = 0;
  let objects = 0;
  let files = 0;
  const progress = (phase: PullProgress['phase'], force = false) => {
    if (!opts.onProgress || (!force && received - lastReport < PULL_PROGRESS_BYTES)) return;
    lastReport = received;
    opts.onProgress({ phase, bytes: received, objects, files });
  };
  let tmpTree: string | null = null;
  let madeBranch: string | null = null;
  let branch = '';
  // The receiver's commits the transfer is thin against, checked once the header names them.
  const checkPrerequisites = async (header: PackHeader) => {
    for (const p of header.prerequisites) {
      const r = await git(['cat-file', '-e', `${p}^{commit}`], { cwd, signal, okCodes: [0, 1, 128] });
      if (r.code !== 0) throw new TuiosError('conflict', `The transfer needs commit ${p.slice(0, 12)}, which this clone does not have.`, 'Pull again: the offer of what this clone has is read anew each time.');
    }
  };
  // A commit of this clone near HEAD (BASE): its files are written into the new worktree while
  // the packs come, and at the end only what the index changes from it. Built in dest's folder under a
  // temporary name (every name dest gives is in one folder), named once the branch is known.
  let based: string | null = null;
  let staged: Promise<void> | null = null;
  const checkoutBase = async (commit: string) => {
    const r = await git(['cat-file', '-e', `${commit}^{commit}`], { cwd, signal, okCodes: [0, 1, 128] });
    if (r.code !== 0) return; // not in this clone: the index's files are all written at the end
    const stageDir = stage();
    await mkdir(stageDir, { recursive: true, mode: 0o700 });
    tmpTree = join(stageDir, `pull.tmp-${randomBytes(4).toString('hex')}`);
    await git(['worktree', 'add', '--quiet', '--no-checkout', '--detach', tmpTree, commit], { cwd, signal, timeoutMs: GIT_TRANSFER_TIMEOUT_MS });
    await git(['-c', `checkout.workers=${PULL_CHECKOUT_WORKERS}`, 'read-tree', '-m', '-u', `${commit}^{tree}`], { cwd: tmpTree, signal, timeoutMs: GIT_TRANSFER_TIMEOUT_MS });
    based = commit;
  };
  const addWorktree = async (header: PackHeader) => {
    const wanted = opts.branch ?? header.branch ?? 'pulled';
    await checkBranchName(wanted, cwd);
    branch = wanted;
    for (let i = 2; await branchExists(cwd, branch, signal); i++) {
      if (i > 100) throw new TuiosError('name_taken', `The branches ${wanted} to ${wanted}-100 exist already.`, 'Name a branch with --branch.');
      branch = `${wanted}-${i}`;
    }
    progress('checkout', true);
    if (typeof opts.dest === 'function') {
      dest = opts.dest(branch);
      if (existsSync(dest)) throw taken(dest);
    }
    await staged;
    if (based && tmpTree) {
      // The base's files are there: the branch at HEAD, and the worktree on it.
      await git(['branch', '--no-track', '--', branch, header.head], { cwd, signal });
      madeBranch = branch;
      await git(['symbolic-ref', 'HEAD', `refs/heads/${branch}`], { cwd: tmpTree, signal });
      return;
    }
    await mkdir(dirname(dest), { recursive: true, mode: 0o700 });
    tmpTree = `${dest}.tmp-${randomBytes(4).toString('hex')}`;
    // The branch at HEAD, and no files yet: they are written once, from the index, when it is here.
    // Checking HEAD out first and then moving on wrote every changed file twice: on 5,000 files
    // with 3,072 changed, 2.8 CPU-s for the two against 0.9 for one checkout alone.
    madeBranch = branch;
    await git(['worktree', 'add', '--quiet', '--no-checkout', '--no-track', '-b', branch, tmpTree, header.head], { cwd, signal, timeoutMs: GIT_TRANSFER_TIMEOUT_MS });
  };
  // The folder every name dest gives is in: the spool and an early base are made there.
  const stage = () => dirname(typeof opts.dest === 'string' ? opts.dest : opts.dest(opts.branch ?? 'pulled'));
  const spool = new FileSpool(stage);
  // Once both packs are in and the worktree is made: the index's files written into it, while the
  // sender's files are still coming.
  let checkedOut: Promise<void> | null = null;
  const checkoutIndex = async (header: PackHeader) => {
    progress('checkout', true);
    const from = based ? [`${based}^{tree}`] : [];
    // The index commit must be what the header says: on HEAD. That is checked beside the
    // checkout, which writes only the temporary worktree a failure removes: the checkout is what
    // the pull waits on last, and a spawn before it was a spawn's wait more.
    const [parents, checkout] = await Promise.allSettled([
      gitText(['rev-list', '--parents', '-n', '1', header.index_commit], { cwd, signal }),
      git(['-c', `checkout.workers=${PULL_CHECKOUT_WORKERS}`, 'read-tree', '-m', '-u', ...from, `${header.index_commit}^{tree}`], { cwd: tmpTree!, signal, timeoutMs: GIT_TRANSFER_TIMEOUT_MS }),
    ]);
    if (parents.status === 'rejected') throw parents.reason;
    if (parents.value.split(' ').slice(1).join(' ') !== header.head) throw badStream('its index commit does not sit on its HEAD');
    if (checkout.status === 'rejected') throw checkout.reason;
  };
  let prerequisites: Promise<void> | null = null;
  // Once the history's objects are in the clone, the worktree is made under a temporary name
  // while the index's pack is still on its way. A cut after that removes it.
  let early: Promise<void> | null = null;
  try {
    progress('receive', true);
    const { header, bytes, packBytes } = await receiveTransfer(input, {
      cwd,
      objects: join(repo.commonDir, 'objects'),
      work,
      maxBytes: opts.maxBytes ?? PULL_MAX_BYTES,
      signal,
      progress: (b, n, f) => {
        const phaseObjects = n !== objects;
        received = b;
        objects = n;
        files = f;
        progress('receive', phaseObjects);
      },
      onBase: (commit) => {
        staged = checkoutBase(commit);
        // Awaited once the branch is made; a failure there is this call's failure.
        staged.catch(() => undefined);
      },
      onHeader: (h) => {
        prerequisites = checkPrerequisites(h);
        // Awaited when the history has arrived; a failure there is this call's failure.
        prerequisites.catch(() => undefined);
      },
      onNext: async () => {
        await prerequisites;
        progress('index', true);
      },
      onHistory: (h) => {
        early = addWorktree(h);
        early.catch(() => undefined);
      },
      onPacks: (h) => {
        checkedOut = (early ?? Promise.reject(badStream('it has no history pack'))).then(() => checkoutIndex(h));
        checkedOut.catch(() => undefined); // awaited once the files are in
      },
      spool,
    });
    if (!early) throw badStream('it has no history pack');
    received = bytes;
    await early;
    if (!checkedOut) throw badStream('its packs never ended');
    await checkedOut;
    // The index's files are there and the index is the sender's: the files the worktree lost go,
    // and the sender's files take their places.
    const tree = tmpTree!;
    await spool.place(tree);
    if (signal?.aborted) throw new TuiosError('timeout', 'The transfer was cancelled. Nothing was made.');
    // Whether this clone has the sender's base, asked while the worktree is moved.
    const baseCheck = header.base_commit ? git(['cat-file', '-e', `${header.base_commit}^{commit}`], { cwd, signal, okCodes: [0, 1, 128] }).then((r) => r.code === 0) : Promise.resolve(false);
    baseCheck.catch(() => undefined); // awaited below
    await git(['worktree', 'move', tree, dest], { cwd, signal, timeoutMs: GIT_TRANSFER_TIMEOUT_MS });
    tmpTree = null;
    forgetSafety();
    const baseHere = await baseCheck;
    progress('done', true);
    return { path: dest, branch, head: header.head, base: header.base, base_commit: baseHere ? header.base_commit : null, counts: header.counts, skipped: header.skipped, bytes, pack_bytes: packBytes.reduce((a, b) => a + b, 0) };
  } catch (e) {
    // Leave nothing half-made: the temporary worktree and its branch go, once the early
    // checkout (if it started) has stopped.
    if (staged) await (staged as Promise<void>).catch(() => undefined);
    if (early) await (early as Promise<void>).catch(() => undefined);
    if (checkedOut) await (checkedOut as Promise<void>).catch(() => undefined);
    if (tmpTree) {
      await git(['worktree', 'remove', '--force', '--force', tmpTree], { cwd, okCodes: [0, 1, 128] }).catch(() => undefined);
      await rm(tmpTree, { recursive: true, force: true });
      await git(['worktree', 'prune'], { cwd, okCodes: [0, 1, 128] }).catch(() => undefined);
    }
    if (madeBranch) await git(['branch', '-D', '--', madeBranch], { cwd, okCodes: [0, 1] }).catch(() => undefined);
    throw e;
  } finally {
    await spool.remove();
    await rm(work, { recursive: true, force: true });
  }
}
