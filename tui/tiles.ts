// A tile: one pane in a box, its title in the top border (the state mark, the window's name, the
// program's own title muted), its cells inside. The focused tile's border is in the accent ink.
import type { Canvas } from './canvas.js';
import { attr, roleAttr, A_BOLD, PLAIN } from './canvas.js';
import { drawSource, type Rect, type RowMemo } from './pane-draw.js';
import type { ScreenSource } from './source.js';
import type { Mark } from './marks.js';
import { clean, fit, textWidth } from './text.js';

export interface TileInput {
  name: string;
  title: string;
  mark: Mark | null;
  focused: boolean;
  zoomed: boolean;
  exited: boolean;
  ascii: boolean;
}

const BOX = { tl: '┌', tr: '┐', bl: '└', br: '┘', h: '─', v: '│' };
const BOX_ASCII = { tl: '+', tr: '+', bl: '+', br: '+', h: '-', v: '|' };

/** The cells inside a tile's border. */
export function contentRect(r: Rect): Rect {
  return { x: r.x + 1, y: r.y + 1, w: Math.max(0, r.w - 2), h: Math.max(0, r.h - 2) };
}

export function drawFrame(cv: Canvas, r: Rect, t: TileInput): void {
  if (r.w < 2 || r.h < 2) return;
  const b = t.ascii ? BOX_ASCII : BOX;
  const ink = t.focused ? roleAttr('accent', A_BOLD) : roleAttr('muted');
  const right = r.x + r.w - 1;
  const bottom = r.y + r.h - 1;
  cv.set(r.x, r.y, b.tl, ink);
  cv.set(right, r.y, b.tr, ink);
  cv.set(r.x, bottom, b.bl, ink);
  cv.set(right, bottom, b.br, ink);
  for (let x = r.x + 1; x < right; x++) {
    cv.set(x, r.y, b.h, ink);
    cv.set(x, bottom, b.h, ink);
  }
  for (let y = r.y + 1; y < bottom; y++) {
    cv.set(r.x, y, b.v, ink);
    cv.set(right, y, b.v, ink);
  }
  // The title: " ▲ name · title [zoom] ", cut to the border's length.
  let x = r.x + 2;
  const end = right - 1;
  if (x >= end) return;
  x = cv.text(x, r.y, ' ', ink, end);
  if (t.mark) {
    x = cv.text(x, r.y, t.mark.glyph, roleAttr(t.mark.role, A_BOLD), end);
    x = cv.text(x, r.y, ' ', ink, end);
  }
  const name = clean(t.name);
  x = cv.text(x, r.y, fit(name, Math.max(1, end - x - 1), t.ascii), t.focused ? attr(-1, -1, A_BOLD) : PLAIN, end);
  const extra = [t.exited ? 'exited' : '', t.zoomed ? 'zoom' : ''].filter(Boolean).join(' ');
  const title = clean(t.title).trim();
  if (title && title !== name && end - x > 6) {
    x = cv.text(x, r.y, ' · ', roleAttr('muted'), end);
    x = cv.text(x, r.y, fit(title, end - x - 1 - (extra ? textWidth(extra) + 3 : 0), t.ascii), roleAttr('muted'), end);
  }
  if (extra && end - x > textWidth(extra) + 2) x = cv.text(x, r.y, ` [${extra}]`, roleAttr('warning'), end);
  cv.text(x, r.y, ' ', ink, end);
}

export function drawContent(cv: Canvas, r: Rect, src: ScreenSource, memo?: RowMemo): void {
  drawSource(cv, src, contentRect(r), memo);
}
