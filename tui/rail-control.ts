// What the rail does besides drawing (spec: The rail's agents section): its sort control (`o`
// with the rail focused, or a click on it) stepping through `you`, `pri` and `rec`, kept in
// sidebar.json; a click on an agent or subagent row going to its pane; and the rail holding the
// keyboard once clicked, until `esc` or a click outside it. Keys are data (RAIL_KEYS).
import type { Services } from '../core/daemon/services.js';
import type { Token } from './keys.js';
import { dispatchKey, OTHER_KEY, type KeyTable } from './key-table.js';
import { nextOrder, type RailOrder } from './rail-order.js';
import { readRailOrder, rememberRailOrder } from './rail-state.js';
import type { RailHits } from './rail.js';

export interface RailActs {
  /** The pane a row stands for: focus it. */
  goTo(windowId: string): void;
  redraw(): void;
}

/** The rail's keys while it holds the keyboard. */
export const RAIL_KEYS: KeyTable<null, RailControl, boolean> = [
  { keys: ['o'], help: 'sort the agents: you, pri, rec', run: (r) => (r.stepOrder(), true) },
  { keys: ['Esc'], help: 'give the keyboard back to the pane', run: (r) => r.release() },
  // Any other key goes to the pane: the rail lets go first.
  { keys: [OTHER_KEY], help: 'to the pane', footer: false, run: (r) => r.release(false) },
];

export class RailControl {
  order: RailOrder;
  /** The rail holds the keyboard. */
  focused = false;
  /** Where the last frame drew what a click acts on (rail.ts drawRail). */
  hits: RailHits | null = null;
  /** The rail's columns in the last frame (0: no rail). */
  width = 0;

  constructor(
    private readonly svc: Services,
    private readonly acts: RailActs,
  ) {
    this.order = readRailOrder(svc);
  }

  stepOrder(): void {
    this.order = nextOrder(this.order);
    rememberRailOrder(this.svc, this.order);
    this.acts.redraw();
  }

  /** Lets go of the keyboard; `consumed` false: the key that made it let go still goes to the pane. */
  release(consumed = true): boolean {
    this.focused = false;
    this.acts.redraw();
    return consumed;
  }

  /** A key while the rail holds the keyboard: true when the rail took it. */
  key(tok: Token): boolean {
    if (!this.focused || tok.t !== 'key') return false;
    const r = dispatchKey(RAIL_KEYS, null, this, tok);
    return r.ran && r.result;
  }

  /** A mouse press: true when it was on the rail (the sort control, a row, or the rail itself). */
  click(tok: Extract<Token, { t: 'mouse' }>): boolean {
    if (tok.release || tok.button !== 0 || this.width === 0) return false;
    if (tok.x >= this.width) {
      if (this.focused) this.release();
      return false;
    }
    const h = this.hits;
    if (h?.sort && tok.y === h.sort.y && tok.x >= h.sort.x && tok.x < h.sort.x + h.sort.w) {
      this.stepOrder();
      return true;
    }
    const row = h?.rows.find((r) => tok.y >= r.y && tok.y < r.y + r.h);
    if (row) {
      this.acts.goTo(row.windowId);
      return true;
    }
    this.focused = true;
    this.acts.redraw();
    return true;
  }
}
