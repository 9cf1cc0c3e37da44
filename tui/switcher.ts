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
    const list = this.sessions();
    if (tok.t !== 'key') return;
    switch (tok.name) {
      case 'j':
      case 'Down':
        this.sel = Math.min(list.length - 1, this.sel + 1);
        break;
      case 'k':
      case 'Up':
        this.sel = Math.max(0, this.sel - 1);
        break;
      case 'Enter': {
        const s = list[this.sel];
        this.host.closeOverlay();
        if (s) this.host.switchSession(s.id);
        return;
      }
      case 'Esc':
      case 'q':
        this.host.closeOverlay();
        return;
    }
    this.host.redraw();
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
      const mk = m ? stateMark(m.state, m.unread, this.host.ascii) : null;
      if (mk) cv.set(inner.x, y, mk.glyph, roleAttr(mk.role, sel ? A_INVERSE : 0));
      const n = this.host.svc.model.windowsOf(s).length;
      cv.text(inner.x + 2, y, fit(clean(s.name), inner.w - 14), sel ? attr(-1, -1, A_INVERSE | A_BOLD) : PLAIN, inner.x + inner.w);
      cv.text(inner.x + inner.w - 10, y, `${n} window${n === 1 ? '' : 's'}`, sel ? base : roleAttr('muted'), inner.x + inner.w);
    });
    cv.text(inner.x, inner.y + inner.h - 1, 'enter show  j/k move  esc close', roleAttr('muted'), inner.x + inner.w);
    return null;
  }
}
