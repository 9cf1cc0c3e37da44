// Who can act as the person (spec: Who can act as the person). The daemon issues a nonce to a
// client at attach, in the attach reply only: never in an environment, a screen or a log. An act
// as the person verifies only with a live nonce, from a caller outside every pane, and where the
// kernel gave both pids, from the very process that attached.
import { timingSafeEqual } from 'node:crypto';
import { newToken } from '../ids.js';
import { TuiosError } from '../errors.js';
import type { Caller, Placement } from '../rpc/caller.js';

export interface AttachedClient {
  id: number;
  nonce: string;
  /** The attaching process, as the kernel named it (null for a client built into the daemon). */
  pid: number | null;
  connId: number;
  channel: Caller['channel'];
  attachedAt: number;
  /** The session it shows (for focus, popups and pushes). */
  sessionId: string | null;
}

export class PersonRegistry {
  private next = 1;
  private readonly clients = new Map<number, AttachedClient>();

  /**
   * Registers an attached client; the nonce is given only to a caller outside every pane, and
   * never to a read-only one (an observe key): an observer acts as nobody, and reads as a peek.
   */
  attach(caller: Caller, placement: Placement, sessionId: string | null): AttachedClient & { inside: boolean } {
    const inside = placement.kind !== 'outside';
    const c: AttachedClient = { id: this.next++, nonce: inside || caller.readOnly ? '' : newToken(), pid: caller.pid, connId: caller.connId, channel: caller.channel, attachedAt: Date.now(), sessionId };
    this.clients.set(c.id, c);
    return { ...c, inside };
  }

  detach(id: number): void {
    this.clients.delete(id);
  }

  list(): AttachedClient[] {
    return [...this.clients.values()];
  }

  get attachedCount(): number {
    return this.clients.size;
  }

  /** The client a nonce belongs to, or null; compared in constant time. */
  private byNonce(nonce: string): AttachedClient | null {
    const b = Buffer.from(nonce);
    for (const c of this.clients.values()) {
      if (!c.nonce) continue;
      const a = Buffer.from(c.nonce);
      if (a.length === b.length && timingSafeEqual(a, b)) return c;
    }
    return null;
  }

  /**
   * The check every act as the person runs. Throws not_human with the reason, or returns the
   * client. `what` names the act for the message.
   */
  verify(caller: Caller, placement: Placement, nonce: string | undefined, what: string): AttachedClient {
    if (caller.channel === 'link') {
      // The nonce was checked on the host the call came from; the link vouches only then, and
      // only on a link whose [hosts] policy here gives respond.
      if (caller.vouched) return { id: 0, nonce: '', pid: null, connId: caller.connId, channel: 'link', attachedAt: Date.now(), sessionId: null };
      throw new TuiosError('not_human', `${what} is refused: the linked host ${caller.host ?? '?'} does not vouch for the person, or may not act as the person here.`, 'The person answers from a client attached on this machine, or [hosts.NAME] respond = true lets a linked host answer.');
    }
    if (placement.kind !== 'outside') {
      throw new TuiosError('not_human', `${what} is refused: the caller runs inside a tuios pane, and only the person may do this.`, 'Answer from your attached client (the Inbox), not from a pane.');
    }
    if (!nonce) {
      throw new TuiosError('not_human', `${what} needs the attach nonce of a client attached right now.`, 'Do it from the Inbox of your attached client.');
    }
    const c = this.byNonce(nonce);
    if (!c) throw new TuiosError('not_human', `${what} is refused: the nonce belongs to no client attached now.`, 'Attach again and do it from the Inbox.');
    // A nonce copied out of the person's client into another process does not verify.
    if (c.pid !== null && caller.pid !== null && c.pid !== caller.pid) {
      throw new TuiosError('not_human', `${what} is refused: the nonce was issued to another process.`, 'Only the attached client itself may use its nonce.');
    }
    if (c.pid !== null && caller.pid === null && caller.channel !== 'tui') {
      throw new TuiosError('not_human', `${what} is refused: the kernel did not name the caller.`);
    }
    return c;
  }

  /** True when the nonce verifies (no throw): for acts that fall back (a read becomes a peek). */
  verifies(caller: Caller, placement: Placement, nonce: string | undefined): boolean {
    try {
      this.verify(caller, placement, nonce, 'it');
      return true;
    } catch {
      return false;
    }
  }
}
