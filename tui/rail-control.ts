// What the rail does besides drawing (spec: The rail's agents section): its sort control (`o`
// with the rail focused, or a click on it) stepping through `you`, `pri` and `rec`, kept in
// sidebar.json; a click on an agent or subagent row going to its pane; and the rail holding the
// keyboard once clicked, until `esc`, a click outside it, or a key that is not the rail's. While it
// holds the keyboard a cursor moves through its agent rows (the keyboard steps over subagent rows)
// and the keys act on the row under it: go to its pane, reply, review, snooze, mark its finished
// turn unread, drop the newest queued message and put it back. Keys are data (RAIL_KEYS).
import type { Services } from '../core/daemon/services.js';
import type { Token } from './keys.js';
import type { QueuedMessage } from '../core/delivery/queue.js';
import { dispatchKey, hintRows, hintText, OTHER_KEY, type KeyTable } from './key-table.js';
import { nextOrder, type RailOrder } from './rail-order.js';
import { readRailOrder, rememberRailOrder } from './rail-state.js';
import { REST_FOLD_ID, type RailHits } from './rail.js';

/** The press is on the rest fold's line. */
function onFold(h: RailHits | null, y: number): boolean {
  return !!h?.fold && h.fold.y === y;
}
import { UNDO_WINDOW_MS } from './limits.js';

/** What the rail's keys act on, in the TUI (app.ts). */
export interface RailActs {
  /** The pane a row stands for: focus it. */
  goTo(windowId: string): void;
  redraw(): void;
  say(text: string): void;
  /** The row's name as the rail draws it, or null when it is gone. */
  nameOf(windowId: string): string | null;
  /** The pane the person has in front of them (no view drawn over it), or null. */
  inFront(): string | null;
  /** The pane's queue, oldest first. */
  queueOf(windowId: string): readonly QueuedMessage[];
  /** A verb call as the person (the client's nonce): a refusal comes back as a sentence. */
  callAsPerson(verb: string, params: Record<string, unknown>): Promise<{ ok: true; value: unknown } | { ok: false; message: string }>;
  /** Looking at the pane again marks its turn seen again (after `u`). */
  forgetSeen(windowId: string): void;
  /** The Inbox on the pane's row: with the snooze lengths, or with the reply editor; it closes once done. */
  openInbox(windowId: string, then: 'snooze' | 'reply'): void;
  /** The review of the pane's changes. */
  review(windowId: string): void;
  /** Work that finishes later (a verb call). */
  track(work: Promise<unknown>): void;
  /** A timer the TUI owns. */
  later(ms: number, fn: () => void): void;
}

/** What decides which of the rail's keys apply. */
export interface RailKeyState {
  /** The cursor is on an agent row of this machine. */
  row: boolean;
  /** The cursor is on the rest fold's line (`+3 at rest`). */
  fold: boolean;
  /** A message dropped from this row's queue can still be put back (`u` within 10 s). */
  undoDrop: boolean;
}

/** The rail's keys while it holds the keyboard. */
export const RAIL_KEYS: KeyTable<RailKeyState, RailControl, boolean> = [
  { keys: ['j', 'Down'], label: 'j/k', help: 'move', run: (r) => (r.move(1), true) },
  { keys: ['k', 'Up'], help: 'move up', footer: false, run: (r) => (r.move(-1), true) },
  { keys: ['g', 'Home'], help: 'first agent', footer: false, run: (r) => (r.move(-Infinity), true) },
  { keys: ['G', 'End'], help: 'last agent', footer: false, run: (r) => (r.move(Infinity), true) },
  { keys: ['Enter'], when: (s) => s.row, help: 'go to its pane', run: (r) => r.enter() },
  { keys: ['Enter'], when: (s) => s.fold, help: 'show the rows folded at rest', run: (r) => (r.unfold(), true) },
  { keys: ['r'], when: (s) => s.row, help: 'reply', run: (r) => r.reply() },
  { keys: ['v'], when: (s) => s.row, help: 'review its changes', footer: false, run: (r) => r.review() },
  { keys: ['z'], when: (s) => s.row, help: 'snooze', run: (r) => r.snooze() },
  { keys: ['u'], when: (s) => s.row && s.undoDrop, help: 'queue the dropped message again', run: (r) => r.undoDrop() },
  { keys: ['u'], when: (s) => s.row && !s.undoDrop, help: 'mark unread', run: (r) => r.markUnread() },
  { keys: ['x'], when: (s) => s.row, help: 'drop the newest queued message', footer: false, run: (r) => r.dropQueued() },
  { keys: ['o'], help: 'sort: you, pri, rec', run: (r) => (r.stepOrder(), true) },
  { keys: ['Esc'], help: 'back to the pane', run: (r) => r.release() },
  // Any other key goes to the pane: the rail lets go first.
  { keys: [OTHER_KEY], help: 'to the pane', footer: false, run: (r) => r.release(false) },
];

interface Dropped {
  windowId: string;
  /** What queue-prompt takes to queue it again: its text, or its parts. */
  message: { text: string } | { parts: unknown[] };
  at: number;
}

export class RailControl {
  order: RailOrder;
  /** The rail holds the keyboard. */
  focused = false;
  /** The rest fold is open: until the rail lets go of the keyboard, a click outside it, or a pane is focused from it. */
  unfolded = false;
  /** The agent row under the keyboard cursor (a pane id), while the rail holds the keyboard. */
  cursor: string | null = null;
  /** Where the last frame drew what a click acts on (rail.ts drawRail). */
  hits: RailHits | null = null;
  /** The rail's columns in the last frame (0: no rail). */
  width = 0;
  /** The message `x` dropped last, for `u` on the same row within UNDO_WINDOW_MS. */
  private dropped: Dropped | null = null;

  constructor(
    private readonly svc: Services,
    private readonly acts: RailActs,
  ) {
    this.order = readRailOrder(svc);
  }

  /** The situation the key rows read. */
  keyState(now = Date.now()): RailKeyState {
    const row = this.cursor !== null && (this.hits?.agents.includes(this.cursor) ?? false) && this.acts.nameOf(this.cursor) !== null;
    const d = this.dropped;
    return { row, fold: this.cursor === REST_FOLD_ID && (this.hits?.agents.includes(REST_FOLD_ID) ?? false), undoDrop: !!d && d.windowId === this.cursor && now - d.at <= UNDO_WINDOW_MS };
  }

  /** The rail's keys as the status line lists them while it holds the keyboard. */
  hint(): string {
    const st = this.keyState();
    return hintText(hintRows(RAIL_KEYS, st), st, '  ');
  }

  /** Takes the keyboard, the cursor on `windowId`'s row when it has one, else where it was, else the first row. */
  take(windowId: string | null): void {
    this.focused = true;
    const rows = this.hits?.agents ?? [];
    if (windowId && rows.includes(windowId)) this.cursor = windowId;
    else if (!this.cursor || !rows.includes(this.cursor)) this.cursor = rows[0] ?? null;
    this.acts.redraw();
  }

  stepOrder(): void {
    this.order = nextOrder(this.order);
    rememberRailOrder(this.svc, this.order);
    this.acts.redraw();
  }

  /** Moves the cursor by `by` agent rows (±Infinity: the first or the last), staying on the rail. */
  move(by: number): void {
    const rows = this.hits?.agents ?? [];
    if (rows.length === 0) return;
    const at = this.cursor === null ? -1 : rows.indexOf(this.cursor);
    const from = at < 0 ? (by > 0 ? -1 : rows.length) : at;
    const to = Math.max(0, Math.min(rows.length - 1, Number.isFinite(by) ? from + by : by > 0 ? rows.length - 1 : 0));
    this.cursor = rows[to] ?? null;
    this.acts.redraw();
  }

  /** Opens the rest fold: its rows are drawn in their places, the cursor on the first of them. */
  unfold(): void {
    const before = new Set(this.hits?.agents ?? []);
    this.unfolded = true;
    this.unfoldedFrom = before;
    this.acts.redraw();
  }

  /** The rows the keyboard knew before the fold opened: the cursor goes to the first new one once drawn. */
  private unfoldedFrom: Set<string> | null = null;

  /** After a frame: a fold just opened puts the cursor on its first row. */
  drawn(): void {
    const from = this.unfoldedFrom;
    if (!from || !this.hits) return;
    this.unfoldedFrom = null;
    const first = this.hits.agents.find((id) => !from.has(id));
    if (first && this.cursor === REST_FOLD_ID) {
      this.cursor = first;
      this.acts.redraw();
    }
  }

  /** Lets go of the keyboard; `consumed` false: the key that made it let go still goes to the pane. */
  release(consumed = true): boolean {
    this.focused = false;
    this.unfolded = false;
    this.acts.redraw();
    return consumed;
  }

  enter(): boolean {
    const id = this.cursor;
    this.release();
    if (id) this.acts.goTo(id);
    return true;
  }

  reply(): boolean {
    if (this.cursor) this.acts.openInbox(this.cursor, 'reply');
    return true;
  }

  review(): boolean {
    if (this.cursor) this.acts.review(this.cursor);
    return true;
  }

  snooze(): boolean {
    if (this.cursor) this.acts.openInbox(this.cursor, 'snooze');
    return true;
  }

  /** `u`: the pane's finished turn reads unread again, in every client's Inbox too. */
  markUnread(): boolean {
    const id = this.cursor;
    if (!id) return true;
    const name = this.acts.nameOf(id) ?? 'this pane';
    if (this.acts.inFront() === id) {
      this.acts.say(`${name} is the pane in front of you: looking at it is what marks it seen.`);
      return true;
    }
    this.acts.track(
      this.acts.callAsPerson('mark-attention', { action: 'unread', window: id }).then((r) => {
        if (!r.ok) return this.acts.say(`Not marked unread: ${r.message}`);
        this.acts.forgetSeen(id);
        this.acts.say(`${name} reads as unread.`);
      }),
    );
    return true;
  }

  /** `x`: the newest message of the pane's queue that is still waiting is dropped; `u` puts it back. */
  dropQueued(): boolean {
    const id = this.cursor;
    if (!id) return true;
    const name = this.acts.nameOf(id) ?? 'this pane';
    const queue = this.acts.queueOf(id);
    const waiting = queue.filter((m) => m.status === 'waiting');
    const newest = waiting.at(-1);
    if (!newest) {
      this.acts.say(queue.length > 0 ? `The message to ${name} is being typed; it cannot be dropped.` : `Nothing is queued for ${name}.`);
      return true;
    }
    this.acts.track(
      this.acts.callAsPerson('cancel-queued', { id: newest.id }).then((r) => {
        if (!r.ok) return this.acts.say(`Not dropped: ${r.message}`);
        // Only the person's own message can be put back: queued again, it is queued as the person.
        const mine = newest.by === 'human';
        this.dropped = mine ? { windowId: id, message: newest.parts ? { parts: newest.parts.map((p) => (p.kind === 'paste' ? { paste: p.text, n: p.n } : { text: p.text })) } : { text: newest.text }, at: Date.now() } : null;
        this.acts.say(`Dropped 1 queued message to ${name}.${mine ? ' u undoes.' : ''}`);
        this.acts.later(UNDO_WINDOW_MS + 50, () => this.acts.redraw());
      }),
    );
    return true;
  }

  /** `u` within 10 s of `x` on the same row: the text is queued again, at the end of the queue. */
  undoDrop(): boolean {
    const d = this.dropped;
    if (!d) return true;
    this.dropped = null;
    const name = this.acts.nameOf(d.windowId) ?? 'this pane';
    this.acts.track(
      this.acts.callAsPerson('queue-prompt', { window: d.windowId, ...d.message }).then((r) => {
        this.acts.say(r.ok ? `Queued again for ${name}.` : `Not queued again: ${r.message}`);
      }),
    );
    return true;
  }

  /** A key while the rail holds the keyboard: true when the rail took it. */
  key(tok: Token): boolean {
    if (!this.focused || tok.t !== 'key') return false;
    const r = dispatchKey(RAIL_KEYS, this.keyState(), this, tok);
    return r.ran && r.result;
  }

  /** A mouse press: true when it was on the rail (the sort control, a row, or the rail itself). */
  click(tok: Extract<Token, { t: 'mouse' }>): boolean {
    if (tok.release || tok.button !== 0 || this.width === 0) return false;
    if (tok.x >= this.width) {
      if (this.focused || this.unfolded) this.release();
      return false;
    }
    if (onFold(this.hits, tok.y)) {
      this.unfold();
      return true;
    }
    const h = this.hits;
    if (h?.sort && tok.y === h.sort.y && tok.x >= h.sort.x && tok.x < h.sort.x + h.sort.w) {
      this.stepOrder();
      return true;
    }
    const row = h?.rows.find((r) => tok.y >= r.y && tok.y < r.y + r.h);
    if (row) {
      if (this.focused && !row.sub) this.cursor = row.windowId;
      if (!this.focused) this.unfolded = false;
      this.acts.goTo(row.windowId);
      return true;
    }
    this.take(this.acts.inFront());
    return true;
  }
}
