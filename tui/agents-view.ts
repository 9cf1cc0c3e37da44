// The agents view (ctrl+b i; spec: The agents view, Many agents at once): every agent and every
// Inbox item in five groups, oldest wait first, a focus area with the card of what the selected
// row asks, and the keys that answer, reply, dismiss, snooze and mark. This file holds the view's
// modes and editors and wires its parts: the model (agents-model.ts), the key tables
// (agents-keys.ts), the acts (agents-actions.ts) and the drawing (agents-draw.ts).
import type { Canvas } from './canvas.js';
import type { Rect } from './pane-draw.js';
import type { Token } from './keys.js';
import type { Overlay, TuiHost } from './overlay.js';
import type { Glyphs } from './marks.js';
import type { RemoteItemRow } from '../core/hosts/remote.js';
import { needsYouRow, type AgentRow } from './rows.js';
import { remoteAgentSelectorRow, remoteItemSelectorRow } from '../core/hosts/rows.js';
import { selectorRow } from '../core/verbs/agents.js';
import { Card, type CardContent, type PeekedPrompt } from './card.js';
import { wireImages, type ImageHost } from './image-paste.js';
import { Editor, typeInto } from './editor.js';
import { takeForSending } from './drafts.js';
import { replyNames } from './reply-names.js';
import { invisibleNotice } from './invisible.js';
import { HeldCard, heldItem, heldOffers } from './held-card.js';
import { capBytes } from '../core/agent-state/store.js';
import { REASON_MAX_BYTES } from '../core/limits.js';
import { AGE_TICK_MS, SETTLE_MS } from './limits.js';
import { dispatchKey, hintRows, hintText, rowLabel } from './key-table.js';
import { AgentsModel, hostAgentSignature, hostItemSignature, type AgentsSource, type AgentsViewMemory, type ViewRow } from './agents-model.js';
import { AGENTS_KEYS, AGENTS_SNOOZE_KEYS, AGENTS_WANT_KEYS, type AgentsKeyState, type AgentsKeyTarget, type AgentsMode } from './agents-keys.js';
import * as act from './agents-actions.js';
import { drawAgents, type AgentsPicture } from './agents-draw.js';

export { newAgentsViewMemory, type AgentsViewMemory } from './agents-model.js';

/** The harnesses whose hold passes a deny's reason on to the model (spec: Reject with a reason). */
const REASON_HARNESSES = new Set(['claude-code', 'opencode', 'kilo']);

export function takesReason(harness: string | null | undefined): boolean {
  return !!harness && REASON_HARNESSES.has(harness);
}

/** The typed reason as sent: one line, no control characters, at most 500 bytes. */
export function reasonText(typed: string): string {
  return capBytes(typed.replace(/\s+/g, ' ').trim(), REASON_MAX_BYTES).trim();
}

export class AgentsView implements Overlay, AgentsKeyTarget, AgentsPicture {
  readonly fullScreen = true;
  mode: AgentsMode = 'list';
  readonly model: AgentsModel;
  readonly card: Card;
  readonly held = new HeldCard();
  selectorLine = new Editor();
  textLine = new Editor();
  /** `R`: the `Reason:` line of a held approval or plan, and the request it answers. */
  reasonLine = new Editor();
  reasonFor = '';
  scroll = 0;
  bulkAllow: { prompts: Array<{ row: AgentRow; prompt: PeekedPrompt }>; left: number; shownAt: number } | null = null;
  private tick = false;
  /** Select the first row once the list is built (ctrl+b M). */
  private mailFirst = false;
  /** Opened from the rail for this: done once the list is built, and the view closes when it ends. */
  private then: 'snooze' | 'reply' | null = null;
  private closesOnList = false;
  /** One redraw at the earliest moment something is due (a settled move, a settled card). */
  private wakeAt = 0;
  private readonly source: AgentsSource;
  private readonly acts: act.AgentsActs;

  constructor(
    private readonly host: TuiHost,
    mem: AgentsViewMemory,
    rows: () => AgentRow[],
    opts: { select?: string; hostItems?: () => RemoteItemRow[]; mail?: boolean; then?: 'snooze' | 'reply' } = {},
  ) {
    this.card = new Card(host.acts, () => host.redraw());
    if (opts.select) mem.selected = opts.select;
    this.model = new AgentsModel(mem);
    const svc = host.svc;
    this.source = {
      agents: rows,
      items: () => svc.inbox.list(),
      snoozed: () => svc.inbox.snoozed.values(),
      hostItems: opts.hostItems ?? (() => []),
      visible: (id) => host.visible(id),
      selectorRow: {
        agent: (a) => (a.remote ? remoteAgentSelectorRow(a.remote, svc) : a.w ? selectorRow(a.w, svc) : null),
        item: (i) => ({ harness: i.harness, harnessNames: i.harness ? svc.harnessNames(i.harness) : [], session: i.session ?? undefined, host: i.host ?? 'local', name: i.name ?? undefined }),
        hostItem: (i) => remoteItemSelectorRow(i, svc),
      },
    };
    this.acts = { host, model: this.model, card: this.card, held: this.held, wake: (ms) => this.wake(ms), answered: () => (this.mode = 'list') };
    // From the rail (z, r): on the pane's row with the snooze lengths or the reply editor, closing once back on the list.
    this.then = opts.then ?? null;
    // ctrl+b M: on the mail for you, the first of it selected.
    if (opts.mail) {
      this.model.filterKind('mail');
      this.mailFirst = !opts.select;
    }
  }

  get ascii(): boolean {
    return this.host.ascii;
  }

  get glyphs(): Glyphs {
    return this.host.glyphs;
  }

  wake(ms: number): void {
    const at = Date.now() + ms;
    if (this.wakeAt > Date.now() && this.wakeAt <= at) return;
    this.wakeAt = at;
    this.host.later(ms, () => {
      this.wakeAt = 0;
      this.host.redraw();
    });
  }

  private selected(): ViewRow | null {
    return this.model.selected();
  }

  contentOf(r: ViewRow | null): CardContent | null {
    return act.contentOf(this.acts, r);
  }

  /** The key tables' situation now (agents-keys.ts); `card` only feeds the card's key line. */
  keyState(card: CardContent | null = null): AgentsKeyState {
    const r = this.selected();
    const m = this.model;
    const h = r ? heldItem(m.itemsOf(r)) : undefined;
    const agent = r?.type === 'agent' ? r.agent : null;
    return {
      mode: this.mode,
      marked: m.marks.size > 0,
      markedShown: m.markedShown().length > 0,
      allMarked: m.allMarked(),
      row: !r ? 'none' : r.type === 'agent' ? (r.agent.host ? 'host-agent' : 'agent') : r.type,
      needsYou: !!agent && needsYouRow(agent),
      down: !!agent?.down,
      mail: !!r && m.mailThread(r) !== null,
      snoozed: r?.group === 'snoozed',
      held: h ? (h.kind === 'plan' ? 'plan' : 'approval') : null,
      heldOffers: h ? heldOffers(h) : [],
      reasons: !!h && takesReason(h.harness),
      card:
        card?.kind === 'prompt'
          ? { kind: 'prompt', offered: card.prompt.offered, choices: Math.max(1, ...card.prompt.options.map((o) => o.n)) }
          : card?.kind === 'ask'
            ? { kind: 'ask', choices: card.options.length }
            : null,
    };
  }

  // ---- keys: the tables in agents-keys.ts dispatch, these do ----

  key(tok: Token): void {
    this.keyInMode(tok);
    if (this.closesOnList && this.mode === 'list') this.host.closeOverlay();
  }

  private keyInMode(tok: Token): void {
    const st = this.keyState();
    const table = AGENTS_KEYS[this.mode];
    switch (this.mode) {
      case 'reply':
        return this.replyKey(tok, st);
      case 'select':
        typeInto(table, st, this, this.selectorLine, tok);
        return this.host.redraw();
      case 'text':
        typeInto(table, st, this, this.textLine, tok);
        return this.host.redraw();
      case 'reason':
        typeInto(table, st, this, this.reasonLine, tok);
        return this.host.redraw();
      case 'snooze':
      case 'want':
      case 'bulk-allow':
        dispatchKey(table, st, this, tok);
        return;
      case 'peek':
        if (tok.t !== 'key' || !this.selected()) return;
        if (!dispatchKey(table, st, this, tok).ran) this.host.redraw();
        return;
      default:
        if (tok.t === 'key') dispatchKey(table, st, this, tok);
    }
  }

  private replyKey(tok: Token, st: AgentsKeyState): void {
    const ed = this.replyDraft();
    if (ed) {
      typeInto(AGENTS_KEYS.reply, st, this, ed, tok);
      return this.host.redraw();
    }
    // No draft to type into: the mode's own keys (ctrl+]) still work, any other leaves it.
    if (tok.t === 'key' && tok.name !== 'Enter' && tok.name !== 'Esc' && dispatchKey(AGENTS_KEYS.reply, st, this, tok).ran) return;
    this.mode = 'list';
  }

  private replyDraft(): Editor | undefined {
    const r = this.selected();
    return this.model.marks.size > 0 ? (this.model.mem.bulkDraft ?? undefined) : r ? this.model.mem.drafts.get(r.key) : undefined;
  }

  setMode(m: AgentsMode): void {
    this.mode = m;
    this.host.redraw();
  }

  say(text: string): void {
    this.host.dock.say(text);
  }

  move(d: number): void {
    this.model.move(d);
    this.host.redraw();
  }

  peek(): void {
    const r = this.selected();
    if (r?.type === 'host-item') return act.displayOnly(this.acts, r.item.host, 'answered', r.item);
    if (r && r.type === 'agent' && act.unreachable(this.acts, r.agent)) return;
    if (r && r.type === 'agent' && r.agent.state === 'needs_input') {
      this.mode = 'peek';
      this.card.refresh(r.agent);
    } else this.host.dock.say('space peeks at an approval or a question; this row has none.');
    this.host.redraw();
  }

  enter(): void {
    act.enter(this.acts, this.selected());
  }

  toPane(): void {
    const r = this.selected();
    if (r) act.goTo(this.acts, r, false);
  }

  zoom(): void {
    const r = this.selected();
    if (r) act.goTo(this.acts, r, true);
  }

  openReply(): void {
    const r = this.selected();
    const mem = this.model.mem;
    if (this.model.marks.size) {
      mem.bulkDraft ??= new Editor();
      wireImages(mem.bulkDraft, this.imageHost());
      return this.setMode('reply');
    }
    // On mail: its thread opens with the reply line.
    const thread = r ? this.model.mailThread(r) : null;
    if (thread !== null) return this.host.openMailbox({ thread, reply: true, fromAgents: true });
    if (!r || r.type !== 'agent') return this.host.dock.say('r replies to an agent; this row is not one.');
    if (act.unreachable(this.acts, r.agent)) return;
    if (!mem.drafts.has(r.key)) mem.drafts.set(r.key, new Editor());
    // up and ctrl+c reach what was sent to this harness in this folder (the daemon's memory).
    const ed = mem.drafts.get(r.key)!;
    const [harness, folder] = act.historyKey(r.agent);
    ed.history = () => this.host.svc.replyHistory.list(harness, folder);
    ed.remember = (parts) => this.host.svc.replyHistory.add(harness, folder, parts);
    // @ names the agents, the panes and the pane's files; ctrl+g opens the draft in your editor.
    ed.names = replyNames(this.host, r.agent);
    ed.external = () => this.host.track(this.editDraft(ed));
    wireImages(ed, this.imageHost());
    this.setMode('reply');
  }

  /** What a draft's images need of this view: the dock, a frame, where the client runs. */
  private imageHost(): ImageHost {
    return { say: (t) => this.host.dock.say(t), redraw: () => this.host.redraw(), local: this.host.localClient };
  }

  /** ctrl+g: the draft in the person's editor; what was saved comes back as the draft. */
  private async editDraft(ed: Editor): Promise<void> {
    const out = await this.host.editExternally(ed.fileText());
    const why = 'refused' in out ? out.refused : ed.fromFile(out.text);
    if (why) this.host.dock.say(why);
    this.host.redraw();
  }

  private bulkRows(): ViewRow[] {
    const r = this.selected();
    return this.model.marks.size ? this.model.markedShown() : r ? [r] : [];
  }

  dismiss(): void {
    this.host.track(act.dismiss(this.acts, this.bulkRows()));
  }

  hideHere(): void {
    const r = this.selected();
    if (r?.type === 'agent' && r.agent.host) act.hideHere(this.acts, r, r.agent.host, hostAgentSignature(r.agent));
    else if (r?.type === 'host-item') act.hideHere(this.acts, r, r.item.host, hostItemSignature(r.item));
  }

  askSnooze(): void {
    this.mode = 'snooze';
    const st = this.keyState();
    this.host.dock.say(`Snooze: ${hintText(hintRows(AGENTS_SNOOZE_KEYS, st), st, '  ')}`, null, 10_000);
    this.host.redraw();
  }

  snoozeHostRow(): void {
    const r = this.selected();
    if (r?.type === 'agent' && r.agent.host) act.displayOnly(this.acts, r.agent.host, 'snoozed');
    else if (r?.type === 'host-item') act.displayOnly(this.acts, r.item.host, 'snoozed', r.item);
  }

  wakeSnoozed(): void {
    const r = this.selected();
    if (r?.type === 'item') this.host.track(act.wake(this.acts, r.item));
  }

  undo(): void {
    this.host.track(act.undo(this.acts));
  }

  toggleSnoozed(): void {
    this.model.showSnoozed = !this.model.showSnoozed;
    this.host.redraw();
  }

  openSelect(): void {
    this.selectorLine = new Editor();
    for (const ch of this.model.mem.selector) this.selectorLine.key({ t: 'key', raw: ch, name: ch });
    this.setMode('select');
  }

  cycleFilter(): void {
    this.host.dock.say(this.model.cycleFilter());
    this.host.redraw();
  }

  toggleMark(): void {
    this.model.toggleMark(this.selected());
    this.host.redraw();
  }

  markAllOrClear(): void {
    this.model.markAllOrClear();
    this.host.redraw();
  }

  review(): void {
    const r = this.selected();
    const w = r?.type === 'agent' ? r.agent.w : r?.type === 'item' && r.item.window_id ? this.host.svc.model.windows.get(r.item.window_id) : undefined;
    if (!w) return this.host.dock.say('This row has no pane to review.');
    this.host.openReview(w);
  }

  openMailbox(): void {
    this.host.openMailbox({ fromAgents: true });
  }

  /**
   * `R` on a held approval or plan whose harness passes a reason on (spec: Reject with a reason):
   * a `Reason:` line in its card. Only keys from this terminal reach it; enter denies with it.
   */
  openReason(): void {
    const now = Date.now();
    const r = this.selected();
    const h = r ? heldItem(this.model.itemsOf(r)) : undefined;
    if (!h) return this.host.dock.say('R rejects with a reason on a held approval or plan.');
    if (!takesReason(h.harness)) return this.host.dock.say(`${h.harness ?? 'This harness'} does not pass a reason on: 3 denies.`);
    const why = this.held.refusal(h, '3', now);
    if (why) {
      this.host.dock.say(why);
      if (/moment|just arrived/.test(why)) this.wake(this.held.msUntilSettled(now) + 5);
      return;
    }
    this.reasonLine = new Editor();
    this.reasonFor = String(h.ref.request_id);
    this.setMode('reason');
  }

  askState(): void {
    if (this.selected()?.type !== 'agent') return this.host.dock.say('! saves what tuios saw on an agent\'s pane; this row is not an agent.');
    this.mode = 'want';
    const st = this.keyState();
    const other = AGENTS_WANT_KEYS.find((r) => !hintRows(AGENTS_WANT_KEYS, st).includes(r))!;
    this.host.dock.say(`What should it be?  ${hintText(hintRows(AGENTS_WANT_KEYS, st), st, '  ')}  (${rowLabel(other)}: ${other.help})`, null, 15_000);
    this.host.redraw();
  }

  openHelp(): void {
    this.host.openHelp('agents');
  }

  close(): void {
    this.host.closeOverlay();
  }

  allow(always: boolean): void {
    const r = this.selected();
    if (!r) return;
    const h = heldItem(this.model.itemsOf(r));
    if (h) return this.host.track(act.answerHeld(this.acts, h, always ? '2' : '1', Date.now()));
    this.host.track(act.answerFromCard(this.acts, r, always ? 'approve_always' : 'approve', undefined, always ? 'A' : 'a', Date.now()));
  }

  answerDigit(n: number): void {
    const r = this.selected();
    if (r) this.host.track(act.answerFromCard(this.acts, r, 'choose', n, String(n), Date.now()));
  }

  answerHeld(key: '1' | '2' | '3'): void {
    const r = this.selected();
    const h = r ? heldItem(this.model.itemsOf(r)) : undefined;
    if (h) this.host.track(act.answerHeld(this.acts, h, key, Date.now()));
  }

  allowMarked(): void {
    this.host.track(this.openBulkAllow(this.model.markedShown()));
  }

  private async openBulkAllow(rows: ViewRow[]): Promise<void> {
    const all = await act.peekAll(this.acts, rows);
    const fine = all.filter((x) => x.prompt.offered.includes('approve') && !x.prompt.risk?.risky);
    this.bulkAllow = { prompts: fine, left: all.length - fine.length, shownAt: Date.now() };
    this.mode = 'bulk-allow';
    this.host.redraw();
  }

  bulkDeny(): void {
    this.host.track(act.bulkDeny(this.acts, this.model.markedShown()));
  }

  answerPeek(action: 'approve' | 'approve_always' | 'deny' | 'choose', key: string): void {
    const r = this.selected();
    if (r) this.host.track(act.answerFromCard(this.acts, r, action, action === 'choose' ? Number(key) : undefined, key, Date.now()));
  }

  readAgain(): void {
    const r = this.selected();
    if (r?.type === 'agent') this.card.refresh(r.agent);
    this.host.redraw();
  }

  typeAnswer(): void {
    this.textLine = new Editor();
    this.setMode('text');
  }

  sendAnswer(): void {
    const r = this.selected();
    const text = this.textLine.value();
    this.mode = 'peek';
    if (r && text.trim()) this.host.track(act.answerFromCard(this.acts, r, 'text', undefined, 'text', Date.now(), text));
  }

  sendReply(): void {
    const ed = this.replyDraft();
    const r = this.selected();
    if (!ed || ed.empty) return;
    // Invisible characters are removed, and the message is not sent this once: read it first.
    const hidden = ed.scrub();
    if (hidden) {
      this.host.dock.say(invisibleNotice(hidden));
      return this.host.redraw();
    }
    // Too large: the editor stays open with the draft and says why (spec: Large pastes).
    const why = ed.refusal();
    if (why) return this.host.dock.say(why);
    const msg = ed.message();
    this.mode = 'list';
    // The draft leaves the drafts while the reply is out: a reply opened meanwhile starts a new one.
    if (this.model.marks.size > 0) {
      this.model.mem.bulkDraft = null;
      this.host.track(act.bulkReply(this.acts, this.model.markedShown(), msg, ed));
    } else if (r) {
      takeForSending(this.model.mem.drafts, r.key);
      this.host.track(act.reply(this.acts, r, msg, ed));
    }
  }

  zoomFromReply(): void {
    this.mode = 'list';
    this.zoom();
  }

  applySelect(): void {
    if (!this.model.applySelector(this.selectorLine.value())) return;
    this.mode = 'list';
    // The rows the selector leaves, now: a key before the next frame (r, enter) acts on them, not on the rows before.
    this.model.build(this.source, Date.now(), (ms) => this.wake(ms));
  }

  sendReason(): void {
    this.mode = 'list';
    const r = this.selected();
    const h = r ? heldItem(this.model.itemsOf(r)) : undefined;
    if (!h || String(h.ref.request_id) !== this.reasonFor) this.host.dock.say('The approval changed or ended; the reason was not sent.');
    else this.host.track(act.answerHeld(this.acts, h, '3', Date.now(), reasonText(this.reasonLine.value())));
  }

  dropReason(): void {
    this.mode = 'list';
    this.host.dock.say('The reason was dropped; nothing was sent.');
  }

  snoozeFor(until: string): void {
    this.mode = 'list';
    const rows = this.model.marks.size ? this.model.markedShown() : [this.selected()].filter((x): x is ViewRow => !!x);
    this.host.track(act.snooze(this.acts, rows, until));
  }

  cancelSnooze(): void {
    this.mode = 'list';
    this.host.dock.say('Snooze cancelled.');
  }

  saveState(want: string): void {
    this.mode = 'list';
    const r = this.selected();
    if (r?.type !== 'agent') return this.nothingSaved();
    this.host.track(act.captureState(this.acts, r.agent, want));
  }

  nothingSaved(): void {
    this.mode = 'list';
    this.host.dock.say('Nothing saved.');
    this.host.redraw();
  }

  allowListed(): void {
    const b = this.bulkAllow;
    this.mode = 'list';
    this.bulkAllow = null;
    if (!b) return this.host.redraw();
    if (Date.now() - b.shownAt < SETTLE_MS) return this.host.dock.say('The list just appeared; read it, then press 1 and enter again.');
    this.host.track(act.allowMany(this.acts, b.prompts));
  }

  closeBulkAllow(): void {
    this.mode = 'list';
    this.bulkAllow = null;
    this.host.redraw();
  }

  // ---- drawing (agents-draw.ts) ----

  draw(cv: Canvas, area: Rect, now: number): { x: number; y: number } | null {
    const rows = this.model.build(this.source, now, (ms) => this.wake(ms));
    if (this.mailFirst) {
      this.mailFirst = false;
      if (rows[0]) this.model.mem.selected = rows[0].key;
    }
    if (this.then) {
      const then = this.then;
      this.then = null;
      if (then === 'snooze') this.askSnooze();
      else this.openReply();
      // Nothing opened (the dock said why): the view goes at once.
      if (this.mode === 'list') this.host.later(0, () => this.host.closeOverlay());
      else this.closesOnList = true;
    }
    if (!this.tick) {
      this.tick = true;
      this.host.later(AGE_TICK_MS, () => {
        this.tick = false;
        this.host.redraw();
      });
    }
    return drawAgents(this, cv, area, now);
  }
}
