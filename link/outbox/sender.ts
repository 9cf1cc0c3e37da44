// Sends one host's waiting mail, one message at a time so nothing overtakes anything: the head
// goes as soon as the link is up; an answer takes it off the queue (delivered, or refused with a
// reason); no answer within LINK_SEND_TIMEOUT_MS leaves it at the head and it is tried again
// after 1 s, doubling to 30 s, while the link stays up, and at once when the link comes back.
import type { Bodies } from '../codec/schema.js';
import type { Logger } from '../../core/log.js';
import type { Outbox, OutboxEntry, Refusal } from './outbox.js';
import { LINK_RETRY_FIRST_MS, LINK_RETRY_MAX_MS, LINK_SEND_TIMEOUT_MS } from '../../core/limits.js';

type Ack = Bodies['MailAck'];

export interface SenderLink {
  up(): boolean;
  /** Sends the Mail frame; false when it did not go. */
  send(e: OutboxEntry): boolean;
}

export interface SenderEvents {
  changed(): void;
  refused(r: Refusal): void;
}

export class OutboxSender {
  private inflight: { id: string; timer: NodeJS.Timeout } | null = null;
  private retry: NodeJS.Timeout | null = null;
  private backoff = LINK_RETRY_FIRST_MS;
  private readonly waiters = new Map<string, Array<(a: Ack | null) => void>>();
  private disposed = false;

  constructor(
    readonly outbox: Outbox,
    private readonly link: SenderLink,
    private readonly events: SenderEvents,
    private readonly log: Logger,
  ) {}

  /** Queues a message and tries it at once when it is first in line. */
  add(e: Parameters<Outbox['add']>[0]): OutboxEntry {
    const entry = this.outbox.add(e);
    this.events.changed();
    this.pump();
    return entry;
  }

  /** Resolves with the host's answer, or null when none came within `ms` (the message still waits). */
  waitFor(id: string, ms: number, signal: AbortSignal): Promise<Ack | null> {
    return new Promise((resolve) => {
      let done = false;
      const finish = (a: Ack | null) => {
        if (done) return;
        done = true;
        clearTimeout(t);
        const list = this.waiters.get(id)?.filter((f) => f !== finish) ?? [];
        if (list.length) this.waiters.set(id, list);
        else this.waiters.delete(id);
        resolve(a);
      };
      const t = setTimeout(() => finish(null), ms);
      signal.addEventListener('abort', () => finish(null), { once: true });
      this.waiters.set(id, [...(this.waiters.get(id) ?? []), finish]);
    });
  }

  pump(): void {
    if (this.disposed || this.inflight || this.retry || !this.link.up()) return;
    const e = this.outbox.head();
    if (!e) return;
    if (!this.link.send(e)) {
      this.schedule();
      return;
    }
    const timer = setTimeout(() => {
      this.inflight = null;
      this.log.info('link mail not answered in time; it waits', { host: this.outbox.host, ms: LINK_SEND_TIMEOUT_MS });
      this.schedule();
    }, LINK_SEND_TIMEOUT_MS);
    timer.unref();
    this.inflight = { id: e.id, timer };
  }

  private schedule(): void {
    if (this.retry || this.disposed) return;
    const wait = this.backoff;
    this.backoff = Math.min(this.backoff * 2, LINK_RETRY_MAX_MS);
    this.retry = setTimeout(() => {
      this.retry = null;
      this.pump();
    }, wait);
    this.retry.unref();
  }

  onAck(a: Ack): void {
    const e = this.outbox.list().find((x) => x.id === a.id);
    if (this.inflight?.id === a.id) {
      clearTimeout(this.inflight.timer);
      this.inflight = null;
    }
    if (e) {
      if (a.ok) this.outbox.remove(e.id);
      else {
        const r = this.outbox.refuse(e, a.code, a.message);
        this.log.info('link mail refused by the host', { host: this.outbox.host, code: a.code });
        this.events.refused(r);
      }
      this.events.changed();
    }
    for (const f of this.waiters.get(a.id) ?? []) f(a);
    this.backoff = LINK_RETRY_FIRST_MS;
    this.pump();
  }

  /** The link came up: what waits goes at once. */
  linkUp(): void {
    this.clearTimers();
    this.backoff = LINK_RETRY_FIRST_MS;
    this.pump();
  }

  /** The link dropped: the message in flight stays at the head, to go again when it is back. */
  linkDown(): void {
    this.clearTimers();
  }

  discardAll(): number {
    this.clearTimers();
    const n = this.outbox.discardAll();
    this.events.changed();
    return n;
  }

  private clearTimers(): void {
    if (this.inflight) clearTimeout(this.inflight.timer);
    this.inflight = null;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
  }

  dispose(): void {
    this.disposed = true;
    this.clearTimers();
    for (const list of this.waiters.values()) for (const f of list) f(null);
    this.waiters.clear();
  }
}
