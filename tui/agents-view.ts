// The agents view (ctrl+b i; spec: The agents view, Many agents at once): every agent and every
// Inbox item in five groups, oldest wait first, a focus area with the card of what the selected
// row asks, and the keys that answer, reply, dismiss, snooze and mark. Acts go through verbs as
// the person; a refusal is said in the dock line, with the daemon's reason.
import { listMove } from './list-keys.js';
import type { Canvas } from './canvas.js';
import { attr, roleAttr, A_BOLD, A_DIM, A_INVERSE, PLAIN, ROLE_COLOR } from './canvas.js';
import type { Rect } from './pane-draw.js';
import type { Token } from './keys.js';
import type { Overlay, TuiHost } from './overlay.js';
import type { Item } from '../core/inbox/inbox.js';
import { VIEW_GROUP_TITLE, askText, countedIn, needWord, needsYouRow, showsAge, viewGroup, viewOrder, type AgentRow, type ViewGroup } from './rows.js';
import { remoteAgentSelectorRow, remoteItemSelectorRow } from '../core/hosts/rows.js';
import type { RemoteItemRow } from '../core/hosts/remote.js';
import { GroupSettler } from './settle.js';
import { Card, ANSWER_LABEL, type Answer, type CardContent, type PeekedPrompt } from './card.js';
import { Editor } from './editor.js';
import { stateMark } from './marks.js';
import { age, clean, fit, pad, textWidth } from './text.js';
import { AGE_TICK_MS, EDITOR_MAX_ROWS, MAX_BULK_REPLY, SETTLE_MS, UNDO_WINDOW_MS } from './limits.js';
import { parseSelector, matches, type Selector } from '../core/agent-state/selector.js';
import { selectorRow } from '../core/verbs/agents.js';
import { HeldCard, heldItem } from './held-card.js';
import { capBytes } from '../core/agent-state/store.js';
import { REASON_MAX_BYTES } from '../core/integrations/hooks/limits.js';

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

type ViewRow =
  | { key: string; type: 'agent'; agent: AgentRow; group: ViewGroup | 'snoozed'; since: number; down?: boolean }
  | { key: string; type: 'item'; item: Item; group: ViewGroup | 'snoozed'; since: number; down?: boolean }
  /** A linked host's Inbox item with no agent row of its own: display-only here. */
  | { key: string; type: 'host-item'; item: RemoteItemRow; group: ViewGroup | 'snoozed'; since: number; down?: boolean };

/** What a linked host's agent row says: hidden here until it says something else. */
function hostAgentSignature(a: AgentRow): string {
  return `${a.state}|${a.kind}|${a.stateSince}|${a.items.map((i) => i.id).join(',')}`;
}

/** What a linked host's Inbox item says: hidden here until it is updated. */
function hostItemSignature(i: RemoteItemRow): string {
  return `${i.kind}|${i.updated_at}`;
}

type Mode = 'list' | 'peek' | 'reply' | 'select' | 'snooze' | 'bulk-allow' | 'text' | 'narrow-focus' | 'reason' | 'want';

const FILTER_KINDS = ['approval', 'question', 'ask', 'mail', 'errored', 'done'];
const NEEDS_ITEM_KINDS = new Set(['approval', 'question', 'plan', 'ask', 'mail', 'errored', 'resume', 'held']);
const SNOOZE_CHOICES: Record<string, string> = { '1': '15m', '2': '1h', '3': 'tomorrow', '4': 'change' };
/** `!` (this state is wrong): the state the person says the selected agent should have, one key each. */
const WANT_CHOICES: Record<string, string> = { i: 'idle', w: 'working', n: 'needs_input', d: 'done', e: 'errored', u: 'unknown' };

export class AgentsView implements Overlay {
  readonly fullScreen = true;
  private mode: Mode = 'list';
  private readonly settler = new GroupSettler<ViewGroup>();
  private readonly card: Card;
  private readonly marks = new Set<string>();
  private filter = 0;
  private showSnoozed = false;
  private selectorLine = new Editor();
  private selectorError: string | null = null;
  private selector: Selector | null = null;
  private words: string[] = [];
  private textLine = new Editor();
  /** `R`: the `Reason:` line of a held approval or plan, and the request it answers. */
  private reasonLine = new Editor();
  private reasonFor = '';
  private scroll = 0;
  private bulkAllow: { prompts: Array<{ row: AgentRow; prompt: PeekedPrompt }>; left: number; shownAt: number } | null = null;
  private lastRows: ViewRow[] = [];
  private tick = false;
  private readonly held = new HeldCard();
  private readonly hostItems: () => RemoteItemRow[];

  constructor(
    private readonly host: TuiHost,
    private readonly mem: AgentsViewMemory,
    private readonly rows: () => AgentRow[],
    opts: { select?: string; hostItems?: () => RemoteItemRow[]; mail?: boolean } = {},
  ) {
    this.hostItems = opts.hostItems ?? (() => []);
    this.card = new Card(host.acts, () => host.redraw());
    if (opts.select) mem.selected = opts.select;
    this.applySelector(mem.selector);
    // ctrl+b M: on the mail for you, the first of it selected.
    if (opts.mail) {
      this.filter = FILTER_KINDS.indexOf('mail') + 2;
      this.mailFirst = !opts.select;
    }
  }

  /** Select the first row once the list is built (ctrl+b M). */
  private mailFirst = false;

  /** One redraw at the earliest moment something is due (a settled move, a settled card). */
  private wakeAt = 0;
  private wake(ms: number): void {
    const at = Date.now() + ms;
    if (this.wakeAt > Date.now() && this.wakeAt <= at) return;
    this.wakeAt = at;
    this.host.later(ms, () => {
      this.wakeAt = 0;
      this.host.redraw();
    });
  }

  // ---- the list ----

  private applySelector(text: string): boolean {
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

  private agentMatches(a: AgentRow): boolean {
    const sel = this.selector && (a.remote ? remoteAgentSelectorRow(a.remote, this.host.svc) : a.w ? selectorRow(a.w, this.host.svc) : null);
    if (this.selector && (!sel || !matches(this.selector, sel))) return false;
    const hay = `${a.name} ${a.session} ${a.message}`.toLowerCase();
    return this.words.every((w) => hay.includes(w));
  }

  private itemMatches(i: Item): boolean {
    if (this.selector) {
      const row = { harness: i.harness, harnessNames: i.harness ? this.host.svc.harnessNames(i.harness) : [], session: i.session ?? undefined, host: i.host ?? 'local', name: i.name ?? undefined };
      if (!matches(this.selector, row)) return false;
    }
    const hay = `${i.name ?? ''} ${i.session ?? ''} ${i.summary}`.toLowerCase();
    return this.words.every((w) => hay.includes(w));
  }

  private hostItemMatches(i: RemoteItemRow): boolean {
    if (this.selector && !matches(this.selector, remoteItemSelectorRow(i, this.host.svc))) return false;
    const hay = `${i.host} ${i.name ?? ''} ${i.session ?? ''} ${i.summary}`.toLowerCase();
    return this.words.every((w) => hay.includes(w));
  }

  private kindOf(r: ViewRow): string {
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

  /** Every row in display order: the five groups (oldest wait first), then Snoozed when shown. */
  private build(now: number): ViewRow[] {
    const svc = this.host.svc;
    const agents = this.rows();
    const agentIds = new Set(agents.map((a) => a.id));
    const out: ViewRow[] = [];
    const keys = new Set<string>();
    for (const a of agents) {
      if (!this.agentMatches(a)) continue;
      if (a.host && this.hiddenHereStill(a.id, hostAgentSignature(a))) continue;
      const g = this.settler.group(a.id, viewGroup(a, now), now, (ms) => this.wake(ms));
      const wait = a.items.filter((i) => NEEDS_ITEM_KINDS.has(i.kind)).reduce((m, i) => Math.min(m, i.opened_at), a.stateSince);
      out.push({ key: a.id, type: 'agent', agent: a, group: g, since: g === 'needs' ? wait : a.stateSince, down: !!a.down });
      keys.add(a.id);
    }
    for (const i of svc.inbox.list()) {
      if (i.window_id && agentIds.has(i.window_id)) continue;
      if (i.session_id && !this.host.visible(i.session_id)) continue;
      if (!this.itemMatches(i)) continue;
      const g: ViewGroup = i.kind === 'done' ? 'review' : 'needs';
      out.push({ key: `item:${i.id}`, type: 'item', item: i, group: g, since: i.opened_at });
      keys.add(`item:${i.id}`);
    }
    // A linked host's items that no agent row of that host stands for (mail, a question from a shell).
    for (const i of this.hostItems()) {
      if (i.window_id && agentIds.has(`${i.host}:${i.window_id}`)) continue;
      if (i.kind !== 'done' && !NEEDS_ITEM_KINDS.has(i.kind)) continue;
      if (!this.hostItemMatches(i)) continue;
      const key = `host-item:${i.host}:${i.id}`;
      if (this.hiddenHereStill(key, hostItemSignature(i))) continue;
      out.push({ key, type: 'host-item', item: i, group: i.kind === 'done' ? 'review' : 'needs', since: i.opened_at, down: i.down });
      keys.add(key);
    }
    this.settler.keep(keys);
    const sorted = viewOrder(out.filter((r) => this.passesFilter(r)));
    if (this.showSnoozed) {
      for (const i of [...svc.inbox.snoozed.values()].sort((a, b) => a.opened_at - b.opened_at)) {
        if (i.session_id && !this.host.visible(i.session_id)) continue;
        if (this.itemMatches(i)) sorted.push({ key: `item:${i.id}`, type: 'item', item: i, group: 'snoozed', since: i.opened_at });
      }
    }
    return sorted;
  }

  private selected(): ViewRow | null {
    const rows = this.lastRows;
    if (rows.length === 0) return null;
    const hit = rows.find((r) => r.key === this.mem.selected);
    if (hit) return hit;
    this.mem.selected = rows[0]!.key;
    return rows[0]!;
  }

  private move(d: number): void {
    const rows = this.lastRows;
    if (!rows.length) return;
    const i = Math.max(0, rows.findIndex((r) => r.key === this.mem.selected));
    this.mem.selected = rows[Math.max(0, Math.min(rows.length - 1, i + d))]!.key;
  }

  /** The Inbox items a row stands for (what d dismisses, z snoozes). */
  private itemsOf(r: ViewRow): Item[] {
    if (r.type === 'item') return [r.item];
    if (r.type === 'host-item') return [];
    // A linked host's Inbox items are display-only here: nothing to dismiss, snooze or release.
    if (r.agent.host) return [];
    return r.agent.items.filter((i) => NEEDS_ITEM_KINDS.has(i.kind) || i.kind === 'done');
  }

  /** Marked rows the list shows (spec: a bulk key leaves out what the search or a fold hides). */
  private markedShown(): ViewRow[] {
    return this.lastRows.filter((r) => this.marks.has(r.key));
  }

  // ---- keys ----

  key(tok: Token): void {
    const now = Date.now();
    switch (this.mode) {
      case 'reply':
        return this.replyKey(tok);
      case 'select':
        return this.selectKey(tok);
      case 'text':
        return this.textKey(tok);
      case 'reason':
        return this.reasonKey(tok);
      case 'snooze':
        return this.snoozeKey(tok);
      case 'want':
        return this.wantKey(tok);
      case 'bulk-allow':
        return this.bulkAllowKey(tok, now);
      case 'peek':
        return this.peekKey(tok, now);
      default:
        return this.listKey(tok, now);
    }
  }

  private listKey(tok: Token, now: number): void {
    if (tok.t !== 'key') return;
    const r = this.selected();
    const k = tok.name;
    if (this.mode === 'narrow-focus' && (k === 'Left' || k === 'h' || k === 'Esc')) {
      this.mode = 'list';
      return this.host.redraw();
    }
    const step = listMove(k);
    if (step !== null) {
      this.move(step);
      return this.host.redraw();
    }
    switch (k) {
      case 'l':
      case 'Right':
        this.mode = 'narrow-focus';
        break;
      case 'm':
        this.host.openMailbox({ fromAgents: true });
        return;
      case 'Enter':
        if (r && this.mailThread(r) !== null) {
          this.host.openMailbox({ thread: this.mailThread(r)!, fromAgents: true });
          return;
        }
        if (r) {
          // Going to the pane is choosing to answer there: the hold ends and the harness asks.
          const h = heldItem(this.itemsOf(r));
          if (h?.window_id) void this.host.acts.call('release-approval', { window: h.window_id }, true);
          this.goTo(r, false);
        }
        return;
      case 'C-]':
        if (r) this.goTo(r, true);
        return;
      case ' ':
        if (r?.type === 'host-item') return this.displayOnly(r.item.host, 'answered', r.item);
        if (r && r.type === 'agent' && this.unreachable(r.agent)) return;
        if (r && r.type === 'agent' && r.agent.state === 'needs_input') {
          this.mode = 'peek';
          this.card.refresh(r.agent);
        } else this.host.dock.say('space peeks at an approval or a question; this row has none.');
        break;
      case 'Esc':
      case 'q':
        this.host.closeOverlay();
        return;
      case '?':
        this.host.openHelp('agents');
        return;
      case 'x':
        if (r) {
          if (this.marks.has(r.key)) this.marks.delete(r.key);
          else this.marks.add(r.key);
        }
        break;
      case '*': {
        const all = this.lastRows.map((x) => x.key);
        if (all.every((x) => this.marks.has(x))) this.marks.clear();
        else for (const x of all) this.marks.add(x);
        break;
      }
      case 'f':
        this.filter = (this.filter + 1) % (FILTER_KINDS.length + 2);
        this.host.dock.say(this.filter === 0 ? 'Every agent.' : this.filter === 1 ? 'Only the items: Needs you and Ready for review.' : `Only ${FILTER_KINDS[this.filter - 2]} items.`);
        break;
      case 'S':
        this.showSnoozed = !this.showSnoozed;
        break;
      case '/':
        this.mode = 'select';
        this.selectorLine = new Editor();
        for (const ch of this.mem.selector) this.selectorLine.key({ t: 'key', raw: ch, name: ch });
        break;
      case 'u':
        this.host.track(this.undo());
        return;
      case 'd':
        if (!this.marks.size && r?.type === 'agent' && r.agent.host) return this.hideHere(r, r.agent.host, hostAgentSignature(r.agent));
        if (!this.marks.size && r?.type === 'host-item') return this.hideHere(r, r.item.host, hostItemSignature(r.item));
        this.host.track(this.dismiss(this.marks.size ? this.markedShown() : r ? [r] : []));
        return;
      case 'z':
        if (!this.marks.size && r?.type === 'agent' && r.agent.host) return this.displayOnly(r.agent.host, 'snoozed');
        if (!this.marks.size && r?.type === 'host-item') return this.displayOnly(r.item.host, 'snoozed', r.item);
        if (r && r.group === 'snoozed' && r.type === 'item') {
          this.host.track(this.person('mark-attention', { action: 'wake', id: r.item.id }, 'Woken.'));
          return;
        }
        this.mode = 'snooze';
        this.host.dock.say('Snooze: 1 15 minutes  2 an hour  3 until 9:00 tomorrow  4 until it changes', null, 10_000);
        break;
      case 'r':
      case 'i':
      case 'Tab':
        this.openReply(r);
        break;
      case '!':
        if (r?.type !== 'agent') return this.host.dock.say('! saves what tuios saw on an agent\'s pane; this row is not an agent.');
        this.mode = 'want';
        this.host.dock.say('What should it be?  i idle  w working  n needs input  d done  e errored  u unknown  (any other key: nothing saved)', null, 15_000);
        break;
      case 'R':
        this.openReason(r, now);
        break;
      case 'a':
      case 'A':
        if (r && heldItem(this.itemsOf(r))) return this.host.track(this.answerHeld(heldItem(this.itemsOf(r))!, k === 'a' ? '1' : '2', now));
        if (r) this.host.track(this.answerFromCard(r, k === 'a' ? 'approve' : 'approve_always', undefined, k, now));
        return;
      default:
        if (/^[1-9]$/.test(k)) return this.host.track(this.digit(r, Number(k), now));
        return;
    }
    this.host.redraw();
  }

  private digit(r: ViewRow | null, n: number, now: number): void {
    const marked = this.markedShown();
    if (marked.length && n === 3) return this.host.track(this.bulkDeny(marked));
    if (marked.length && n === 1) return this.host.track(this.openBulkAllow(marked));
    if (marked.length && n === 2) return this.host.dock.say('Always-allow is never given to many agents at once.');
    if (!r) return;
    const h = heldItem(this.itemsOf(r));
    if (h) {
      if (n > 3) return this.host.dock.say('A held approval answers 1, 2 or 3.');
      return this.host.track(this.answerHeld(h, String(n) as '1' | '2' | '3', now));
    }
    this.host.track(this.answerFromCard(r, 'choose', n, String(n), now));
  }

  /**
   * `R` on a held approval or plan whose harness passes a reason on (spec: Reject with a reason):
   * a `Reason:` line in its card. Only keys from this terminal reach it; enter denies with it.
   */
  private openReason(r: ViewRow | null, now: number): void {
    const h = r ? heldItem(this.itemsOf(r)) : undefined;
    if (!h) return this.host.dock.say('R rejects with a reason on a held approval or plan.');
    if (!takesReason(h.harness)) return this.host.dock.say(`${h.harness ?? 'This harness'} does not pass a reason on: 3 denies.`);
    const why = this.held.refusal(h, '3', now);
    if (why) {
      this.host.dock.say(why);
      if (/moment|just arrived/.test(why)) this.wake(this.held.msUntilSettled(now) + 5);
      return;
    }
    this.mode = 'reason';
    this.reasonLine = new Editor();
    this.reasonFor = String(h.ref.request_id);
  }

  private reasonKey(tok: Token): void {
    const res = this.reasonLine.key(tok);
    if (res === 'close') {
      this.mode = 'list';
      this.host.dock.say('The reason was dropped; nothing was sent.');
    } else if (res === 'send') {
      this.mode = 'list';
      const r = this.selected();
      const h = r ? heldItem(this.itemsOf(r)) : undefined;
      if (!h || String(h.ref.request_id) !== this.reasonFor) this.host.dock.say('The approval changed or ended; the reason was not sent.');
      else this.host.track(this.answerHeld(h, '3', Date.now(), reasonText(this.reasonLine.value())));
    }
    this.host.redraw();
  }

  /** 1, 2 or 3 on a held approval or plan: only the attached client, only what was read. */
  private async answerHeld(item: Item, key: '1' | '2' | '3', now: number, reason?: string): Promise<void> {
    const why = this.held.refusal(item, key, now);
    if (why) {
      this.host.dock.say(why);
      if (/moment|just arrived/.test(why)) this.wake(this.held.msUntilSettled(now) + 5);
      return;
    }
    const params: Record<string, unknown> = { request_id: item.ref.request_id, answer: key, line: item.ref.line };
    if (item.ref.plan_sha) params.plan_sha = item.ref.plan_sha;
    // An empty reason sends none: the hook gives the model the default.
    if (key === '3' && reason) params.reason = reason;
    const res = await this.host.acts.call('reply-approval', params, true);
    const word = key === '1' ? 'Allowed once' : key === '2' ? 'Allowed always' : reason ? 'Denied with your reason' : 'Denied';
    if (res.ok) this.host.dock.say(`${word}: ${item.name ?? item.harness ?? 'the agent'} goes on.`);
    else this.host.dock.say(`Not answered: ${res.message}`, stateMark('errored', false, this.host.ascii));
    this.host.redraw();
  }

  private peekKey(tok: Token, now: number): void {
    const r = this.selected();
    if (tok.t !== 'key' || !r) return;
    const k = tok.name;
    if (k === 'Esc' || k === 'q' || k === ' ') this.mode = 'list';
    else if (k === 'Enter') return this.goTo(r, false);
    else if (k === 'r' && r.type === 'agent') this.card.refresh(r.agent);
    else if (k === 'Tab') {
      this.mode = 'text';
      this.textLine = new Editor();
    } else if (k === 'a') return this.host.track(this.answerFromCard(r, 'approve', undefined, k, now));
    else if (k === 'A') return this.host.track(this.answerFromCard(r, 'approve_always', undefined, k, now));
    else if (k === 'd') return this.host.track(this.answerFromCard(r, 'deny', undefined, k, now));
    else if (/^[1-9]$/.test(k)) return this.host.track(this.answerFromCard(r, 'choose', Number(k), k, now));
    this.host.redraw();
  }

  private textKey(tok: Token): void {
    const res = this.textLine.key(tok);
    if (res === 'close') this.mode = 'peek';
    else if (res === 'send') {
      const r = this.selected();
      const text = this.textLine.value();
      this.mode = 'peek';
      if (r && text.trim()) this.host.track(this.answerFromCard(r, 'text', undefined, 'text', Date.now(), text));
    }
    this.host.redraw();
  }

  private selectKey(tok: Token): void {
    const res = this.selectorLine.key(tok);
    if (res === 'close') this.mode = 'list';
    else if (res === 'send') {
      if (this.applySelector(this.selectorLine.value())) this.mode = 'list';
    }
    this.host.redraw();
  }

  private snoozeKey(tok: Token): void {
    this.mode = 'list';
    const until = tok.t === 'key' ? SNOOZE_CHOICES[tok.name] : undefined;
    if (!until) {
      this.host.dock.say('Snooze cancelled.');
      return;
    }
    const rows = this.marks.size ? this.markedShown() : [this.selected()].filter((x): x is ViewRow => !!x);
    this.host.track(this.snooze(rows, until));
  }

  private wantKey(tok: Token): void {
    this.mode = 'list';
    const want = tok.t === 'key' ? WANT_CHOICES[tok.name] : undefined;
    const r = this.selected();
    if (!want || r?.type !== 'agent') {
      this.host.dock.say('Nothing saved.');
      return this.host.redraw();
    }
    this.host.track(this.captureState(r.agent, want));
  }

  /** capture-state on the agent's pane: the capture's path in the dock line. */
  private async captureState(a: AgentRow, want: string): Promise<void> {
    const res = await this.host.acts.call<{ path: string; verdict: { state: string } }>('capture-state', { window: a.target, want });
    const where = a.host ? ` on ${a.host}` : '';
    if (res.ok) this.host.dock.say(`Saved${where}: ${res.value.path} (tuios said ${res.value.verdict.state}; you said ${want}).`, null, 20_000);
    else this.host.dock.say(`Not saved: ${res.message}`, stateMark('errored', false, this.host.ascii));
  }

  private replyKey(tok: Token): void {
    const bulk = this.marks.size > 0;
    const r = this.selected();
    const ed = bulk ? this.mem.bulkDraft : r ? this.mem.drafts.get(r.key) : undefined;
    if (tok.t === 'key' && tok.name === 'C-]') {
      this.mode = 'list';
      if (r) this.goTo(r, true);
      return;
    }
    if (!ed) {
      this.mode = 'list';
      return;
    }
    const res = ed.key(tok);
    if (res === 'close') this.mode = 'list';
    else if (res === 'send' && !ed.empty) {
      const text = ed.value();
      this.mode = 'list';
      if (bulk) this.host.track(this.bulkReply(this.markedShown(), text, ed));
      else if (r) this.host.track(this.reply(r, text, ed));
    }
    this.host.redraw();
  }

  private bulkAllowKey(tok: Token, now: number): void {
    const b = this.bulkAllow;
    this.mode = 'list';
    this.bulkAllow = null;
    if (!b || tok.t !== 'key' || tok.name !== 'Enter') {
      this.host.redraw();
      return;
    }
    if (now - b.shownAt < SETTLE_MS) {
      this.host.dock.say('The list just appeared; read it, then press 1 and enter again.');
      return;
    }
    this.host.track(this.allowMany(b.prompts));
  }

  // ---- acts ----

  /** A row of a host whose link is down: what it said last, so nothing acts on it (spec). Says so. */
  private unreachable(a: { host?: string; down?: boolean; seenAt?: number }): boolean {
    if (!a.down) return false;
    const seen = a.seenAt ? `, last heard ${age(Math.max(0, Date.now() - a.seenAt))} ago` : '';
    this.host.dock.say(`${a.host} cannot be reached: its link is down${seen}. The row is what it said last.`, stateMark('errored', false, this.host.ascii));
    return true;
  }

  /** A key that would change a linked host's Inbox: that Inbox is the host's, shown here and changed only there. */
  private displayOnly(host: string, what: 'dismissed' | 'snoozed' | 'answered', item?: RemoteItemRow): void {
    if (item && this.unreachable({ host, down: item.down, seenAt: item.seen_at })) return;
    const how = item ? `deal with it on ${host}` : `answer it (space) or deal with it on ${host}`;
    this.host.dock.say(`Not ${what}: ${host}'s Inbox items are display-only here; ${how}.`);
  }

  private goTo(r: ViewRow, zoom: boolean): void {
    if (r.type === 'host-item') return this.displayOnly(r.item.host, 'answered', r.item);
    if (r.type === 'agent' && r.agent.host) {
      if (this.unreachable(r.agent)) return;
      this.host.openRemotePane(r.agent);
      return;
    }
    const w = r.type === 'agent' ? r.agent.w : r.item.window_id ? this.host.svc.model.windows.get(r.item.window_id) : undefined;
    if (!w) {
      this.host.dock.say(r.type === 'item' && r.item.kind === 'mail' ? 'This mail came from no pane; enter opens its thread.' : 'This row has no pane to go to.');
      return;
    }
    this.host.closeOverlay();
    this.host.goToWindow(w, { zoom });
    if (zoom) this.host.dock.say('Press ctrl+b i to go back to the agents.');
  }

  private async person(verb: string, params: Record<string, unknown>, ok: string): Promise<boolean> {
    const r = await this.host.acts.call(verb, params, true);
    if (r.ok) this.host.dock.say(ok);
    else this.host.dock.say(`${verb}: ${r.message}`, stateMark('errored', false, this.host.ascii));
    this.host.redraw();
    return r.ok;
  }

  private async dismiss(rows: ViewRow[]): Promise<void> {
    const ids = rows.flatMap((r) => this.itemsOf(r).map((i) => i.id));
    if (ids.length === 0) return this.host.dock.say('Nothing here waits in the Inbox to dismiss.');
    const r = await this.host.acts.call<{ dismissed: number[]; missing: unknown[] }>('dismiss-attention', { ids }, true);
    // One that another client or the daemon closed first is gone either way: said nothing of.
    if (r.ok) this.host.dock.say(`Dismissed ${r.value.dismissed.length === 1 ? 'it' : r.value.dismissed.length}. u undoes it for ${UNDO_WINDOW_MS / 1000} s.`);
    else this.host.dock.say(`Not dismissed: ${r.message}`, stateMark('errored', false, this.host.ascii));
    this.host.redraw();
  }

  private async snooze(rows: ViewRow[], until: string): Promise<void> {
    const items = rows.flatMap((r) => this.itemsOf(r)).filter((i) => i.kind !== 'ask' && i.kind !== 'plan' && !i.held);
    if (items.length === 0) return this.host.dock.say('Nothing here can be snoozed (a held approval or a question is answered or dismissed).');
    let ok = 0;
    let why = '';
    for (const i of items) {
      const r = await this.host.acts.call('mark-attention', { action: 'snooze', id: i.id, until }, true);
      if (r.ok) ok++;
      else why = r.message;
    }
    this.host.dock.say(ok ? `Snoozed ${ok === 1 ? 'it' : ok}${why ? `; not all: ${why}` : ''}. u undoes it.` : `Not snoozed: ${why}`);
    this.host.redraw();
  }

  /**
   * d on a linked host's row hides it here and marks nothing on that machine: whether the person
   * has dealt with it is a fact about this client, and a second hub or a client there still sees
   * it. The row comes back when that agent changes it (its state, or the item, moves on).
   */
  private hideHere(r: ViewRow, host: string, signature: string): void {
    this.mem.hiddenHere.set(r.key, signature);
    this.mem.lastHidden = { key: r.key, at: Date.now() };
    this.host.dock.say(`Hidden here; nothing changes on ${host}, and it comes back when it changes. u undoes it for ${UNDO_WINDOW_MS / 1000} s.`);
    this.host.redraw();
  }

  /** Whether a hidden row still says what it said when hidden; one that moved on is shown again. */
  private hiddenHereStill(key: string, signature: string): boolean {
    const was = this.mem.hiddenHere.get(key);
    if (was === undefined) return false;
    if (was === signature) return true;
    this.mem.hiddenHere.delete(key);
    return false;
  }

  private async undo(): Promise<void> {
    const h = this.mem.lastHidden;
    if (h && Date.now() - h.at <= UNDO_WINDOW_MS && this.mem.hiddenHere.delete(h.key)) {
      this.mem.lastHidden = null;
      this.host.dock.say('Undone.');
      this.host.redraw();
      return;
    }
    const r = await this.host.acts.call<{ undone: unknown }>('mark-attention', { action: 'undo' }, true);
    if (!r.ok) this.host.dock.say(`Not undone: ${r.message}`);
    else this.host.dock.say(r.value.undone ? 'Undone.' : `Nothing to undo from the last ${UNDO_WINDOW_MS / 1000} s.`);
    this.host.redraw();
  }

  /** The mail thread a row is about, when mail is what it shows; else null. */
  private mailThread(r: ViewRow): number | null {
    if (r.type === 'host-item' || this.kindOf(r) !== 'mail') return null;
    const it = this.itemsOf(r).find((i) => i.kind === 'mail');
    const t = Number(it?.ref.thread);
    return Number.isInteger(t) && t > 0 ? t : null;
  }

  private openReply(r: ViewRow | null): void {
    if (this.marks.size) {
      this.mem.bulkDraft ??= new Editor();
      this.mode = 'reply';
      return;
    }
    // On mail: its thread opens with the reply line.
    const thread = r ? this.mailThread(r) : null;
    if (thread !== null) return this.host.openMailbox({ thread, reply: true, fromAgents: true });
    if (!r || r.type !== 'agent') return this.host.dock.say('r replies to an agent; this row is not one.');
    if (this.unreachable(r.agent)) return;
    if (!this.mem.drafts.has(r.key)) this.mem.drafts.set(r.key, new Editor());
    this.mode = 'reply';
  }

  private async reply(r: ViewRow, text: string, ed: Editor): Promise<void> {
    if (r.type !== 'agent') return;
    // A linked host's agent: queued there, through the link, under that host's policy for this one.
    const res = await this.host.acts.call<{ id: string; position: number }>('queue-prompt', { window: r.agent.target, text }, true);
    if (res.ok) {
      ed.clear();
      this.mem.drafts.delete(r.key);
      const when = r.agent.state === 'working' || r.agent.state === 'needs_input' ? 'typed when it rests' : 'typed now';
      this.host.dock.say(`Queued for ${r.agent.name} (${res.value.id}${r.agent.host ? ` on ${r.agent.host}` : ''}), ${when}.`);
    } else this.host.dock.say(`Not queued: ${res.message}`, stateMark('errored', false, this.host.ascii));
    this.host.redraw();
  }

  private async bulkReply(rows: ViewRow[], text: string, ed: Editor): Promise<void> {
    const agents = rows.filter((r): r is Extract<ViewRow, { type: 'agent' }> => r.type === 'agent' && !r.agent.down);
    const waiting = agents.filter((r) => r.agent.state === 'needs_input');
    const targets = agents.filter((r) => r.agent.state !== 'needs_input').slice(0, MAX_BULK_REPLY);
    let ok = 0;
    const failed: string[] = [];
    for (const r of targets) {
      const res = await this.host.acts.call('queue-prompt', { window: r.agent.target, text }, true);
      if (res.ok) ok++;
      else failed.push(r.agent.name);
    }
    if (ok) ed.clear();
    const left = [waiting.length ? `${waiting.map((r) => r.agent.name).join(', ')} wait${waiting.length === 1 ? 's' : ''} on a prompt` : '', failed.length ? `refused for ${failed.join(', ')}` : ''].filter(Boolean).join('; ');
    this.host.dock.say(`Queued for ${ok} agent${ok === 1 ? '' : 's'}${left ? `; left out: ${left}` : ''}.`);
    this.host.redraw();
  }

  /** An answer from the card: after the 0.4 s rule, the offered check, and a risky allow's second press. */
  private async answerFromCard(r: ViewRow, action: Answer, choice: number | undefined, keyName: string, now: number, text?: string): Promise<void> {
    if (r.type === 'host-item') return this.displayOnly(r.item.host, 'answered', r.item);
    if (r.type === 'agent' && this.unreachable(r.agent)) return;
    const c = this.contentOf(r);
    if (c?.kind === 'ask') {
      if (action !== 'choose' || choice === undefined) return this.host.dock.say('Pick one of the numbered answers.');
      if (!this.card.settled(now)) return this.host.dock.say('The question just changed on screen; read it, then press the key again.');
      if (choice > c.options.length) return this.host.dock.say(`There is no answer ${choice}.`);
      await this.person('answer-ask', { id: Number(c.item.ref.ask_id), answer: choice }, `Answered "${c.options[choice - 1]}".`);
      return;
    }
    if (!c || c.kind !== 'prompt') {
      const why = c?.kind === 'unreadable' ? c.why : c?.kind === 'loading' ? 'The prompt is still being read.' : 'Nothing on this row waits for an answer.';
      return this.host.dock.say(why);
    }
    const p = c.prompt;
    if (!this.card.settled(now)) return this.host.dock.say('The prompt just changed on screen; read it, then press the key again.');
    if (!p.offered.includes(action)) return this.host.dock.say(`${ANSWER_LABEL[action]} is not offered by this prompt (offered: ${p.offered.join(', ') || 'none'}).`);
    if (action === 'choose' && choice !== undefined && !p.options.some((o) => o.n === choice)) return this.host.dock.say(`The prompt has no option ${choice}.`);
    const allows = action === 'approve' || action === 'approve_always' || action === 'choose';
    if (allows && p.risk?.risky && !this.card.secondPress(keyName, p.prompt_id, now)) {
      this.host.dock.say(`Risky: ${p.risk.detail.join('; ') || p.risk.ack.join(', ')}. Press ${keyName} again within 3 s to allow.`, stateMark('needs_input', false, this.host.ascii));
      return;
    }
    const res = await this.host.acts.call<{ state: string }>(
      'respond',
      { window: c.row.target, action, ...(choice !== undefined ? { choice: String(choice) } : {}), ...(text !== undefined ? { choice: text } : {}), prompt_id: p.prompt_id, ...(allows && p.risk?.risky ? { risk_ack: p.risk.ack } : {}), timeout: 3000 },
      true,
    );
    const who = c.row.harness ?? c.row.name;
    const pressed = action === 'choose' ? `"${choice}"` : action === 'text' ? 'the answer' : `"${ANSWER_LABEL[action]}"`;
    if (res.ok) {
      this.mode = 'list';
      this.card.forget();
      this.host.dock.say(`Sent ${pressed} to ${who}; it is ${res.value.state === 'needs_input' ? 'still waiting' : res.value.state} now.`, stateMark(res.value.state, false, this.host.ascii));
    } else {
      this.host.dock.say(`Not answered: ${res.message}`, stateMark('errored', false, this.host.ascii));
      if (res.code === 'prompt_changed') this.card.refresh(c.row);
    }
    this.host.redraw();
  }

  private async peekAll(rows: ViewRow[]): Promise<Array<{ row: AgentRow; prompt: PeekedPrompt }>> {
    const out: Array<{ row: AgentRow; prompt: PeekedPrompt }> = [];
    for (const r of rows) {
      if (r.type !== 'agent' || r.agent.state !== 'needs_input' || r.agent.down) continue;
      const p = await this.host.acts.call<PeekedPrompt>('peek-prompt', { window: r.agent.target });
      if (p.ok) out.push({ row: r.agent, prompt: p.value });
    }
    return out;
  }

  private async bulkDeny(rows: ViewRow[]): Promise<void> {
    const prompts = (await this.peekAll(rows)).filter((x) => x.prompt.offered.includes('deny'));
    let ok = 0;
    for (const { row, prompt } of prompts) {
      const r = await this.host.acts.call('respond', { window: row.target, action: 'deny', prompt_id: prompt.prompt_id, timeout: 0 }, true);
      if (r.ok) ok++;
    }
    this.host.dock.say(`Rejected ${ok} approval${ok === 1 ? '' : 's'}${prompts.length > ok ? `; ${prompts.length - ok} changed first` : ''}.`);
    this.host.redraw();
  }

  private async openBulkAllow(rows: ViewRow[]): Promise<void> {
    const all = await this.peekAll(rows);
    const fine = all.filter((x) => x.prompt.offered.includes('approve') && !x.prompt.risk?.risky);
    const second = all.length - fine.length;
    this.bulkAllow = { prompts: fine, left: second, shownAt: Date.now() };
    this.mode = 'bulk-allow';
    this.host.redraw();
  }

  private async allowMany(list: Array<{ row: AgentRow; prompt: PeekedPrompt }>): Promise<void> {
    let ok = 0;
    for (const { row, prompt } of list) {
      // An approval that changed after the list showed it is not allowed (prompt_id).
      const r = await this.host.acts.call('respond', { window: row.target, action: 'approve', prompt_id: prompt.prompt_id, timeout: 0 }, true);
      if (r.ok) ok++;
    }
    this.host.dock.say(`Allowed ${ok} of ${list.length}.`);
    this.host.redraw();
  }

  private contentOf(r: ViewRow | null): CardContent | null {
    if (!r) return null;
    if (r.type === 'host-item') return null;
    return r.type === 'agent' ? this.card.contentFor(r.agent, null) : this.card.contentFor(null, r.item);
  }

  // ---- drawing ----

  draw(cv: Canvas, area: Rect, now: number): { x: number; y: number } | null {
    this.lastRows = this.build(now);
    if (this.mailFirst) {
      this.mailFirst = false;
      if (this.lastRows[0]) this.mem.selected = this.lastRows[0].key;
    }
    if (!this.tick) {
      this.tick = true;
      this.host.later(AGE_TICK_MS, () => {
        this.tick = false;
        this.host.redraw();
      });
    }
    cv.fill(area.x, area.y, area.w, area.h);
    this.drawHeader(cv, area);
    const body: Rect = { x: area.x, y: area.y + 2, w: area.w, h: Math.max(0, area.h - 3) };
    const narrow = area.w < 80;
    const listW = area.w >= 170 ? 56 : area.w >= 120 ? 48 : area.w >= 80 ? 38 : area.w;
    const twoLine = area.w >= 120;
    const sel = this.selected();
    let cursor: { x: number; y: number } | null = null;
    if (!narrow || this.mode !== 'narrow-focus') this.drawList(cv, { ...body, w: listW }, twoLine, sel, now);
    const focus: Rect = narrow ? body : { x: body.x + listW + 2, y: body.y, w: body.w - listW - 2, h: body.h };
    if (!narrow || this.mode === 'narrow-focus' || this.mode === 'peek' || this.mode === 'reply') {
      if (narrow) cv.fill(body.x, body.y, body.w, body.h);
      cursor = this.drawFocus(cv, focus, sel, now);
    }
    this.drawFooter(cv, { x: area.x, y: area.y + area.h - 1, w: area.w, h: 1 }, sel);
    if (this.mode === 'select') cursor = this.drawSelectLine(cv, { x: area.x, y: area.y + 1, w: area.w, h: 1 });
    return cursor;
  }

  private drawHeader(cv: Canvas, area: Rect): void {
    const ascii = this.host.ascii;
    let x = cv.text(area.x + 1, area.y, 'Agents', attr(-1, -1, A_BOLD));
    const count = (g: ViewGroup) => countedIn(this.lastRows, g);
    const parts: Array<[string, number, string]> = [
      ['needs_input', count('needs'), 'need you'],
      ['working', count('working'), 'working'],
      ['done_unread', count('review'), 'to review'],
      ['idle', count('idle') + count('earlier'), 'idle'],
    ];
    for (const [st, n, label] of parts) {
      const m = stateMark(st === 'done_unread' ? 'done' : st, st === 'done_unread', ascii)!;
      x = cv.text(x + 3, area.y, m.glyph, roleAttr(m.role, A_BOLD), area.x + area.w);
      x = cv.text(x + 1, area.y, `${n} ${label}`, PLAIN, area.x + area.w);
    }
    const tags: string[] = [];
    if (this.mem.selector) tags.push(`[select ${this.mem.selector}]`);
    if (this.filter === 1) tags.push('[items]');
    if (this.filter > 1) tags.push(`[${FILTER_KINDS[this.filter - 2]}]`);
    if (this.marks.size) tags.push(`[${this.marks.size} marked]`);
    if (this.showSnoozed) tags.push('[snoozed shown]');
    if (tags.length) cv.text(x + 3, area.y, fit(tags.join(' '), area.x + area.w - x - 4, ascii), roleAttr('accent'), area.x + area.w);
  }

  private drawList(cv: Canvas, r: Rect, twoLine: boolean, sel: ViewRow | null, now: number): void {
    const ascii = this.host.ascii;
    // Lines: a heading per group with rows, then its rows (one or two lines each).
    type Line = { kind: 'head'; text: string } | { kind: 'row'; row: ViewRow; second: boolean };
    const lines: Line[] = [];
    let group: string | null = null;
    for (const row of this.lastRows) {
      if (row.group !== group) {
        group = row.group;
        // A down host's rows are shown under their last group and not counted in it.
        const n = countedIn(this.lastRows, row.group);
        lines.push({ kind: 'head', text: `${row.group === 'snoozed' ? 'Snoozed' : VIEW_GROUP_TITLE[row.group]}  ${n}` });
      }
      lines.push({ kind: 'row', row, second: false });
      if (twoLine) lines.push({ kind: 'row', row, second: true });
    }
    if (lines.length === 0) {
      cv.text(r.x + 2, r.y + 1, this.mem.selector || this.filter ? 'Nothing matches.' : 'No agents yet. Agents you start in a pane show here.', roleAttr('muted'), r.x + r.w);
      return;
    }
    const selAt = lines.findIndex((l) => l.kind === 'row' && l.row.key === sel?.key);
    if (selAt >= 0) {
      if (selAt < this.scroll) this.scroll = Math.max(0, selAt - 1);
      if (selAt + (twoLine ? 1 : 0) >= this.scroll + r.h) this.scroll = selAt + (twoLine ? 2 : 1) - r.h;
    }
    this.scroll = Math.max(0, Math.min(this.scroll, Math.max(0, lines.length - r.h)));
    for (let i = 0; i < r.h; i++) {
      const l = lines[this.scroll + i];
      if (!l) break;
      const y = r.y + i;
      if (l.kind === 'head') {
        const x = cv.text(r.x + 1, y, l.text, attr(-1, -1, A_BOLD), r.x + r.w);
        for (let j = x + 1; j < r.x + r.w; j++) cv.set(j, y, ascii ? '-' : '─', roleAttr('muted'));
        continue;
      }
      this.drawRow(cv, { x: r.x, y, w: r.w, h: 1 }, l.row, l.second, l.row.key === sel?.key, now);
    }
  }

  private drawRow(cv: Canvas, r: Rect, row: ViewRow, second: boolean, selected: boolean, now: number): void {
    const ascii = this.host.ascii;
    const end = r.x + r.w;
    if (selected) cv.set(r.x, r.y, ascii ? '>' : '▌', roleAttr('accent', A_BOLD));
    if (!second && this.marks.has(row.key)) cv.set(r.x + 1, r.y, '*', roleAttr('accent', A_BOLD));
    const muted = row.group === 'snoozed' || !!row.down;
    if (row.type === 'item' || row.type === 'host-item') {
      const it = row.type === 'host-item' ? { ...row.item, session: `${row.item.host}:${row.item.session ?? '-'}` } : row.item;
      const dim = attr(ROLE_COLOR.muted, -1, A_DIM);
      if (second) {
        const text = row.down ? `link down · ${clean(it.summary)}` : clean(it.summary);
        cv.text(r.x + 5, r.y, fit(text, r.w - 6, ascii), row.down ? dim : roleAttr(it.kind === 'done' ? 'muted' : 'warning'), end);
        return;
      }
      const glyph = it.kind === 'mail' ? '@' : it.kind === 'ask' ? stateMark('needs_input', false, ascii)!.glyph : stateMark(it.kind === 'errored' ? 'errored' : it.kind === 'done' ? 'done' : 'needs_input', true, ascii)!.glyph;
      cv.set(r.x + 2, r.y, glyph, row.down ? dim : roleAttr(it.kind === 'done' ? 'success' : it.kind === 'errored' ? 'error' : 'warning', A_BOLD));
      const right = row.type === 'host-item' && row.down ? `seen ${age(Math.max(0, now - row.item.seen_at))} ago` : age(now - it.opened_at);
      const label = `${it.kind}  ${clean(it.name ?? it.harness ?? '')}`;
      cv.text(r.x + 4, r.y, fit(label, r.w - 6 - right.length - clean(it.session ?? '').length - 2, ascii), muted ? attr(-1, -1, A_DIM) : attr(-1, -1, selected ? A_BOLD : 0), end);
      cv.text(end - right.length - 1 - (it.session ? clean(it.session).length + 2 : 0), r.y, it.session ? `${clean(it.session)}  ` : '', roleAttr('muted'), end);
      cv.text(end - right.length - 1, r.y, right, roleAttr('muted'), end);
      return;
    }
    const a = row.agent;
    const group = row.group === 'snoozed' ? 'idle' : row.group;
    if (a.down) return this.drawDownRow(cv, r, a, second, selected, now);
    if (second) {
      let text = '';
      if (group === 'needs') text = `${needWord(a)} · ${askText(a)}`;
      else if (group === 'working') text = [a.meta.now ?? a.message, a.context !== null ? `ctx ${a.context}%` : ''].filter(Boolean).join('   ');
      else if (group === 'review') text = a.message.split('\n')[0] ?? '';
      cv.text(r.x + 5, r.y, fit(text, r.w - 6, ascii), group === 'needs' ? roleAttr('warning') : roleAttr('muted'), end);
      return;
    }
    const m = stateMark(a.state, a.finishedUnread, ascii);
    if (m) cv.set(r.x + 2, r.y, m.glyph, roleAttr(m.role, A_BOLD));
    const right = showsAge(a, now, selected) || group === 'needs' ? age(now - row.since) : '';
    // The session, or the machine for an agent on another one (its name carries the session).
    const info = `${a.harness ?? ''}  ${a.host ?? a.session}`;
    const nameW = Math.max(6, Math.min(16, r.w - 8 - textWidth(info) - right.length));
    cv.text(r.x + 4, r.y, pad(a.name, nameW, ascii), attr(-1, -1, selected ? A_BOLD : 0), end);
    cv.text(r.x + 5 + nameW, r.y, fit(info, end - (r.x + 5 + nameW) - right.length - 2, ascii), roleAttr('muted'), end);
    if (!twoLineWidth(r.w) && group === 'needs') {
      // One-line rows: what a row that needs you asks goes after the name instead.
      cv.text(r.x + 5 + nameW, r.y, fit(askText(a), end - (r.x + 5 + nameW) - right.length - 2, ascii), roleAttr('warning'), end);
    }
    if (right) cv.text(end - right.length - 1, r.y, right, roleAttr(group === 'needs' ? 'warning' : 'muted'), end);
  }

  /** A linked host's row while its link is down: dim, `link down`, the last state it knew (spec). */
  private drawDownRow(cv: Canvas, r: Rect, a: AgentRow, second: boolean, selected: boolean, now: number): void {
    const ascii = this.host.ascii;
    const end = r.x + r.w;
    const dim = attr(ROLE_COLOR.muted, -1, A_DIM);
    if (second) {
      cv.text(r.x + 5, r.y, fit(`link down · last ${a.state === 'needs_input' ? needWord(a) : a.state}${a.message ? ` · ${a.message}` : ''}`, r.w - 6, ascii), dim, end);
      return;
    }
    const m = stateMark(a.state, a.finishedUnread, ascii);
    if (m) cv.set(r.x + 2, r.y, m.glyph, dim);
    const right = a.seenAt ? `seen ${age(Math.max(0, now - a.seenAt))} ago` : 'link down';
    const nameW = Math.max(6, r.w - 8 - right.length);
    cv.text(r.x + 4, r.y, fit(a.name, nameW, ascii), selected ? attr(ROLE_COLOR.muted, -1, A_DIM | A_BOLD) : dim, end);
    cv.text(end - right.length - 1, r.y, right, dim, end);
  }

  private drawFocus(cv: Canvas, r: Rect, sel: ViewRow | null, now: number): { x: number; y: number } | null {
    const ascii = this.host.ascii;
    const end = r.x + r.w;
    if (r.w < 10) return null;
    if (this.mode === 'bulk-allow' && this.bulkAllow) return this.drawBulkAllow(cv, r);
    if (!sel) {
      if (this.mode === 'reply' && this.marks.size) return this.drawEditor(cv, r, this.mem.bulkDraft, `Reply to ${this.marks.size} marked agents`);
      return null;
    }
    let y = r.y;
    if (sel.type === 'agent') {
      const a = sel.agent;
      const m = stateMark(a.state, a.finishedUnread, ascii);
      let x = cv.text(r.x, y, fit(a.name, r.w - 20, ascii), attr(-1, -1, A_BOLD), end);
      x = cv.text(x + 2, y, fit([a.harness, a.meta.model].filter(Boolean).join(' · '), end - x - 18, ascii), roleAttr('muted'), end);
      if (m) cv.text(end - 14, y, `${m.glyph} ${a.state === 'needs_input' ? 'needs you' : a.state}`, roleAttr(m.role, A_BOLD), end);
      y++;
      const facts = [a.host ? `on ${a.host}${a.down ? ' (link down)' : ''}` : '', a.session, a.meta.branch, a.meta.diff, a.context !== null ? `ctx ${a.context}%` : '', a.meta.cost, a.queued ? `${a.queued} queued` : '', a.subagents ? `${a.subagents} subagents` : ''].filter(Boolean).join('   ');
      cv.text(r.x, y++, fit(facts, r.w, ascii), roleAttr('muted'), end);
      for (let i = r.x; i < end; i++) cv.set(i, y, ascii ? '-' : '─', roleAttr('muted'));
      y++;
      if (a.message && a.state !== 'needs_input') cv.text(r.x, y++, fit(a.message, r.w, ascii), PLAIN, end);
    } else if (sel.type === 'host-item') {
      const it = sel.item;
      cv.text(r.x, y++, fit(`${it.kind} · ${clean(it.name ?? it.harness ?? 'tuios')} · ${it.host}:${clean(it.session ?? '-')}`, r.w, ascii), attr(-1, -1, A_BOLD), end);
      cv.text(r.x, y++, fit(clean(it.summary), r.w, ascii), PLAIN, end);
      cv.text(r.x, y++, fit(it.down ? `${it.host}'s link is down: this is what it said last.` : `On ${it.host}: answered and dismissed there; d hides it here only.`, r.w, ascii), roleAttr('muted'), end);
      return null;
    } else {
      const it = sel.item;
      cv.text(r.x, y++, fit(`${it.kind} · ${clean(it.name ?? it.harness ?? 'tuios')} · ${clean(it.session ?? '')}`, r.w, ascii), attr(-1, -1, A_BOLD), end);
      cv.text(r.x, y++, fit(clean(it.summary), r.w, ascii), PLAIN, end);
    }
    if (this.mode === 'reply') {
      const ed = this.marks.size ? this.mem.bulkDraft : this.mem.drafts.get(sel.key);
      const who = this.marks.size ? `${this.marks.size} marked agents` : sel.type === 'agent' ? `${sel.agent.name} (${sel.agent.state} ${age(now - sel.agent.stateSince)})` : 'it';
      return this.drawEditor(cv, { x: r.x, y: Math.max(y + 1, r.y + r.h - EDITOR_MAX_ROWS - 2), w: r.w, h: EDITOR_MAX_ROWS + 2 }, ed ?? null, `Reply to ${who}`);
    }
    const h = heldItem(this.itemsOf(sel));
    if (h) {
      const reasoning = this.mode === 'reason' && String(h.ref.request_id) === this.reasonFor;
      const cardH = r.y + r.h - y - 1 - (reasoning ? 1 : 0);
      this.held.draw(cv, { x: r.x, y: y + 1, w: r.w, h: cardH }, h, now, ascii, takesReason(h.harness));
      const wait = this.held.msUntilSettled(now);
      if (wait > 0) this.wake(wait + 5);
      if (reasoning) {
        const lineY = r.y + r.h - 1;
        const v = this.reasonLine.view(1);
        cv.text(r.x, lineY, 'Reason: ', attr(-1, -1, A_BOLD), end);
        cv.text(r.x + 8, lineY, fit(v.lines[0] ?? '', r.w - 9, ascii), PLAIN, end);
        return { x: r.x + 8 + Math.min(v.cursor.x, r.w - 9), y: lineY };
      }
      return null;
    }
    const c = this.contentOf(sel);
    this.card.drawn(c, now);
    if (c) return this.drawCard(cv, { x: r.x, y: y + 1, w: r.w, h: r.y + r.h - y - 1 }, c, now);
    return null;
  }

  private drawCard(cv: Canvas, r: Rect, c: CardContent, now: number): { x: number; y: number } | null {
    const ascii = this.host.ascii;
    const bar = ascii ? '| ' : '▌ ';
    const end = r.x + r.w;
    const warn = roleAttr('warning');
    let y = r.y;
    const bottom = r.y + r.h;
    const put = (s: string, a: number) => {
      if (y < bottom - 1) cv.text(r.x, y++, fit(s, r.w, ascii), a, end);
    };
    if (c.kind === 'loading') {
      put('Reading the prompt...', roleAttr('muted'));
      return null;
    }
    if (c.kind === 'unreadable') {
      put(`${stateMark('needs_input', false, ascii)!.glyph} ${needWord(c.row)} · ${askText(c.row)}`, warn);
      put(c.why, roleAttr('muted'));
      put('enter goes to the pane.', roleAttr('muted'));
      return null;
    }
    if (c.kind === 'ask') {
      put(`${stateMark('needs_input', false, ascii)!.glyph} ${c.question}`, attr(ROLE_WARN, -1, A_BOLD));
      c.options.forEach((o, i) => put(`${bar}${i + 1}. ${o}`, PLAIN));
      put(this.card.settled(now) ? `1-${c.options.length} answer   d dismiss   enter go to the pane` : 'Read it: the keys work in a moment.', roleAttr('muted'));
      if (!this.card.settled(now)) this.wake(this.card.msUntilSettled(now) + 5);
      return null;
    }
    const p = c.prompt;
    put(`${stateMark('needs_input', false, ascii)!.glyph} ${p.kind || needWord(c.row)}: ${p.message || askText(c.row)}   ${c.row.name} waits ${age(now - c.row.stateSince)}`, attr(ROLE_WARN, -1, A_BOLD));
    if (this.mode === 'peek' || this.mode === 'text') put('The pane shows (its text, not tuios\'s):', roleAttr('muted'));
    const room = bottom - y - 3;
    const lines = this.mode === 'peek' || this.mode === 'text' ? p.lines : p.lines.filter((l) => l.trim()).slice(-Math.max(1, room));
    for (const l of lines.slice(0, Math.max(0, room))) put(bar + l, PLAIN);
    if (p.risk?.risky) put(`risky: ${p.risk.detail.join('; ') || p.risk.ack.join(', ')}: an allow takes a second press`, roleAttr('error', A_BOLD));
    const keys: string[] = [];
    if (p.offered.includes('approve')) keys.push('a allow once');
    if (p.offered.includes('approve_always')) keys.push('A always');
    if (p.offered.includes('deny')) keys.push(this.mode === 'peek' ? 'd deny' : 'deny in the peek');
    if (p.offered.includes('choose')) keys.push(`1-${Math.max(1, ...p.options.map((o) => o.n))} choose`);
    if (p.offered.includes('text') && this.mode === 'peek') keys.push('tab type an answer');
    keys.push(this.mode === 'peek' ? 'esc back' : 'space peek', 'enter pane');
    if (!this.card.settled(now)) this.wake(this.card.msUntilSettled(now) + 5);
    put(this.card.settled(now) ? keys.join('   ') : 'Read it: the keys work in a moment.', roleAttr('accent'));
    if (this.mode === 'text') {
      const v = this.textLine.view(1);
      const lineY = Math.min(y, bottom - 1);
      cv.text(r.x, lineY, 'Answer: ', attr(-1, -1, A_BOLD), end);
      cv.text(r.x + 8, lineY, fit(v.lines[0] ?? '', r.w - 9, ascii), PLAIN, end);
      return { x: r.x + 8 + Math.min(v.cursor.x, r.w - 9), y: lineY };
    }
    return null;
  }

  private drawEditor(cv: Canvas, r: Rect, ed: Editor | null, title: string): { x: number; y: number } | null {
    if (!ed) return null;
    const ascii = this.host.ascii;
    const end = r.x + r.w;
    cv.fill(r.x, r.y, r.w, r.h);
    cv.text(r.x, r.y, fit(title, r.w, ascii), attr(-1, -1, A_BOLD), end);
    const v = ed.view(Math.max(1, Math.min(EDITOR_MAX_ROWS, r.h - 2)));
    v.lines.forEach((l, i) => {
      cv.text(r.x, r.y + 1 + i, i === 0 ? (ascii ? '> ' : '› ') : '  ', roleAttr('accent'), end);
      cv.text(r.x + 2, r.y + 1 + i, fit(l, r.w - 3, ascii), PLAIN, end);
    });
    const foot = r.y + 1 + Math.max(1, v.lines.length);
    cv.text(r.x, foot, fit(`${ascii ? 'enter' : '↵'} send  ctrl+j new line  ctrl+z undo  esc close`, r.w, ascii), roleAttr('muted'), end);
    return { x: r.x + 2 + Math.min(v.cursor.x, r.w - 3), y: r.y + 1 + v.cursor.y };
  }

  private drawBulkAllow(cv: Canvas, r: Rect): null {
    const b = this.bulkAllow!;
    const ascii = this.host.ascii;
    let y = r.y;
    const end = r.x + r.w;
    cv.text(r.x, y++, fit(`Allow ${b.prompts.length} approval${b.prompts.length === 1 ? '' : 's'} once:`, r.w), attr(-1, -1, A_BOLD), end);
    for (const { row, prompt } of b.prompts) {
      if (y >= r.y + r.h - 2) break;
      cv.text(r.x, y++, fit(`${row.name}: ${prompt.message || prompt.lines.find((l) => l.trim()) || ''}`, r.w, ascii), PLAIN, end);
    }
    if (b.left) cv.text(r.x, y++, fit(`${b.left} need a second look. Allow them one by one.`, r.w), roleAttr('warning'), end);
    cv.text(r.x, y, 'enter allows them   any other key closes', roleAttr('accent'), end);
    return null;
  }

  private drawSelectLine(cv: Canvas, r: Rect): { x: number; y: number } {
    const v = this.selectorLine.view(1);
    cv.fill(r.x, r.y, r.w, 1);
    const x = cv.text(r.x + 1, r.y, '/ ', roleAttr('accent', A_BOLD));
    cv.text(x, r.y, fit(v.lines[0] ?? '', r.w - 4), PLAIN, r.x + r.w);
    if (this.selectorError) cv.text(Math.min(r.x + r.w - 1, x + textWidth(v.lines[0] ?? '') + 3), r.y, fit(this.selectorError, r.w / 2), roleAttr('error'), r.x + r.w);
    return { x: x + v.cursor.x, y: r.y };
  }

  private drawFooter(cv: Canvas, r: Rect, sel: ViewRow | null): void {
    let keys: string;
    if (this.mode === 'select') keys = 'enter apply (empty clears)   esc keep what was in force';
    else if (this.mode === 'snooze') keys = '1 15 minutes   2 an hour   3 until 9:00 tomorrow   4 until it changes';
    else if (this.mode === 'reply') keys = 'enter queue it   ctrl+] go to the pane   esc keep the draft';
    else if (this.mode === 'reason') keys = 'enter deny with this reason (empty sends the default)   esc drop it';
    else if (this.marks.size) keys = `${this.marks.size} marked: r reply   1 allow   3 reject   d dismiss   z snooze   * clear`;
    else if (sel && this.mailThread(sel) !== null) keys = 'enter open the thread   r reply   d dismiss   z snooze   m mailbox   j/k move   esc close';
    else if (sel && sel.type === 'host-item') keys = `${sel.item.host}'s Inbox item   d hide here   j/k move   esc close`;
    else if (sel && sel.type === 'agent' && sel.agent.down) keys = `${sel.agent.host} is down: its row is what it said last   j/k move   esc close`;
    else if (sel && sel.type === 'agent' && sel.agent.host && needsYouRow(sel.agent)) keys = 'space peek   1-9 answer   r reply   enter open its pane   esc close';
    else if (sel && sel.type === 'agent' && needsYouRow(sel.agent)) keys = 'space peek   1-9 answer   r reply   d dismiss   z snooze   enter go   ctrl+] zoom   esc close';
    else keys = 'j/k move   enter go   r reply   d dismiss   z snooze   u undo   S snoozed   / select   f filter   x mark   m mailbox   ? help   esc close';
    cv.fill(r.x, r.y, r.w, 1, attr(-1, -1, A_INVERSE));
    cv.text(r.x + 1, r.y, fit(keys, r.w - 2, this.host.ascii), attr(-1, -1, A_INVERSE), r.x + r.w);
  }
}

const ROLE_WARN = 3;

/** The harnesses whose hold passes a deny's reason on to the model (spec: Reject with a reason). */
const REASON_HARNESSES = new Set(['claude-code', 'opencode', 'kilo']);

export function takesReason(harness: string | null | undefined): boolean {
  return !!harness && REASON_HARNESSES.has(harness);
}

/** The typed reason as sent: one line, no control characters, at most 500 bytes. */
export function reasonText(typed: string): string {
  return capBytes(typed.replace(/\s+/g, ' ').trim(), REASON_MAX_BYTES).trim();
}

function twoLineWidth(w: number): boolean {
  return w >= 48;
}
