// What a frame draws around the views: the tiles (each pane's border and cells), the rail, the
// status line and the cursor, each only when what it shows changed since it was last drawn. It
// keeps what it drew (the epoch, borders, pane generations, the rail's and status line's keys);
// when to draw a frame is app.ts's.
import type { Services } from '../core/daemon/services.js';
import type { Window } from '../core/model/window.js';
import type { Session } from '../core/model/model.js';
import type { Canvas } from './canvas.js';
import { attr, roleAttr, A_BOLD, A_INVERSE } from './canvas.js';
import type { Dock } from './alerts.js';
import { LocalSource, type ScreenSource } from './source.js';
import { layoutOf } from '../core/model/layout.js';
import { contentRect, drawContent, drawFrame } from './tiles.js';
import { drawRail, type RailSession } from './rail.js';
import { durationMs } from '../core/activity/duration.js';
import { drawStrip, STRIP_WIDTH } from './strip.js';
import type { RailControl } from './rail-control.js';
import { hostRailRow, type AgentRow } from './rows.js';
import { stateMark, type Glyphs } from './marks.js';
import { sessionMark } from './session-mark.js';
import { clean, fit, textWidth } from './text.js';
import { RowMemo, type Rect } from './pane-draw.js';
import { WORKSPACE_NAME_COLS } from './limits.js';

/** What the painter reads of its TUI. */
export interface PaintHost {
  readonly svc: Services;
  readonly dock: Dock;
  readonly ascii: boolean;
  /** The client's glyph set (tui/marks.ts): every state mark is drawn with it. */
  readonly glyphs: Glyphs;
  readonly agentsSeen: boolean;
  /** A view is drawn over the panes: nothing drawn under it can be taken as still on screen. */
  overlayShown(): boolean;
  session(): Session | undefined;
  agentRows(): AgentRow[];
  /** The rail's sort control and what its clicks act on. */
  readonly rail: RailControl;
  visible(sessionId: string): boolean;
  /** This client may read every session here, and so sees linked hosts' agents. */
  readsEverySession(): boolean;
  /** Bytes for the client, sent with the frame. */
  push(seq: string): void;
}

/** The status line's own state: the size, the armed prefix, a question asked there. */
export interface StatusState {
  cols: number;
  rows: number;
  prefix: boolean;
  confirm: { text: string } | null;
  /** The keys of what holds the keyboard besides the pane (the rail), when it does. */
  hint?: string;
  /** The client only watches (an observe key): a mark says so on every frame. */
  readOnly?: boolean;
}

export class Painter {
  private readonly sources = new Map<string, LocalSource>();
  private readonly paneDrawn = new Map<string, string>();
  /** Each tile's border as last drawn (see drawTiles): an unchanged one is not drawn again. */
  private readonly borderDrawn = new Map<string, string>();
  private readonly rowMemos = new Map<string, { epoch: number; memo: RowMemo }>();
  private epoch = 0;
  private railKey = '';
  /** The status line's content as last drawn (see drawStatus). */
  private statusDrawn = '';
  private railRows: AgentRow[] | null = null;
  private cursorShown: string | null = null;

  constructor(
    private readonly host: PaintHost,
    private readonly cv: Canvas,
  ) {}

  /** A pane no longer on screen: its source and what was drawn of it go. */
  forget(id: string): void {
    this.sources.get(id)?.dispose();
    this.sources.delete(id);
    this.paneDrawn.delete(id);
    this.borderDrawn.delete(id);
    this.rowMemos.delete(id);
  }

  dispose(): void {
    for (const s of this.sources.values()) s.dispose();
    this.sources.clear();
  }

  source(w: Window): ScreenSource {
    let s = this.sources.get(w.id);
    if (!s) {
      s = new LocalSource(w);
      this.sources.set(w.id, s);
    }
    return s;
  }

  /** The next frame repaints every pane (an overlay came or went, the layout or size changed). */
  invalidate(): void {
    this.epoch++;
  }

  /** The rows a pane drew last, while nothing else can have drawn over them (no overlay, the
   *  same epoch); see RowMemo. */
  private rowMemo(id: string): RowMemo | undefined {
    if (this.host.overlayShown()) {
      this.rowMemos.delete(id);
      return undefined;
    }
    let m = this.rowMemos.get(id);
    if (!m || m.epoch !== this.epoch) {
      m = { epoch: this.epoch, memo: new RowMemo() };
      this.rowMemos.set(id, m);
    }
    return m.memo;
  }

  drawTiles(tiles: Map<string, Rect>, focused: Window | undefined, body: Rect): void {
    const cv = this.cv;
    if (tiles.size === 0) {
      cv.fill(body.x, body.y, body.w, body.h);
      const s = this.host.session();
      const name = s ? s.tabs.nameOf(s.activeWorkspace) : null;
      const msg = `Workspace ${s?.activeWorkspace ?? ''}${name ? ` (${fit(clean(name), WORKSPACE_NAME_COLS, this.host.ascii)})` : ''} is empty: ctrl+b c opens a window here.`;
      cv.text(body.x + Math.max(0, Math.floor((body.w - textWidth(msg)) / 2)), body.y + Math.floor(body.h / 2), fit(msg, body.w), roleAttr('muted'));
      return;
    }
    const l = this.host.session() ? layoutOf(this.host.session()!, this.host.session()!.activeWorkspace) : null;
    for (const [id, r] of tiles) {
      const w = this.host.svc.model.windows.get(id);
      if (!w) continue;
      const info = this.host.svc.agents.info(w);
      const mark = stateMark(String(info.state), !!info.finished_unread, this.host.glyphs, Number(info.subagents ?? 0));
      const isFocused = w.id === focused?.id;
      const zoomed = l?.zoomed === w.id;
      // The border as it was drawn last in the same place is still on the canvas (nothing draws
      // over a tile but an overlay, and an overlay's coming or going bumps the epoch).
      const border = `${this.epoch}:${r.x},${r.y},${r.w},${r.h}:${isFocused}:${zoomed}:${!!w.exit}:${mark?.glyph ?? ''}:${mark?.role ?? ''}:${w.name}\u0000${w.title}`;
      if (this.host.overlayShown() || this.borderDrawn.get(id) !== border) {
        drawFrame(cv, r, { name: w.name, title: w.title, mark, focused: isFocused, zoomed, exited: !!w.exit, ascii: this.host.ascii });
        if (!this.host.overlayShown()) this.borderDrawn.set(id, border);
        else this.borderDrawn.delete(id);
      }
      this.drawPane(w, r);
    }
  }

  /** A tile's cells, unless its pane printed nothing since it was last drawn where it is. */
  drawPane(w: Window, r: Rect): void {
    const src = this.source(w);
    const key = `${src.generation()}:${r.x},${r.y},${r.w},${r.h}:${this.epoch}`;
    if (!this.host.overlayShown() && this.paneDrawn.get(w.id) === key) return;
    drawContent(this.cv, r, src, this.rowMemo(w.id));
    this.paneDrawn.set(w.id, key);
  }

  /**
   * The rail again only when what it shows may have changed: any event but pane output drops the
   * agent rows (a new array), and focus, session, layout and the second its ages count in are in
   * the key. A typed key's frame then costs the pane row, not the rail.
   */
  drawRailIfChanged(s: Session, focused: Window | undefined, r: Rect, now: number, ageTicks: number): void {
    const rows = this.host.agentRows();
    const key = `${this.epoch}:${s.id}:${focused?.id ?? ''}:${r.w}x${r.h}:${Math.floor(now / 1000)}:${ageTicks}:${this.host.rail.order}:${this.host.rail.focused}:${this.host.rail.cursor}:${this.host.rail.unfolded}`;
    if (key === this.railKey && rows === this.railRows) return;
    this.railKey = key;
    this.railRows = rows;
    this.drawRailNow(s, focused, r, now);
  }

  private drawRailNow(s: Session, focused: Window | undefined, r: Rect, now: number): void {
    const sessions: RailSession[] = [...this.host.svc.model.sessions.values()]
      .filter((x) => this.host.visible(x.id))
      .sort((a, b) => a.order - b.order)
      .map((x) => ({ id: x.id, name: clean(x.name), windows: this.host.svc.model.windowsOf(x).length, current: x.id === s.id, mark: sessionMark(this.host.svc, x.id) }));
    const blocked = this.host.svc.inbox.list().filter((i) => ['approval', 'question', 'plan', 'ask', 'errored'].includes(i.kind) && (!i.session_id || this.host.visible(i.session_id))).length;
    const hosts = this.host.readsEverySession() ? (this.host.svc.remote?.agentRows() ?? []).map(hostRailRow) : [];
    const rail = this.host.rail;
    rail.width = r.w;
    if (r.w === STRIP_WIDTH) {
      rail.hits = null;
      return drawStrip(this.cv, r, [...this.host.agentRows(), ...hosts.filter((h) => !h.down)], rail.order, this.host.glyphs);
    }
    const sidebar = this.host.svc.config.current.appearance?.sidebar;
    rail.hits = drawRail(this.cv, r, { sessions, agents: this.host.agentRows(), hosts, agentsSeen: this.host.agentsSeen, focusedWindow: focused?.id ?? null, cursor: rail.focused ? rail.cursor : null, ascii: this.host.ascii, glyphs: this.host.glyphs, now, blocked, order: rail.order, agentRow: sidebar?.agent_row, subagentRows: sidebar?.subagent_rows, restFoldMs: durationMs(sidebar?.agent_rest_fold ?? '1h') ?? undefined, unfolded: rail.unfolded });
    rail.drawn();
    // The rail holding the keyboard: its header reads so.
    if (rail.focused) this.cv.text(r.x, r.y, this.host.ascii ? '>' : '▸', roleAttr('accent'), r.x + 1);
  }

  /** The status line, unless it would be drawn as it was last (nothing else draws on its row). */
  drawStatus(s: Session, now: number, line: StatusState): void {
    // The workspaces that are tabs (hold a window, have a name, or show), with their names.
    const tabs = s.tabs.list();
    const d = line.confirm ? null : this.host.dock.current(now);
    const key = `${this.epoch}:${line.cols}x${line.rows}:${s.activeWorkspace}:${tabs.map((t) => `${t.workspace}=${t.name ?? ''}`).join('\u0001')}:${line.prefix}:${line.readOnly ?? false}:${line.confirm?.text ?? ''}:${line.hint ?? ''}\u0000${d?.mark?.glyph ?? ''}:${d?.mark?.role ?? ''}\u0000${d?.text ?? ''}\u0000${s.name}`;
    // Under an overlay it is drawn every frame, as the overlay may draw near it.
    if (!this.host.overlayShown() && key === this.statusDrawn) return;
    this.statusDrawn = !this.host.overlayShown() ? key : '';
    const cv = this.cv;
    const y = line.rows - 1;
    const bar = attr(-1, -1, A_INVERSE);
    cv.fill(0, y, line.cols, 1, bar);
    let x = cv.text(1, y, `[${fit(clean(s.name), 16, this.host.ascii)}]`, attr(-1, -1, A_INVERSE | A_BOLD));
    for (const t of tabs) {
      const n = t.workspace;
      // The number stays beside a name: it is the key that shows the workspace.
      const label = t.name ? `${n}:${fit(clean(t.name), WORKSPACE_NAME_COLS, this.host.ascii)}` : String(n);
      x = cv.text(x + 1, y, n === s.activeWorkspace ? `${label}*` : label, n === s.activeWorkspace ? attr(-1, -1, A_INVERSE | A_BOLD) : bar);
    }
    if (line.readOnly) x = cv.text(x + 2, y, '[read-only]', attr(3, -1, A_INVERSE | A_BOLD));
    if (line.prefix) x = cv.text(x + 2, y, '[C-b]', attr(3, -1, A_INVERSE | A_BOLD));
    const help = line.cols >= 60 ? 'C-b ? help' : '';
    const end = line.cols - (help ? textWidth(help) + 2 : 0);
    x += 2;
    if (line.confirm) {
      cv.text(x, y, fit(line.confirm.text, end - x, this.host.ascii), attr(3, -1, A_INVERSE | A_BOLD), end);
    } else {
      if (d) {
        if (d.mark) x = cv.text(x, y, d.mark.glyph + ' ', attr(roleColor(d.mark.role), -1, A_INVERSE | A_BOLD), end);
        cv.text(x, y, fit(d.text, end - x, this.host.ascii), bar, end);
      } else if (line.hint) {
        // The rail holds the keyboard: its keys, where the dock's line goes.
        cv.text(x, y, fit(`rail: ${line.hint}`, end - x, this.host.ascii), bar, end);
      }
    }
    if (help) cv.text(line.cols - textWidth(help) - 1, y, help, bar);
  }

  paneCursor(tiles: Map<string, Rect>, w: Window): { x: number; y: number } | null {
    const r = tiles.get(w.id);
    if (!r) return null;
    const src = this.source(w);
    if (src.modes().cursorHidden) return null;
    const c = contentRect(r);
    const cur = src.cursor();
    if (cur.x >= c.w || cur.y >= c.h) return cur.x === c.w && cur.y < c.h ? { x: c.x + c.w - 1, y: c.y + cur.y } : null;
    return { x: c.x + cur.x, y: c.y + cur.y };
  }

  /** Printing ahead of the frame (echo-ahead.ts) left the terminal's cursor at (x, y); a hidden one stays hidden. */
  cursorPrinted(x: number, y: number): void {
    if (this.cursorShown !== null) this.cursorShown = `${x},${y}`;
  }

  placeCursor(c: { x: number; y: number } | null, moved: boolean): void {
    const key = c ? `${c.x},${c.y}` : null;
    if (key === this.cursorShown && !moved) return;
    if (!c) {
      if (this.cursorShown !== null || moved) this.host.push('\x1b[?25l');
    } else this.host.push(`\x1b[${c.y + 1};${c.x + 1}H${this.cursorShown === null || moved ? '\x1b[?25h' : ''}`);
    this.cursorShown = key;
  }
}

function roleColor(role: string): number {
  return { info: 4, warning: 3, success: 2, muted: 8, error: 1, accent: 6 }[role] ?? -1;
}
