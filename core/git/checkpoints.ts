// Turn checkpoints (spec: Turn checkpoints): a pane's work tree saved as a commit under
// refs/tuios/checkpoints/<window id>/<n>, written with plumbing through an index of our own, so the
// repository's index, HEAD, branch, stash and files never change. Tracked files as on disk, and
// untracked files git does not ignore up to max_untracked_mb each; the commit's parent is HEAD.
//
// Cost: each window keeps a private index (under the cache folder) whose entries are its last
// checkpoint's tree with their stat data. "Did anything change?" is one `git ls-files -m -d -o`
// against it: a turn that changed nothing costs that one call and takes no checkpoint.
//
// Every git call here runs through the safe runner (core/git/run.ts) with the checkpoint budget,
// one at a time per Checkpoints instance (the daemon has one).
import { copyFile, mkdir, mkdtemp, readdir, rm, stat, utimes } from 'node:fs/promises';
import { existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import { TuiosError } from '../errors.js';
import { git, gitFed, gitText } from './run.js';
import { diffTreeFiles, type DiffFile } from './repo.js';
import { TreeWatcher, settle } from './checkpoint-watch.js';
import { clearPathFor, pruneEmptyDirs, sizeFilter, stillSkipped, type Skipped } from './checkpoint-files.js';
import {
  CHECKPOINT_DIFF_BUDGET_MS,
  CHECKPOINT_GIT_TIMEOUT_MS,
  CHECKPOINT_IGNORED_MAX_AGE_MS,
  CHECKPOINT_KEEP_DEFAULT,
  CHECKPOINT_LABEL_MAX,
  CHECKPOINT_LIST_MAX,
  CHECKPOINT_REPORT_PATHS,
  CHECKPOINT_WATCH_MAX_TOTAL,
  DIFF_MAX_BYTES,
  DIFF_MAX_FILES,
  MAX_UNTRACKED_FILE_BYTES,
} from '../limits.js';

export const CHECKPOINT_REFS = 'refs/tuios/checkpoints';
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
const WINDOW_RE = /^[A-Za-z0-9_-]{1,64}$/;

export type { Skipped } from './checkpoint-files.js';

export type CheckpointKind = 'turn' | 'safety';

export interface Checkpoint {
  n: number;
  commit: string;
  tree: string;
  /** HEAD when it was taken; null in a repository with no commits. */
  parent: string | null;
  kind: CheckpointKind;
  /** The pane's finished-turn count then (completion_seq), null when not known. */
  turn: number | null;
  /** The agent state the turn ended in ('' for a safety checkpoint). */
  state: string;
  /** ISO time it was taken. */
  time: string;
  /** What the turn was: its prompt, its last line or the state's message (cleaned, cut). */
  label: string;
}


export interface TakeMeta {
  kind?: CheckpointKind;
  turn?: number | null;
  state?: string;
  label?: string;
}

export interface TakeResult {
  /** The new checkpoint; null when nothing changed since the last one. */
  checkpoint: Checkpoint | null;
  /** The newest checkpoint when nothing changed (its tree is the work tree now). */
  latest: Checkpoint | null;
  /** Untracked files not saved (past max_untracked_mb, or past the file count). */
  skipped: Skipped[];
  /** Checkpoints deleted past `keep`. */
  pruned: number[];
}

export interface CheckpointDiff {
  n: number;
  /** The checkpoint compared with; null: HEAD when N was taken (or the empty tree). */
  from_n: number | null;
  from: string;
  to: string;
  files: DiffFile[];
  added: number;
  deleted: number;
  patch: string;
  truncated: boolean;
}

export interface RestoreResult {
  restored: Checkpoint;
  /** The safety checkpoint holding the work tree as it was before (restore it to undo). */
  safety: Checkpoint;
  /** false when the work tree was already the newest checkpoint, which then serves as the safety one. */
  safety_taken: boolean;
  written: string[];
  removed: string[];
  /** Counts of the lists above before they were cut. */
  written_count: number;
  removed_count: number;
  /** Files left as they are because no checkpoint holds them (too large or past the count): never lost. */
  kept: Skipped[];
}

export interface CheckpointOptions {
  signal?: AbortSignal;
  /** Largest untracked file saved ([agents.checkpoints] max_untracked_mb). */
  maxUntrackedBytes?: number;
  /** Checkpoints kept per window ([agents.checkpoints] keep). */
  keep?: number;
}

interface WindowCache {
  top: string;
  dir: string;
  /** The private index file, holding the last checkpoint's tree. */
  index: string;
  /** The user's index as it was when the private index was built from it (mtime:size:ino). */
  userIndex: string;
  userIndexPath: string;
  latest: Checkpoint | null;
  /** The numbers of the window's refs as this process last read or wrote them; null: read them. */
  refs: number[] | null;
  /** The private index holds the tree of a finished look (checkpointed, or no change to take). */
  looked: boolean;
  skipped: Skipped[];
}

function checkWindow(windowId: string): void {
  if (!WINDOW_RE.test(windowId)) throw new TuiosError('invalid_params', `"${windowId}" is not a window id a checkpoint ref can hold.`, 'Name the window by its id.', { field: 'window' });
}

/** A label is text from a pane: control characters out, one line, cut. */
export function cleanLabel(s: string | undefined): string {
  // eslint-disable-next-line no-control-regex
  const t = (s ?? '').replace(/[\x00-\x1f\x7f-\x9f\u2028\u2029]+/g, ' ').replace(/\s+/g, ' ').trim();
  return t.length > CHECKPOINT_LABEL_MAX ? t.slice(0, CHECKPOINT_LABEL_MAX - 1) + '…' : t;
}

function statKey(path: string): string {
  try {
    const s = statSync(path);
    return `${s.mtimeMs}:${s.size}:${s.ino}`;
  } catch {
    return 'none';
  }
}

function messageOf(n: number, meta: TakeMeta, time: string, windowId: string): string {
  const kind = meta.kind ?? 'turn';
  const label = cleanLabel(meta.label);
  const head = kind === 'safety' ? `tuios checkpoint ${n}: safety` : `tuios checkpoint ${n}: turn${meta.turn != null ? ` ${meta.turn}` : ''}${label ? `: ${label}` : ''}`;
  return [head, '', `kind: ${kind}`, `turn: ${meta.turn ?? ''}`, `state: ${cleanLabel(meta.state).slice(0, 32)}`, `time: ${time}`, `window: ${windowId}`, `label: ${label}`, ''].join('\n');
}

function parseMessage(msg: string): Pick<Checkpoint, 'kind' | 'turn' | 'state' | 'time' | 'label'> {
  const field = (k: string) => new RegExp(`^${k}: (.*)$`, 'm').exec(msg)?.[1] ?? '';
  const turn = field('turn');
  return { kind: field('kind') === 'safety' ? 'safety' : 'turn', turn: /^\d+$/.test(turn) ? Number(turn) : null, state: field('state'), time: field('time'), label: field('label') };
}

/** The checkpoints of every pane, their private indexes, and the queue their git calls wait in. */
export class Checkpoints {
  private readonly cache = new Map<string, WindowCache>();
  private readonly watchers = new Map<string, TreeWatcher>();
  /** Folders git ignores, per work tree, as last read: the watchers leave them out. */
  private readonly ignored = new Map<string, { dirs: Set<string>; at: number }>();
  private tail: Promise<unknown> = Promise.resolve();
  /** Work a finished operation left to do after answering (reading the ignored folders); the next waits for it. */
  private background: Promise<unknown> = Promise.resolve();

  /** `cacheDir`: where the private indexes live (the daemon's state folder); a temp folder by default. */
  constructor(private readonly cacheDir: string = join(tmpdir(), `tuios-checkpoints-${process.pid}`)) {}

  /** Runs `f` after every call before it: one checkpoint operation at a time. */
  private serial<T>(f: () => Promise<T>): Promise<T> {
    const run = this.tail.then(() => this.background).then(f, f);
    this.tail = run.catch(() => undefined);
    return run;
  }

  take(dir: string, windowId: string, meta: TakeMeta = {}, o: CheckpointOptions = {}): Promise<TakeResult> {
    checkWindow(windowId);
    return this.serial(() => this.takeNow(dir, windowId, meta, o, false));
  }

  list(dir: string, windowId: string, o: CheckpointOptions = {}): Promise<Checkpoint[]> {
    checkWindow(windowId);
    return this.serial(async () => (await listRefs(await topOf(dir, o.signal), windowId, o.signal)).reverse());
  }

  diff(dir: string, windowId: string, n: number, from: number | null = null, o: CheckpointOptions = {}): Promise<CheckpointDiff> {
    checkWindow(windowId);
    return this.serial(() => diffNow(dir, windowId, n, from, o));
  }

  restore(dir: string, windowId: string, n: number, o: CheckpointOptions = {}): Promise<RestoreResult> {
    checkWindow(windowId);
    return this.serial(() => this.restoreNow(dir, windowId, n, o));
  }

  /** Deletes every checkpoint of a window (its worktree was removed, or the pane closed for good). */
  remove(dir: string, windowId: string, o: CheckpointOptions = {}): Promise<number> {
    checkWindow(windowId);
    return this.serial(async () => {
      const top = await topOf(dir, o.signal);
      const all = await listRefs(top, windowId, o.signal);
      await deleteRefs(top, windowId, all.map((c) => c.n), o.signal);
      await this.forget(windowId);
      return all.length;
    });
  }

  /**
   * Removes what a daemon that stopped mid-checkpoint (kill -9, a crash) left in the cache folder:
   * private indexes and their `.lock` files. Run once at start, before any checkpoint: nothing of
   * this process is there yet, and a window's private index is rebuilt from the user's index on
   * its first look anyway. Answers the names removed, so the daemon can say what it found.
   */
  sweep(): Promise<string[]> {
    // In the queue: a list or restore asked for at start runs after it.
    return this.serial(async () => {
      let names: string[];
      try {
        names = await readdir(this.cacheDir);
      } catch {
        return []; // no folder: nothing was left
      }
      const left = names.filter((n) => /\.index(\.lock)?$/.test(n)).sort();
      await Promise.all(left.map((n) => rm(join(this.cacheDir, n), { force: true })));
      return left;
    });
  }

  /** Drops what is kept in memory and on disk for a window; its refs stay. */
  async forget(windowId: string): Promise<void> {
    const c = this.cache.get(windowId);
    this.cache.delete(windowId);
    this.watchers.get(windowId)?.close();
    this.watchers.delete(windowId);
    if (c) await rm(c.index, { force: true });
  }

  /** Stops every watcher (the daemon stops). */
  dispose(): void {
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }

  /**
   * Before a look: a change from then on must count for the next one. The window's watcher goes
   * on (its events so far are the look's to see) unless it is stale or the ignored folders were
   * read again since it was opened; then a new one watches the tree.
   */
  private async watchFromNow(windowId: string, top: string): Promise<void> {
    const kept = this.watchers.get(windowId);
    // A stale watcher may have seen a .gitignore change: what is ignored is read again after this
    // look, and the tree is watched with it from the next one.
    if (kept?.stale) this.ignored.delete(top);
    const ignored = this.ignored.get(top)?.dirs;
    if (kept && kept.top === top && !kept.stale && kept.ignored === ignored) {
      await settle();
      await kept.ready();
      kept.dirty = false;
      return;
    }
    kept?.close();
    this.watchers.delete(windowId);
    if (!ignored) return; // read after the look; watched from the next one
    let used = 0;
    for (const w of this.watchers.values()) used += w.size;
    const w = await TreeWatcher.open(top, ignored, CHECKPOINT_WATCH_MAX_TOTAL - used);
    if (w) this.watchers.set(windowId, w);
  }

  /** The ignored folders are read again when not known, old, or the window has no watcher that can go on. */
  private needsIgnored(windowId: string, top: string): boolean {
    const known = this.ignored.get(top);
    const w = this.watchers.get(windowId);
    return !known || Date.now() - known.at > CHECKPOINT_IGNORED_MAX_AGE_MS || !w || w.stale;
  }

  /** The folders git ignores in a work tree (`ls-files --others --ignored --directory`). */
  private async readIgnored(top: string, signal?: AbortSignal): Promise<void> {
    try {
      const r = await git(['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory'], { cwd: top, signal, timeoutMs: CHECKPOINT_GIT_TIMEOUT_MS });
      const dirs = new Set(r.stdout.toString('utf8').split('\0').filter((p) => p.endsWith('/')).map((p) => p.slice(0, -1)));
      if (this.ignored.size >= 256 && !this.ignored.has(top)) this.ignored.delete(this.ignored.keys().next().value!);
      this.ignored.set(top, { dirs, at: Date.now() });
    } catch {
      this.ignored.delete(top);
    }
  }

  private async takeNow(dir: string, windowId: string, meta: TakeMeta, o: CheckpointOptions, forRestore: boolean): Promise<TakeResult> {
    const { signal } = o;
    const maxBytes = o.maxUntrackedBytes ?? MAX_UNTRACKED_FILE_BYTES;
    let c = this.cache.get(windowId);
    if (c && c.dir !== dir) c = undefined;
    const watcher = this.watchers.get(windowId);
    if (watcher && c && c.looked && !forRestore && watcher.top === c.top) {
      await settle();
      await watcher.ready();
      // No file event since the last look: nothing changed, and no git runs at all.
      if (!watcher.dirty && existsSync(c.index) && statKey(c.userIndexPath) === c.userIndex) return { checkpoint: null, latest: c.latest, skipped: c.skipped, pruned: [] };
    }
    if (c) await this.watchFromNow(windowId, c.top);
    try {
      return await this.look(dir, windowId, c, meta, o, forRestore, maxBytes);
    } finally {
      // What git ignores, for the next watch: read after the look, off its time (the queue's
      // next operation waits for it), as a walk of its own beside the look's would slow it.
      const top = c?.top ?? this.cache.get(windowId)?.top;
      if (top && this.needsIgnored(windowId, top)) this.background = this.readIgnored(top, signal);
    }
  }

  private async look(dir: string, windowId: string, c: WindowCache | undefined, meta: TakeMeta, o: CheckpointOptions, forRestore: boolean, maxBytes: number): Promise<TakeResult> {
    const { signal } = o;
    let built: { cache: WindowCache; tree: string; head: string | null } | null = null;
    // The quick look: what differs from the private index (the last checkpoint). Nothing: no
    // checkpoint. Else those paths alone go into it.
    if (c && c.looked && existsSync(c.index) && statKey(c.userIndexPath) === c.userIndex) {
      const cache = c;
      const env = { GIT_INDEX_FILE: cache.index };
      const run = { cwd: cache.top, signal, timeoutMs: CHECKPOINT_GIT_TIMEOUT_MS };
      // update-index and HEAD's lookup start beside ls-files, so their start-up and their reading
      // of the index overlap it; update-index is given the paths once they are known (none: it
      // writes nothing). It is always ended and waited for before anything else writes the index.
      const listing = git(['ls-files', '-z', '-t', '--modified', '--deleted', '--others', '--exclude-standard'], { ...run, env });
      const updating = gitFed(['update-index', '--add', '--remove', '-z', '--stdin'], { ...run, env });
      const heading = headOf(cache.top, signal);
      let nothing = false;
      let fed = false;
      let rebuild = false;
      let sized: { take: string[]; skipped: Skipped[] } | null = null;
      try {
        // -t tags each path: `C ` changed, `R ` removed, `? ` untracked.
        const r = await listing;
        const known = new Set(cache.skipped.map((s) => s.path));
        const tracked = new Set<string>();
        const untracked: string[] = [];
        for (const e of r.stdout.toString('utf8').split('\0')) {
          const p = e.slice(2);
          if (!p || known.has(p)) continue;
          if (e.startsWith('?')) untracked.push(p);
          else tracked.add(p);
        }
        const changed = tracked.size + untracked.length;
        // A .gitignore changed: files the private index took as untracked may be ignored now, and
        // only the whole look (from the person's index) leaves them out.
        const isRule = (p: string) => p === '.gitignore' || p.endsWith('/.gitignore');
        if ([...tracked].some(isRule) || untracked.some(isRule)) rebuild = true;
        else if (changed === 0 && (await stillSkipped(cache.top, cache.skipped, maxBytes))) nothing = !forRestore;
        else if (changed && (await stillSkipped(cache.top, cache.skipped, maxBytes))) {
          sized = await sizeFilter(cache.top, untracked, maxBytes, cache.skipped);
          sized.take.push(...tracked);
          updating.end(sized.take.join('\0') + '\0');
          fed = true;
        }
      } catch (err) {
        // ls-files failed (or a file could not be read): nothing is left running when this throws.
        updating.end();
        await Promise.allSettled([updating.result, heading]);
        throw err;
      }
      updating.end(); // no paths: it writes nothing
      const updated = await updating.result.then(
        () => true,
        () => false,
      );
      const head = await heading.catch(() => undefined);
      if (nothing) return { checkpoint: null, latest: cache.latest, skipped: cache.skipped, pruned: [] };
      // A failure (a file became a folder, a lock left behind): the whole look below, afresh.
      if (fed && updated && head !== undefined && sized) {
        try {
          const tree = await gitText(['write-tree'], { ...run, env });
          cache.skipped = sized.skipped;
          built = { cache, tree, head };
        } catch {
          built = null;
        }
      }
      if ((fed && !built) || rebuild) c = undefined;
    }
    if (!built) built = await this.build(dir, windowId, c, maxBytes, signal);
    c = built.cache;
    // The refs as this process last left them; read once per window (and after a conflict below).
    if (c.refs === null) {
      const refs = await listRefs(c.top, windowId, signal);
      c.refs = refs.map((r) => r.n);
      c.latest = refs[refs.length - 1] ?? null;
    }
    const latest = c.latest;
    if (latest && latest.tree === built.tree) {
      c.looked = true;
      return { checkpoint: null, latest, skipped: c.skipped, pruned: [] };
    }
    // The first turn compares with HEAD (as its diff does): a pane that ends a turn on a clean
    // tree, or asks its first approval before writing anything, has changed no file.
    if (!latest && built.head && !forRestore && (await gitText(['rev-parse', `${built.head}^{tree}`], { cwd: c.top, signal, timeoutMs: CHECKPOINT_GIT_TIMEOUT_MS })) === built.tree) {
      c.looked = true;
      return { checkpoint: null, latest: null, skipped: c.skipped, pruned: [] };
    }
    const n = (latest?.n ?? 0) + 1;
    const time = new Date().toISOString();
    const env = {
      GIT_AUTHOR_NAME: 'tuios',
      GIT_AUTHOR_EMAIL: 'tuios@localhost',
      GIT_COMMITTER_NAME: 'tuios',
      GIT_COMMITTER_EMAIL: 'tuios@localhost',
      GIT_AUTHOR_DATE: time,
      GIT_COMMITTER_DATE: time,
    };
    const run = { cwd: c.top, signal, timeoutMs: CHECKPOINT_GIT_TIMEOUT_MS };
    // update-ref starts beside commit-tree and is given the ref once the commit is known: one
    // transaction creates it (create-only: a ref that appeared meanwhile, another daemon's, is not
    // written over) and deletes those past `keep`. On a failure the refs are read again for the
    // next look, and this one fails with git's reason.
    const refUpdate = gitFed(['update-ref', '-m', 'tuios checkpoint', '--stdin', '-z'], run);
    const keep = Math.max(1, o.keep ?? CHECKPOINT_KEEP_DEFAULT);
    const all = [...c.refs, n];
    const pruned = all.length > keep ? all.slice(0, all.length - keep) : [];
    let commit: string;
    try {
      commit = await gitText(['commit-tree', '--no-gpg-sign', built.tree, ...(built.head ? ['-p', built.head] : []), '-F', '-'], { ...run, env, input: messageOf(n, meta, time, windowId) });
      refUpdate.end(`create ${CHECKPOINT_REFS}/${windowId}/${n}\0${commit}\0` + pruned.map((k) => `delete ${CHECKPOINT_REFS}/${windowId}/${k}\0\0`).join(''));
      await refUpdate.result;
    } catch (err) {
      refUpdate.end();
      await refUpdate.result.catch(() => undefined);
      c.refs = null;
      c.latest = null;
      c.looked = false;
      throw err;
    }
    const m = parseMessage(messageOf(n, meta, time, windowId));
    const checkpoint: Checkpoint = { n, commit, tree: built.tree, parent: built.head, ...m };
    c.latest = checkpoint;
    c.looked = true;
    c.refs = all.slice(pruned.length);
    return { checkpoint, latest: checkpoint, skipped: c.skipped, pruned };
  }

  /** The work tree as a tree, through the window's private index (made from the user's index when missing or stale). */
  private async build(dir: string, windowId: string, prev: WindowCache | undefined, maxBytes: number, signal?: AbortSignal): Promise<{ cache: WindowCache; tree: string; head: string | null }> {
    const timeoutMs = CHECKPOINT_GIT_TIMEOUT_MS;
    const top = prev?.top ?? (await topOf(dir, signal));
    const userIndexPath = prev?.userIndexPath ?? resolve(top, await gitText(['rev-parse', '--path-format=absolute', '--git-path', 'index'], { cwd: top, signal, timeoutMs }));
    const head = await headOf(top, signal);
    await mkdir(this.cacheDir, { recursive: true, mode: 0o700 });
    const index = join(this.cacheDir, `${windowId}.index`);
    const env = { GIT_INDEX_FILE: index };
    const userIndex = statKey(userIndexPath);
    if (!prev || prev.userIndex !== userIndex || prev.top !== top || !existsSync(index)) {
      // A lock left by a git that was killed (a deadline, a daemon killed mid-look) goes with it.
      await Promise.all([rm(index, { force: true }), rm(`${index}.lock`, { force: true })]);
      if (existsSync(userIndexPath)) {
        await copyFile(userIndexPath, index);
        // Keep the index's own mtime: git trusts a cached stat only for an entry older than its
        // index file, so a fresh mtime would hide a same-size edit made in the same clock tick.
        const s = await stat(userIndexPath);
        await utimes(index, s.atime, s.mtime);
      } else if (head) await git(['read-tree', head], { cwd: top, env, signal, timeoutMs });
      // A conflicted index has no single tree: its entries are taken from the files as they are.
      const unmerged = (await git(['ls-files', '-z', '--unmerged'], { cwd: top, env, signal, timeoutMs })).stdout.length > 0;
      if (unmerged) {
        await rm(index, { force: true });
        if (head) await git(['read-tree', head], { cwd: top, env, signal, timeoutMs });
      }
    }
    await git(['add', '--update', '--', '.'], { cwd: top, env, signal, timeoutMs });
    const others = (await git(['ls-files', '-z', '--others', '--exclude-standard'], { cwd: top, env, signal, timeoutMs })).stdout.toString('utf8').split('\0').filter((p) => p && !p.endsWith('/'));
    const { take, skipped } = await sizeFilter(top, others, maxBytes, []);
    if (take.length) await git(['add', '--pathspec-from-file=-', '--pathspec-file-nul'], { cwd: top, env, signal, input: take.join('\0'), timeoutMs });
    const tree = await gitText(['write-tree'], { cwd: top, env, signal, timeoutMs });
    const cache: WindowCache = { top, dir, index, userIndex, userIndexPath, latest: prev?.latest ?? null, refs: prev?.refs ?? null, looked: false, skipped };
    this.cache.set(windowId, cache);
    return { cache, tree, head };
  }

  private async restoreNow(dir: string, windowId: string, n: number, o: CheckpointOptions): Promise<RestoreResult> {
    const { signal } = o;
    const top = await topOf(dir, signal);
    const refs = await listRefs(top, windowId, signal);
    const target = refs.find((r) => r.n === n);
    if (!target) throw notFound(windowId, n, refs);
    // First the work tree as it is now, so the restore can be undone.
    const saved = await this.takeNow(dir, windowId, { kind: 'safety', label: `before restoring ${n}` }, o, true);
    const safety = saved.checkpoint ?? saved.latest!;
    const keptSet = new Set(saved.skipped.map((s) => s.path));
    const raw = (await git(['diff-tree', '-r', '-z', '--no-renames', safety.tree, target.tree], { cwd: top, signal, timeoutMs: CHECKPOINT_GIT_TIMEOUT_MS })).stdout.toString('utf8').split('\0');
    const write: string[] = [];
    const remove: string[] = [];
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const m = /^:(\d{6}) (\d{6}) \S+ \S+ (\w)/.exec(raw[i]!);
      const path = raw[i + 1]!;
      if (!m) continue;
      const [, oldMode, newMode, status] = m;
      if (status === 'D') {
        if (oldMode !== '160000') remove.push(path);
      } else if (newMode === '160000') continue; // a submodule: its own repository
      else if (keptSet.has(path)) continue; // unsaved work there: kept
      else {
        if (oldMode === '160000') continue;
        write.push(path);
      }
    }
    for (const p of remove) {
      const abs = join(top, p);
      if (!abs.startsWith(top + sep)) continue;
      await rm(abs, { force: true });
      await pruneEmptyDirs(top, dirname(abs));
    }
    if (write.length) {
      const tmp = await mkdtemp(join(tmpdir(), 'tuios-restore-'));
      const env = { GIT_INDEX_FILE: join(tmp, 'index') };
      try {
        await git(['read-tree', target.tree], { cwd: top, env, signal, timeoutMs: CHECKPOINT_GIT_TIMEOUT_MS });
        // A file where a folder of the checkpoint goes (or the other way) is moved out of the way first.
        for (const p of write) await clearPathFor(top, p);
        await git(['checkout-index', '-f', '-z', '--stdin'], { cwd: top, env, signal, input: write.join('\0') + '\0', timeoutMs: CHECKPOINT_GIT_TIMEOUT_MS });
      } finally {
        await rm(tmp, { recursive: true, force: true });
      }
    }
    return {
      restored: target,
      safety,
      safety_taken: saved.checkpoint !== null,
      written: write.slice(0, CHECKPOINT_REPORT_PATHS),
      removed: remove.slice(0, CHECKPOINT_REPORT_PATHS),
      written_count: write.length,
      removed_count: remove.length,
      kept: saved.skipped.slice(0, CHECKPOINT_REPORT_PATHS),
    };
  }
}

async function headOf(top: string, signal?: AbortSignal): Promise<string | null> {
  return (await git(['rev-parse', '-q', '--verify', 'HEAD^{commit}'], { cwd: top, signal, okCodes: [0, 1], timeoutMs: CHECKPOINT_GIT_TIMEOUT_MS })).stdout.toString().trim() || null;
}

async function topOf(dir: string, signal?: AbortSignal): Promise<string> {
  if (!existsSync(dir)) throw new TuiosError('not_repo', `The folder ${dir} does not exist.`);
  try {
    return await gitText(['rev-parse', '--show-toplevel'], { cwd: dir, signal, noRepo: true, timeoutMs: CHECKPOINT_GIT_TIMEOUT_MS });
  } catch (e) {
    if (e instanceof TuiosError && e.code === 'git_failed') throw new TuiosError('not_repo', `${dir} is not inside a git work tree, so it has no checkpoints.`, 'Checkpoints are taken for panes whose folder is in a git work tree.');
    throw e;
  }
}

/** A window's checkpoints, oldest first (at most CHECKPOINT_LIST_MAX, the newest). */
async function listRefs(top: string, windowId: string, signal?: AbortSignal): Promise<Checkpoint[]> {
  const out = (await git(['for-each-ref', '--format=%(refname)%00%(objectname)%00%(tree)%00%(parent)%00%(contents)%00', `${CHECKPOINT_REFS}/${windowId}/`], { cwd: top, signal, timeoutMs: CHECKPOINT_GIT_TIMEOUT_MS })).stdout.toString('utf8');
  const f = out.split('\0');
  const res: Checkpoint[] = [];
  for (let i = 0; i + 4 < f.length; i += 5) {
    const ref = f[i]!.replace(/^\n/, '');
    const n = Number(ref.slice(ref.lastIndexOf('/') + 1));
    if (!Number.isInteger(n) || n < 1) continue;
    res.push({ n, commit: f[i + 1]!, tree: f[i + 2]!, parent: f[i + 3]!.split(' ')[0] || null, ...parseMessage(f[i + 4]!) });
  }
  res.sort((a, b) => a.n - b.n);
  return res.slice(-CHECKPOINT_LIST_MAX);
}

async function deleteRefs(top: string, windowId: string, ns: number[], signal?: AbortSignal): Promise<void> {
  if (!ns.length) return;
  await git(['update-ref', '--stdin', '-z'], { cwd: top, signal, input: ns.map((n) => `delete ${CHECKPOINT_REFS}/${windowId}/${n}\0\0`).join(''), timeoutMs: CHECKPOINT_GIT_TIMEOUT_MS });
}

function notFound(windowId: string, n: number, refs: Checkpoint[]): TuiosError {
  const have = refs.map((r) => r.n);
  return new TuiosError('not_found', `The pane has no checkpoint ${n}${have.length ? ` (it has ${have[0]} to ${have[have.length - 1]})` : ' (it has none)'}.`, 'List them with: tuios checkpoint list -w ' + windowId.slice(0, 12), { available: have.slice(-20) });
}

async function diffNow(dir: string, windowId: string, n: number, fromN: number | null, o: CheckpointOptions): Promise<CheckpointDiff> {
  const { signal } = o;
  const deadline = Date.now() + CHECKPOINT_DIFF_BUDGET_MS;
  const left = () => {
    const ms = deadline - Date.now();
    if (ms <= 0) throw new TuiosError('timeout', 'The checkpoint diff ran past its time budget.', 'The repository may be very large; try again.');
    return ms;
  };
  const top = await topOf(dir, signal);
  const refs = await listRefs(top, windowId, signal);
  const to = refs.find((r) => r.n === n);
  if (!to) throw notFound(windowId, n, refs);
  let from: Checkpoint | null = null;
  if (fromN !== null) {
    from = refs.find((r) => r.n === fromN) ?? null;
    if (!from) throw notFound(windowId, fromN, refs);
  } else from = [...refs].reverse().find((r) => r.n < n) ?? null;
  const fromTree = from ? from.tree : to.parent ? `${to.parent}^{tree}` : EMPTY_TREE;
  const { files, added, deleted } = await diffTreeFiles(top, fromTree, to.tree, { signal, left });
  const r = await git(['diff-tree', '-p', '-r', '--no-renames', '--no-ext-diff', '--no-textconv', '--no-color', fromTree, to.tree], { cwd: top, signal, maxOutputBytes: DIFF_MAX_BYTES, cut: true, timeoutMs: left() });
  return { n, from_n: from?.n ?? null, from: from ? from.commit : (to.parent ?? EMPTY_TREE), to: to.commit, files: files.slice(0, DIFF_MAX_FILES), added, deleted, patch: r.stdout.toString('utf8'), truncated: r.truncated || files.length > DIFF_MAX_FILES };
}
