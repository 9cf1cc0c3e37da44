// The after-agent-state hook: a command from config.toml run on every published transition, with
// what changed in its environment. Bounded in time and in concurrency, and never on the daemon's
// path: a slow or hung hook is killed, a burst past the queue drops the oldest and says so.
import { spawn } from 'node:child_process';
import type { Bus, Disposable } from '../bus.js';
import type { Logger } from '../log.js';
import type { Model } from '../model/model.js';
import type { AgentStateEvent } from '../agent-state/store.js';
import { AFTER_STATE_HOOK_CONCURRENCY, AFTER_STATE_HOOK_QUEUE_MAX } from '../limits.js';

export interface HookConfig {
  /** A shell command line (run with /bin/sh -c), or an argv. Unset: no hook. */
  command: string | string[] | null;
  timeoutMs: number;
}

export class AfterStateHook implements Disposable {
  private running = 0;
  private queue: Array<Record<string, string>> = [];
  private readonly sub: Disposable;

  constructor(
    bus: Bus,
    private readonly model: Model,
    private readonly log: Logger,
    private readonly config: () => HookConfig,
    private readonly baseEnv: Record<string, string | undefined>,
  ) {
    this.sub = bus.on('agent-state', (ev) => this.onEvent(ev));
  }

  private onEvent(ev: AgentStateEvent): void {
    if (!this.config().command) return;
    const session = this.model.sessions.get(ev.session_id);
    const env: Record<string, string> = {
      TUIOS_HOOK: 'after-agent-state',
      TUIOS_WINDOW_ID: ev.window_id,
      TUIOS_WINDOW_NAME: ev.name,
      TUIOS_SESSION: session?.name ?? '',
      TUIOS_SESSION_ID: ev.session_id,
      TUIOS_HARNESS: ev.harness ?? '',
      TUIOS_OLD_STATE: ev.old_state,
      TUIOS_NEW_STATE: ev.state,
      TUIOS_STATE: ev.state,
      TUIOS_KIND: ev.kind,
      TUIOS_MESSAGE: ev.message,
      TUIOS_SOURCE: ev.source ?? '',
      TUIOS_COMPLETION_SEQ: String(ev.completion_seq),
    };
    if (this.queue.length >= AFTER_STATE_HOOK_QUEUE_MAX) {
      this.queue.shift();
      this.log.warn('after-agent-state hook queue full; the oldest transition was dropped', { limit: AFTER_STATE_HOOK_QUEUE_MAX });
    }
    this.queue.push(env);
    this.pump();
  }

  private pump(): void {
    while (this.running < AFTER_STATE_HOOK_CONCURRENCY && this.queue.length > 0) this.run(this.queue.shift()!);
  }

  private run(vars: Record<string, string>): void {
    const cfg = this.config();
    const cmd = cfg.command;
    if (!cmd) return;
    const [file, args] = typeof cmd === 'string' ? ['/bin/sh', ['-c', cmd]] : [cmd[0]!, cmd.slice(1)];
    this.running++;
    let child;
    try {
      child = spawn(file, args, { env: { ...this.baseEnv, ...vars }, stdio: 'ignore', detached: true });
    } catch (e) {
      this.running--;
      this.log.warn('after-agent-state hook did not start', { error: String(e) });
      return;
    }
    const started = Date.now();
    const timer = setTimeout(() => {
      this.log.warn('after-agent-state hook ran too long and was killed', { timeout_ms: cfg.timeoutMs });
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, cfg.timeoutMs);
    let ended = false;
    const done = (code: number | null, err?: Error) => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      this.running--;
      if (err) this.log.warn('after-agent-state hook failed', { error: err.message });
      else if (code !== 0) this.log.info('after-agent-state hook exited non-zero', { code, ms: Date.now() - started });
      this.pump();
    };
    child.once('error', (e) => done(null, e));
    child.once('exit', (code) => done(code));
  }

  dispose(): void {
    this.sub.dispose();
    this.queue = [];
  }
}
