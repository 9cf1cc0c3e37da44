// The list of names under the reply editor's draft while `@` is open (spec: Naming a pane, an
// agent or a file): one entry a row, `agent work/review  working`, the chosen one inverse.
import type { Canvas } from './canvas.js';
import { attr, roleAttr, A_INVERSE, PLAIN } from './canvas.js';
import type { Rect } from './pane-draw.js';
import type { Editor } from './editor.js';
import { fit } from './text.js';
import { NAMES_SHOWN_MAX } from './limits.js';

/** Rows the list takes under the draft now (0: it is closed). */
export function nameRows(ed: Editor): number {
  const l = ed.nameList();
  return l ? Math.min(NAMES_SHOWN_MAX, Math.max(1, l.entries.length)) : 0;
}

/** Draws the list in `r`; answers the rows it took. */
export function drawNameList(cv: Canvas, r: Rect, ed: Editor, ascii: boolean): number {
  const l = ed.nameList();
  if (!l || r.h <= 0) return 0;
  const end = r.x + r.w;
  if (l.entries.length === 0) {
    cv.text(r.x, r.y, fit(l.loading ? '  reading the folder...' : '  nothing here fits', r.w, ascii), roleAttr('muted'), end);
    return 1;
  }
  const rows = Math.min(r.h, l.entries.length);
  const top = Math.max(0, l.index - rows + 1);
  for (let i = 0; i < rows; i++) {
    const e = l.entries[top + i]!;
    const line = `  ${e.kind} ${e.insert}${e.detail ? `  ${e.detail}` : ''}`;
    cv.text(r.x, r.y + i, fit(line, r.w, ascii), top + i === l.index ? attr(-1, -1, A_INVERSE) : PLAIN, end);
  }
  return rows;
}
