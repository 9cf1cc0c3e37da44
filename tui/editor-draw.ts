// An editor drawn in a box: its title, its lines behind a prompt mark, and (for a reply) the line
// of its keys. The agents view's reply and the mailbox's compose draw through it.
import type { Canvas } from './canvas.js';
import { attr, roleAttr, A_BOLD, A_INVERSE, PLAIN } from './canvas.js';
import type { Rect } from './pane-draw.js';
import { editorHint, type Editor } from './editor.js';
import { fit } from './text.js';
import { EDITOR_MAX_ROWS } from './limits.js';
import { drawNameList, nameRows } from './names-draw.js';
import { drawImageLarge, drawImageStrip } from './image-strip.js';

/** Draws `ed` in `r` under `title`; `keys` adds the editor's key line under its text. Returns where the cursor goes. */
export function drawEditorBox(cv: Canvas, r: Rect, ed: Editor, title: string, ascii: boolean, keys: boolean): { x: number; y: number } {
  const end = r.x + r.w;
  cv.fill(r.x, r.y, r.w, r.h);
  cv.text(r.x, r.y, fit(title, r.w, ascii), attr(-1, -1, A_BOLD), end);
  // The draft's images, above it (spec: Images); the rest of the box moves down by the strip.
  const strip = drawImageStrip(cv, r.x + 2, r.y + 1, r.w - 3, ed.shownImages(), ascii);
  r = { ...r, y: r.y + strip, h: r.h - strip };
  const big = ed.viewedImage();
  if (big) {
    // ctrl+o on an image: it, larger, in place of the draft, and its keys under it.
    const rows = drawImageLarge(cv, r.x + 2, r.y + 1, r.w - 3, Math.max(1, Math.min(EDITOR_MAX_ROWS, r.h - 2)), big, ascii);
    if (keys) cv.text(r.x, r.y + 1 + rows, fit(ed.notice || editorHint(ascii, ed.keyState()), r.w, ascii), roleAttr('muted'), end);
    return { x: r.x + 2, y: r.y + 1 };
  }
  // `@`: the list of names goes under the draft, which gives up rows for it.
  const listH = nameRows(ed);
  const v = ed.view(Math.max(1, Math.min(EDITOR_MAX_ROWS, r.h - 2 - listH)));
  v.lines.forEach((l, i) => {
    cv.text(r.x, r.y + 1 + i, i === 0 ? (ascii ? '> ' : '› ') : '  ', roleAttr('accent'), end);
    cv.text(r.x + 2, r.y + 1 + i, fit(l, r.w - 3, ascii), PLAIN, end);
  });
  // The block right before the cursor is drawn selected (its keys are on the key line).
  if (v.selectedCols > 0) {
    const line = [...(v.lines[v.cursor.y] ?? '')];
    const from = Math.max(0, v.cursor.x - v.selectedCols);
    const label = line.slice(from, v.cursor.x).join('');
    if (from < r.w - 3) cv.text(r.x + 2 + from, r.y + 1 + v.cursor.y, fit(label, r.w - 3 - from, ascii), attr(-1, -1, A_INVERSE), end);
  }
  const listed = drawNameList(cv, { x: r.x, y: r.y + 1 + Math.max(1, v.lines.length), w: r.w, h: listH }, ed, ascii);
  if (keys) cv.text(r.x, r.y + 1 + Math.max(1, v.lines.length) + listed, fit(ed.notice || editorHint(ascii, ed.keyState()), r.w, ascii), roleAttr('muted'), end);
  return { x: r.x + 2 + Math.min(v.cursor.x, r.w - 3), y: r.y + 1 + v.cursor.y };
}
