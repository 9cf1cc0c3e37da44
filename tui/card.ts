// The card of what a selected row asks: the prompt a rule reads on its pane (peek-prompt, the
// pane's text, untrusted), or the question an agent put with ask-human. It remembers when it
// first showed as it is, since a key answers only once the card has been on screen for 0.4 s,
// and a risky allow needs the same key again within 3 s.
import { RISKY_SECOND_PRESS_MS, SETTLE_MS } from './limits.js';
import type { Acts } from './acts.js';
import type { AgentRow } from './rows.js';
import type { Item } from '../core/inbox/inbox.js';
import { clean } from './text.js';
import { RecapCard, type RecapContent } from './recap-card.js';

export interface PeekedPrompt {
  window_id: string;
  prompt_id: string;
  kind: string;
  message: string;
  lines: string[];
  options: Array<{ n: number; label: string; selected: boolean }>;
  offered: string[];
  waited_ms: number;
  risk?: { risky: boolean; ack: string[]; detail: string[] };
}

export type CardContent =
  | { kind: 'prompt'; row: AgentRow; prompt: PeekedPrompt }
  | { kind: 'ask'; item: Item; question: string; options: string[] }
  | { kind: 'unreadable'; row: AgentRow; why: string }
  | { kind: 'loading'; row: AgentRow }
  | RecapContent;

export type Answer = 'approve' | 'approve_always' | 'deny' | 'choose' | 'text';

export const ANSWER_LABEL: Record<Answer, string> = { approve: 'allow once', approve_always: 'always allow', deny: 'deny', choose: 'choose', text: 'text' };

export class Card {
  private fetchedFor: string | null = null;
  private prompt: PeekedPrompt | null = null;
  /** The row the prompt was read for (a linked host's prompt names its own window id). */
  private promptFor: string | null = null;
  private error: string | null = null;
  private signature: string | null = null;
  private shownAt = 0;
  private riskPress: { key: string; at: number; promptId: string } | null = null;

  /** A Finished item's recap (spec: The away recap). */
  private readonly recap: RecapCard;

  constructor(
    private readonly acts: Acts,
    private readonly changed: () => void,
  ) {
    this.recap = new RecapCard(acts, changed);
  }

  /** What the card shows for a row now; starts a read of its prompt when the row changed. */
  contentFor(row: AgentRow | null, item: Item | null): CardContent | null {
    // A linked host's ask or mail is display-only here: the card reads only its prompts.
    if (row?.host && row.state !== 'needs_input') return null;
    const ask = item?.kind === 'ask' ? item : row?.items.find((i) => i.kind === 'ask');
    if (ask && !(row && row.state === 'needs_input')) {
      return { kind: 'ask', item: ask, question: clean(ask.summary), options: (ask.options ?? []).map(clean) };
    }
    if (!row || row.state !== 'needs_input') return this.recap.contentFor(row, item);
    const key = `${row.id}:${row.stateSince}:${row.message}`;
    if (this.fetchedFor !== key) this.fetch(row, key);
    if (this.prompt && this.promptFor === row.id) return { kind: 'prompt', row, prompt: this.prompt };
    if (this.error) return { kind: 'unreadable', row, why: this.error };
    return { kind: 'loading', row };
  }

  /** Reads the prompt again (`r` in the peek, or after the daemon said it changed). */
  refresh(row: AgentRow): void {
    this.fetch(row, `${row.id}:${row.stateSince}:${row.message}`);
  }

  private fetch(row: AgentRow, key: string): void {
    this.fetchedFor = key;
    this.prompt = null;
    this.error = null;
    // A linked host's pane is read there, across the link (peek-prompt -w HOST:WINDOW).
    void this.acts.call<PeekedPrompt>('peek-prompt', { window: row.target }).then((r) => {
      if (this.fetchedFor !== key) return;
      this.promptFor = row.id;
      if (r.ok) this.prompt = { ...r.value, lines: r.value.lines.map(clean), options: r.value.options.map((o) => ({ ...o, label: clean(o.label) })) };
      else this.error = r.code === 'unknown_verb' ? 'This daemon cannot read prompts yet; answer it in the pane (enter).' : r.message;
      this.changed();
    });
  }

  /** Called each time the card is drawn: the 0.4 s clock starts when what it shows changes. */
  drawn(c: CardContent | null, now: number): void {
    const sig = !c ? null : c.kind === 'prompt' ? c.prompt.prompt_id : c.kind === 'ask' ? `ask:${c.item.id}:${c.item.updated_at}` : null;
    if (sig !== this.signature) {
      this.signature = sig;
      this.shownAt = now;
      this.riskPress = null;
    }
  }

  /** True once the card has been on screen as it is for 0.4 s. */
  settled(now: number): boolean {
    return this.signature !== null && now - this.shownAt >= SETTLE_MS;
  }

  msUntilSettled(now: number): number {
    return Math.max(0, this.shownAt + SETTLE_MS - now);
  }

  /**
   * For a risky allow: true when this is the second press of `key` within 3 s (go ahead); on the
   * first press it arms and returns false.
   */
  secondPress(key: string, promptId: string, now: number): boolean {
    const p = this.riskPress;
    if (p && p.key === key && p.promptId === promptId && now - p.at <= RISKY_SECOND_PRESS_MS) {
      this.riskPress = null;
      return true;
    }
    this.riskPress = { key, at: now, promptId };
    return false;
  }

  forget(): void {
    this.fetchedFor = null;
    this.prompt = null;
    this.promptFor = null;
    this.error = null;
  }
}
