// The Inbox: one list of everything waiting for the person. Each item opens and closes by itself
// when what opened it stops being true (spec: The Inbox): an agent leaves needs_input or errored,
// mail is read, a client looks at a pane that finished. Snooze, undo and unread (mark-attention)
// change only when it shows, never what it is about.
import type { Bus, Disposable } from '../bus.js';
import type { Model } from '../model/model.js';
import type { AgentStore, AgentStateEvent } from '../agent-state/store.js';
import { cleanUntrusted } from '../mail/fence.js';
import { atRest } from '../agent-state/state.js';
import { INBOX_MAX_ITEMS, INBOX_SUMMARY_MAX } from '../limits.js';

export const ITEM_KINDS = ['approval', 'question', 'plan', 'ask', 'mail', 'errored', 'done', 'resume', 'waiting', 'held'] as const;
export type ItemKind = (typeof ITEM_KINDS)[number];

/** The agent state an item's kind stands for, as a selector reads it (none for mail and the rest). */
export function stateOfKind(kind: string): string | undefined {
  return kind === 'approval' || kind === 'question' || kind === 'plan' || kind === 'ask' ? 'needs_input' : kind === 'errored' ? 'errored' : kind === 'done' ? 'done' : undefined;
}

/** Kinds an agent or a person waits on: they are answered or dismissed, never snoozed. */
const UNSNOOZABLE = new Set<ItemKind>(['ask', 'plan']);
export const UNDO_MS = 10_000;

export interface Item {
  id: number;
  kind: ItemKind;
  window_id: string | null;
  session_id: string | null;
  session: string | null;
  name: string | null;
  harness: string | null;
  /** What it says, cleaned and cut: the pane's words, data not instructions. */
  summary: string;
  /** When the wait began (a row's age); an update keeps it. */
  opened_at: number;
  updated_at: number;
  /** Snoozed: until a time (ms), or until what it is about changes. */
  snoozed_until: number | 'change' | null;
  unread: boolean;
  /** Kind-specific references: the message, the question, the approval request. */
  ref: Record<string, string | number>;
  options?: string[];
  host?: string;
  /** Held approvals have no prompt on the screen (set by the approvals hold). */
  held?: boolean;
}

export type AttentionOp = 'open' | 'update' | 'close' | 'snooze' | 'wake';

declare module '../bus.js' {
  interface EventMap {
    attention: { op: AttentionOp; reason: string; item: Item };
    'window-seen': { window_id: string; session_id: string };
  }
}

interface UndoEntry {
  at: number;
  item: Item;
  action: 'dismiss' | 'snooze';
}

export class Inbox implements Disposable {
  private nextId = 1;
  readonly items = new Map<number, Item>();
  readonly snoozed = new Map<number, Item>();
  private undo: UndoEntry[] = [];
  /** Panes whose needs_input or errored item the person dismissed: not reopened until it leaves. */
  private dismissedEpisode = new Map<string, ItemKind>();
  private lastSeq = new Map<string, number>();
  private wakeTimer: NodeJS.Timeout | null = null;
  private readonly subs: Disposable[] = [];

  constructor(
    private readonly bus: Bus,
    private readonly model: Model,
    private readonly agents: AgentStore,
  ) {
    this.subs.push(
      bus.on('agent-state', (ev) => this.onAgentState(ev)),
      bus.on('window-closed', (ev) => this.closeWhere((i) => i.window_id === ev.window_id, 'pane closed')),
      bus.on('session-closed', (ev) => this.closeWhere((i) => i.session_id === ev.session_id, 'session closed')),
      bus.on('window-seen', (ev) => this.closeWhere((i) => i.kind === 'done' && i.window_id === ev.window_id, 'seen')),
    );
  }

  // ---- opening and closing ----

  private itemFor(windowId: string, kinds: ItemKind[]): Item | undefined {
    for (const m of [this.items, this.snoozed]) for (const i of m.values()) if (i.window_id === windowId && kinds.includes(i.kind)) return i;
    return undefined;
  }

  /** Opens an item, or returns the open one of the same key. */
  open(kind: ItemKind, o: { windowId?: string | null; summary: string; ref?: Item['ref']; options?: string[]; host?: string; held?: boolean; harness?: string | null }): Item {
    const w = o.windowId ? this.model.windows.get(o.windowId) : undefined;
    const s = w ? this.model.sessions.get(w.sessionId) : undefined;
    const now = Date.now();
    const item: Item = {
      id: this.nextId++,
      kind,
      window_id: o.windowId ?? null,
      session_id: s?.id ?? null,
      session: s?.name ?? null,
      name: w?.name ?? null,
      harness: o.harness ?? (w ? this.agents.harnessOf(w) : null),
      summary: cleanSummary(o.summary),
      opened_at: now,
      updated_at: now,
      snoozed_until: null,
      unread: true,
      ref: o.ref ?? {},
      ...(o.options ? { options: o.options } : {}),
      ...(o.host ? { host: o.host } : {}),
      ...(o.held ? { held: true } : {}),
    };
    if (this.items.size >= INBOX_MAX_ITEMS) {
      const oldest = [...this.items.values()].sort((a, b) => a.opened_at - b.opened_at)[0];
      if (oldest) this.close(oldest.id, 'the Inbox is full');
    }
    this.items.set(item.id, item);
    this.bus.publish('attention', { op: 'open', reason: 'opened', item });
    return item;
  }

  /**
   * Updates what an item says; a snoozed one wakes when what it is about changed. An item keeps
   * its last summary until it closes: an empty one (a reading with no message, the prompt going
   * away just before the item closes) leaves it as it was.
   */
  update(item: Item, patch: { kind?: ItemKind; summary?: string; held?: boolean }): void {
    const summary = (patch.summary !== undefined ? cleanSummary(patch.summary) : '') || item.summary;
    const kind = patch.kind ?? item.kind;
    const held = patch.held ?? item.held;
    if (summary === item.summary && kind === item.kind && held === item.held) return;
    item.summary = summary;
    item.kind = kind;
    if (held !== undefined) item.held = held;
    item.updated_at = Date.now();
    if (this.snoozed.has(item.id)) this.wake(item, 'it changed');
    else this.bus.publish('attention', { op: 'update', reason: 'updated', item });
  }

  close(id: number, reason: string): Item | null {
    const item = this.items.get(id) ?? this.snoozed.get(id);
    if (!item) return null;
    this.items.delete(id);
    this.snoozed.delete(id);
    this.bus.publish('attention', { op: 'close', reason, item });
    return item;
  }

  closeWhere(pred: (i: Item) => boolean, reason: string): void {
    for (const m of [this.items, this.snoozed]) for (const i of [...m.values()]) if (pred(i)) this.close(i.id, reason);
  }

  get(id: number): Item | undefined {
    return this.items.get(id) ?? this.snoozed.get(id);
  }

  private onAgentState(ev: AgentStateEvent): void {
    const w = this.model.windows.get(ev.window_id);
    if (!w) return;
    const id = ev.window_id;
    // needs_input: one item per pane, an approval or a question by its kind.
    if (ev.state === 'needs_input') {
      const kind: ItemKind = ev.kind === 'approval' ? 'approval' : 'question';
      const cur = this.itemFor(id, ['approval', 'question', 'plan']);
      // A held item keeps the held call's line while the hold runs.
      if (cur && cur.held) return this.onRestState(ev);
      if (cur) this.update(cur, { kind: cur.kind === 'plan' ? 'plan' : kind, summary: ev.message });
      else if (this.dismissedEpisode.get(id) !== 'approval') this.open(kind, { windowId: id, summary: ev.message || (kind === 'approval' ? 'waits for an approval' : 'waits for an answer'), harness: ev.harness });
    } else {
      if (this.dismissedEpisode.get(id) === 'approval') this.dismissedEpisode.delete(id);
      this.closeWhere((i) => i.window_id === id && (i.kind === 'approval' || i.kind === 'question') && !i.held, `the agent is ${ev.state} now`);
    }
    this.onRestState(ev);
  }

  private onRestState(ev: AgentStateEvent): void {
    const id = ev.window_id;
    if (ev.state === 'errored') {
      const cur = this.itemFor(id, ['errored']);
      if (cur) this.update(cur, { summary: ev.message });
      else if (this.dismissedEpisode.get(id) !== 'errored') this.open('errored', { windowId: id, summary: ev.message || 'stopped on an error', harness: ev.harness });
    } else {
      if (this.dismissedEpisode.get(id) === 'errored') this.dismissedEpisode.delete(id);
      this.closeWhere((i) => i.window_id === id && i.kind === 'errored', `the agent is ${ev.state} now`);
    }
    // A finished turn not looked at; a turn the agent moved on from goes with its state.
    const prevSeq = this.lastSeq.get(id) ?? 0;
    this.lastSeq.set(id, ev.completion_seq);
    if (ev.completion_seq > prevSeq && atRest(ev.state)) {
      const cur = this.itemFor(id, ['done']);
      if (cur) {
        this.update(cur, { summary: ev.message || cur.summary });
        if (this.snoozed.has(cur.id)) this.wake(cur, 'another turn finished');
      } else this.open('done', { windowId: id, summary: ev.message || 'finished a turn', harness: ev.harness });
    } else if (!atRest(ev.state)) {
      this.closeWhere((i) => i.window_id === id && i.kind === 'done', 'the agent moved on');
    }
  }

  // ---- holds (core/inbox/holds.ts) ----

  /** The pane's open approval (or question, or plan) item. */
  approvalItem(windowId: string): Item | undefined {
    return this.itemFor(windowId, ['approval', 'question', 'plan']);
  }

  /** A hold starts: the item carries the request and shows the held line; a snoozed one wakes. */
  holdItem(item: Item, h: { summary: string; kind: 'approval' | 'plan'; ref: Item['ref'] }): void {
    item.ref = { ...h.ref };
    this.update(item, { summary: h.summary, kind: h.kind, held: true });
    if (this.snoozed.has(item.id)) this.wake(item, 'a hook holds the approval');
  }

  /** A hold ended with no answer: the item is the pane's approval again, or goes with the prompt. */
  unholdItem(item: Item): void {
    const w = item.window_id ? this.model.windows.get(item.window_id) : undefined;
    const still = w ? this.agents.stateOf(w) === 'needs_input' : false;
    if (!still) {
      this.close(item.id, 'the hold ended and the pane no longer waits');
      return;
    }
    const rec = w ? this.agents.recordOf(w) : null;
    item.ref = {};
    this.update(item, { kind: 'approval', summary: rec?.view().message || item.summary, held: false });
  }

  // ---- the person's acts (verified by the caller) ----

  dismiss(item: Item): void {
    if (item.window_id && (item.kind === 'approval' || item.kind === 'question')) this.dismissedEpisode.set(item.window_id, 'approval');
    if (item.window_id && item.kind === 'errored') this.dismissedEpisode.set(item.window_id, 'errored');
    if (item.kind === 'done' && item.window_id) {
      const w = this.model.windows.get(item.window_id);
      if (w) this.agents.markSeen(w);
    }
    this.close(item.id, 'dismissed');
    this.pushUndo({ at: Date.now(), item: { ...item }, action: 'dismiss' });
  }

  snoozable(item: Item): boolean {
    return !UNSNOOZABLE.has(item.kind) && !item.held;
  }

  snooze(item: Item, until: number | 'change'): void {
    this.items.delete(item.id);
    item.snoozed_until = until;
    this.snoozed.set(item.id, item);
    this.bus.publish('attention', { op: 'snooze', reason: until === 'change' ? 'until it changes' : `until ${new Date(until).toISOString()}`, item });
    this.pushUndo({ at: Date.now(), item: { ...item }, action: 'snooze' });
    this.armWake();
  }

  wake(item: Item, reason: string): void {
    if (!this.snoozed.delete(item.id)) return;
    item.snoozed_until = null;
    this.items.set(item.id, item);
    this.bus.publish('attention', { op: 'wake', reason, item });
    this.armWake();
  }

  /** Marks a pane's finished turn unread again: its Done item opens in every client. */
  markUnread(windowId: string): Item | null {
    const w = this.model.windows.get(windowId);
    if (!w) return null;
    const rec = this.agents.recordOf(w);
    if (!rec || rec.completionSeq === 0) return null;
    rec.seenSeq = rec.completionSeq - 1;
    return this.itemFor(windowId, ['done']) ?? this.open('done', { windowId, summary: 'marked unread' });
  }

  /** Undoes the newest dismiss or snooze of the last 10 seconds; returns the item back, or null. */
  undoLast(): Item | null {
    const now = Date.now();
    this.undo = this.undo.filter((u) => now - u.at <= UNDO_MS);
    const u = this.undo.pop();
    if (!u) return null;
    const item = u.item;
    if (u.action === 'snooze') {
      const live = this.snoozed.get(item.id);
      if (live) this.wake(live, 'undone');
      return live ?? null;
    }
    if (item.kind === 'ask' || item.kind === 'waiting') return null; // its asker was told; its mail was discarded
    if (item.window_id && !this.model.windows.has(item.window_id)) return null;
    if (item.window_id) this.dismissedEpisode.delete(item.window_id);
    item.snoozed_until = null;
    this.items.set(item.id, item);
    this.bus.publish('attention', { op: 'open', reason: 'undone', item });
    return item;
  }

  private pushUndo(u: UndoEntry): void {
    this.undo.push(u);
    if (this.undo.length > 32) this.undo.shift();
  }

  /** The one timer: only while something is snoozed with a time. */
  private armWake(): void {
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.wakeTimer = null;
    const times = [...this.snoozed.values()].map((i) => i.snoozed_until).filter((t): t is number => typeof t === 'number');
    if (times.length === 0) return;
    const next = Math.min(...times);
    this.wakeTimer = setTimeout(() => {
      const now = Date.now();
      for (const i of [...this.snoozed.values()]) if (typeof i.snoozed_until === 'number' && i.snoozed_until <= now) this.wake(i, 'the snooze ended');
      this.armWake();
    }, Math.max(0, Math.min(next - Date.now(), 2 ** 31 - 1)));
    this.wakeTimer.unref();
  }

  /** Open items, oldest first (a row's age is its wait). */
  list(opts: { snoozed?: boolean } = {}): Item[] {
    const src = opts.snoozed ? [...this.snoozed.values()] : [...this.items.values()];
    return src.sort((a, b) => a.opened_at - b.opened_at || a.id - b.id);
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
  }
}

function cleanSummary(s: string): string {
  return [...cleanUntrusted(s).replace(/\s+/g, ' ').trim()].slice(0, INBOX_SUMMARY_MAX).join('');
}
