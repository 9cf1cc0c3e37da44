// The visible rows' text, kept between looks. A screen look reads every row of the pane (up to
// 200 on a tall one), and translating a row of cells to a string is most of what a look costs;
// between two looks an agent usually repaints a few rows. xterm says which rows a parse touched
// (the refresh request its renderer would use); a scroll, a resize, a buffer switch or a
// refresh of everything drops the whole cache. Without that signal (another xterm) nothing is
// cached and every read translates.
import type { Terminal } from '@xterm/headless';

interface RefreshSource {
  onRequestRefreshRows(fn: (e: { start: number; end: number } | undefined) => void): unknown;
}

export class RowTextCache {
  private rows: Array<string | undefined> = [];
  /**
   * The scroll listener, there only while rows are kept: a flood scrolls on every line, and a
   * listener called for each of them costs a few per cent of parsing, for a cache that the first
   * of those scrolls empties anyway.
   */
  private scrolls: { dispose(): void } | null = null;
  /** False when xterm's refresh signal is missing: then nothing is kept. */
  readonly enabled: boolean;

  constructor(private readonly term: Terminal) {
    const ih = (term as unknown as { _core?: { _inputHandler?: Partial<RefreshSource> } })._core?._inputHandler;
    this.enabled = typeof ih?.onRequestRefreshRows === 'function';
    if (!this.enabled) return;
    (ih as RefreshSource).onRequestRefreshRows((e) => (e ? this.drop(e.start, e.end) : this.clear()));
    term.onResize(() => this.clear());
    term.buffer.onBufferChange(() => this.clear());
  }

  /** Row y of the screen (0 at the top) as last read, unless it changed since; undefined: read it. */
  get(y: number): string | undefined {
    return this.rows[y];
  }

  set(y: number, text: string): void {
    if (!this.enabled) return;
    this.rows[y] = text;
    this.scrolls ??= this.term.onScroll(() => this.clear());
  }

  /** Forgets every row; for changes the refresh signal does not cover. */
  clear(): void {
    if (this.rows.length !== 0) this.rows = [];
    this.scrolls?.dispose();
    this.scrolls = null;
  }

  private drop(start: number, end: number): void {
    for (let y = Math.max(0, start); y <= end && y < this.rows.length; y++) this.rows[y] = undefined;
  }
}
