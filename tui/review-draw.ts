// Drawing the review overlay: a header (session, pane, counts, base, notes), the changed files on
// the left, the file under the cursor on the right with its notes, the dock's newest message and
// the keys at the foot. Text is cleaned and fitted here; nothing is read from the daemon.
import type { Canvas } from './canvas.js';
import { attr, roleAttr, A_BOLD, A_INVERSE, PLAIN } from './canvas.js';
import type { Rect } from './pane-draw.js';
import { clean, fit, pad } from './text.js';
import type { ReviewData, ReviewRow } from './review-model.js';

export interface ReviewFrame {
  data: ReviewData;
  fileAt: number;
  rows: ReviewRow[];
  rowAt: number;
  top: number;
  ascii: boolean;
  dock: string | null;
  footer: string;
}

const FILES_W_MAX = 40;

export function drawHeader(cv: Canvas, area: Rect, f: ReviewFrame): void {
  const d = f.data;
  const end = area.x + area.w;
  const x = cv.text(area.x + 1, area.y, 'Review', attr(-1, -1, A_BOLD));
  const changed = d.files.filter((x) => x.changed).length;
  const notes = d.notes.length;
  const unsent = d.notes.filter((n) => n.sent_at === null).length;
  const what = `${clean(d.session)} / ${clean(d.pane)}   ${changed} file${changed === 1 ? '' : 's'} +${d.added} -${d.deleted}${d.truncated ? ' (truncated)' : ''}   vs ${clean(d.against ?? d.base)}   ${notes} note${notes === 1 ? '' : 's'}${unsent ? ` (${unsent} unsent)` : ''}`;
  cv.text(x + 2, area.y, fit(what, end - x - 3, f.ascii), PLAIN, end);
}

export function drawFiles(cv: Canvas, r: Rect, f: ReviewFrame): void {
  const end = r.x + r.w;
  const files = f.data.files;
  if (!files.length) {
    cv.text(r.x + 1, r.y, fit('Nothing changed against the base.', r.w - 2, f.ascii), roleAttr('muted'), end);
    return;
  }
  const first = Math.max(0, Math.min(f.fileAt - Math.floor(r.h / 2), files.length - r.h));
  for (let i = 0; i < r.h; i++) {
    const file = files[first + i];
    if (!file) break;
    const sel = first + i === f.fileAt;
    const n = f.data.notes.filter((x) => x.file === file.path).length;
    const mark = file.changed ? (file.status || 'M') : ' ';
    const tail = n ? ` ${n}` : '';
    const text = `${mark} ${fit(clean(file.path), r.w - 3 - tail.length, f.ascii)}`;
    const a = sel ? roleAttr('accent', A_BOLD | A_INVERSE) : file.changed ? PLAIN : roleAttr('muted');
    cv.text(r.x, r.y + i, pad(text, r.w - tail.length, f.ascii), a, end);
    if (tail) cv.text(end - tail.length, r.y + i, tail, roleAttr('warning', A_BOLD), end);
  }
}

function rowText(row: ReviewRow, width: number, ascii: boolean): { text: string; a: number } {
  switch (row.kind) {
    case 'hunk':
      return { text: row.text, a: roleAttr('accent') };
    case 'line': {
      const num = String(row.mark === '-' ? row.old ?? '' : row.new ?? '').padStart(5);
      return { text: `${num} ${row.mark}${row.text}`, a: row.mark === '+' ? roleAttr('success') : row.mark === '-' ? roleAttr('error') : PLAIN };
    }
    case 'note': {
      const by = row.note.author === 'human' ? '' : ` (${clean(row.note.author_name)})`;
      return { text: `      ${ascii ? '>>' : '▸'} ${clean(row.note.text).replace(/\n/g, ' / ')}${by}${row.note.sent_at ? ' [sent]' : ''}`, a: roleAttr('warning', A_BOLD) };
    }
    case 'outdated':
      return { text: `outdated: on "${clean(row.note.quote)}": ${clean(row.note.text).replace(/\n/g, ' / ')}`, a: roleAttr('muted', A_BOLD) };
    case 'why':
      return { text: row.text, a: roleAttr('muted') };
  }
  return { text: '', a: PLAIN };
}

export function drawFile(cv: Canvas, r: Rect, f: ReviewFrame): void {
  const end = r.x + r.w;
  for (let i = 0; i < r.h; i++) {
    const row = f.rows[f.top + i];
    if (!row) break;
    const { text, a } = rowText(row, r.w, f.ascii);
    const sel = f.top + i === f.rowAt;
    cv.text(r.x, r.y + i, fit(text, r.w - 1, f.ascii), sel ? a | A_INVERSE : a, end);
  }
}

/** The whole overlay; returns the rect the note editor goes in. */
export function drawReview(cv: Canvas, area: Rect, f: ReviewFrame, editorRows: number): Rect {
  cv.fill(area.x, area.y, area.w, area.h);
  drawHeader(cv, area, f);
  const foot = f.dock ? 2 : 1;
  const bodyH = Math.max(0, area.h - 2 - foot - editorRows);
  const filesW = Math.min(FILES_W_MAX, Math.max(16, Math.floor(area.w / 4)));
  drawFiles(cv, { x: area.x + 1, y: area.y + 2, w: filesW, h: bodyH }, f);
  const sep = f.ascii ? '|' : '│';
  for (let i = 0; i < bodyH; i++) cv.set(area.x + filesW + 2, area.y + 2 + i, sep, roleAttr('muted'));
  drawFile(cv, { x: area.x + filesW + 4, y: area.y + 2, w: Math.max(0, area.w - filesW - 5), h: bodyH }, f);
  const footY = area.y + area.h - 1;
  if (f.dock) cv.text(area.x + 1, footY - 1, fit(f.dock, area.w - 2, f.ascii), roleAttr('accent'), area.x + area.w);
  cv.text(area.x + 1, footY, fit(f.footer, area.w - 2, f.ascii), roleAttr('muted'), area.x + area.w);
  return { x: area.x + 1, y: area.y + 2 + bodyH, w: area.w - 2, h: editorRows };
}

/** How many rows of the file show at once, for paging and keeping the cursor in view. */
export function fileRowsShown(areaH: number, dock: boolean, editorRows: number): number {
  return Math.max(1, areaH - 2 - (dock ? 2 : 1) - editorRows);
}
