// The after-agent-state hook: a command from config.toml run on every published transition, with
// what changed in its environment. Bounded in time and in concurrency, and never on the daemon's
// path: a slow or hung hook is killed, a burst past the queue drops the oldest and says so.
// With `[hooks] after_agent_state_on = "alerts"` it runs only for what the alert policy selects
// ([notifications.agent]: the states, after the settle window, outside quiet hours), which is
// how a phone gets one push per item with nobody attached (docs/alerts.md).
import { spawn } from 'node:child_process';
import type { Bus, Disposable } from '../bus.js';
import type { Logger } from '../log.js';
import type { Model } from '../model/model.js';
import type { AgentStateEvent } from '../agent-state/store.js';
import { AFTER_STATE_HOOK_CONCURRENCY, AFTER_STATE_HOOK_QUEUE_MAX } from '../limits.js';
import { decide, escapeText, transitionAlerts } from '../alerts/policy.js';
import { Settler } from '../alerts/settle.js';
import { alertLine } from '../alerts/text.js';
import type { Notifications } from '../alerts/config-schema.js';
import type { HostAgentStateEvent } from '../hosts/remote.js';

export interface HookConfig {
  /** A shell command line (run with /bin/sh -c), or an argv. Unset: no hook. */
  command: string | string[] | null;
  timeoutMs: number;
  /** all: every transition; alerts: only those the alert policy selects (default all). */
  on?: 'all' | 'alerts';
  /** The alert policy (TUIOS_ALERT, and the selection under on = alerts). */
  notifications?: Notifications;
  /** Clients attached now (TUIOS_CLIENTS: a push recipe skips when someone is looking). */
  clients?: number;
}

export class AfterStateHook implements Disposable {
  private running = 0;
  private queue: Array<Record<string, string>> = [];
  private readonly sub: Disposable;
  private readonly hostSub: Disposable;
  private readonly settling = new Settler();

  constructor(
    bus: Bus,
    private readonly model: Model,
    private readonly log: Logger,
    private readonly config: () => HookConfig,
    private readonly baseEnv: Record<string, string | undefined>,
  ) {
    this.sub = bus.on('agent-state', (ev) => this.onEvent(ev));
    this.hostSub = bus.on('host-agent-state', (ev) => this.onHostEvent(ev));
  }

  /**
   * A linked host's agent, with `[notifications.agent] hosts = true` (on a hub: one push per item
   * for the fleet). Its environment names the host (TUIOS_HOST) and that host's ids; the policy
   * and the settle window are the same, and an answer there (a later state) cancels a settling run.
   */
  private onHostEvent(ev: HostAgentStateEvent): void {
    const cfg = this.config();
    if (!cfg.command || !cfg.notifications?.agent.hosts) return;
    const key = `host:${ev.host}:${ev.window_id}`;
    const d = !ev.gone && transitionAlerts(ev.state, ev.old_state) ? decide(cfg.notifications, { kind: ev.state }, new Date()) : null;
    const alert = !!d && !d.quiet;
    const env = (): Record<string, string> => ({
      TUIOS_HOOK: 'after-agent-state',
      TUIOS_HOST: ev.host,
      TUIOS_WINDOW_ID: ev.window_id,
      TUIOS_WINDOW_NAME: ev.name,
      TUIOS_SESSION: ev.session,
      TUIOS_SESSION_ID: '',
      TUIOS_HARNESS: ev.harness ?? '',
      TUIOS_OLD_STATE: ev.old_state,
      TUIOS_NEW_STATE: ev.gone ? 'none' : ev.state,
      TUIOS_STATE: ev.gone ? 'none' : ev.state,
      TUIOS_KIND: ev.kind,
      TUIOS_MESSAGE: ev.message,
      TUIOS_SOURCE: 'host',
      TUIOS_COMPLETION_SEQ: '',
      TUIOS_ALERT: alert ? '1' : '0',
      TUIOS_ALERT_TEXT: escapeText(alertLine(`${ev.host}:${ev.session}`, ev.harness ?? ev.name, ev.state === 'needs_input' && (ev.kind === 'approval' || ev.kind === 'question') ? ev.kind : ev.state, ev.message)),
      TUIOS_CLIENTS: String(this.config().clients ?? 0),
    });
    if (cfg.on !== 'alerts') {
      if (ev.state !== ev.old_state || ev.gone) this.push(env());
      return;
    }
    if (!alert) {
      if (ev.state !== ev.old_state || ev.gone) this.settling.cancel(key);
      return;
    }
    this.settling.hold(key, d.settleMs, () => this.push(env()));
  }

  private onEvent(ev: AgentStateEvent): void {
    const cfg = this.config();
    if (!cfg.command) return;
    const d = cfg.notifications && transitionAlerts(ev.state, ev.old_state) ? decide(cfg.notifications, { kind: ev.state }, new Date()) : null;
    const alert = !!d && !d.quiet;
    if (cfg.on !== 'alerts') return this.enqueue(ev, alert);
    // Under "alerts": a pane that leaves the state within the settle window runs nothing.
    if (!alert) {
      if (ev.state !== ev.old_state) this.settling.cancel(ev.window_id);
      return;
    }
    this.settling.hold(ev.window_id, d.settleMs, () => this.enqueue(ev, true));
  }

  private enqueue(ev: AgentStateEvent, alert: boolean): void {
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
      TUIOS_ALERT: alert ? '1' : '0',
      TUIOS_ALERT_TEXT: escapeText(alertLine(session?.name ?? '', ev.harness ?? ev.name, ev.state === 'needs_input' && (ev.kind === 'approval' || ev.kind === 'question') ? ev.kind : ev.state, ev.message)),
      TUIOS_CLIENTS: String(this.config().clients ?? 0),
    };
    this.push(env);
  }

  /** Queues one run; past the bound the oldest waiting run is dropped, and said. */
  private push(env: Record<string, string>): void {
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
    this.hostSub.dispose();
    this.settling.dispose();
    this.queue = [];
  }
}
