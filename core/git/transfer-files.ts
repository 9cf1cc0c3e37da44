// `worktree pull`'s files: what a worktree's files add to its index, carried as they are (as tar
// carries them) rather than hashed into objects on one side and written back out of them on the
// other. The sender reads each file that may differ from the index (transfer.ts sends the index
// itself as a commit) and each file git does not track; the receiver spools them beside the new
// worktree while the packs arrive, and once the index's files are checked out, removes the files
// the worktree lost and moves the spooled ones into place. The index stays the sender's index: a
// file that differs from it reads as changed on both sides, as `git status` shows it.
//
// Every path comes from the other machine: it must be a plain relative path, never into .git, and
// never through a link or a file in the worktree (a link sent first must not lead a later file
// outside). A file whose path fails is a bad stream, and nothing is made.
import type { Hash } from 'node:crypto';
import { randomBytes } from 'node:crypto';
import { lstatSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { lstat, mkdir, open, rename, rm, rmdir, unlink, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { TuiosError } from '../errors.js';
import { FRAME_DATA, FRAME_FILE, FRAME_GONE, badStream, frameHead } from './transfer-frames.js';
import { PULL_CHUNK_BYTES, PULL_MAX_PATH_BYTES, PULL_SMALL_FILE_BYTES, PULL_SPOOL_PENDING_BYTES } from '../limits.js';

export type FileMode = '100644' | '100755' | '120000';
const MODES = new Set<string>(['100644', '100755', '120000']);

export interface FilesRecord {
  /** FILE frames sent. */
  files: number;
  /** GONE frames sent. */
  gone: number;
  /** Payload bytes of every FILE, DATA and GONE frame, and their sha256. */
  bytes: number;
  sha256: string;
}

/** Why a path from the other machine is refused, or null when it is a plain path into the worktree. */
export function pathProblem(p: unknown): string | null {
  if (typeof p !== 'string' || !p) return 'a path is missing';
  if (Buffer.byteLength(p) > PULL_MAX_PATH_BYTES) return 'a path is longer than a path may be';
  if (p.includes('\0')) return 'a path holds a NUL';
  if (p.startsWith('/')) return 'a path is absolute';
  for (const part of p.split('/')) {
    if (part === '' || part === '.' || part === '..') return 'a path has an empty, . or .. part';
    // .git in any case, and the names other file systems read as .git (".git.", ".git ").
    if (part.replace(/[. ]+$/, '').toLowerCase() === '.git') return 'a path leads into .git';
  }
  return null;
}

// ---- sending ----

type Entry =
  | { kind: 'file'; mode: FileMode; data: Buffer | null }
  | { kind: 'link'; target: Buffer }
  | { kind: 'gone' }
  | { kind: 'none' };

/**
 * A path as the sender finds it now: a file (read whole when it is small), a link, gone (a tracked
 * file no longer there, or a folder now), or nothing to send (an untracked file that went, a fifo
 * or a socket, which git does not take either). A small file is read in the call: thousands of
 * them through the thread pool cost a pull more of the event loop (open, read and close each
 * queued and answered) than reading each at once, as tar does.
 */
function readEntry(top: string, path: string, tracked: boolean): Entry {
  const full = join(top, path);
  const missing: Entry = tracked ? { kind: 'gone' } : { kind: 'none' };
  const st = lstatSync(full, { throwIfNoEntry: false });
  if (!st) return missing;
  if (st.isSymbolicLink()) return { kind: 'link', target: readlinkSync(full, { encoding: 'buffer' }) };
  if (st.isDirectory()) return missing;
  if (!st.isFile()) return { kind: 'none' };
  const mode: FileMode = st.mode & 0o100 ? '100755' : '100644';
  if (st.size > PULL_SMALL_FILE_BYTES) return { kind: 'file', mode, data: null };
  try {
    return { kind: 'file', mode, data: readFileSync(full) };
  } catch (e) {
    // Gone, or become a folder, since its lstat.
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'EISDIR') return missing;
    throw e;
  }
}

/** Fills buf from the file at `position`; a file that shrank meanwhile gives fewer bytes. */
async function readAll(h: FileHandle, buf: Buffer, position: number): Promise<number> {
  let got = 0;
  while (got < buf.length) {
    const { bytesRead } = await h.read(buf, got, buf.length - got, position + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return got;
}

/**
 * Sends the files of `modified` (tracked) and `untracked` as they are now, and a GONE for each path
 * of `gone` (and for a tracked path found gone), hashing every payload into `hash`. A file past
 * PULL_SMALL_FILE_BYTES is read a frame at a time, through the thread pool.
 */
export async function sendFiles(top: string, delta: { modified: string[]; untracked: string[]; gone: string[] }, send: (buf: Buffer) => Promise<void>, hash: Hash): Promise<Omit<FilesRecord, 'sha256'>> {
  const rec = { files: 0, gone: 0, bytes: 0 };
  // Small files' frames go out together, PULL_CHUNK_BYTES at a time: a write each (four a file)
  // was a link frame each, and their count, not their bytes, set the pace.
  let batch: Buffer[] = [];
  let batched = 0;
  const flush = async () => {
    if (!batched) return;
    const out = Buffer.concat(batch, batched);
    batch = [];
    batched = 0;
    await send(out);
  };
  const emit = async (type: number, payload: Buffer) => {
    hash.update(payload);
    rec.bytes += payload.length;
    batch.push(frameHead(type, payload.length));
    batched += 5;
    if (payload.length >= PULL_SMALL_FILE_BYTES) {
      await flush();
      await send(payload);
      return;
    }
    if (payload.length) batch.push(payload);
    batched += payload.length;
    if (batched >= PULL_CHUNK_BYTES) await flush();
  };
  const sendGone = async (path: string) => {
    rec.gone++;
    await emit(FRAME_GONE, Buffer.from(JSON.stringify({ path })));
  };
  for (const p of delta.gone) await sendGone(p);
  const changed = [...delta.modified, ...delta.untracked];
  for (let i = 0; i < changed.length; i++) {
    const path = changed[i]!;
    const e = readEntry(top, path, i < delta.modified.length);
    if (e.kind === 'none') continue;
    if (e.kind === 'gone') {
      await sendGone(path);
      continue;
    }
    rec.files++;
    if (e.kind === 'link') {
      await emit(FRAME_FILE, Buffer.from(JSON.stringify({ path, mode: '120000', size: e.target.length })));
      await emit(FRAME_DATA, e.target);
      continue;
    }
    if (e.data) {
      await emit(FRAME_FILE, Buffer.from(JSON.stringify({ path, mode: e.mode, size: e.data.length })));
      if (e.data.length) await emit(FRAME_DATA, e.data);
      continue;
    }
    // A large file: its size as it is when opened, and that many bytes of it.
    const h = await open(join(top, path), 'r');
    try {
      const size = (await h.stat()).size;
      await emit(FRAME_FILE, Buffer.from(JSON.stringify({ path, mode: e.mode, size })));
      for (let at = 0; at < size; at += PULL_CHUNK_BYTES) {
        const part = Buffer.allocUnsafe(Math.min(PULL_CHUNK_BYTES, size - at));
        if ((await readAll(h, part, at)) !== part.length) {
          throw new TuiosError('conflict', `${path} got shorter while it was being sent.`, 'Pull again once the agent has stopped writing it.');
        }
        await emit(FRAME_DATA, part);
      }
    } finally {
      await h.close();
    }
  }
  await flush();
  return rec;
}

// ---- receiving ----

interface Spooled {
  path: string;
  mode: FileMode;
  /** Its name in the spool folder: a number, never a path from the stream. */
  name: string;
}

/**
 * The receiver's files: each FILE is written to a folder of its own beside the new worktree (on
 * its file system, so placing a file is a rename) as its DATA frames arrive, at most
 * PULL_SPOOL_PENDING_BYTES taken and not yet on disk; GONE paths are listed. `place` applies both
 * to the checked-out worktree; `remove` takes the folder away, whatever happened.
 */
export class FileSpool {
  private dir: string | null = null;
  private readonly files: Spooled[] = [];
  private readonly gone: string[] = [];
  /** The file being received: its writes run one after another on `chain`. */
  private cur: { entry: Spooled; size: number; got: number; chain: Promise<void>; fh: FileHandle | null; parts: Buffer[] | null } | null = null;
  private readonly handles = new Set<FileHandle>();
  private pendingBytes = 0;
  /** Writes of large files not yet done (each leaves the set when it is). */
  private readonly pending = new Set<Promise<void>>();
  private failure: unknown = null;

  /** `where` names the folder the spool goes in (the new worktree's), asked once a file comes. */
  constructor(private readonly where: () => string) {}

  onGone(payload: Buffer): void {
    if (this.cur) throw badStream('a file ends before its bytes');
    this.gone.push(recordOf(payload).path);
  }

  onFile(payload: Buffer): void {
    if (this.cur) throw badStream('a file ends before its bytes');
    const meta = recordOf(payload);
    if (typeof meta.mode !== 'string' || !MODES.has(meta.mode)) throw badStream('a file has a mode git does not know');
    if (typeof meta.size !== 'number' || !Number.isSafeInteger(meta.size) || meta.size < 0) throw badStream('a file has no size');
    if (meta.mode === '120000' && meta.size > PULL_MAX_PATH_BYTES) throw badStream('a link\'s target is longer than a path may be');
    const entry: Spooled = { path: meta.path, mode: meta.mode as FileMode, name: String(this.files.length) };
    this.files.push(entry);
    // A link or a small file is held until whole and written at once (see readEntry); a large
    // one is written as it comes, through the thread pool.
    const whole = entry.mode === '120000' || meta.size <= PULL_SMALL_FILE_BYTES;
    const c: NonNullable<FileSpool['cur']> = { entry, size: meta.size, got: 0, chain: Promise.resolve(), fh: null, parts: whole ? [] : null };
    if (!whole) {
      const at = join(this.folder(), entry.name);
      c.chain = open(at, 'wx', entry.mode === '100755' ? 0o777 : 0o666).then((fh) => {
        c.fh = fh;
        this.handles.add(fh);
      });
      this.track(c.chain, 0);
    }
    this.cur = c;
    if (meta.size === 0) this.finishFile();
  }

  /** Takes a DATA frame; waits while too much is taken and not yet written. */
  async onData(payload: Buffer): Promise<void> {
    const c = this.cur;
    if (!c) throw badStream('file bytes come before their file');
    if (c.got + payload.length > c.size) throw badStream('a file holds more bytes than its size');
    c.got += payload.length;
    if (c.parts) c.parts.push(payload);
    else {
      c.chain = c.chain.then(async () => {
        let off = 0;
        while (off < payload.length) off += (await c.fh!.write(payload, off, payload.length - off)).bytesWritten;
      });
      this.track(c.chain, payload.length);
    }
    if (c.got === c.size) this.finishFile();
    while (this.pendingBytes > PULL_SPOOL_PENDING_BYTES && this.pending.size) await Promise.race(this.pending);
    if (this.failure) throw this.failure;
  }

  /** Every file whole and on disk; throws the first write's failure. */
  async close(): Promise<void> {
    if (this.cur) throw badStream('it ends within a file');
    await Promise.all(this.pending);
    if (this.failure) throw this.failure;
  }

  /**
   * The sender's files into the worktree at `tree`, whose files are the index's: the gone ones
   * removed (and folders left empty by that), then each spooled file moved to its path,
   * PLACE_AT_ONCE at a time. A path that is another's folder is refused first, so no file placed
   * (a link) can lead another outside while they are placed at once; each folder on the way is
   * checked to be a real folder (not a link the index holds, not a file) once.
   */
  async place(tree: string): Promise<void> {
    const paths = new Set(this.files.map((f) => f.path));
    for (const f of this.files) {
      for (let d = dirname(f.path); d !== '.'; d = dirname(d)) if (paths.has(d)) throw badStream(`${f.path} runs through another file it sends`);
    }
    const folders = new Folders(tree);
    for (const p of this.gone) {
      if (!(await folders.check(dirname(p), false))) continue;
      const full = join(tree, p);
      const st = await lstat(full).catch(() => null);
      if (!st || st.isDirectory()) continue;
      await unlink(full).catch((e: unknown) => {
        throw notWritten(e);
      });
      for (let d = dirname(p); d !== '.'; d = dirname(d)) {
        try {
          await rmdir(join(tree, d));
          folders.forget(d);
        } catch {
          break; // not empty: the folders above are not either
        }
      }
    }
    const move = async (f: Spooled) => {
      if (!(await folders.check(dirname(f.path), true))) throw badStream(`${f.path} runs through a file or a link`);
      try {
        await rename(join(this.dir!, f.name), join(tree, f.path));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EISDIR' || (e as NodeJS.ErrnoException).code === 'ENOTEMPTY') throw badStream(`${f.path} is a folder on this side`);
        throw notWritten(e);
      }
    };
    for (let i = 0; i < this.files.length; i += PLACE_AT_ONCE) await Promise.all(this.files.slice(i, i + PLACE_AT_ONCE).map(move));
  }

  async remove(): Promise<void> {
    this.cur = null;
    await Promise.all(this.pending);
    for (const h of this.handles) await h.close().catch(() => undefined);
    this.handles.clear();
    if (this.dir) await rm(this.dir, { recursive: true, force: true });
  }

  /** The spool folder, made at the first file. */
  private folder(): string {
    if (!this.dir) {
      const dir = join(this.where(), `pull.files-${randomBytes(4).toString('hex')}`);
      try {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
      } catch (e) {
        throw notWritten(e);
      }
      this.dir = dir;
    }
    return this.dir;
  }

  private finishFile(): void {
    const c = this.cur!;
    this.cur = null;
    if (c.parts) {
      const data = c.parts.length === 1 ? c.parts[0]! : Buffer.concat(c.parts);
      const at = join(this.folder(), c.entry.name);
      if (c.entry.mode === '120000' && (data.includes(0) || !data.length)) throw badStream('a link has no target');
      try {
        if (c.entry.mode === '120000') symlinkSync(data, at);
        else writeFileSync(at, data, { flag: 'wx', mode: c.entry.mode === '100755' ? 0o777 : 0o666 });
      } catch (e) {
        throw notWritten(e);
      }
    } else {
      this.track(c.chain.then(async () => {
        this.handles.delete(c.fh!);
        await c.fh!.close();
      }), 0);
    }
  }

  private track(p: Promise<unknown>, bytes: number): void {
    this.pendingBytes += bytes;
    const done: Promise<void> = p.then(
      () => undefined,
      (e: unknown) => {
        this.failure ??= notWritten(e);
      },
    ).finally(() => {
      this.pendingBytes -= bytes;
      this.pending.delete(done);
    });
    this.pending.add(done);
  }
}

/** A file of the transfer this side could not write (a full disk, a folder it may not write in). */
function notWritten(e: unknown): TuiosError {
  if (e instanceof TuiosError) return e;
  const code = (e as NodeJS.ErrnoException)?.code ?? 'an error';
  return new TuiosError('git_failed', `The pulled files could not be written here (${code}). Nothing was made.`, code === 'ENOSPC' ? 'Free some disk space and pull again.' : undefined, { reason: 'write' });
}

/** A FILE or GONE record: JSON whose path is a plain path into the worktree. */
function recordOf(payload: Buffer): { path: string; mode?: unknown; size?: unknown } {
  let rec: { path?: unknown; mode?: unknown; size?: unknown } | null;
  try {
    rec = JSON.parse(payload.toString('utf8')) as typeof rec;
  } catch {
    throw badStream('a file record is not JSON');
  }
  const why = pathProblem(rec?.path);
  if (why) throw badStream(why);
  return rec as { path: string; mode?: unknown; size?: unknown };
}

/** Renames in flight at once while placing files: the disk's queue, not the event loop's. */
const PLACE_AT_ONCE = 32;

/**
 * The folders of a worktree known to be real folders (never a link, never a file), each looked at
 * once: a missing one is made when asked to, else the answer is that the path is not there.
 */
class Folders {
  private readonly known = new Map<string, Promise<boolean>>();
  constructor(private readonly tree: string) {}

  check(dir: string, make: boolean): Promise<boolean> {
    if (dir === '.') return Promise.resolve(true);
    const key = `${make ? 'm' : 'r'}${dir}`;
    let p = this.known.get(key);
    if (!p) {
      p = this.look(dir, make);
      this.known.set(key, p);
    }
    return p;
  }

  forget(dir: string): void {
    this.known.delete(`m${dir}`);
    this.known.delete(`r${dir}`);
  }

  private async look(dir: string, make: boolean): Promise<boolean> {
    if (!(await this.check(dirname(dir), make))) return false;
    const at = join(this.tree, dir);
    const st = await lstat(at).catch(() => null);
    if (st) return st.isDirectory();
    if (!make) return false;
    await mkdir(at).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'EEXIST') throw e;
    });
    return (await lstat(at)).isDirectory();
  }
}
