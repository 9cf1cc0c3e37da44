// What a view drawn over the panes (help, the session switcher, the agents view) gets from its
// TUI, and what it gives back. Views never reach the transport: they draw into the canvas and
// act through the host.
import type { Services } from '../core/daemon/services.js';
import type { Window } from '../core/model/window.js';
import type { Canvas } from './canvas.js';
import type { Rect } from './pane-draw.js';
import type { Token } from './keys.js';
import type { Acts } from './acts.js';
import type { Dock } from './alerts.js';
import type { AgentRow } from './rows.js';
import type { SourceModes } from './source.js';
import type { Glyphs } from './marks.js';
import type { EditOutcome } from './external-editor.js';

export interface TuiHost {
  readonly svc: Services;
  readonly acts: Acts;
  readonly dock: Dock;
  readonly ascii: boolean;
  /** The client's glyph set (tui/marks.ts): every state mark is drawn with it. */
  readonly glyphs: Glyphs;
  readonly sessionId: string;
  readonly agentsSeen: boolean;
  /** The client came in over the SSH server (the reply's `@` then offers no files). */
  readonly overSsh: boolean;
  /** ctrl+g: `text` in the person's editor, the client's terminal given to it until it exits. */
  editExternally(text: string): Promise<EditOutcome>;
  /** The client runs on the person's machine (`tuios attach`, not ssh): ctrl+v reads their clipboard. */
  readonly localClient: boolean;
  /** Sessions this client may show. */
  visible(sessionId: string): boolean;
  /** Shows a window: its session, its workspace, focus; `zoom` zooms it. */
  goToWindow(w: Window, opts?: { zoom?: boolean }): void;
  switchSession(id: string): void;
  /** Shows a linked host's agent pane from a replica fed over the link (remote-pane.ts). */
  openRemotePane(row: AgentRow): void;
  closeOverlay(): void;
  openHelp(section?: 'agents'): void;
  /** The agents view; `mail` opens it on the mail for you. */
  openAgents(select?: string, opts?: { mail?: boolean; then?: 'snooze' | 'reply' }): void;
  /** The mailbox, on a thread (with its reply line), back to the agents view on esc when asked. */
  openMailbox(opts?: { thread?: number; reply?: boolean; fromAgents?: boolean }): void;
  /** The review of a pane's changes, opened when its diff arrives (review-view.ts). */
  openReview(w: Window): void;
  redraw(): void;
  /** Async work of the view: a failure in it closes this client, never the daemon. */
  track(work: unknown): void;
  /** A timer the TUI owns (cleared when it goes; a throw in it closes only this client). */
  later(ms: number, fn: () => void): void;
}

export interface Overlay {
  /** Covers the whole pane area (the panes are not drawn under it). */
  readonly fullScreen: boolean;
  key(tok: Token): void;
  /** Draws into `area`; returns where the cursor goes, or null to hide it. */
  draw(cv: Canvas, area: Rect, now: number): { x: number; y: number } | null;
  /** A view that passes keys on to a pane (a linked host's): that pane's input modes, for the client. */
  paneModes?(): SourceModes | null;
  dispose?(): void;
}

/** A box with a border and a title, centred in `area`; returns its inside. */
export function drawBox(cv: Canvas, area: Rect, w: number, h: number, title: string, ascii: boolean, ink: number, fillAttr: number): Rect {
  const bw = Math.min(w, area.w);
  const bh = Math.min(h, area.h);
  const x = area.x + Math.floor((area.w - bw) / 2);
  const y = area.y + Math.floor((area.h - bh) / 2);
  const b = ascii ? ['+', '+', '+', '+', '-', '|'] : ['┌', '┐', '└', '┘', '─', '│'];
  cv.fill(x, y, bw, bh, fillAttr);
  for (let i = x + 1; i < x + bw - 1; i++) {
    cv.set(i, y, b[4]!, ink);
    cv.set(i, y + bh - 1, b[4]!, ink);
  }
  for (let j = y + 1; j < y + bh - 1; j++) {
    cv.set(x, j, b[5]!, ink);
    cv.set(x + bw - 1, j, b[5]!, ink);
  }
  cv.set(x, y, b[0]!, ink);
  cv.set(x + bw - 1, y, b[1]!, ink);
  cv.set(x, y + bh - 1, b[2]!, ink);
  cv.set(x + bw - 1, y + bh - 1, b[3]!, ink);
  if (title) cv.text(x + 2, y, ` ${title} `, ink, x + bw - 2);
  return { x: x + 2, y: y + 1, w: Math.max(0, bw - 4), h: Math.max(0, bh - 2) };
}
