// The rows of a pane's screen that changed since a drawer last asked: xterm's own damage, the
// rows its renderers are told to repaint after each parse (a scroll marks the scrolled region),
// gathered between two frames. A frame then reads only those rows of the pane instead of
// comparing every row with what it drew: the compare touched the whole screen's memory, which
// after the idle gap between two keys is cold and cost more than the rest of the frame.
import type { Terminal } from '@xterm/headless';

/** Rows y0..y1 (inclusive) of the visible screen. */
export interface RowRange {
  from: number;
  to: number;
}

interface Disposable {
  dispose(): void;
}

/** What of xterm's internals the tracker listens to (the version is pinned). */
interface CoreTerminal {
  _inputHandler?: { onRequestRefreshRows?: (fn: (e: { start: number; end: number } | undefined) => void) => Disposable };
  buffer?: { ybase: number; ydisp: number };
}

export class RowDamage {
  private from = Infinity;
  private to = -1;
  /** Every row may have changed (a buffer switch, a resize, a reset, or the start). */
  private all = true;
  private readonly subs: Disposable[] = [];
  /** False when xterm no longer has the event: every row is then always reported. */
  private readonly tracked: boolean;

  constructor(private readonly term: Terminal) {
    const core = (term as unknown as { _core?: CoreTerminal })._core;
    const refresh = core?._inputHandler?.onRequestRefreshRows;
    this.tracked = typeof refresh === 'function';
    if (!this.tracked) return;
    this.subs.push(
      refresh!.call(core!._inputHandler, (e) => {
        if (!e) return void (this.all = true);
        // xterm reports rows of the viewport; the drawer reads rows from the bottom of the
        // buffer, which is the viewport unless it was scrolled up (then see take()).
        const b = core!.buffer;
        const off = b ? b.ybase - b.ydisp : 0;
        this.add(e.start - off, e.end - off);
      }),
    );
    this.subs.push(term.onResize(() => (this.all = true)));
    this.subs.push(term.buffer.onBufferChange(() => (this.all = true)));
  }

  private add(from: number, to: number): void {
    if (from < this.from) this.from = from;
    if (to > this.to) this.to = to;
  }

  /** The rows changed since the last call (null: none), and forgets them; all rows when unknown. */
  take(rows: number): RowRange | null {
    const core = (this.term as unknown as { _core?: CoreTerminal })._core;
    const b = core?.buffer;
    // A viewport scrolled up gets no damage for the rows below it: every row is reported.
    const all = this.all || !this.tracked || !b || b.ybase !== b.ydisp;
    const r: RowRange | null = all ? { from: 0, to: rows - 1 } : this.to < this.from ? null : { from: Math.max(0, this.from), to: Math.min(rows - 1, this.to) };
    this.all = false;
    this.from = Infinity;
    this.to = -1;
    return r;
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
    this.subs.length = 0;
  }
}
