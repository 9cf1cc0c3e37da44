// The delivery queue (spec: Queued messages): messages held in the daemon and typed one per rest,
// after a second at rest, never over a prompt, never twice. Nothing polls: it acts on the
// agent-state changes it already sees, and only a pane whose rules cannot show working, with
// something queued, is looked at on a timer (output then five seconds of silence is its rest).
import type { Disposable } from '../bus.js';
import type { Model } from '../model/model.js';
import type { ConfigStore } from '../config/config.js';
import type { Inbox } from '../inbox/inbox.js';
import type { MailStore } from '../mail/mail.js';
import type { Logger } from '../log.js';
import type { EnforceOpts } from '../security/grants.js';
import type { Window } from '../model/window.js';
import type { Caller } from '../rpc/caller.js';
import { TuiosError } from '../errors.js';
import { canShowIdle } from '../detection/rules/compile.js';
import { deliverPrompt, inputOf, showsWorking, type PaneWatchDeps } from './deliver.js';
import { checkParts, partsBytes, partsSummary, type MessagePart } from './parts.js';
import { renderPieces, type PromptPiece } from './image-parts.js';
import { IMAGES_REFUSED } from './images.js';
import { PARTS_TYPED_MAX_BYTES, PROMPT_MAX_BYTES, QUEUE_ALL_TOTAL_BYTES, QUEUE_MESSAGE_MAX_BYTES, QUEUE_PANE_TOTAL_BYTES } from '../limits.js';

export const REST_MS = 1000;
export const QUIET_REST_MS = 5000;
/** Mail waits this long unread and unannounced before a wake line is queued; wakes are this far apart. */
export const WAKE_AFTER_MS = 5000;
export const WAKE_GAP_MS = 30_000;

export interface QueuedMessage {
  id: string;
  window_id: string;
  text: string;
  /** Who queued it, as the connection proved: human, a pane's window id, link:HOST, shell, tuios mail. */
  by: string;
  at: number;
  status: 'waiting' | 'typing' | 'stalled';
  typed_at: number | null;
  /** The caller's connection, kept to check its grants again right before typing. */
  caller: Caller | null;
  /** A wake line is written again right before it is typed. */
  wake?: true;
  /** A message in parts (an Inbox reply with paste blocks); `text` is then its summary. */
  parts?: MessagePart[];
  /** What typing it types, once its blocks and images are placed (files written once, at its first typing). */
  rendered?: PromptPiece[];
}

/** Bytes a message holds in the queue: its parts when it has them. */
function heldBytes(m: QueuedMessage): number {
  return m.parts ? partsBytes(m.parts).total + m.parts.reduce((n, p) => n + (p.kind === 'image' ? p.data.length : 0), 0) : Buffer.byteLength(m.text);
}

interface PaneQueue {
  messages: QueuedMessage[];
  /** When the pane last came to rest after the last typed message (null: not since). */
  restSince: number | null;
  lastTypedAt: number;
  timer: NodeJS.Timeout | null;
  lastOutputSeen: number;
  lastWakeAt: number;
  wakeTimer: NodeJS.Timeout | null;
}

/** What the queue is built with (the composition root passes them in). */
export interface QueueDeps extends PaneWatchDeps {
  readonly model: Model;
  readonly config: ConfigStore;
  readonly inbox: Inbox;
  readonly mail: MailStore;
  readonly log: Logger;
  /** The grants check right before a queued message is typed (security/access.ts enforce). */
  enforce(caller: Caller, o: EnforceOpts): void;
  /** Where a large message's paste blocks are written when it is typed (paste-folder.ts). */
  readonly pastes: { write(text: string): string; writeImage(data: Uint8Array, format: string): string };
}

export class DeliveryQueue implements Disposable {
  private next = 1;
  private readonly panes = new Map<string, PaneQueue>();
  private readonly subs: Disposable[] = [];

  constructor(private readonly deps: QueueDeps) {
    const bus = deps.bus;
    this.subs.push(
      bus.on('agent-state', (ev) => {
        const w = deps.model.windows.get(ev.window_id);
        if (!w) return;
        if (ev.state === 'none') return this.drop(ev.window_id, 'the agent left the pane');
        const q = this.panes.get(ev.window_id);
        if (!q) return;
        if (ev.state === 'working') {
          // The agent took a stalled message late, or the person dealt with the pane.
          q.messages = q.messages.filter((m) => m.status !== 'stalled');
        }
        this.consider(w, q);
      }),
      bus.on('window-closed', (ev) => {
        this.drop(ev.window_id, 'the pane closed');
        for (const q of this.panes.values()) q.messages = q.messages.filter((m) => m.by !== ev.window_id);
      }),
      bus.on('session-closed', (ev) => {
        for (const [id, q] of this.panes) if (q.messages[0] && deps.model.windows.get(id)?.sessionId === ev.session_id) this.drop(id, 'the session ended');
      }),
      bus.on('mail', (ev) => {
        if (ev.op === 'new' && ev.to !== 'human') this.scheduleWake(ev.to);
      }),
    );
  }

  private pane(id: string): PaneQueue {
    let q = this.panes.get(id);
    if (!q) {
      q = { messages: [], restSince: null, lastTypedAt: 0, timer: null, lastOutputSeen: 0, lastWakeAt: 0, wakeTimer: null };
      this.panes.set(id, q);
    }
    return q;
  }

  count(w: Window): number {
    return this.panes.get(w.id)?.messages.length ?? 0;
  }

  list(w?: Window): QueuedMessage[] {
    const all = w ? (this.panes.get(w.id)?.messages ?? []) : [...this.panes.values()].flatMap((q) => q.messages);
    return all;
  }

  private totalBytes(): number {
    let n = 0;
    for (const q of this.panes.values()) for (const m of q.messages) n += heldBytes(m);
    return n;
  }

  add(w: Window, text: string, by: string, caller: Caller | null, opts: { wake?: true; parts?: MessagePart[] } = {}): QueuedMessage {
    const max = this.deps.config.current.agents.queue.max;
    const q = this.pane(w.id);
    if (q.messages.length >= max) throw new TuiosError('queue_full', `${w.name} already has ${max} queued messages.`, 'Wait for it to take them, or drop one: tuios queue rm ID');
    if (opts.parts) checkParts(opts.parts);
    if (opts.parts?.some((p) => p.kind === 'image') && inputOf(this.deps, w).images === 'none') {
      throw new TuiosError('unsupported', IMAGES_REFUSED, `The ${this.deps.agents.harnessOf(w) ?? 'agent'} manifest says [input] images = "none".`);
    }
    const bytes = opts.parts ? heldBytes({ parts: opts.parts } as QueuedMessage) : Buffer.byteLength(text);
    if (!opts.parts && bytes > QUEUE_MESSAGE_MAX_BYTES) throw new TuiosError('queue_full', `A queued message is at most ${QUEUE_MESSAGE_MAX_BYTES} bytes of typed text.`, 'Send a shorter message, or mail it.');
    const paneBytes = q.messages.reduce((n, m) => n + heldBytes(m), 0);
    if (paneBytes + bytes > QUEUE_PANE_TOTAL_BYTES || this.totalBytes() + bytes > QUEUE_ALL_TOTAL_BYTES) throw new TuiosError('queue_full', 'The delivery queues are full.', 'Wait for agents to take what is queued.');
    const m: QueuedMessage = {
      id: `q${this.next++}`,
      window_id: w.id,
      text: opts.parts ? partsSummary(opts.parts) : text,
      by,
      at: Date.now(),
      status: 'waiting',
      typed_at: null,
      caller,
      ...(opts.wake ? { wake: true } : {}),
      ...(opts.parts ? { parts: opts.parts } : {}),
    };
    q.messages.push(m);
    this.consider(w, q);
    return m;
  }

  /** Drops a message; `mayDrop` decides who may drop what (the caller's rule). */
  cancel(id: string, mayDrop: (m: QueuedMessage) => boolean): QueuedMessage {
    for (const [wid, q] of this.panes) {
      const i = q.messages.findIndex((m) => m.id === id);
      if (i < 0) continue;
      const m = q.messages[i]!;
      if (m.status === 'typing') throw new TuiosError('conflict', `Message ${id} is being typed and cannot be dropped.`);
      if (!mayDrop(m)) throw new TuiosError('forbidden', `Message ${id} was queued by someone else.`, 'A pane may drop only what it queued.');
      q.messages.splice(i, 1);
      if (m.status === 'stalled') this.deps.inbox.closeWhere((it) => it.kind === 'question' && it.ref.queued === m.id, 'the stalled message was dropped');
      const w = this.deps.model.windows.get(wid);
      if (w) this.consider(w, q);
      return m;
    }
    throw new TuiosError('not_found', `There is no queued message ${id}.`, 'List them with: tuios queue ls');
  }

  private drop(windowId: string, reason: string): void {
    const q = this.panes.get(windowId);
    if (!q) return;
    if (q.timer) clearTimeout(q.timer);
    if (q.wakeTimer) clearTimeout(q.wakeTimer);
    if (q.messages.length) this.deps.log.info('queue dropped', { window: windowId, messages: q.messages.length, reason });
    this.panes.delete(windowId);
  }

  /** At rest the way fan judges a fresh agent ready: idle or done, unknown only when idle can never show. */
  private atRest(w: Window): boolean {
    const s = this.deps.agents.stateOf(w);
    if (s === 'idle' || s === 'done') return true;
    if (s !== 'unknown') return false;
    const h = this.deps.agents.harnessOf(w);
    const m = h ? this.deps.manifests.byId.get(h) : undefined;
    return !m || !canShowIdle(m.rules);
  }

  private consider(w: Window, q: PaneQueue): void {
    if (q.timer) clearTimeout(q.timer);
    q.timer = null;
    const head = q.messages[0];
    if (!head || head.status !== 'waiting') return;
    const now = Date.now();
    if (!this.atRest(w)) {
      q.restSince = null;
      if (!showsWorking(this.deps, w)) this.armQuiet(w, q);
      return;
    }
    const rec = this.deps.agents.recordOf(w);
    const restFrom = Math.max(rec?.enteredAt ?? now, q.restSince ?? 0);
    // One message per rest: the rest must be reached after the last message was typed.
    const restReached = restFrom > q.lastTypedAt || (!showsWorking(this.deps, w) && w.lastOutputAt > q.lastTypedAt && now - w.lastOutputAt >= QUIET_REST_MS);
    if (!restReached) {
      if (!showsWorking(this.deps, w)) this.armQuiet(w, q);
      return;
    }
    const left = restFrom + REST_MS - now;
    if (left > 0) {
      q.timer = setTimeout(() => this.consider(w, q), left + 5);
      q.timer.unref();
      return;
    }
    void this.typeHead(w, q, head);
  }

  /** A harness that cannot show working: its rest after a typed message is output then silence. */
  private armQuiet(w: Window, q: PaneQueue): void {
    const since = Math.max(w.lastOutputAt, q.lastTypedAt);
    q.timer = setTimeout(() => this.consider(w, q), Math.max(50, since + QUIET_REST_MS - Date.now() + 10));
    q.timer.unref();
  }

  private async typeHead(w: Window, q: PaneQueue, m: QueuedMessage): Promise<void> {
    m.status = 'typing';
    if (m.wake) {
      const text = this.wakeLine(w);
      if (!text) {
        q.messages = q.messages.filter((x) => x !== m);
        return this.consider(w, q);
      }
      m.text = text;
    }
    const recheck = () => {
      // Whoever queued it, never over a prompt; and the queuer's grants as they are now.
      if (this.deps.agents.stateOf(w) === 'needs_input') throw new TuiosError('agent_blocked', `${w.name} is waiting on a prompt.`, undefined, { typed: false });
      if (m.caller) this.deps.enforce(m.caller, { verb: 'queue-prompt', access: 'write', target: w, types: true, blockedCheck: false });
      // A linked machine's [hosts] policy as it is now (the link applied it only at queue time).
      const host = m.caller?.channel === 'link' ? (m.caller.host ?? '') : null;
      if (host !== null && this.deps.config.current.hosts[host]?.write === false) throw new TuiosError('forbidden', `The linked host ${host} may no longer write here.`);
    };
    try {
      const r = await deliverPrompt(this.deps, w, this.typedText(m), recheck, { maxBytes: m.parts ? PARTS_TYPED_MAX_BYTES : PROMPT_MAX_BYTES });
      r.watch.dispose();
      q.lastTypedAt = r.submittedAt;
      q.restSince = null;
      if (m.wake) for (const msg of this.deps.mail.unannounced(w.id, w.sessionId)) msg.announced = true;
      if (r.taken) {
        q.messages = q.messages.filter((x) => x !== m);
      } else {
        m.status = 'stalled';
        m.typed_at = r.submittedAt;
        this.deps.inbox.open('question', { windowId: w.id, summary: `your queued message was typed but ${w.name} did not take it: look at the pane`, ref: { queued: m.id } });
      }
    } catch (e) {
      const err = e as TuiosError;
      if (err.code === 'agent_blocked') {
        m.status = 'waiting'; // it waits for the next rest
      } else {
        // Its grants no longer cover it, or the pane is gone: dropped, logged, never typed.
        q.messages = q.messages.filter((x) => x !== m);
        this.deps.log.info('queued message dropped before typing', { window: w.id, id: m.id, code: err.code });
      }
    }
    this.consider(w, q);
  }

  /**
   * The text typing a message types. A message in parts places its blocks the first time it is
   * typed (spec: written when the reply is typed) and keeps what it typed, so a message that waits
   * again after a prompt appeared writes no second file.
   */
  private typedText(m: QueuedMessage): string | PromptPiece[] {
    if (!m.parts) return m.text;
    const pastes = this.deps.pastes;
    m.rendered ??= renderPieces(m.parts, { text: (text) => pastes.write(text), image: (p) => pastes.writeImage(p.data, p.info.format) });
    return m.rendered;
  }

  // ---- mail that wakes an agent at rest ----

  private scheduleWake(windowId: string): void {
    const w = this.deps.model.windows.get(windowId);
    if (!w || !this.deps.config.current.agents.mail.wake) return;
    const q = this.pane(windowId);
    if (q.wakeTimer) return;
    const at = Math.max(Date.now() + WAKE_AFTER_MS, q.lastWakeAt + WAKE_GAP_MS);
    q.wakeTimer = setTimeout(() => {
      q.wakeTimer = null;
      this.maybeWake(w, q);
    }, at - Date.now());
    q.wakeTimer.unref();
  }

  private maybeWake(w: Window, q: PaneQueue): void {
    if (w.closed || !this.deps.config.current.agents.mail.wake) return;
    const pending = this.deps.mail.unannounced(w.id, w.sessionId);
    if (pending.length === 0) return;
    if (this.deps.agents.stateOf(w) === 'none') return; // its prompt line is a shell's
    if (q.messages.some((m) => m.wake)) return; // a wake already waits: no second line
    // The wake carries the authority of whoever sent the mail, as its connection proved it.
    const senders = pending.map((m) => m.from_pane).filter((x): x is string => !!x);
    for (const s of senders) {
      const sw = this.deps.model.windows.get(s);
      if (!sw) continue;
      try {
        this.deps.enforce({ connId: 0, channel: 'socket', pid: sw.pid, uid: null, readOnly: false, paneHint: sw.id, placement: { kind: 'pane', window: sw, how: 'mail sender' } }, { verb: 'send-agent-message', access: 'write', target: w, types: true, blockedCheck: false });
      } catch {
        return;
      }
    }
    q.lastWakeAt = Date.now();
    try {
      // The gap counts from the wake as queued (its `at`, what list-queued shows), not from a
      // moment before it: on a busy machine the two were 10 ms apart, and the next wake came 30 s
      // after this one's decision but 29.99 s after the wake a person sees.
      q.lastWakeAt = this.add(w, this.wakeLine(w) ?? '', 'tuios mail', null, { wake: true }).at;
    } catch {
      // a full queue: the next mail tries again
    }
  }

  /** The wake line holds only the count and the command: no text a sender chose. */
  private wakeLine(w: Window): string | null {
    const n = this.deps.mail.unannounced(w.id, w.sessionId).length;
    if (n === 0) return null;
    const s = this.deps.model.sessions.get(w.sessionId)?.name ?? '';
    const session = /^[A-Za-z0-9_.-]+$/.test(s) ? s : `'${s.replace(/'/g, '')}'`;
    return `You have ${n} unread tuios message${n === 1 ? '' : 's'}. Read them with: tuios read-agent-messages -s ${session} -w ${w.shortId} --unread`;
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
    for (const id of [...this.panes.keys()]) this.drop(id, 'the daemon stopped');
  }
}
