// Watching a work tree between checkpoints (checkpoints.ts): a turn that changed nothing is known
// from inotify, without running git.
import { watch, type FSWatcher } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { CHECKPOINT_WATCH_MAX_DIRS } from '../limits.js';

/**
 * The folders of a work tree, watched (inotify) so a turn that changed nothing is known without
 * reading the tree: any event in any folder marks it dirty, and the next look is git's. Folders git
 * ignores and .git are not watched; past CHECKPOINT_WATCH_MAX_DIRS folders there is no watcher.
 */
export class TreeWatcher {
  dirty = false;
  private readonly watchers: FSWatcher[] = [];
  private closed = false;

  private constructor(readonly top: string) {}

  /** Watches every folder under `top` but `.git` and the ignored ones; null past the limit or on error. */
  static async open(top: string, ignored: Set<string>, budget: number): Promise<TreeWatcher | null> {
    const t = new TreeWatcher(top);
    const max = Math.min(CHECKPOINT_WATCH_MAX_DIRS, budget);
    const queue = [''];
    try {
      while (queue.length) {
        const rel = queue.shift()!;
        if (t.watchers.length >= max) throw new Error('too many folders');
        const abs = rel ? join(top, rel) : top;
        // Watched before it is read: a folder made after the read is an event here.
        const w = watch(abs, { persistent: false }, () => (t.dirty = true));
        w.on('error', () => (t.dirty = true));
        t.watchers.push(w);
        for (const e of await readdir(abs, { withFileTypes: true })) {
          if (!e.isDirectory() || e.name === '.git') continue;
          const child = rel ? `${rel}/${e.name}` : e.name;
          if (!ignored.has(child)) queue.push(child);
        }
      }
    } catch {
      t.close();
      return null;
    }
    return t;
  }

  get size(): number {
    return this.watchers.length;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const w of this.watchers) w.close();
    this.watchers.length = 0;
  }
}

/** Lets file events already queued by the kernel reach their watchers before `dirty` is read. */
export function settle(): Promise<void> {
  return new Promise((r) => setImmediate(() => setImmediate(r)));
}
