// Durable writes: temp file in the same folder, fsync, rename, fsync the folder. A crash leaves
// either the old file or the new one, never half of either. Files are 0600, folders 0700. The
// temp file is made with O_EXCL under a name of the writer's pid and a count, so it is never one
// that was there before (a planted link is not followed) and the module loads no node:crypto:
// short-lived commands (the status line wrapper) use it too.
import { openSync, writeSync, fsyncSync, closeSync, renameSync, mkdirSync, readFileSync, unlinkSync, readdirSync } from 'node:fs';
import { dirname, basename, join } from 'node:path';

export interface AtomicOptions {
  /** The new file's mode (default 0600). */
  mode?: number;
  /** The mode of folders made for it (default 0700). */
  dirMode?: number;
  /** false for a cache rather than a record: no fsync, so a crash may leave the old file (default true). */
  durable?: boolean;
}

/** Temp names made by this process so far (with the pid, what makes a name new). */
let tempCount = 0;
/** Names tried before giving up on a folder full of someone else's temp files. */
const TEMP_TRIES = 16;

/** A new temp file beside `path`, opened for writing with O_EXCL. */
function openTemp(path: string, mode: number): { tmp: string; fd: number } {
  const dir = dirname(path);
  for (let i = 0; ; i++) {
    const n = (tempCount++ + (Date.now() & 0xffff) * 0x10000) >>> 0;
    const tmp = join(dir, `.${basename(path)}.${process.pid}.${n.toString(16).padStart(8, '0')}.tmp`);
    try {
      return { tmp, fd: openSync(tmp, 'wx', mode) };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || i >= TEMP_TRIES) throw e;
    }
  }
}

export function writeFileAtomic(path: string, data: string | Buffer, opts: AtomicOptions = {}): void {
  const dir = dirname(path);
  const durable = opts.durable !== false;
  mkdirSync(dir, { recursive: true, mode: opts.dirMode ?? 0o700 });
  const { tmp, fd } = openTemp(path, opts.mode ?? 0o600);
  try {
    writeSync(fd, typeof data === 'string' ? Buffer.from(data) : data);
    if (durable) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(tmp, path);
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      // nothing to clean
    }
    throw e;
  }
  if (!durable) return;
  try {
    const dfd = openSync(dir, 'r');
    try {
      fsyncSync(dfd);
    } finally {
      closeSync(dfd);
    }
  } catch {
    // some filesystems refuse fsync on a folder; the rename is still atomic
  }
}

export function writeJsonAtomic(path: string, value: unknown): void {
  writeFileAtomic(path, JSON.stringify(value, null, 1) + '\n');
}

/** Reads a JSON file; null when it is missing, throws when it exists but does not parse. */
export function readJson(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  return JSON.parse(text);
}

/** A temp file of writeFileAtomic's: `.NAME.PID.HEX.tmp`. */
const TEMP_FILE = /^\..+\.(\d+)\.[0-9a-f]{8}\.tmp$/;

/**
 * The temp files writers that were killed mid-write left under `dir` (and its folders, `depth`
 * deep): removed, and their paths returned, so a start can say what it repaired. A file whose
 * writer still runs is left alone; the file it replaces was never touched (the rename is the
 * write), so nothing else needs repair.
 */
export function sweepTempFiles(dir: string, running: (pid: number) => boolean, depth = 2): string[] {
  const removed: string[] = [];
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return removed;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (depth > 0) removed.push(...sweepTempFiles(p, running, depth - 1));
      continue;
    }
    const m = TEMP_FILE.exec(e.name);
    if (!m || !e.isFile() || running(Number(m[1]))) continue;
    try {
      unlinkSync(p);
      removed.push(p);
    } catch {
      // gone already
    }
  }
  return removed;
}
