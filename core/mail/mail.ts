// Mail between agents and the person (spec: Agents talking to agents). Mailboxes live in memory,
// 256 messages per session (and 256 for the person), and die with the daemon. `from` is a claim;
// who really sent a message (a pane, a shell, the person with a verified nonce) is the daemon's
// reading of the connection, kept beside it.
import type { Bus, Disposable } from '../bus.js';
import type { Inbox } from '../inbox/inbox.js';
import { cleanName, cleanUntrusted } from './fence.js';
import { MAIL_RATE_BURST, MAIL_RATE_PER_SEC, MAILBOX_MAX, SUBJECT_MAX } from '../limits.js';

/** Re-exported for core/verbs/mail.ts until the verb records land; the limit is core/limits.ts's. */

export type SenderKind = 'pane' | 'shell' | 'human' | 'link';

export interface Message {
  id: number;
  thread: number;
  /** The recipient: a pane's window id, or 'human'. */
  to: string;
  to_session_id: string | null;
  /** The name the sender claimed. */
  from: string;
  /** What the daemon knows: the sending pane's window id when a pane sent it. */
  from_pane: string | null;
  from_kind: SenderKind;
  verified_human: boolean;
  claimed_human: boolean;
  subject: string;
  body: string;
  at: number;
  read: boolean;
  reply_to: number | null;
  /** Whether the recipient has been told (a hook notice or a wake line): the wake's mark. */
  announced: boolean;
  /** The linked host it came from (mail from another machine). */
  host?: string;
  /** Mail a linked host sent an agent here, held for the person ([hosts] hold_mail): the agent it was for. */
  held_for?: { window_id: string; name: string };
  /** A held message the person passed on: the id of the held one. */
  released_from?: number;
}

declare module '../bus.js' {
  interface EventMap {
    mail: { op: 'new' | 'read'; message_id: number; to: string; to_session_id: string | null; from: string; thread: number };
  }
}

interface Bucket {
  tokens: number;
  at: number;
}

export class MailStore implements Disposable {
  private nextId = 1;
  private nextThread = 1;
  /** By recipient session id ('human' for the person's mailbox). */
  private readonly boxes = new Map<string, Message[]>();
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly bus: Bus,
    private readonly inbox: Inbox,
  ) {}

  /** Spends one from a sender's budget; false when it is empty (rate_limited). */
  allow(sender: string): boolean {
    const now = Date.now();
    const b = this.buckets.get(sender) ?? { tokens: MAIL_RATE_BURST, at: now };
    b.tokens = Math.min(MAIL_RATE_BURST, b.tokens + ((now - b.at) / 1000) * MAIL_RATE_PER_SEC);
    b.at = now;
    this.buckets.set(sender, b);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    if (this.buckets.size > 4096) this.buckets.delete(this.buckets.keys().next().value!);
    return true;
  }

  private box(key: string): Message[] {
    let b = this.boxes.get(key);
    if (!b) {
      b = [];
      this.boxes.set(key, b);
    }
    return b;
  }

  find(id: number): Message | undefined {
    for (const b of this.boxes.values()) {
      const m = b.find((x) => x.id === id);
      if (m) return m;
    }
    return undefined;
  }

  send(m: Omit<Message, 'id' | 'thread' | 'at' | 'read' | 'announced' | 'body' | 'subject' | 'from'> & { body: string; subject?: string; from: string }): Message {
    const parent = m.reply_to !== null ? this.find(m.reply_to) : undefined;
    const msg: Message = {
      ...m,
      from: cleanName(m.from),
      subject: cleanName(m.subject ?? '', SUBJECT_MAX).replace(/^\(no name\)$/, ''),
      body: cleanUntrusted(m.body),
      id: this.nextId++,
      thread: parent ? parent.thread : this.nextThread++,
      at: Date.now(),
      read: false,
      announced: false,
    };
    const key = msg.to === 'human' ? 'human' : (msg.to_session_id ?? 'none');
    const b = this.box(key);
    b.push(msg);
    while (b.length > MAILBOX_MAX) {
      // The oldest read message goes first, else the oldest.
      const i = b.findIndex((x) => x.read);
      const [gone] = b.splice(i >= 0 ? i : 0, 1);
      if (gone && gone.to === 'human') this.inbox.closeWhere((it) => (it.kind === 'mail' || it.kind === 'held') && it.ref.message_id === gone.id, 'dropped from a full mailbox');
    }
    if (msg.to === 'human' && msg.held_for) {
      // Said in words, so the person knows the agent has not seen it (spec: Mail held from another machine).
      this.inbox.open('held', { windowId: null, summary: `[held for ${msg.held_for.name}, p passes on] ${msg.from}: ${msg.subject || msg.body.split('\n')[0]}`, ref: { message_id: msg.id, thread: msg.thread, held_for: msg.held_for.window_id, ...(msg.host ? { from_host: msg.host } : {}) } });
    } else if (msg.to === 'human') {
      this.inbox.open('mail', { windowId: msg.from_pane, summary: `${msg.from}: ${msg.subject || msg.body.split('\n')[0]}`, ref: { message_id: msg.id, thread: msg.thread, ...(msg.host ? { from_host: msg.host } : {}) } });
    }
    this.bus.publish('mail', { op: 'new', message_id: msg.id, to: msg.to, to_session_id: msg.to_session_id, from: msg.from, thread: msg.thread });
    return msg;
  }

  /** A recipient's messages, oldest first. */
  messagesFor(to: string, sessionId: string | null, opts: { unread?: boolean; thread?: number } = {}): Message[] {
    const key = to === 'human' ? 'human' : (sessionId ?? 'none');
    return (this.boxes.get(key) ?? []).filter((m) => m.to === to && (!opts.unread || !m.read) && (opts.thread === undefined || m.thread === opts.thread));
  }

  markRead(msgs: Message[]): void {
    for (const m of msgs) {
      if (m.read) continue;
      m.read = true;
      m.announced = true;
      if (m.to === 'human') this.inbox.closeWhere((i) => (i.kind === 'mail' || i.kind === 'held') && i.ref.message_id === m.id, 'read');
      this.bus.publish('mail', { op: 'read', message_id: m.id, to: m.to, to_session_id: m.to_session_id, from: m.from, thread: m.thread });
    }
  }

  /** Unread and unannounced mail of a pane: what a wake line counts. */
  unannounced(windowId: string, sessionId: string): Message[] {
    return this.messagesFor(windowId, sessionId, { unread: true }).filter((m) => !m.announced);
  }

  /** Drops a session's mailbox (the session ended). */
  dropSession(sessionId: string): void {
    this.boxes.delete(sessionId);
  }

  dispose(): void {
    this.boxes.clear();
  }
}
