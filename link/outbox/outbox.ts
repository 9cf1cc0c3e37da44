// Mail waiting for one linked host, on disk (spec: Mail waiting for another machine): in the order
// it was sent, at most LINK_OUTBOX_PER_HOST, kept across restarts, and the messages that host
// refused, with their reason, until the person dismisses them. One file per host under the state
// folder, written atomically (0600 in a 0700 folder) on every change; a file that does not read
// is set aside, never silently emptied.
import { existsSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { readJson, writeJsonAtomic } from '../../core/store/atomic.js';
import { TuiosError } from '../../core/errors.js';
import type { Logger } from '../../core/log.js';
import type { OutgoingMail } from '../../core/hosts/remote.js';
import { LINK_OUTBOX_PER_HOST, LINK_REFUSALS_KEPT } from '../../core/limits.js';

export interface OutboxEntry extends OutgoingMail {
  /** Unique per message: the receiver answers a resend without delivering it twice. */
  id: string;
  queued_at: number;
}

export interface Refusal {
  id: string;
  to: string;
  code: string;
  reason: string;
  at: number;
}

interface FileShape {
  version: 1;
  entries: OutboxEntry[];
  refused: Refusal[];
}

function isEntry(v: unknown): v is OutboxEntry {
  const e = v as OutboxEntry;
  return !!e && typeof e.id === 'string' && typeof e.to_session === 'string' && typeof e.body === 'string' && typeof e.from === 'string';
}

export class Outbox {
  private entries: OutboxEntry[] = [];
  private refused: Refusal[] = [];
  readonly file: string;

  constructor(
    dir: string,
    readonly host: string,
    private readonly log: Logger,
  ) {
    this.file = join(dir, `${host}.json`);
    this.load();
  }

  private load(): void {
    if (!existsSync(this.file)) return;
    try {
      const v = readJson(this.file) as Partial<FileShape> | null;
      this.entries = Array.isArray(v?.entries) ? v.entries.filter(isEntry).slice(0, LINK_OUTBOX_PER_HOST) : [];
      this.refused = Array.isArray(v?.refused) ? v.refused.slice(-LINK_REFUSALS_KEPT) : [];
    } catch (e) {
      const aside = `${this.file}.unreadable-${Date.now()}`;
      try {
        renameSync(this.file, aside);
      } catch {
        // left in place; the next save replaces it
      }
      this.log.warn('link outbox did not read; set aside', { host: this.host, file: aside, error: e instanceof Error ? e.message : String(e) });
    }
  }

  private save(): void {
    const shape: FileShape = { version: 1, entries: this.entries, refused: this.refused };
    try {
      writeJsonAtomic(this.file, shape);
    } catch (e) {
      // A full disk must not take the daemon down; what waits is still held in memory.
      this.log.error('link outbox not saved', { host: this.host, error: e instanceof Error ? e.message : String(e) });
    }
  }

  get size(): number {
    return this.entries.length;
  }

  head(): OutboxEntry | undefined {
    return this.entries[0];
  }

  list(): readonly OutboxEntry[] {
    return this.entries;
  }

  refusals(): readonly Refusal[] {
    return this.refused;
  }

  add(m: OutgoingMail): OutboxEntry {
    if (this.entries.length >= LINK_OUTBOX_PER_HOST) {
      throw new TuiosError('queue_full', `${LINK_OUTBOX_PER_HOST} messages already wait for ${this.host}.`, `They go when the link to ${this.host} is back; tuios hosts ls shows it. Dismissing its Waiting to send row discards them.`);
    }
    const e: OutboxEntry = { ...m, id: `${Date.now().toString(36)}-${randomBytes(6).toString('hex')}`, queued_at: Date.now() };
    this.entries.push(e);
    this.save();
    return e;
  }

  /** The host took it (or refused it): it leaves the queue. */
  remove(id: string): void {
    const n = this.entries.length;
    this.entries = this.entries.filter((e) => e.id !== id);
    if (this.entries.length !== n) this.save();
  }

  refuse(e: OutboxEntry, code: string, reason: string): Refusal {
    const r: Refusal = { id: e.id, to: e.to_window ? `${e.to_session}:${e.to_window}` : e.to_session, code, reason, at: Date.now() };
    this.entries = this.entries.filter((x) => x.id !== e.id);
    this.refused.push(r);
    if (this.refused.length > LINK_REFUSALS_KEPT) this.refused.splice(0, this.refused.length - LINK_REFUSALS_KEPT);
    this.save();
    return r;
  }

  forgetRefusal(id: string): void {
    this.refused = this.refused.filter((r) => r.id !== id);
    this.save();
  }

  /** The person discarded what waits (`d` on the Waiting to send row). */
  discardAll(): number {
    const n = this.entries.length;
    this.entries = [];
    this.save();
    return n;
  }
}
