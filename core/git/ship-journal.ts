// The ship verbs' journal (spec: Shipping a worktree): one small file under the state folder,
// 0600, written before each step of a commit or a merge, and removed when the step sequence ends.
// A daemon killed mid-step leaves it behind; the next start reads it, ends a git the dead daemon
// left running, puts back what a half step changed (the index a commit staged, a merge left
// half done), keeps what finished, and says what it found in the log and in ship-status.
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Logger } from '../log.js';
import { git } from './run.js';

export type ShipOp = 'commit' | 'merge' | 'push' | 'pr';

export interface JournalEntry {
  id: string;
  op: ShipOp;
  /** The step about to run (stage, commit, merge, push, pr). */
  step: string;
  started_at: number;
  daemon_pid: number;
  /** The work tree the step changes: the worktree (commit, push) or the main checkout (merge). */
  cwd: string;
  branch: string | null;
  /** HEAD of `cwd` before the first step. */
  head_before: string | null;
  /** Where the index was copied before a commit staged everything; put back when the commit did not happen. */
  index_path: string | null;
  index_backup: string | null;
  /** The git running the step: its process group is ended after a crash. */
  git_pid: number | null;
}

/** What a start found of a step sequence the last daemon did not finish. */
export interface ShipFinding {
  op: ShipOp;
  step: string;
  cwd: string;
  branch: string | null;
  /** What was done about it, in a sentence. */
  outcome: string;
  at: number;
}

/** One step sequence in progress: each step is written to disk before it runs. */
export class Journal {
  constructor(
    private readonly state: ShipState,
    readonly entry: JournalEntry,
  ) {}

  step(step: string, patch: Partial<JournalEntry> = {}): void {
    Object.assign(this.entry, patch, { step, git_pid: patch.git_pid ?? null });
    this.state.write(this.entry);
  }

  /** Records git's pid as soon as it runs (GitOptions.onSpawn). */
  readonly gitPid = (pid: number): void => {
    this.entry.git_pid = pid;
    this.state.write(this.entry);
  };

  done(): void {
    this.state.clear(this.entry);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** True when pid still runs git (a recycled pid is left alone). */
function isGit(pid: number): boolean {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return /(^|\/)git$/.test(argv[0] ?? '');
  } catch {
    return false;
  }
}

export class ShipState {
  /** What the last start found, newest first (a handful: each start adds at most the one entry). */
  readonly found: ShipFinding[] = [];

  constructor(
    readonly dir: string,
    private readonly log: Logger,
  ) {}

  private get file(): string {
    return join(this.dir, 'journal.json');
  }

  begin(e: Omit<JournalEntry, 'id' | 'started_at' | 'daemon_pid' | 'git_pid' | 'index_backup' | 'index_path'> & { index_path?: string | null }): Journal {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const id = randomBytes(6).toString('hex');
    let backup: string | null = null;
    if (e.index_path && existsSync(e.index_path)) {
      backup = join(this.dir, `index-${id}`);
      copyFileSync(e.index_path, backup);
    }
    const entry: JournalEntry = { ...e, id, started_at: Date.now(), daemon_pid: process.pid, git_pid: null, index_path: e.index_path ?? null, index_backup: backup };
    this.write(entry);
    return new Journal(this, entry);
  }

  write(e: JournalEntry): void {
    const tmp = `${this.file}.tmp`;
    writeFileSync(tmp, JSON.stringify(e), { mode: 0o600 });
    renameSync(tmp, this.file);
  }

  clear(e: JournalEntry): void {
    rmSync(this.file, { force: true });
    if (e.index_backup) rmSync(e.index_backup, { force: true });
  }

  /** Puts the index back from the copy taken before the commit staged (after a refused hook too). */
  restoreIndex(e: JournalEntry): void {
    if (e.index_backup && e.index_path && existsSync(e.index_backup)) copyFileSync(e.index_backup, e.index_path);
    else if (e.index_path && !e.index_backup) rmSync(e.index_path, { force: true }); // there was none
  }

  /** At start: finishes what a killed daemon left, and says what it found. */
  async recover(): Promise<ShipFinding | null> {
    if (!existsSync(this.file)) return null;
    let e: JournalEntry;
    try {
      e = JSON.parse(readFileSync(this.file, 'utf8')) as JournalEntry;
    } catch (err) {
      rmSync(this.file, { force: true });
      this.log.warn('ship journal unreadable at start; removed', { error: String(err) });
      return null;
    }
    let outcome: string;
    try {
      outcome = await this.undo(e);
    } catch (err) {
      outcome = `it could not be put right (${err instanceof Error ? err.message : String(err)}); look at ${e.cwd} with git status`;
    }
    this.clear(e);
    for (const f of readdirSync(this.dir)) if (f.startsWith('index-')) rmSync(join(this.dir, f), { force: true });
    const finding: ShipFinding = { op: e.op, step: e.step, cwd: e.cwd, branch: e.branch, outcome, at: Date.now() };
    this.found.unshift(finding);
    this.found.length = Math.min(this.found.length, 8);
    this.log.warn('ship journal found at start', { ...finding });
    return finding;
  }

  private async undo(e: JournalEntry): Promise<string> {
    // The git the dead daemon started may still run (its own process group): end it first.
    if (e.git_pid && alive(e.git_pid) && isGit(e.git_pid)) {
      try {
        process.kill(-e.git_pid, 'SIGKILL');
      } catch {
        // already gone
      }
      for (let i = 0; i < 50 && alive(e.git_pid); i++) await new Promise((r) => setTimeout(r, 20));
    }
    if (!existsSync(e.cwd)) return `its folder ${e.cwd} is gone; nothing to undo`;
    const gitDir = (await git(['rev-parse', '--path-format=absolute', '--git-dir'], { cwd: e.cwd })).stdout.toString().trim();
    // The lock a killed git held: nobody writes the index now.
    rmSync(join(gitDir, 'index.lock'), { force: true });
    const head = (await git(['rev-parse', '-q', '--verify', 'HEAD^{commit}'], { cwd: e.cwd, okCodes: [0, 1] })).stdout.toString().trim() || null;
    if (e.op === 'commit') {
      if (head !== e.head_before) return `the commit ${head?.slice(0, 12)} had been made; it is kept`;
      this.restoreIndex(e);
      return e.step === 'stage' || e.step === 'commit' ? 'the commit was not made; the index is as it was before' : 'nothing had changed';
    }
    if (e.op === 'merge') {
      // A merge stopped before its commit (in a hook, say) has changed the index and the files but
      // not HEAD, with or without MERGE_HEAD: the checkout was clean before, so any tracked change is its.
      const tracked = (await git(['status', '--porcelain=v1', '--untracked-files=no'], { cwd: e.cwd, okCodes: [0, 128] })).stdout.length > 0;
      if (existsSync(join(gitDir, 'MERGE_HEAD')) || existsSync(join(gitDir, 'SQUASH_MSG')) || (head === e.head_before && tracked)) {
        await git(['reset', '--merge'], { cwd: e.cwd, okCodes: [0, 1, 128] });
        rmSync(join(gitDir, 'SQUASH_MSG'), { force: true });
        if (head !== e.head_before && e.head_before) await git(['reset', '--merge', e.head_before], { cwd: e.cwd, okCodes: [0, 1, 128] });
        return 'a merge was left half done; it was undone with git reset --merge, and the main checkout is as it was';
      }
      if (head !== e.head_before) return `the merge had finished (${head?.slice(0, 12)}); it is kept`;
      return 'the merge had not started; nothing changed';
    }
    return `a ${e.op} of ${e.branch ?? 'the branch'} may or may not have reached the remote; see tuios ship status`;
  }
}
