// The panes on screen for one client: where the rail and each tile go, which panes' output asks for a frame
// (only those shown), and which client sizes a session's panes (the one the person used last).
import type { Services } from '../core/daemon/services.js';
import type { Session } from '../core/model/model.js';
import type { Window } from '../core/model/window.js';
import { MIN_COLS } from '../core/limits.js';
import { layoutOf, reconcile, tile } from '../core/model/layout.js';
import { contentRect } from './tiles.js';
import type { Rect } from './pane-draw.js';
import { RAIL_MIN_TERMINAL_COLS, RAIL_WIDTH, STRIP_MIN_TERMINAL_COLS } from './limits.js';
import { STRIP_WIDTH } from './strip.js';

/** The session attribute naming the client whose tiles size the panes. */
const SIZE_OWNER = 'tui.size-owner';

export interface PanesHost {
  readonly svc: Services;
  /** A shown pane printed: a frame for it. */
  output(): void;
  /** A few bytes of a shown pane's output, before they are parsed (see Window.onBeforeParse); true: shown already. */
  beforeOutput?(w: Window, chunk: Buffer): boolean;
  /** A shown pane rang its bell. */
  bell(): void;
  /** A pane left the screen: what was drawn of it goes. */
  forget(id: string): void;
  /** On a terminal too narrow for the rail, its collapsed strip shows (once an agent has been seen). */
  strip?(): boolean;
}

export class ScreenPanes {
  /** Each shown pane's tile, by window id. */
  tiles = new Map<string, Rect>();
  private readonly watched = new Map<string, { dispose(): void }>();

  constructor(
    private readonly host: PanesHost,
    private readonly clientId: number,
    /** False for a client that only watches: its size never resizes the panes others see. */
    private readonly sizes = true,
  ) {}

  railWidth(cols: number): number {
    if (this.host.svc.config.current.appearance?.sidebar?.enabled === false) return 0;
    if (cols >= RAIL_MIN_TERMINAL_COLS) return RAIL_WIDTH;
    return cols >= STRIP_MIN_TERMINAL_COLS && this.host.strip?.() ? STRIP_WIDTH : 0;
  }

  /** Where the tiles go: right of the rail, above the status line. */
  body(cols: number, rows: number): Rect {
    const railW = this.railWidth(cols);
    return { x: railW, y: 0, w: cols - railW, h: rows - 1 };
  }

  /** Lays out the session's active workspace in `body`; true when the layout changed (repaint). */
  place(s: Session, body: Rect): { changed: boolean; layout: ReturnType<typeof layoutOf> } {
    const svc = this.host.svc;
    const ws = s.activeWorkspace;
    const layout = layoutOf(s, ws);
    const inWs = svc.model.windowsOf(s).filter((w) => w.workspace === ws);
    const changed = reconcile(layout, inWs.map((w) => w.id), body);
    this.tiles = layout.zoomed ? new Map([[layout.zoomed, body]]) : tile(layout.root, body);
    this.fit(s);
    this.watch();
    return { changed, layout };
  }

  /**
   * The client that sizes a session's panes: the one the person used last (attached, resized or
   * typed). Two clients of different sizes would otherwise resize every pane on every frame.
   */
  claimSizes(s: Session | undefined): void {
    if (this.sizes) s?.attrs.set(SIZE_OWNER, this.clientId);
  }

  private ownsSizes(s: Session): boolean {
    if (!this.sizes) return false;
    const owner = s.attrs.get(SIZE_OWNER);
    if (owner === this.clientId) return true;
    if (typeof owner === 'number' && this.host.svc.person.list().some((c) => c.id === owner)) return false;
    s.attrs.set(SIZE_OWNER, this.clientId);
    return true;
  }

  /** Each pane takes its tile's inside (resize-window, so the program redraws to fit). */
  private fit(s: Session): void {
    if (!this.ownsSizes(s)) return;
    const svc = this.host.svc;
    for (const [id, r] of this.tiles) {
      const w = svc.model.windows.get(id);
      if (!w || w.closed) continue;
      const c = contentRect(r);
      const cols = Math.max(MIN_COLS, c.w);
      const rows = Math.max(1, c.h);
      if (w.cols !== cols || w.rows !== rows) svc.model.resizeWindow(w, cols, rows);
    }
  }

  /** A frame follows the output of the panes on screen, and only those. */
  private watch(): void {
    for (const [id, d] of this.watched) {
      if (!this.tiles.has(id)) {
        d.dispose();
        this.watched.delete(id);
        this.host.forget(id);
      }
    }
    for (const id of this.tiles.keys()) {
      if (this.watched.has(id)) continue;
      const w = this.host.svc.model.windows.get(id);
      if (!w) continue;
      const out = w.onOutput(() => this.host.output());
      const ahead = this.host.beforeOutput ? w.onBeforeParse((pw, chunk) => this.host.beforeOutput!(pw, chunk)) : null;
      // A pane's bell rings the person's terminal, as in tmux (one per frame at most).
      const bell = w.addScreenHooks({ onBell: () => this.host.bell() });
      this.watched.set(id, { dispose: () => (out.dispose(), bell.dispose(), ahead?.dispose()) });
    }
  }

  dispose(): void {
    for (const s of this.watched.values()) s.dispose();
    this.watched.clear();
  }
}
