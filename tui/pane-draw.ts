// Draws a screen source into a rectangle of the canvas: cells, colours, attributes and wide
// characters. The canvas keeps 256 colours (terminal-kit's ScreenBuffer), so a 24-bit colour is
// drawn as the nearest colour of the xterm cube or grey ramp.
import { attr, A_BOLD, A_DIM, A_ITALIC, A_UNDERLINE, A_BLINK, A_INVERSE, A_HIDDEN, A_STRIKE, type Canvas } from './canvas.js';
import { RGB_FLAG, S_BOLD, S_DIM, S_ITALIC, S_UNDERLINE, S_BLINK, S_INVERSE, S_INVISIBLE, S_STRIKE, WORD_COMBINED, WORD_EXTENDED, type ScreenSource } from './source.js';

export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

const STYLE_TO_ATTR: Array<[number, number]> = [
  [S_BOLD, A_BOLD],
  [S_DIM, A_DIM],
  [S_ITALIC, A_ITALIC],
  [S_UNDERLINE, A_UNDERLINE],
  [S_BLINK, A_BLINK],
  [S_INVERSE, A_INVERSE],
  [S_INVISIBLE, A_HIDDEN],
  [S_STRIKE, A_STRIKE],
];

const styleCache = new Int32Array(256).fill(-1);

function styleFlags(style: number): number {
  const hit = styleCache[style]!;
  if (hit >= 0) return hit;
  let f = 0;
  for (const [s, a] of STYLE_TO_ATTR) if (style & s) f |= a;
  styleCache[style] = f;
  return f;
}

const cube = [0, 95, 135, 175, 215, 255];
const rgbCache = new Map<number, number>();

/** The nearest xterm-256 index of a 24-bit colour (cube or grey ramp, by squared distance). */
export function rgbTo256(rgb: number): number {
  const hit = rgbCache.get(rgb);
  if (hit !== undefined) return hit;
  const r = (rgb >> 16) & 255;
  const g = (rgb >> 8) & 255;
  const b = rgb & 255;
  const near = (v: number) => (v < 48 ? 0 : v < 115 ? 1 : Math.min(5, Math.floor((v - 35) / 40)));
  const ci = near(r);
  const cj = near(g);
  const ck = near(b);
  const cubeD = (cube[ci]! - r) ** 2 + (cube[cj]! - g) ** 2 + (cube[ck]! - b) ** 2;
  const grey = Math.max(0, Math.min(23, Math.round(((r + g + b) / 3 - 8) / 10)));
  const gv = 8 + grey * 10;
  const greyD = (gv - r) ** 2 + (gv - g) ** 2 + (gv - b) ** 2;
  const idx = greyD < cubeD ? 232 + grey : 16 + 36 * ci + 6 * cj + ck;
  if (rgbCache.size < 4096) rgbCache.set(rgb, idx);
  return idx;
}

function colour(c: number): number {
  return c < 0 ? -1 : c & RGB_FLAG ? rgbTo256(c & 0xffffff) : c;
}

/**
 * What a pane's rows held when they were last drawn into one place of the canvas: a row whose
 * words are the same is still on the canvas as drawn, and is skipped (a typed key redraws one
 * row, not the pane). The owner drops it when anything else may have drawn over the place.
 */
export class RowMemo {
  place = '';
  rows: Array<Uint32Array | null> = [];
}

/** Copies the source's visible rows into `r` (clipped to it); the rest of `r` is blanked. */
export function drawSource(cv: Canvas, src: ScreenSource, r: Rect, memo?: RowMemo): void {
  const rows = Math.min(r.h, src.rows);
  const maxX = r.x + r.w;
  if (memo) {
    const place = `${r.x},${r.y},${r.w},${r.h}:${src.cols}x${src.rows}`;
    if (memo.place !== place) {
      memo.place = place;
      memo.rows = [];
    }
  }
  // Rows the source says did not change since the last draw, and that were kept as drawn, are
  // on the canvas as they are: not even their words are read.
  const changed = src.takeChangedRows ? src.takeChangedRows() : undefined;
  for (let y = 0; y < rows; y++) {
    const cy = r.y + y;
    const before = memo?.rows[y];
    if (before && changed !== undefined && (changed === null || y < changed.from || y > changed.to)) continue;
    const words = memo ? (src.rowWords?.(y) ?? null) : null;
    if (words && sameWords(words, before)) continue;
    // A row whose words were kept is drawn from its first changed cell to its last (one cell
    // more each side, for the halves of a wide character): the rest is on the canvas as it was.
    const span = words && before ? changedCells(words, before) : null;
    let filled = span ? -1 : r.x;
    src.readRow(
      y,
      (x, chars, width, fg, bg, style) => {
        const cx = r.x + x;
        if (cx >= maxX) return;
        if (filled >= 0 && cx > filled) cv.fill(filled, cy, cx - filled, 1);
        const a = attr(colour(fg), colour(bg), styleFlags(style));
        if (width === 2 && cx + 1 >= maxX) cv.set(cx, cy, ' ', a);
        else cv.set(cx, cy, chars, a, width);
        filled = cx + width;
      },
      span?.from,
      span?.to,
    );
    if (!span || span.toEnd) {
      if (filled < 0) filled = r.x + (span?.from ?? 0);
      if (filled < maxX) cv.fill(filled, cy, maxX - filled, 1);
    }
    if (memo) memo.rows[y] = words && plainWords(words) ? keep(words, before) : null;
  }
  if (rows < r.h) cv.fill(r.x, r.y + rows, r.w, r.h - rows);
}

/** The cells that differ between two rows of words of one length (null: another length), one
 *  more each side; toEnd when the span reaches the row's last cell (what follows is blank). */
function changedCells(a: Uint32Array, b: Uint32Array): { from: number; to: number; toEnd: boolean } | null {
  if (a.length !== b.length) return null;
  let lo = 0;
  while (lo < a.length && a[lo] === b[lo]) lo++;
  let hi = a.length - 1;
  while (hi > lo && a[hi] === b[hi]) hi--;
  const cells = a.length / 3;
  const from = Math.max(0, Math.floor(lo / 3) - 1);
  const to = Math.floor(hi / 3) + 1;
  return to >= cells - 1 ? { from, to: cells - 1, toEnd: true } : { from, to, toEnd: false };
}

/** A copy of the words, in the last copy's array when it has the length (a frame allocates none). */
function keep(words: Uint32Array, last: Uint32Array | null | undefined): Uint32Array {
  if (last && last.length === words.length) {
    last.set(words);
    return last;
  }
  return words.slice();
}

function sameWords(a: Uint32Array, b: Uint32Array | null | undefined): boolean {
  if (!b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** True when no cell points outside its words (see WORD_COMBINED). */
function plainWords(w: Uint32Array): boolean {
  for (let i = 0; i < w.length; i += 3) if (w[i]! & WORD_COMBINED || w[i + 2]! & WORD_EXTENDED) return false;
  return true;
}
