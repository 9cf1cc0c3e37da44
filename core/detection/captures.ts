// The captures `tuios capture-state` keeps: a pane's screen in the fixtures' format (fixture.ts)
// with what the detector made of it, under <state>/tuios/captures/<harness>/, at most
// CAPTURES_MAX of them.
import { readdirSync, statSync, unlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ensurePrivateDir } from '../config/paths.js';
import { writeFileAtomic } from '../store/atomic.js';

/** A path segment safe as a folder name: the harness id, or `unknown`. */
export function captureFolder(harness: string | null): string {
  const s = (harness ?? '').replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 64);
  return s === '' || /^\.+$/.test(s) ? 'unknown' : s;
}

/** `20261202T140512Z`: sorts as time, no characters a file name minds. */
export function captureStamp(at: Date): string {
  return at.toISOString().replace(/\.\d+Z$/, 'Z').replace(/[-:]/g, '');
}

export interface WrittenCapture {
  path: string;
  ansiPath: string;
  removed: number;
}

/**
 * Writes `<root>/<folder>/<base>.screen` and its `.ansi` beside it (0600, folders 0700), a new
 * name when the second already holds one, then keeps the newest `max` captures.
 */
export function writeCapture(root: string, folder: string, base: string, screen: (ansiName: string) => string, ansi: string, max: number): WrittenCapture {
  const dir = join(root, folder);
  ensurePrivateDir(root);
  ensurePrivateDir(dir);
  let name = base;
  for (let n = 2; exists(join(dir, `${name}.screen`)) || exists(join(dir, `${name}.ansi`)); n++) name = `${base}-${n}`;
  const path = join(dir, `${name}.screen`);
  const ansiPath = join(dir, `${name}.ansi`);
  // The .ansi first: a .screen is only ever there with its colours beside it.
  writeFileAtomic(ansiPath, ansi);
  writeFileAtomic(path, screen(basename(ansiPath)));
  return { path, ansiPath, removed: pruneCaptures(root, max) };
}

function exists(p: string): boolean {
  try {
    statSync(p);
    return true;
  } catch {
    return false;
  }
}

function list(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/**
 * Keeps the newest `max` captures under `root` (by modification time, then name); an older one
 * goes with its .ansi, and a .ansi whose screen is gone goes too. Other files are left alone.
 * Returns how many captures were removed.
 */
export function pruneCaptures(root: string, max: number): number {
  const screens: Array<{ base: string; at: number }> = [];
  for (const folder of list(root)) {
    const dir = join(root, folder);
    const names = list(dir);
    const have = new Set(names);
    for (const n of names) {
      if (n.endsWith('.screen')) {
        try {
          screens.push({ base: join(dir, n.slice(0, -'.screen'.length)), at: statSync(join(dir, n)).mtimeMs });
        } catch {
          // gone meanwhile
        }
      } else if (n.endsWith('.ansi') && !have.has(`${n.slice(0, -'.ansi'.length)}.screen`)) {
        unlinkQuiet(join(dir, n));
      }
    }
  }
  if (screens.length <= max) return 0;
  screens.sort((a, b) => a.at - b.at || (a.base < b.base ? -1 : a.base > b.base ? 1 : 0));
  const old = screens.slice(0, screens.length - max);
  for (const s of old) {
    unlinkQuiet(`${s.base}.screen`);
    unlinkQuiet(`${s.base}.ansi`);
  }
  return old.length;
}

function unlinkQuiet(p: string): void {
  try {
    unlinkSync(p);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}
