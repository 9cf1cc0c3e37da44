// Reading open pull requests again (spec: Shipping a worktree, "Cost"): while a client is attached
// and a recorded pull request is open, one `gh pr view` per open pull request once a minute, one
// gh call at a time; the record is written only when the answer changed. A merged or closed pull
// request is not read again. With no open pull request or no client there is no timer at all.
import type { Bus, Disposable } from '../bus.js';
import type { Model, Session } from '../model/model.js';
import type { Logger } from '../log.js';
import type { AttachedClients } from '../daemon/clients.js';
import { worktreeOf } from './fleet.js';
import { viewPr } from './ship.js';
import type { PullRequest } from './pr.js';

declare module '../bus.js' {
  interface EventMap {
    /** A session's recorded pull request changed (ship pr, ship status --refresh, the poller). */
    'pr-changed': { session_id: string; number: number; state: string; checks: string };
  }
}

export interface PrPollDeps {
  bus: Bus;
  model: Model;
  clients: AttachedClients;
  log: Logger;
  intervalMs: number;
}

function openPr(s: Session): PullRequest | null {
  const pr = s.attrs.get('pr') as PullRequest | undefined;
  return pr && pr.state === 'open' && worktreeOf(s) ? pr : null;
}

/** Writes a session's pull request when it changed, and says so. */
export function recordPr(bus: Bus, s: Session, pr: PullRequest): void {
  const old = s.attrs.get('pr') as PullRequest | undefined;
  const same = old && old.number === pr.number && old.state === pr.state && old.checks === pr.checks && old.url === pr.url && old.title === pr.title;
  if (same) return;
  s.attrs.set('pr', pr);
  bus.publish('pr-changed', { session_id: s.id, number: pr.number, state: pr.state, checks: pr.checks });
}

export class PrPoller implements Disposable {
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private disposed = false;
  private readonly ctl = new AbortController();
  private readonly subs: Disposable[];

  constructor(private readonly deps: PrPollDeps) {
    this.subs = [deps.clients.watch(() => this.kick()), deps.bus.on('pr-changed', () => this.kick())];
  }

  private wanted(): Session[] {
    if (this.deps.clients.count === 0) return [];
    return [...this.deps.model.sessions.values()].filter((s) => openPr(s));
  }

  /** Arms the one timer when there is something to read and someone to show it to. */
  kick(): void {
    if (this.disposed || this.timer || this.running || this.wanted().length === 0) return;
    this.timer = setTimeout(() => void this.tick(), this.deps.intervalMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    this.timer = null;
    this.running = true;
    try {
      for (const s of this.wanted()) {
        if (this.disposed) return;
        const wt = worktreeOf(s)!;
        try {
          const now = await viewPr(wt.path, wt.branch, this.ctl.signal);
          if (now && this.deps.model.sessions.has(s.id)) recordPr(this.deps.bus, s, now);
        } catch (e) {
          this.deps.log.debug('pull request not read', { session: s.id, error: e instanceof Error ? e.message : String(e) });
        }
      }
    } finally {
      this.running = false;
    }
    this.kick();
  }

  /** True while the timer is armed (tests and server-info read it). */
  get armed(): boolean {
    return this.timer !== null;
  }

  dispose(): void {
    this.disposed = true;
    this.ctl.abort();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (const s of this.subs) s.dispose();
  }
}
