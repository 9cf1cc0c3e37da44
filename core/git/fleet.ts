// Agents started by tuios (start-agent, fan, worktree new --agent) and their first prompts
// (spec: States, the fan and start-agent parts). A first prompt is typed once its agent is ready,
// `idle` or `done` and never `unknown`, through the same acknowledged path as ask-agent, and its
// take is checked the same way; a pane not ready for 30 s on a screen no rule reads becomes an
// Inbox question. The worktree sessions' attributes (group, worktree, launched_by) persist here.
import type { Disposable } from '../bus.js';
import type { Services } from '../daemon/services.js';
import type { Session } from '../model/model.js';
import type { Window } from '../model/window.js';
import type { Manifest } from '../detection/manifest.js';
import { findHarness } from '../detection/manifest.js';
import { deliverPrompt } from '../delivery/deliver.js';
import { sameOccupant } from '../delivery/typing.js';
import type { Item } from '../inbox/inbox.js';
import { TuiosError } from '../errors.js';
import { FIRST_RUN_QUESTION_MS, READY_WAIT_MS } from '../limits.js';
import { protocolOf, readyNow } from './protocol-pane.js';
import { onPath } from './on-path.js';

/** What tuios knows about a worktree session (session attr `worktree`). */
export interface WorktreeAttr {
  path: string;
  branch: string;
  base: string;
  base_commit: string;
  /** The repository's shared git dir: what `worktree ls` groups by. */
  repo: string;
  /** The main checkout, where `fan keep --merge` merges. */
  main: string | null;
  name: string;
  created_at: number;
  /** Set on a worktree `worktree pull` made: where it came from. */
  pulled_from?: string;
}

export type PromptStatus = 'waiting' | 'typing' | 'taken' | 'stalled' | 'not_ready' | 'failed';

/** A first prompt's record (window attr `first_prompt`). */
export interface FirstPrompt {
  status: PromptStatus;
  at: number;
  /** Why it failed or was not typed. */
  reason?: string;
}

declare module '../bus.js' {
  interface EventMap {
    'first-prompt': { window_id: string; session_id: string; name: string; status: PromptStatus; reason?: string };
    /** A pull's progress; `pull_id` is the progress_id its caller gave, so a client tells its own pull. */
    'worktree-progress': { session_id: string | null; phase: string; bytes: number; objects: number; files: number; pull_id: string | null };
  }
}

export function worktreeOf(s: Session): WorktreeAttr | null {
  const v = s.attrs.get('worktree') as WorktreeAttr | undefined;
  return v && typeof v.path === 'string' ? v : null;
}

export function groupOf(s: Session): string | null {
  const g = s.attrs.get('group');
  return typeof g === 'string' && g ? g : null;
}

/** The program a harness runs as: its manifest's first argv0 or comm name, else an alias, else its id. */
export function programOf(m: Manifest): string {
  return m.detect?.argv0[0] ?? m.detect?.comm[0] ?? m.aliases[0] ?? m.id;
}


/** A harness by id, alias or program name, whose program the daemon can run. */
export async function resolveHarness(svc: Services, name: string): Promise<{ manifest: Manifest; program: string }> {
  const m = findHarness(svc.manifests, name);
  if (!m) {
    throw new TuiosError('not_found', `There is no harness "${name}".`, `Harnesses: ${svc.manifests.list.map((x) => x.id).join(', ')}.`, { field: 'harness' });
  }
  const program = programOf(m);
  if (!(await onPath(program, svc.baseEnv))) {
    throw new TuiosError('not_found', `${m.name} runs as \`${program}\`, which is not on the daemon's PATH.`, `Install ${m.name}, or start the daemon with its folder on PATH.`, { field: 'harness' });
  }
  return { manifest: m, program };
}

interface Pending {
  w: Window;
  done: Promise<FirstPrompt>;
}

/** The first prompts in flight, per daemon. */
export class FirstPrompts implements Disposable {
  private readonly pending = new Map<string, Pending>();
  private readonly ctl = new AbortController();
  /** FIRST_RUN_QUESTION_MS, or TUIOS_FIRST_RUN_QUESTION_SECONDS from the daemon's environment (tests). */
  private readonly questionMs: number;

  constructor(private readonly svc: Services) {
    const secs = Number(svc.baseEnv.TUIOS_FIRST_RUN_QUESTION_SECONDS);
    this.questionMs = Number.isFinite(secs) && secs > 0 ? secs * 1000 : FIRST_RUN_QUESTION_MS;
  }

  statusOf(w: Window): FirstPrompt | null {
    return (w.attrs.get('first_prompt') as FirstPrompt | undefined) ?? null;
  }

  /** Resolves with the outcome of a pane's first prompt (now, if it is settled). */
  outcome(w: Window): Promise<FirstPrompt> | null {
    return this.pending.get(w.id)?.done ?? null;
  }

  private record(w: Window, status: PromptStatus, reason?: string): FirstPrompt {
    const fp: FirstPrompt = { status, at: Date.now(), ...(reason ? { reason } : {}) };
    w.attrs.set('first_prompt', fp);
    this.svc.bus.publish('first-prompt', { window_id: w.id, session_id: w.sessionId, name: w.name, status, ...(reason ? { reason } : {}) });
    return fp;
  }

  /** Types `text` into `w` once its agent is ready; the outcome is recorded on the pane. */
  start(w: Window, text: string, opts: { readyWaitMs?: number } = {}): Promise<FirstPrompt> {
    const cur = this.pending.get(w.id);
    if (cur) return cur.done;
    this.record(w, 'waiting');
    const done = this.run(w, text, opts.readyWaitMs ?? READY_WAIT_MS).finally(() => this.pending.delete(w.id));
    this.pending.set(w.id, { w, done });
    return done;
  }

  private async run(w: Window, text: string, readyWaitMs: number): Promise<FirstPrompt> {
    const svc = this.svc;
    const ready = await this.waitReady(w, readyWaitMs, true);
    if (ready !== 'ready') return this.record(w, ready === 'gone' ? 'failed' : 'not_ready', ready === 'gone' ? 'the pane closed before its agent was ready' : `the agent was not ready within ${Math.round(readyWaitMs / 1000)} s`);
    this.record(w, 'typing');
    const harness0 = svc.agents.harnessOf(w);
    const recheck = () => {
      const st = svc.agents.stateOf(w);
      if (st === 'needs_input') throw new TuiosError('agent_blocked', `${w.name} turned to a prompt before Enter; nothing was submitted.`, undefined, { typed: false });
      if (!sameOccupant(harness0, svc.agents.harnessOf(w))) throw new TuiosError('conflict', `The program in ${w.name} changed before Enter; nothing was submitted.`, undefined, { typed: false });
    };
    try {
      const d = await deliverPrompt(svc, w, text, recheck);
      d.watch.dispose();
      return this.record(w, d.taken ? 'taken' : 'stalled', d.taken ? undefined : 'within 5 s the agent neither started working, asked anything, nor finished a turn');
    } catch (e) {
      return this.record(w, 'failed', e instanceof Error ? e.message : String(e));
    }
  }

  /** Waits for an agent started without a prompt to be ready (idle or done); the same 30 s question. */
  ready(w: Window, ms: number, signal?: AbortSignal): Promise<'ready' | 'timeout' | 'gone'> {
    return this.waitReady(w, ms, false, signal);
  }

  /** Waits for idle or done; opens the 30 s question while the pane rests on a screen no rule reads. */
  private waitReady(w: Window, ms: number, prompt: boolean, signal?: AbortSignal): Promise<'ready' | 'timeout' | 'gone'> {
    const svc = this.svc;
    if (readyNow(svc, w)) return Promise.resolve('ready');
    return new Promise((resolve) => {
      let question: Item | null = null;
      let qTimer: NodeJS.Timeout | null = null;
      const closeQuestion = (why: string) => {
        if (question) svc.inbox.close(question.id, why);
        question = null;
      };
      const arm = () => {
        if (qTimer) clearTimeout(qTimer);
        qTimer = setTimeout(ask, this.questionMs);
        qTimer.unref();
      };
      const ask = () => {
        qTimer = null;
        const st = svc.agents.stateOf(w);
        // needs_input has its own item (an approval or a question a rule read); a working agent
        // is not stuck. What is left: a quiet pane no rule reads (unknown), or none at all.
        if (w.closed || (st !== 'unknown' && st !== 'none')) return;
        if (question && svc.inbox.get(question.id)) return;
        question = svc.inbox.open('question', {
          windowId: w.id,
          summary: prompt
            ? `has waited ${Math.round(this.questionMs / 1000)} s at a screen tuios does not recognise (${st}); its first prompt is not typed yet. Look at the pane and answer what it asks; the prompt is typed once it is at its prompt.`
            : `has waited ${Math.round(this.questionMs / 1000)} s at a screen tuios does not recognise (${st}) since it started. Look at the pane and answer what it asks.`,
          ref: { reason: 'first_prompt_waiting' },
        });
      };
      let settled = false;
      const finish = (r: 'ready' | 'timeout' | 'gone') => {
        if (settled) return;
        settled = true;
        sub.dispose();
        closed.dispose();
        clearTimeout(deadline);
        if (qTimer) clearTimeout(qTimer);
        this.ctl.signal.removeEventListener('abort', onStop);
        signal?.removeEventListener('abort', onStop);
        closeQuestion(r === 'ready' ? 'the agent is at its prompt' : r === 'gone' ? 'pane closed' : 'stopped waiting');
        resolve(r);
      };
      const sub = svc.bus.on('agent-state', (ev) => {
        if (ev.window_id !== w.id) return;
        if (readyNow(svc, w)) finish('ready');
        else arm();
      });
      const closed = svc.bus.on('window-closed', (ev) => {
        if (ev.window_id === w.id) finish('gone');
      });
      const deadline = setTimeout(() => finish('timeout'), ms);
      deadline.unref();
      const onStop = () => finish('timeout');
      this.ctl.signal.addEventListener('abort', onStop, { once: true });
      signal?.addEventListener('abort', onStop, { once: true });
      arm();
    });
  }

  dispose(): void {
    this.ctl.abort();
  }
}

const fleets = new WeakMap<Services, FirstPrompts>();

export function firstPrompts(svc: Services): FirstPrompts {
  let f = fleets.get(svc);
  if (!f) {
    f = new FirstPrompts(svc);
    fleets.set(svc, f);
  }
  return f;
}

/**
 * Called once by the composition root: the worktree sessions' attributes persist across a
 * restart, and a pane's first prompt shows in its agent info as `prompt_status`.
 */
export function installFleet(svc: Services): Disposable {
  // pr: the pull request ship pr and ship status recorded (core/verbs/ship.ts).
  for (const key of ['group', 'worktree', 'launched_by', 'pr']) {
    svc.snapshot.registerSessionAttr(key, {
      save: (s) => s.attrs.get(key),
      restore: (s, v) => {
        if (v !== undefined && v !== null) s.attrs.set(key, v);
      },
    });
  }
  // A protocol pane keeps its protocol across a restart (its agent-proto is started again).
  svc.snapshot.registerWindowAttr('protocol', {
    save: (w) => protocolOf(w) ?? undefined,
    restore: (w, v) => {
      if (v === 'acp' || v === 'codex') w.attrs.set('protocol', v);
    },
  });
  svc.agents.addInfo((w) => {
    const fp = w.attrs.get('first_prompt') as FirstPrompt | undefined;
    const protocol = protocolOf(w);
    return { ...(fp ? { prompt_status: fp.status } : {}), ...(protocol ? { protocol } : {}) };
  });
  const f = firstPrompts(svc);
  return { dispose: () => f.dispose() };
}
