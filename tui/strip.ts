// The rail's collapsed strip (spec: Indicator, The rail's agents section): on a terminal too
// narrow for the rail, a column of state marks, one per agent in the section's order, so a state
// still reads at a glance. The same mark function as every surface (marks.ts).
import type { Canvas } from './canvas.js';
import { roleAttr } from './canvas.js';
import type { Rect } from './pane-draw.js';
import type { RailRow } from './rows.js';
import { orderRows, type RailOrder } from './rail-order.js';
import { stateMark, type Glyphs } from './marks.js';

/** The strip's width: a mark (one or two cells) and the blank column the rail keeps. */
export const STRIP_WIDTH = 3;

/** The marks the strip draws, top to bottom (a `+` when more agents than lines). */
export function stripMarks(rows: readonly RailRow[], order: RailOrder, glyphs: Glyphs | boolean, height: number): Array<{ glyph: string; role: string; id: string }> {
  const out: Array<{ glyph: string; role: string; id: string }> = [];
  const ordered = orderRows(rows, order);
  for (const { a } of ordered) {
    const m = stateMark(a.state, a.finishedUnread, glyphs, a.subagents);
    if (m) out.push({ glyph: m.glyph, role: m.role, id: a.id });
  }
  if (out.length > height) return [...out.slice(0, Math.max(0, height - 1)), { glyph: '+', role: 'muted', id: '' }];
  return out;
}

export function drawStrip(cv: Canvas, r: Rect, rows: readonly RailRow[], order: RailOrder, glyphs: Glyphs | boolean): void {
  cv.fill(r.x, r.y, r.w, r.h);
  stripMarks(rows, order, glyphs, r.h).forEach((m, i) => cv.text(r.x, r.y + i, m.glyph, roleAttr(m.role as Parameters<typeof roleAttr>[0]), r.x + r.w - 1));
}
