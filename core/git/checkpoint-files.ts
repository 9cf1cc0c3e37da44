// The files side of turn checkpoints (checkpoints.ts): which untracked files a checkpoint saves
// (the size limit and the count), and the folder work a restore does around git's checkout-index.
import { lstat, readdir, rm, rmdir } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import { CHECKPOINT_MAX_UNTRACKED_FILES } from '../limits.js';

export interface Skipped {
  path: string;
  /** Its size; null when it was left out because of the file count, not its size. */
  bytes: number | null;
}

/**
 * The paths to save, less untracked files past the size limit or the count. A path that is gone
 * goes through (its entry is removed); `before` is what was left out already (they count).
 */
export async function sizeFilter(top: string, paths: string[], maxBytes: number, before: Skipped[]): Promise<{ take: string[]; skipped: Skipped[] }> {
  const take: string[] = [];
  const listed = new Set(paths);
  const skipped: Skipped[] = before.filter((s) => !listed.has(s.path));
  let fresh = 0;
  for (const p of paths) {
    let st;
    try {
      st = await lstat(join(top, p));
    } catch {
      take.push(p); // gone: its entry goes
      continue;
    }
    if (st.isDirectory()) continue; // a nested repository
    if (st.size > maxBytes) skipped.push({ path: p, bytes: st.size });
    else if (fresh >= CHECKPOINT_MAX_UNTRACKED_FILES) skipped.push({ path: p, bytes: null });
    else {
      fresh++;
      take.push(p);
    }
  }
  return { take, skipped };
}

/** True while every file left out last time is still one that would be left out (and is there). */
export async function stillSkipped(top: string, skipped: Skipped[], maxBytes: number): Promise<boolean> {
  for (const s of skipped) {
    if (s.bytes === null) return false; // left out for the count: look properly
    try {
      const st = await lstat(join(top, s.path));
      if (st.size <= maxBytes) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/** Removes `d` and the folders above it (up to `top`) while they are empty. */
export async function pruneEmptyDirs(top: string, d: string): Promise<void> {
  while (d.startsWith(top + sep)) {
    try {
      if ((await readdir(d)).length) return;
      await rmdir(d);
    } catch {
      return;
    }
    d = dirname(d);
  }
}

/** Removes a file standing where a folder of `p` must go. */
export async function clearPathFor(top: string, p: string): Promise<void> {
  const parts = p.split('/');
  let d = top;
  for (const part of parts.slice(0, -1)) {
    d = join(d, part);
    try {
      const st = await lstat(d);
      if (!st.isDirectory()) await rm(d, { force: true });
    } catch {
      return;
    }
  }
  const abs = join(top, p);
  try {
    const st = await lstat(abs);
    // An empty folder where the file goes; a folder with files is left for git to refuse.
    if (st.isDirectory()) await rmdir(abs).catch(() => undefined);
  } catch {
    // nothing there
  }
}
