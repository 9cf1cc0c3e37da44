// The mailbox (spec: In the mailbox; `m` in the agents view): every thread this client may see,
// the ones between agents too, a thread with each body in the fence, `r` to reply in it and `n`
// to start one to an agent of this session. It reads with read-agent-messages and writes with
// send-agent-message over the client's own connection; only opening a thread, as the person with
// the nonce, marks your mail read. Everything else only looks.
import type { Canvas } from './canvas.js';
import { attr, roleAttr, A_BOLD, A_INVERSE, PLAIN } from './canvas.js';
import type { Rect } from './pane-draw.js';
import type { Token } from './keys.js';
import type { Overlay, TuiHost } from './overlay.js';
import type { AgentRow } from './rows.js';
import type { Disposable } from '../core/bus.js';
import { Editor, typeInto, typingHint } from './editor.js';
import { drawEditorBox } from './editor-draw.js';
import { dispatchKey, hintRows, hintText } from './key-table.js';
import { MAILBOX_COMPOSE_KEYS, MAILBOX_KEYS, MAILBOX_REPLY_KEYS, type MailboxKeyState, type MailboxKeyTarget, type MailboxMode } from './mailbox-keys.js';
import { stateMark } from './marks.js';
import { age, clean, fit, pad } from './text.js';
import { EDITOR_MAX_ROWS, MAIL_PANES_READ_MAX } from './limits.js';
import { parseMessages, replyTarget, threadLines, threadSubject, threadWho, threadsOf, type MailMessage, type Thread } from './mail-threads.js';

/** What the mailbox keeps between openings: the selected thread and every draft. */
export interface MailboxMemory {
  selected: number | null;
  /** Reply drafts by thread. */
  drafts: Map<number, Editor>;
  /** The new message being written, and the pane it goes to. */
  compose: { to: string; name: string; editor: Editor } | null;
}

export function newMailboxMemory(): MailboxMemory {
  return { selected: null, drafts: new Map(), compose: null };
}


export interface MailboxOptions {
  /** Open on this thread. */
  thread?: number;
  /** With its reply line open. */
  reply?: boolean;
  /** Where esc in the list goes (the agents view it was opened from); else it closes. */
  back?: () => void;
}

export class MailboxView implements Overlay, MailboxKeyTarget {
  readonly fullScreen = true;
  private mode: MailboxMode = 'list';
  private msgs: MailMessage[] = [];
  private loaded = false;
  private loading = false;
  private again = false;
  private readError: string | null = null;
  private disposed = false;
  /** The open thread (thread, reply modes). */
  private open: number | null = null;
  /** The thread's first line on screen; Infinity keeps the newest message in view. */
  private scroll = Infinity;
  private pickAt = 0;
  private lastThreads: Thread[] = [];
  private readonly sub: Disposable;

  constructor(
    private readonly host: TuiHost,
    private readonly mem: MailboxMemory,
    private readonly agents: () => AgentRow[],
    private readonly opts: MailboxOptions = {},
  ) {
    // A message sent or read anywhere: read the mailboxes again. Nothing polls.
    this.sub = host.svc.bus.on('mail', () => this.reload());
    this.reload();
    if (opts.thread !== undefined) {
      this.mem.selected = opts.thread;
      this.openThread(opts.thread, !!opts.reply);
    }
  }

  dispose(): void {
    this.disposed = true;
    this.sub.dispose();
  }

  // ---- data ----

  private reload(): void {
    if (this.loading) {
      this.again = true;
      return;
    }
    this.host.track(this.load());
  }

  /** The panes whose mailboxes are read: every window of the sessions this client may show. */
  private panes(): string[] {
    const { svc } = this.host;
    const out: string[] = [];
    for (const s of svc.model.sessions.values()) {
      if (!this.host.visible(s.id)) continue;
      for (const w of svc.model.windowsOf(s)) if (out.length < MAIL_PANES_READ_MAX) out.push(w.id);
    }
    return out;
  }

  private async load(): Promise<void> {
    this.loading = true;
    try {
      do {
        this.again = false;
        const all: MailMessage[] = [];
        const mine = await this.host.acts.call('read-agent-messages', { window: 'human', peek: true });
        this.readError = mine.ok ? null : mine.message;
        if (mine.ok) all.push(...parseMessages(mine.value));
        for (const id of this.panes()) {
          if (this.disposed) return;
          // A pane that closed meanwhile is simply not read.
          const r = await this.host.acts.call('read-agent-messages', { window: id, peek: true });
          if (r.ok) all.push(...parseMessages(r.value));
        }
        this.msgs = all;
        this.loaded = true;
      } while (this.again && !this.disposed);
    } finally {
      this.loading = false;
    }
    if (!this.disposed) this.host.redraw();
  }

  private paneName = (id: string): string | null => this.host.svc.model.windows.get(id)?.name ?? null;

  private threads(): Thread[] {
    return threadsOf(this.msgs);
  }

  private thread(id: number | null): Thread | undefined {
    return id === null ? undefined : this.lastThreads.find((t) => t.id === id) ?? this.threads().find((t) => t.id === id);
  }

  private selected(): Thread | undefined {
    const ts = this.lastThreads;
    if (ts.length === 0) return undefined;
    const hit = ts.find((t) => t.id === this.mem.selected);
    if (hit) return hit;
    this.mem.selected = ts[0]!.id;
    return ts[0];
  }

  // ---- acts ----

  /** Opens a thread; as the person, with the nonce, that marks your mail in it read. */
  private openThread(id: number, reply: boolean): void {
    this.open = id;
    this.scroll = Infinity;
    this.mode = 'thread';
    this.host.track(this.markRead(id));
    if (reply) this.openReply();
  }

  private async markRead(id: number): Promise<void> {
    const r = await this.host.acts.call<{ messages?: unknown; peek_forced?: boolean }>('read-agent-messages', { window: 'human', thread: id }, true);
    if (!r.ok) return this.host.dock.say(`The thread was not read: ${r.message}`, stateMark('errored', false, this.host.glyphs));
    const unread = parseMessages(r.value).some((m) => !m.read);
    if (r.value.peek_forced && unread) {
      const ro = this.host.acts.readOnly;
      this.host.dock.say(this.host.acts.canActAsPerson ? 'Only looked: your mail stays unread (the nonce did not verify).' : ro ? `Only looked: your mail stays unread, as ${ro.why}.` : 'Only looked: a client attached from inside a pane cannot mark your mail read.');
    }
  }

  private openReply(): void {
    const t = this.thread(this.open);
    if (this.loaded && t && !replyTarget(t)) {
      this.host.dock.say('Nobody in this thread can get a reply: no pane wrote in it.');
      return;
    }
    if (!this.mem.drafts.has(this.open!)) this.mem.drafts.set(this.open!, new Editor());
    this.mode = 'reply';
  }

  private async reply(id: number, ed: Editor): Promise<void> {
    const t = this.thread(id);
    const to = t ? replyTarget(t) : null;
    if (!to) return this.host.dock.say('Nobody in this thread can get a reply: no pane wrote in it.');
    const name = this.paneName(to.window);
    if (!name) return this.host.dock.say('The pane this reply would go to is gone; the draft is kept.');
    // From you, signed with this client's nonce: stored verified_human.
    const r = await this.host.acts.call<{ sent: Array<{ thread: number; verified_human: boolean }> }>('send-agent-message', { window: to.window, text: ed.value(), reply_to: to.replyTo, from: 'human' }, true);
    if (!r.ok) {
      this.host.dock.say(`Not sent: ${r.message}`, stateMark('errored', false, this.host.glyphs));
      return this.host.redraw();
    }
    ed.clear();
    this.mem.drafts.delete(id);
    const signed = r.value.sent?.[0]?.verified_human;
    this.host.dock.say(`Replied in #${id} to ${clean(name)}${signed ? ', signed as you' : ', not signed: stored as claimed, not from you'}.`);
    this.host.redraw();
  }

  /** The agents `n` may write to: this session's, on this machine. */
  private pickable(): AgentRow[] {
    return this.agents().filter((a) => a.w && !a.host && a.sessionId === this.host.sessionId && !a.w.closed);
  }

  private async sendNewMessage(): Promise<void> {
    const c = this.mem.compose;
    if (!c) return;
    const r = await this.host.acts.call<{ sent: Array<{ thread: number; verified_human: boolean }> }>('send-agent-message', { window: c.to, text: c.editor.value(), from: 'human' }, true);
    if (!r.ok) {
      this.host.dock.say(`Not sent: ${r.message}`, stateMark('errored', false, this.host.glyphs));
      return this.host.redraw();
    }
    const sent = r.value.sent?.[0];
    this.mem.compose = null;
    if (sent) this.mem.selected = sent.thread;
    this.host.dock.say(`Sent to ${clean(c.name)}${sent ? `, a new thread #${sent.thread}` : ''}${sent?.verified_human ? ', signed as you' : ''}.`);
    this.host.redraw();
  }

  // ---- keys (mailbox-keys.ts) ----

  private keyState(): MailboxKeyState {
    return { mode: this.mode, back: !!this.opts.back };
  }

  key(tok: Token): void {
    if (this.mode === 'reply') return this.replyKey(tok);
    if (this.mode === 'compose') return this.composeKey(tok);
    if (tok.t !== 'key') return;
    dispatchKey(MAILBOX_KEYS[this.mode], this.keyState(), this, tok);
  }

  move(d: number): void {
    const ts = this.lastThreads;
    if (ts.length) {
      const i = Math.max(0, ts.findIndex((t) => t.id === this.mem.selected));
      this.mem.selected = ts[Math.max(0, Math.min(ts.length - 1, i + d))]!.id;
    }
    this.host.redraw();
  }

  openSelected(reply: boolean): void {
    const t = this.selected();
    if (t) this.openThread(t.id, reply);
    this.host.redraw();
  }

  newMessage(): void {
    if (this.mem.compose) {
      this.mode = 'compose';
      return this.host.redraw();
    }
    if (this.pickable().length === 0) return this.host.dock.say('No agent in this session to write to.');
    this.pickAt = 0;
    this.mode = 'pick';
    this.host.redraw();
  }

  openHelp(): void {
    this.host.openHelp('agents');
  }

  leave(): void {
    if (this.opts.back) this.opts.back();
    else this.host.closeOverlay();
  }

  scrollBy(d: number): void {
    this.scroll = Math.max(0, this.scrollNow() + d);
    this.host.redraw();
  }

  scrollTo(top: boolean): void {
    this.scroll = top ? 0 : Infinity;
    this.host.redraw();
  }

  startReply(): void {
    this.openReply();
    this.host.redraw();
  }

  toList(): void {
    this.mode = 'list';
    this.open = null;
    this.host.redraw();
  }

  pickMove(d: number): void {
    const list = this.pickable();
    this.pickAt = d > 0 ? Math.min(list.length - 1, this.pickAt + d) : Math.max(0, this.pickAt + d);
    this.host.redraw();
  }

  pickChosen(): void {
    const list = this.pickable();
    const a = list[Math.min(this.pickAt, list.length - 1)];
    if (!a?.w) this.mode = 'list';
    else {
      this.mem.compose = { to: a.w.id, name: a.name, editor: new Editor() };
      this.mode = 'compose';
    }
    this.host.redraw();
  }

  sendReply(): void {
    const id = this.open;
    const ed = id === null ? undefined : this.mem.drafts.get(id);
    if (id === null || !ed || ed.empty) return;
    this.mode = 'thread';
    this.host.track(this.reply(id, ed));
  }

  sendNew(): void {
    const c = this.mem.compose;
    if (!c || c.editor.empty) return;
    this.mode = 'list';
    this.host.track(this.sendNewMessage());
  }

  keepDraft(): void {
    this.mode = this.mode === 'compose' ? 'list' : 'thread';
  }

  private replyKey(tok: Token): void {
    const id = this.open;
    const ed = id === null ? undefined : this.mem.drafts.get(id);
    if (id === null || !ed) {
      this.mode = 'thread';
      return this.host.redraw();
    }
    typeInto(MAILBOX_REPLY_KEYS, this.keyState(), this, ed, tok);
    this.host.redraw();
  }

  private composeKey(tok: Token): void {
    const c = this.mem.compose;
    if (!c) {
      this.mode = 'list';
      return this.host.redraw();
    }
    typeInto(MAILBOX_COMPOSE_KEYS, this.keyState(), this, c.editor, tok);
    this.host.redraw();
  }

  // ---- drawing ----

  private lastLines = 0;
  private lastBodyH = 1;

  private scrollNow(): number {
    return Math.max(0, Math.min(this.scroll, this.lastLines - this.lastBodyH));
  }

  draw(cv: Canvas, area: Rect, now: number): { x: number; y: number } | null {
    this.lastThreads = this.threads();
    cv.fill(area.x, area.y, area.w, area.h);
    const body: Rect = { x: area.x, y: area.y + 2, w: area.w, h: Math.max(0, area.h - 3) };
    let cursor: { x: number; y: number } | null = null;
    const open = this.mode === 'thread' || this.mode === 'reply' ? this.thread(this.open) : undefined;
    this.drawHeader(cv, area, open);
    if (this.mode === 'thread' || this.mode === 'reply') cursor = this.drawThread(cv, body, open, now);
    else if (this.mode === 'pick') this.drawPick(cv, body);
    else if (this.mode === 'compose' && this.mem.compose) cursor = this.drawEditor(cv, body, this.mem.compose.editor, `New message to ${clean(this.mem.compose.name)}, from you`);
    else this.drawList(cv, body, now);
    this.drawFooter(cv, { x: area.x, y: area.y + area.h - 1, w: area.w, h: 1 });
    return cursor;
  }

  private drawHeader(cv: Canvas, area: Rect, open: Thread | undefined): void {
    const ascii = this.host.ascii;
    const end = area.x + area.w;
    let x = cv.text(area.x + 1, area.y, 'Mailbox', attr(-1, -1, A_BOLD));
    if (open) {
      cv.text(x + 2, area.y, fit(`#${open.id}  ${threadWho(open, this.paneName)}  ${threadSubject(open)}`, end - x - 3, ascii), PLAIN, end);
      return;
    }
    const ts = this.lastThreads;
    const unread = ts.filter((t) => t.unread > 0).length;
    x = cv.text(x + 3, area.y, `${ts.length} thread${ts.length === 1 ? '' : 's'}`, PLAIN, end);
    if (unread) cv.text(x + 3, area.y, `@ ${unread} unread for you`, roleAttr('warning', A_BOLD), end);
  }

  private drawList(cv: Canvas, r: Rect, now: number): void {
    const ascii = this.host.ascii;
    const end = r.x + r.w;
    const ts = this.lastThreads;
    if (ts.length === 0) {
      const why = !this.loaded ? 'Reading the mailboxes...' : this.readError ? `The mailbox could not be read: ${this.readError}` : 'No mail yet. n writes to an agent of this session.';
      cv.text(r.x + 2, r.y + 1, fit(why, r.w - 4, ascii), roleAttr('muted'), end);
      return;
    }
    const sel = this.selected();
    const at = Math.max(0, ts.findIndex((t) => t.id === sel?.id));
    const first = Math.max(0, Math.min(at - Math.floor(r.h / 2), ts.length - r.h));
    const idW = Math.max(4, ...ts.map((t) => String(t.id).length + 1));
    for (let i = 0; i < r.h; i++) {
      const t = ts[first + i];
      if (!t) break;
      const y = r.y + i;
      const selected = t.id === sel?.id;
      if (selected) cv.set(r.x, y, ascii ? '>' : '▌', roleAttr('accent', A_BOLD));
      if (t.unread) cv.set(r.x + 2, y, '@', roleAttr('warning', A_BOLD));
      const right = age(Math.max(0, now - t.last));
      let x = cv.text(r.x + 4, y, pad(`#${t.id}`, idW), roleAttr('accent', selected ? A_BOLD : 0), end);
      const who = threadWho(t, this.paneName);
      const whoW = Math.max(10, Math.min(40, Math.floor((r.w - idW - 10) / 2)));
      x = cv.text(x + 1, y, pad(who, whoW, ascii), attr(-1, -1, selected || t.unread ? A_BOLD : 0), end);
      const n = t.messages.length > 1 ? ` (${t.messages.length})` : '';
      cv.text(x + 2, y, fit(threadSubject(t) + n, end - x - 4 - right.length, ascii), PLAIN, end - right.length - 2);
      cv.text(end - right.length - 1, y, right, roleAttr('muted'), end);
    }
  }

  private drawThread(cv: Canvas, r: Rect, t: Thread | undefined, now: number): { x: number; y: number } | null {
    const ascii = this.host.ascii;
    const end = r.x + r.w;
    const id = this.open;
    const replying = this.mode === 'reply' && id !== null;
    const edH = replying ? Math.min(EDITOR_MAX_ROWS, Math.max(1, this.mem.drafts.get(id)?.view().lines.length ?? 1)) + 2 : 0;
    const textH = Math.max(0, r.h - edH - (replying ? 1 : 0));
    if (!t) {
      cv.text(r.x + 2, r.y, fit(this.loaded ? `Thread #${id ?? '?'} is not in any mailbox this client can read.` : 'Reading the mailboxes...', r.w - 4, ascii), roleAttr('muted'), end);
    } else {
      const lines = threadLines(t, Math.max(1, r.w - 4), ascii, this.paneName, now);
      this.lastLines = lines.length;
      this.lastBodyH = Math.max(1, textH);
      const top = this.scrollNow();
      for (let i = 0; i < textH; i++) {
        const l = lines[top + i];
        if (!l) break;
        const a = l.role === 'head' ? attr(-1, -1, A_BOLD) : l.role === 'fence' ? roleAttr('muted') : PLAIN;
        cv.text(r.x + 2, r.y + i, l.text, a, end - 1);
      }
    }
    if (!replying) return null;
    const to = t ? replyTarget(t) : null;
    const name = to ? (this.paneName(to.window) ?? 'a pane that is gone') : 'nobody';
    const sign = this.host.acts.canActAsPerson ? 'signed as you' : 'this client cannot sign as you';
    return this.drawEditor(cv, { x: r.x + 2, y: r.y + r.h - edH, w: r.w - 4, h: edH }, this.mem.drafts.get(id!) ?? null, `Reply in #${id} to ${clean(name)} (${sign})`);
  }

  private drawPick(cv: Canvas, r: Rect): void {
    const ascii = this.host.ascii;
    const end = r.x + r.w;
    const list = this.pickable();
    cv.text(r.x + 2, r.y, fit('New message from you: choose an agent of this session', r.w - 4, ascii), attr(-1, -1, A_BOLD), end);
    list.slice(0, Math.max(0, r.h - 2)).forEach((a, i) => {
      const y = r.y + 2 + i;
      const selected = i === this.pickAt;
      if (selected) cv.set(r.x + 2, y, ascii ? '>' : '▌', roleAttr('accent', A_BOLD));
      const m = stateMark(a.state, a.finishedUnread, this.host.glyphs);
      if (m) cv.text(r.x + 4, y, m.glyph, roleAttr(m.role, A_BOLD), r.x + 4 + 2);
      const x = cv.text(r.x + 6, y, pad(clean(a.name), 24, ascii), attr(-1, -1, selected ? A_BOLD : 0), end);
      cv.text(x + 2, y, fit(clean(a.harness ?? ''), end - x - 4, ascii), roleAttr('muted'), end);
    });
  }

  private drawEditor(cv: Canvas, r: Rect, ed: Editor | null, title: string): { x: number; y: number } | null {
    if (!ed || r.h < 3 || r.w < 8) return null;
    return drawEditorBox(cv, r, ed, title, this.host.ascii, false);
  }


  private drawFooter(cv: Canvas, r: Rect): void {
    const st = this.keyState();
    const table = MAILBOX_KEYS[this.mode];
    const keys = this.mode === 'reply' || this.mode === 'compose' ? typingHint(hintRows(table, st), st) : hintText(hintRows(table, st), st);
    cv.fill(r.x, r.y, r.w, 1, attr(-1, -1, A_INVERSE));
    cv.text(r.x + 1, r.y, fit(keys, r.w - 2, this.host.ascii), attr(-1, -1, A_INVERSE), r.x + r.w);
  }
}
