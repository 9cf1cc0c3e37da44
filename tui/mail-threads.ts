// The mailbox's pure part (spec: In the mailbox): messages as read-agent-messages returns them,
// checked field by field, grouped into threads, and each thread as the lines the view draws. A
// body is data: cleaned, inside the fence the CLI prints, every line behind the gutter, cut to
// the width, so nothing an agent writes can draw a fake close or a line of tuios's own.
import { fence } from '../core/mail/fence.js';
import type { Message } from '../core/mail/mail.js';
import { shortId } from '../core/ids.js';
import { age, charWidth, clean, fit } from './text.js';

/**
 * A message as read-agent-messages returns it (core/mail's Message, the fields drawn here);
 * `from_kind` stays a plain string and `host` is added for mail carried from a linked host.
 */
export type MailMessage = Pick<Message, 'id' | 'thread' | 'to' | 'from' | 'from_pane' | 'verified_human' | 'claimed_human' | 'subject' | 'body' | 'at' | 'read' | 'reply_to'> & {
  from_kind: string;
  host: string | null;
};

export interface Thread {
  id: number;
  /** Oldest first. */
  messages: MailMessage[];
  /** Messages to you nobody has read. */
  unread: number;
  /** When the newest message came. */
  last: number;
}

/** Resolves a pane's window id to its name, or null when the pane is gone. */
export type PaneName = (windowId: string) => string | null;

const str = (v: unknown, d = ''): string => (typeof v === 'string' ? v : d);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** The messages of a read-agent-messages result; anything malformed is left out. */
export function parseMessages(value: unknown): MailMessage[] {
  const list = value && typeof value === 'object' ? (value as { messages?: unknown }).messages : undefined;
  if (!Array.isArray(list)) return [];
  const out: MailMessage[] = [];
  for (const raw of list) {
    if (!raw || typeof raw !== 'object') continue;
    const m = raw as Record<string, unknown>;
    const id = num(m.id);
    const thread = num(m.thread);
    if (id === null || thread === null || typeof m.to !== 'string') continue;
    out.push({
      id,
      thread,
      to: m.to,
      from: str(m.from, '(no name)'),
      from_pane: typeof m.from_pane === 'string' ? m.from_pane : null,
      from_kind: str(m.from_kind, 'shell'),
      verified_human: m.verified_human === true,
      claimed_human: m.claimed_human === true,
      subject: str(m.subject),
      body: str(m.body),
      at: num(m.at) ?? 0,
      read: m.read === true,
      reply_to: num(m.reply_to),
      host: typeof m.host === 'string' ? m.host : null,
    });
  }
  return out;
}

/** Every thread the messages make, newest activity first; a message seen twice counts once. */
export function threadsOf(msgs: MailMessage[]): Thread[] {
  const seen = new Set<number>();
  const by = new Map<number, MailMessage[]>();
  for (const m of msgs) {
    if (seen.has(m.id)) continue;
    seen.add(m.id);
    let t = by.get(m.thread);
    if (!t) by.set(m.thread, (t = []));
    t.push(m);
  }
  const out: Thread[] = [];
  for (const [id, list] of by) {
    list.sort((a, b) => a.id - b.id);
    out.push({ id, messages: list, unread: list.filter((m) => m.to === 'human' && !m.read).length, last: Math.max(...list.map((m) => m.at)) });
  }
  return out.sort((a, b) => b.last - a.last || b.id - a.id);
}

/** A name that reads as the person's, on something that is not the person. */
function looksLikePerson(name: string): boolean {
  return /^(you|human)$/i.test(name.trim());
}

/** Who sent it, as the mailbox names them: `you` only for the person, verified. */
export function senderName(m: MailMessage): string {
  if (m.from_kind === 'human' && m.verified_human) return 'you';
  const name = clean(m.from).trim() || '(no name)';
  if (m.from_pane) return looksLikePerson(name) ? `${name} (${shortId(m.from_pane)})` : name;
  if (looksLikePerson(name) || m.claimed_human) return `${name} (claimed)`;
  return m.host ? `${name} on ${clean(m.host)}` : name;
}

/** Who it went to: `you`, or the pane by its name (with its short id when the name reads as you). */
export function recipientName(m: MailMessage, paneName: PaneName): string {
  if (m.to === 'human') return 'you';
  const name = clean(paneName(m.to) ?? '').trim();
  if (!name) return `${shortId(m.to)} (gone)`;
  return looksLikePerson(name) ? `${name} (${shortId(m.to)})` : name;
}

/** The thread's subject: the first message's, else the first line of its body. */
export function threadSubject(t: Thread): string {
  const first = t.messages[0];
  if (!first) return '';
  return clean(first.subject || first.body.split('\n').find((l) => l.trim()) || '').trim();
}

/** Who wrote to whom, in words: `docs to you`. */
export function threadWho(t: Thread, paneName: PaneName): string {
  const first = t.messages[0];
  return first ? `${senderName(first)} to ${recipientName(first, paneName)}` : '';
}

/** The pane a reply from you goes to, and the message it answers: the last other party who is a pane. */
export function replyTarget(t: Thread): { window: string; replyTo: number } | null {
  const last = t.messages[t.messages.length - 1];
  if (!last) return null;
  for (let i = t.messages.length - 1; i >= 0; i--) {
    const m = t.messages[i]!;
    if (m.from_kind === 'pane' && m.from_pane) return { window: m.from_pane, replyTo: last.id };
    if (m.from_kind === 'human' && m.to !== 'human') return { window: m.to, replyTo: last.id };
  }
  return null;
}

export type LineRole = 'head' | 'fence' | 'body' | 'muted';

/** Cuts one line into pieces of at most `width` cells (a body line longer than the view wraps). */
function wrap(s: string, width: number): string[] {
  if (width <= 0) return [''];
  const out: string[] = [];
  let cur = '';
  let w = 0;
  for (const ch of s) {
    const cw = charWidth(ch.codePointAt(0)!);
    if (w + cw > width) {
      out.push(cur);
      cur = '';
      w = 0;
    }
    cur += ch;
    w += cw;
  }
  out.push(cur);
  return out;
}

/**
 * A thread as lines `width` cells wide: per message, who wrote to whom and when, then its body in
 * the fence, every body line (each wrapped piece too) behind the gutter.
 */
export function threadLines(t: Thread, width: number, ascii: boolean, paneName: PaneName, now: number): Array<{ text: string; role: LineRole }> {
  const gutter = ascii ? '| ' : '│ ';
  const out: Array<{ text: string; role: LineRole }> = [];
  for (const m of t.messages) {
    const who = senderName(m);
    const facts = [`${who} to ${recipientName(m, paneName)}`, `${age(Math.max(0, now - m.at))} ago`];
    if (m.from_kind === 'human' && m.verified_human) facts.push('signed');
    else if (m.claimed_human) facts.push('claimed human, not verified');
    if (m.to === 'human' && !m.read) facts.push('unread');
    if (m.subject) facts.push(clean(m.subject));
    out.push({ text: fit(facts.join(' · '), width, ascii), role: 'head' });
    const fenced = fence(who, m.body, ascii).split('\n');
    const last = fenced.length - 1;
    fenced.forEach((l, i) => {
      if (i === 0 || i === last) {
        out.push({ text: fit(l, width, ascii), role: 'fence' });
        return;
      }
      // Tabs and anything left that a terminal would act on are drawn as spaces.
      const body = clean(l.slice(gutter.length));
      for (const piece of wrap(body, Math.max(1, width - gutter.length))) out.push({ text: gutter + piece, role: 'body' });
    });
    out.push({ text: '', role: 'muted' });
  }
  return out;
}
