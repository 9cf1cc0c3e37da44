// Watching a work tree between checkpoints (checkpoints.ts): a turn that changed nothing is known
// from inotify, without running git.
import { watch, type FSWatcher } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { CHECKPOINT_WATCH_MAX_DIRS } from '../limits.js';

/**
 * The folders of a work tree, watched (inotify) so a turn that changed nothing is known without
 * reading the tree: any event in any folder marks it dirty, and the next look is git's. Folders git
 * ignores and .git are not watched; past its folder budget there is no watcher.
 *
 * It is kept from one look to the next (the look clears `dirty`): a folder that appears is watched
 * as it appears, one that is removed or replaced is watched again. What it cannot follow makes it
 * `stale`, and the next look opens a new one: a .gitignore that changed (the ignored folders are
 * read again), an event without a name, a watch that failed, the budget reached.
 */
export class TreeWatcher {
  dirty = false;
  stale = false;
  /** Watched folders by path under the top ('' is the top). */
  private readonly dirs = new Map<string, FSWatcher>();
  private pending: Promise<void> = Promise.resolve();
  private closed = false;

  private constructor(
    readonly top: string,
    /** The ignored folders it was opened with (checkpoints.ts opens a new one when they are read again). */
    readonly ignored: Set<string>,
    private readonly max: number,
  ) {}

  /** Watches every folder under `top` but `.git` and the ignored ones; null past the budget or on error. */
  static async open(top: string, ignored: Set<string>, budget: number): Promise<TreeWatcher | null> {
    const t = new TreeWatcher(top, ignored, Math.min(CHECKPOINT_WATCH_MAX_DIRS, budget));
    try {
      await t.addTree('');
    } catch {
      t.close();
      return null;
    }
    return t;
  }

  get size(): number {
    return this.dirs.size;
  }

  /** Resolves once the folders that appeared so far are watched. */
  ready(): Promise<void> {
    return this.pending;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const w of this.dirs.values()) w.close();
    this.dirs.clear();
  }

  /** Watches `rel` and every folder under it; throws past the budget or when a folder cannot be read. */
  private async addTree(rel: string): Promise<void> {
    const queue = [rel];
    while (queue.length) {
      const at = queue.shift()!;
      if (this.closed || this.dirs.has(at)) continue;
      if (this.dirs.size >= this.max) throw new Error('too many folders');
      const abs = at ? join(this.top, at) : this.top;
      // Watched before it is read: a folder made after the read is an event here.
      const w = watch(abs, { persistent: false }, (event, name) => this.onEvent(at, event, name));
      w.on('error', () => {
        this.dirty = true;
        this.stale = true;
      });
      this.dirs.set(at, w);
      for (const e of await readdir(abs, { withFileTypes: true })) {
        if (!e.isDirectory() || e.name === '.git') continue;
        const child = at ? `${at}/${e.name}` : e.name;
        if (!this.ignored.has(child)) queue.push(child);
      }
    }
  }

  private onEvent(rel: string, event: string, name: string | Buffer | null): void {
    this.dirty = true;
    if (this.closed) return;
    if (name === null) {
      this.stale = true; // which entry is not known
      return;
    }
    const entry = String(name);
    if (entry === '.gitignore') this.stale = true;
    if (event !== 'rename' || (rel === '' && entry === '.git')) return;
    const child = rel ? `${rel}/${entry}` : entry;
    if (this.ignored.has(child)) return;
    // An entry came, went or was replaced: a folder there is watched afresh.
    this.pending = this.pending.then(() => this.rewatchEntry(child));
  }

  private async rewatchEntry(child: string): Promise<void> {
    for (const [path, w] of this.dirs) {
      if (path === child || path.startsWith(`${child}/`)) {
        w.close();
        this.dirs.delete(path);
      }
    }
    try {
      if (!(await lstat(join(this.top, child))).isDirectory()) return;
    } catch {
      return; // gone: nothing to watch
    }
    try {
      await this.addTree(child);
    } catch {
      this.stale = true;
    }
  }
}

/** Lets file events already queued by the kernel reach their watchers before `dirty` is read. */
export function settle(): Promise<void> {
  return new Promise((r) => setImmediate(() => setImmediate(r)));
}
