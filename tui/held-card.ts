// The card of an approval or a plan a harness's hook holds for the Inbox (spec: Approvals from the
// Inbox, Plans): the whole line, the keys that answer it (from the agents view's key table), and
// for `2` the exact rules it adds. A
// key answers only what the person read: the item must have been on screen, as it is, for 0.4 s,
// and a plan's `1` and `2` only once its last line was drawn.
import type { Canvas } from './canvas.js';
import { attr, roleAttr, A_BOLD, PLAIN } from './canvas.js';
import type { Rect } from './pane-draw.js';
import type { Item } from '../core/inbox/inbox.js';
import { clean, fit } from './text.js';
import { HOLD_SETTLE_MS } from '../core/limits.js';

/** The held item a row stands for, if any. */
export function heldItem(items: Item[]): Item | undefined {
  return items.find((i) => i.held && typeof i.ref.request_id === 'string');
}

/** The answers a held item offers ('1', '3'; '2' when the harness can add a rule). */
export function heldOffers(item: Item): string[] {
  return String(item.ref.offers ?? '1,3').split(',');
}

export class HeldCard {
  private shownKey = '';
  private shownAt = 0;
  /** A plan's last line was on screen when it was last drawn. */
  private planWhole = false;

  /** The item as drawn: a new request, a changed line or a new hold restarts the clock. */
  private seen(item: Item, now: number): void {
    const key = `${item.ref.request_id}\n${item.ref.line}\n${item.ref.plan_sha ?? ''}`;
    if (key !== this.shownKey) {
      this.shownKey = key;
      this.shownAt = now;
    }
  }

  msUntilSettled(now: number): number {
    return Math.max(0, HOLD_SETTLE_MS - (now - this.shownAt));
  }

  /** Why a key may not answer yet, or null when it may. */
  refusal(item: Item, key: string, now: number): string | null {
    const offered = heldOffers(item);
    if (`${item.ref.request_id}\n${item.ref.line}\n${item.ref.plan_sha ?? ''}` !== this.shownKey || now - this.shownAt < HOLD_SETTLE_MS) {
      return 'The approval just arrived or changed on screen; read it, then press the key again.';
    }
    if (!offered.includes(key)) return `${key} is not offered here (offered: ${offered.join(', ')}).`;
    if (item.kind === 'plan' && key !== '3' && !this.planWhole) return 'The plan is not shown whole on this screen: press enter to answer it in the pane.';
    return null;
  }

  /** `keys`: the line of keys that answer it, from the view's key table. */
  draw(cv: Canvas, r: Rect, item: Item, now: number, ascii: boolean, keys: string): void {
    this.seen(item, now);
    const end = r.x + r.w;
    const bottom = r.y + r.h;
    let y = r.y;
    const put = (s: string, a: number) => {
      if (y < bottom) cv.text(r.x, y++, fit(s, r.w, ascii), a, end);
    };
    const plan = item.kind === 'plan';
    put(plan ? `plan · ${clean(item.summary)}` : clean(String(item.ref.line ?? item.summary)), attr(3, -1, A_BOLD));
    const offered = heldOffers(item);
    if (plan) {
      const lines = String(item.ref.plan ?? '').replace(/\n+$/, '').split('\n');
      const room = Math.max(0, bottom - y - 3);
      for (const l of lines.slice(0, room)) put(`${ascii ? '| ' : '▌ '}${clean(l)}`, PLAIN);
      this.planWhole = lines.length <= room;
      if (!this.planWhole) put(`... ${lines.length - room} more lines: enter answers it in the pane`, roleAttr('muted'));
    } else if (item.ref.line) {
      // The whole line, wrapped, never cut: what 1 allows is exactly what is read.
      const text = clean(String(item.ref.line));
      for (let i = 0; i < text.length && y < bottom - 3; i += r.w) put(text.slice(i, i + r.w), PLAIN);
    }
    if (offered.includes('2') && item.ref.rules) put(`2 adds: ${clean(String(item.ref.rules))}`, roleAttr('muted'));
    put(now - this.shownAt < HOLD_SETTLE_MS ? 'Read it: the keys work in a moment.' : keys, roleAttr('accent'));
  }
}
