// The session switcher (ctrl+b s): every session this client may show, with its most urgent
// agent mark and its window count; enter shows it.
import type { Canvas } from './canvas.js';
import { attr, roleAttr, A_BOLD, A_INVERSE, PLAIN } from './canvas.js';
import type { Rect } from './pane-draw.js';
import type { Token } from './keys.js';
import { drawBox, type Overlay, type TuiHost } from './overlay.js';
import { stateMark } from './marks.js';
import { clean, fit } from './text.js';
import { sessionMark } from './session-mark.js';
import { dispatchKey, hintRows, hintText, type KeyTable } from './key-table.js';

export const SWITCHER_KEYS: KeyTable<SessionSwitcher> = [
  { keys: ['Enter'], help: 'show', run: (v) => v.show() },
  { keys: ['j', 'Down', 'k', 'Up'], label: 'j/k', help: 'move', run: (v, k) => v.move(k === 'j' || k === 'Down' ? 1 : -1) },
  { keys: ['Esc', 'q'], help: 'close', run: (v) => v.close() },
];

export class SessionSwitcher implements Overlay {
  readonly fullScreen = false;
  private sel = 0;

  constructor(private readonly host: TuiHost) {
    const ids = this.sessions().map((s) => s.id);
    this.sel = Math.max(0, ids.indexOf(host.sessionId));
  }

  private sessions() {
    const { svc } = this.host;
    return [...svc.model.sessions.values()].filter((s) => this.host.visible(s.id)).sort((a, b) => a.order - b.order);
  }

  key(tok: Token): void {
    if (tok.t !== 'key') return;
    // A key no row takes draws the list again, as it always did.
    if (!dispatchKey(SWITCHER_KEYS, this, this, tok).ran) this.host.redraw();
  }

  move(d: number): void {
    this.sel = Math.max(0, Math.min(this.sessions().length - 1, this.sel + d));
    this.host.redraw();
  }

  show(): void {
    const s = this.sessions()[this.sel];
    this.host.closeOverlay();
    if (s) this.host.switchSession(s.id);
  }

  close(): void {
    this.host.closeOverlay();
  }

  draw(cv: Canvas, area: Rect): null {
    const list = this.sessions();
    const inner = drawBox(cv, area, 48, Math.max(4, list.length + 3), 'sessions', this.host.ascii, roleAttr('accent', A_BOLD), PLAIN);
    list.forEach((s, i) => {
      const y = inner.y + i;
      if (y >= inner.y + inner.h - 1) return;
      const sel = i === this.sel;
      const base = sel ? attr(-1, -1, A_INVERSE) : PLAIN;
      cv.fill(inner.x, y, inner.w, 1, base);
      const m = sessionMark(this.host.svc, s.id);
      const mk = m ? stateMark(m.state, m.unread, this.host.glyphs, m.subagents ?? 0) : null;
      if (mk) cv.text(inner.x, y, mk.glyph, roleAttr(mk.role, sel ? A_INVERSE : 0), inner.x + 2);
      const n = this.host.svc.model.windowsOf(s).length;
      cv.text(inner.x + 2, y, fit(clean(s.name), inner.w - 14, this.host.ascii), sel ? attr(-1, -1, A_INVERSE | A_BOLD) : PLAIN, inner.x + inner.w);
      cv.text(inner.x + inner.w - 10, y, `${n} window${n === 1 ? '' : 's'}`, sel ? base : roleAttr('muted'), inner.x + inner.w);
    });
    cv.text(inner.x, inner.y + inner.h - 1, hintText(hintRows(SWITCHER_KEYS, this), this, '  '), roleAttr('muted'), inner.x + inner.w);
    return null;
  }
}
