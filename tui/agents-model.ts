// The agents view's model (spec: The agents view, Many agents at once): the rows in their five
// groups, oldest wait first, the selection, the marks, the filter and the selector, and what a
// linked host's row hidden here is. Pure: it reads what it is given and calls no verb, so it
// can be tested without a daemon.
import type { Item } from '../core/inbox/inbox.js';
import type { RemoteItemRow } from '../core/hosts/remote.js';
import { parseSelector, matches, type Selector, type SelectorRow } from '../core/agent-state/selector.js';
import { viewGroup, viewOrder, type AgentRow, type ViewGroup } from './rows.js';
import { GroupSettler } from './settle.js';
import type { Editor } from './editor.js';
import { UNDO_WINDOW_MS } from './limits.js';

/** What the view keeps between openings: the selection and every draft (spec: ctrl+]). */
export interface AgentsViewMemory {
  selected: string | null;
  drafts: Map<string, Editor>;
  bulkDraft: Editor | null;
  selector: string;
  /** Linked hosts' rows hidden here with d: row key → what the row said then (spec: it comes back when that agent changes it). */
  hiddenHere: Map<string, string>;
  /** The last row hidden here, for u within the undo window. */
  lastHidden: { key: string; at: number } | null;
}

export function newAgentsViewMemory(): AgentsViewMemory {
  return { selected: null, drafts: new Map(), bulkDraft: null, selector: '', hiddenHere: new Map(), lastHidden: null };
}

export type ViewRow =
  | { key: string; type: 'agent'; agent: AgentRow; group: ViewGroup | 'snoozed'; since: number; down?: boolean }
  | { key: string; type: 'item'; item: Item; group: ViewGroup | 'snoozed'; since: number; down?: boolean }
  /** A linked host's Inbox item with no agent row of its own: display-only here. */
  | { key: string; type: 'host-item'; item: RemoteItemRow; group: ViewGroup | 'snoozed'; since: number; down?: boolean };

/** What a linked host's agent row says: hidden here until it says something else. */
export function hostAgentSignature(a: AgentRow): string {
  return `${a.state}|${a.kind}|${a.stateSince}|${a.items.map((i) => i.id).join(',')}`;
}

/** What a linked host's Inbox item says: hidden here until it is updated. */
export function hostItemSignature(i: RemoteItemRow): string {
  return `${i.kind}|${i.updated_at}`;
}

export const FILTER_KINDS = ['approval', 'question', 'ask', 'mail', 'errored', 'done'];
const NEEDS_ITEM_KINDS = new Set(['approval', 'question', 'plan', 'ask', 'mail', 'errored', 'resume', 'held']);

/** What the rows are built from, read on each draw. */
export interface AgentsSource {
  agents(): AgentRow[];
  /** The Inbox's open items, and its snoozed ones. */
  items(): Item[];
  snoozed(): Iterable<Item>;
  /** Linked hosts' Inbox items. */
  hostItems(): RemoteItemRow[];
  /** Sessions this client may show. */
  visible(sessionId: string): boolean;
  /** What a selector is matched against, for each kind of row (null: matches no selector). */
  selectorRow: { agent(a: AgentRow): SelectorRow | null; item(i: Item): SelectorRow; hostItem(i: RemoteItemRow): SelectorRow };
}

export class AgentsModel {
  /** 0 every row, 1 the items, 2+ one kind of item (FILTER_KINDS). */
  filter = 0;
  showSnoozed = false;
  readonly marks = new Set<string>();
  selectorError: string | null = null;
  /** The rows as last built, in display order. */
  rows: ViewRow[] = [];
  private selector: Selector | null = null;
  private words: string[] = [];
  private readonly settler = new GroupSettler<ViewGroup>();

  constructor(readonly mem: AgentsViewMemory) {
    this.applySelector(mem.selector);
  }

  /** `/`: selector terms (key:value) and words; false, with selectorError, when it does not parse. */
  applySelector(text: string): boolean {
    const t = text.trim();
    const terms = t.split(/\s+/).filter(Boolean);
    const sel = terms.filter((w) => w.includes(':'));
    try {
      this.selector = sel.length ? parseSelector(sel.join(' ')) : null;
    } catch (e) {
      this.selectorError = e instanceof Error ? e.message : String(e);
      return false;
    }
    this.words = terms.filter((w) => !w.includes(':')).map((w) => w.toLowerCase());
    this.selectorError = null;
    this.mem.selector = t;
    return true;
  }

  private passes(row: SelectorRow | null, hay: string): boolean {
    if (this.selector && (!row || !matches(this.selector, row))) return false;
    const h = hay.toLowerCase();
    return this.words.every((w) => h.includes(w));
  }

  kindOf(r: ViewRow): string {
    if (r.type === 'item' || r.type === 'host-item') return r.item.kind;
    const it = r.agent.items.find((i) => NEEDS_ITEM_KINDS.has(i.kind) || i.kind === 'done');
    if (it) return it.kind;
    if (r.agent.state === 'needs_input') return r.agent.kind === 'approval' ? 'approval' : 'question';
    if (r.agent.state === 'errored') return 'errored';
    return r.agent.finishedUnread ? 'done' : '';
  }

  private passesFilter(r: ViewRow): boolean {
    if (this.filter === 0) return true;
    if (this.filter === 1) return r.group === 'needs' || r.group === 'review';
    return this.kindOf(r) === FILTER_KINDS[this.filter - 2];
  }

  /** `f`: the next filter; returns what the dock says of it. */
  cycleFilter(): string {
    this.filter = (this.filter + 1) % (FILTER_KINDS.length + 2);
    return this.filter === 0 ? 'Every agent.' : this.filter === 1 ? 'Only the items: Needs you and Ready for review.' : `Only ${FILTER_KINDS[this.filter - 2]} items.`;
  }

  /** Shows only one kind of item (ctrl+b M: the mail). */
  filterKind(kind: string): void {
    this.filter = FILTER_KINDS.indexOf(kind) + 2;
  }

  /** The filter's tag in the header, or null for every row. */
  filterTag(): string | null {
    return this.filter === 0 ? null : this.filter === 1 ? 'items' : FILTER_KINDS[this.filter - 2]!;
  }

  /** Every row in display order: the five groups (oldest wait first), then Snoozed when shown. `wake`: look again in ms (a settling move). */
  build(src: AgentsSource, now: number, wake: (ms: number) => void): ViewRow[] {
    const agents = src.agents();
    const agentIds = new Set(agents.map((a) => a.id));
    const out: ViewRow[] = [];
    const keys = new Set<string>();
    for (const a of agents) {
      if (!this.passes(this.selector ? src.selectorRow.agent(a) : null, `${a.name} ${a.session} ${a.message}`)) continue;
      if (a.host && this.hiddenHereStill(a.id, hostAgentSignature(a))) continue;
      const g = this.settler.group(a.id, viewGroup(a, now), now, wake);
      const wait = a.items.filter((i) => NEEDS_ITEM_KINDS.has(i.kind)).reduce((m, i) => Math.min(m, i.opened_at), a.stateSince);
      out.push({ key: a.id, type: 'agent', agent: a, group: g, since: g === 'needs' ? wait : a.stateSince, down: !!a.down });
      keys.add(a.id);
    }
    for (const i of src.items()) {
      if (i.window_id && agentIds.has(i.window_id)) continue;
      if (i.session_id && !src.visible(i.session_id)) continue;
      if (!this.itemPasses(src, i)) continue;
      const g: ViewGroup = i.kind === 'done' ? 'review' : 'needs';
      out.push({ key: `item:${i.id}`, type: 'item', item: i, group: g, since: i.opened_at });
      keys.add(`item:${i.id}`);
    }
    // A linked host's items that no agent row of that host stands for (mail, a question from a shell).
    for (const i of src.hostItems()) {
      if (i.window_id && agentIds.has(`${i.host}:${i.window_id}`)) continue;
      if (i.kind !== 'done' && !NEEDS_ITEM_KINDS.has(i.kind)) continue;
      if (!this.passes(this.selector ? src.selectorRow.hostItem(i) : null, `${i.host} ${i.name ?? ''} ${i.session ?? ''} ${i.summary}`)) continue;
      const key = `host-item:${i.host}:${i.id}`;
      if (this.hiddenHereStill(key, hostItemSignature(i))) continue;
      out.push({ key, type: 'host-item', item: i, group: i.kind === 'done' ? 'review' : 'needs', since: i.opened_at, down: i.down });
      keys.add(key);
    }
    this.settler.keep(keys);
    const sorted = viewOrder(out.filter((r) => this.passesFilter(r)));
    if (this.showSnoozed) {
      for (const i of [...src.snoozed()].sort((a, b) => a.opened_at - b.opened_at)) {
        if (i.session_id && !src.visible(i.session_id)) continue;
        if (this.itemPasses(src, i)) sorted.push({ key: `item:${i.id}`, type: 'item', item: i, group: 'snoozed', since: i.opened_at });
      }
    }
    this.rows = sorted;
    return sorted;
  }

  private itemPasses(src: AgentsSource, i: Item): boolean {
    return this.passes(this.selector ? src.selectorRow.item(i) : null, `${i.name ?? ''} ${i.session ?? ''} ${i.summary}`);
  }

  /** The selected row; the first when the one selected is gone. */
  selected(): ViewRow | null {
    const rows = this.rows;
    if (rows.length === 0) return null;
    const hit = rows.find((r) => r.key === this.mem.selected);
    if (hit) return hit;
    this.mem.selected = rows[0]!.key;
    return rows[0]!;
  }

  move(d: number): void {
    const rows = this.rows;
    if (!rows.length) return;
    const i = Math.max(0, rows.findIndex((r) => r.key === this.mem.selected));
    this.mem.selected = rows[Math.max(0, Math.min(rows.length - 1, i + d))]!.key;
  }

  toggleMark(r: ViewRow | null): void {
    if (!r) return;
    if (this.marks.has(r.key)) this.marks.delete(r.key);
    else this.marks.add(r.key);
  }

  /** Every shown row is marked. */
  allMarked(): boolean {
    return this.rows.every((x) => this.marks.has(x.key));
  }

  /** `*`: marks every shown row, or clears the marks when they all are. */
  markAllOrClear(): void {
    if (this.allMarked()) this.marks.clear();
    else for (const x of this.rows) this.marks.add(x.key);
  }

  /** Marked rows the list shows (spec: a bulk key leaves out what the search or a fold hides). */
  markedShown(): ViewRow[] {
    return this.rows.filter((r) => this.marks.has(r.key));
  }

  /** The Inbox items a row stands for (what d dismisses, z snoozes). */
  itemsOf(r: ViewRow): Item[] {
    if (r.type === 'item') return [r.item];
    if (r.type === 'host-item') return [];
    // A linked host's Inbox items are display-only here: nothing to dismiss, snooze or release.
    if (r.agent.host) return [];
    return r.agent.items.filter((i) => NEEDS_ITEM_KINDS.has(i.kind) || i.kind === 'done');
  }

  /** The mail thread a row is about, when mail is what it shows; else null. */
  mailThread(r: ViewRow): number | null {
    if (r.type === 'host-item' || this.kindOf(r) !== 'mail') return null;
    const it = this.itemsOf(r).find((i) => i.kind === 'mail');
    const t = Number(it?.ref.thread);
    return Number.isInteger(t) && t > 0 ? t : null;
  }

  /**
   * d on a linked host's row hides it here and marks nothing on that machine: whether the person
   * has dealt with it is a fact about this client. It comes back when that agent changes it.
   */
  hideHere(key: string, signature: string, now: number): void {
    this.mem.hiddenHere.set(key, signature);
    this.mem.lastHidden = { key, at: now };
  }

  /** Whether a hidden row still says what it said when hidden; one that moved on is shown again. */
  private hiddenHereStill(key: string, signature: string): boolean {
    const was = this.mem.hiddenHere.get(key);
    if (was === undefined) return false;
    if (was === signature) return true;
    this.mem.hiddenHere.delete(key);
    return false;
  }

  /** u: shows again the row hidden here last, within the undo window; false when there is none. */
  unhide(now: number): boolean {
    const h = this.mem.lastHidden;
    if (!h || now - h.at > UNDO_WINDOW_MS || !this.mem.hiddenHere.delete(h.key)) return false;
    this.mem.lastHidden = null;
    return true;
  }
}
