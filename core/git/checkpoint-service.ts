// When checkpoints are taken (spec: Turn checkpoints): at the end of a turn, as the state machine
// says it, never on a timer. A pane that goes from `working` to `done`, `idle` or `needs_input`,
// or to `unknown` at the end of a counted turn (its completion_seq went up), gets its work tree
// saved, when its folder is in a git work tree, it runs on this machine and [agents.checkpoints]
// is on. Its label is the state's message, else the last line the pane shows. The git work runs off the event path, one checkpoint at a time (core/git/checkpoints.ts).
import type { Bus } from '../bus.js';
import type { Model } from '../model/model.js';
import type { Window } from '../model/window.js';
import type { AgentStore, AgentStateEvent } from '../agent-state/store.js';
import type { ConfigStore } from '../config/config.js';
import type { Logger } from '../log.js';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { TuiosError } from '../errors.js';
import { CHECKPOINT_LABEL_MAX, CHECKPOINT_LABEL_SCREEN_LINES } from '../limits.js';
import { Checkpoints, type CheckpointOptions, type TakeResult } from './checkpoints.js';

export interface CheckpointDeps {
  bus: Bus;
  model: Model;
  agents: AgentStore;
  config: ConfigStore;
  log: Logger;
  /** Where the panes' private indexes live (under the state folder). */
  cacheDir: string;
}

/** The last line of the pane's screen that holds text: what the turn ended with (data: cleaned and cut by the store). */
function lastLine(w: Window): string {
  try {
    const lines = w.screen.tailLines(CHECKPOINT_LABEL_SCREEN_LINES);
    for (let i = lines.length - 1; i >= 0; i--) if (lines[i]!.trim()) return lines[i]!.slice(0, 4 * CHECKPOINT_LABEL_MAX);
  } catch {
    // a pane whose screen is gone
  }
  return '';
}

export class CheckpointService {
  readonly store: Checkpoints;
  private readonly subs: Array<{ dispose(): void }> = [];
  /** completion_seq last seen per pane: a rise with `unknown` is a counted turn's end. */
  private readonly seqs = new Map<string, number>();
  private disposed = false;
  private readonly ctl = new AbortController();
  /** The start's sweep of what a stopped daemon left; checkpoints wait for it. */
  private readonly swept: Promise<void>;

  constructor(private readonly deps: CheckpointDeps) {
    this.store = new Checkpoints(deps.cacheDir);
    // A daemon killed while it wrote a checkpoint leaves a private index (and git's lock on it)
    // behind; its refs are whole or absent, since update-ref is the last, atomic step.
    this.swept = this.store.sweep().then(
      (left) => {
        if (left.length) deps.log.warn('checkpoint files left by a stopped daemon removed', { files: left.slice(0, 20), count: left.length });
      },
      () => undefined,
    );
    this.subs.push(deps.bus.on('agent-state', (ev) => this.onState(ev)));
    this.subs.push(
      deps.bus.on('window-closed', (ev) => {
        this.seqs.delete(ev.window_id);
        void this.store.forget(ev.window_id);
      }),
    );
  }

  get enabled(): boolean {
    const c = this.deps.config.current;
    return c.agents.enabled && c.agents.checkpoints.enabled;
  }

  options(signal?: AbortSignal): CheckpointOptions {
    const c = this.deps.config.current.agents.checkpoints;
    return { keep: c.keep, maxUntrackedBytes: Math.floor(c.max_untracked_mb * 1024 * 1024), signal };
  }

  /** The folder a pane's checkpoints are read in: where its shell is. Refused for a pane on another machine. */
  dirOf(w: Window): string {
    if (w.host) throw new TuiosError('unsupported', `The pane ${w.name || w.id.slice(0, 12)} runs on ${w.host}: checkpoints of a pane on another machine are not available here.`, `Attach to ${w.host} to use them.`);
    return w.currentCwd();
  }

  private onState(ev: AgentStateEvent): void {
    const before = this.seqs.get(ev.window_id) ?? 0;
    this.seqs.set(ev.window_id, ev.completion_seq);
    const ended = ev.old_state === 'working' && (ev.state === 'done' || ev.state === 'idle' || ev.state === 'needs_input' || (ev.state === 'unknown' && ev.completion_seq > before));
    if (!ended || this.disposed || !this.enabled) return;
    const w = this.deps.model.windows.get(ev.window_id);
    if (!w || w.host) return;
    // After this turn of the event loop: the report that ended the turn is handled first.
    setImmediate(() => void this.take(w, ev));
  }

  private async take(w: Window, ev: AgentStateEvent): Promise<TakeResult | null> {
    if (this.disposed) return null;
    let dir: string;
    try {
      dir = this.dirOf(w);
    } catch {
      return null;
    }
    // No .git in the folder or above it: not a work tree, known without starting a git (a fleet
    // of panes outside any repository would start one at each turn's end to learn it).
    if (!gitAbove(dir)) return null;
    await this.swept;
    try {
      const r = await this.store.take(dir, w.id, { kind: 'turn', turn: ev.completion_seq || null, state: ev.state, label: ev.message || lastLine(w) }, this.options(this.ctl.signal));
      if (r.checkpoint) this.deps.log.debug('checkpoint taken', { window_id: w.id, n: r.checkpoint.n, skipped: r.skipped.length, pruned: r.pruned.length });
      return r;
    } catch (e) {
      if (e instanceof TuiosError && e.code === 'not_repo') return null; // not in a work tree: nothing to save
      const error = e instanceof Error ? e.message : String(e);
      this.deps.log.warn('checkpoint not taken', { window_id: w.id, error });
      return null;
    }
  }

  dispose(): void {
    this.disposed = true;
    this.ctl.abort();
    for (const s of this.subs) s.dispose();
    this.store.dispose();
  }
}

/** Whether `dir` or a folder above it holds a `.git` (a folder, or a file as in a worktree). */
export function gitAbove(dir: string): boolean {
  for (let d = resolve(dir); ; d = dirname(d)) {
    if (existsSync(`${d}/.git`)) return true;
    if (dirname(d) === d) return false;
  }
}
