// The strip of images above a reply draft (spec: Replying to an agent, Images): each image 3 rows
// high, at most 4, then `+N more`. Drawn with kitty graphics when the client's terminal has them,
// with half-block glyphs in the 256-colour palette otherwise, and at 16 colours as a line of words
// per image. Which of the three is the client's, judged once from its TERM (graphicsFor).
import type { Canvas } from './canvas.js';
import { attr, roleAttr } from './canvas.js';
import { fit } from './text.js';
import { imageWords } from '../core/delivery/images.js';
import { STRIP_MAX, THUMB_ROWS, thumbCols, type EditorImage, type Thumb } from './editor-images.js';

export type Graphics = 'kitty' | 'blocks' | 'words';

/**
 * How this client draws images, from its TERM: kitty's graphics protocol for the terminals that
 * name themselves and have it (kitty, Ghostty, WezTerm), the 256 colours of half blocks for one
 * that says it has 256 colours or more, words for the rest (xterm, linux, screen: 16 colours).
 */
export function graphicsFor(term: string): Graphics {
  if (/kitty|ghostty|wezterm/i.test(term)) return 'kitty';
  if (/256|direct|truecolor|24bit/i.test(term)) return 'blocks';
  return 'words';
}

interface CanvasGraphics {
  mode: Graphics;
  kitty: KittyImages | null;
}

const byCanvas = new WeakMap<Canvas, CanvasGraphics>();

/** Says how `cv` draws images (the TUI sets it once for its client). */
export function setGraphics(cv: Canvas, mode: Graphics): KittyImages | null {
  const kitty = mode === 'kitty' ? new KittyImages() : null;
  byCanvas.set(cv, { mode, kitty });
  return kitty;
}

/** How `cv` draws images now: an ASCII-only client (--ascii-only) gets the words, as at 16 colours. */
export function graphicsOf(cv: Canvas): Graphics {
  return cv.ascii ? 'words' : (byCanvas.get(cv)?.mode ?? 'blocks');
}

/** Rows the strip takes for these images, drawn on `cv`. */
export function stripRows(cv: Canvas, images: readonly { n: number; image: EditorImage }[]): number {
  if (images.length === 0) return 0;
  if (graphicsOf(cv) === 'words') return Math.min(images.length, STRIP_MAX) + (images.length > STRIP_MAX ? 1 : 0);
  return THUMB_ROWS;
}

/** Draws the strip at (x, y), at most `w` wide; answers the rows it took. */
export function drawImageStrip(cv: Canvas, x: number, y: number, w: number, images: readonly { n: number; image: EditorImage }[], ascii: boolean): number {
  if (images.length === 0) return 0;
  const g = byCanvas.get(cv);
  const end = x + w;
  const more = images.length - STRIP_MAX;
  const moreText = more > 0 ? `+${more} more` : '';
  if (graphicsOf(cv) === 'words') {
    images.slice(0, STRIP_MAX).forEach(({ n, image }, i) => cv.text(x, y + i, fit(imageWords(n, image.info, ascii), w, ascii), roleAttr('muted'), end));
    if (moreText) cv.text(x, y + STRIP_MAX, moreText, roleAttr('muted'), end);
    return stripRows(cv, images);
  }
  cv.fill(x, y, w, THUMB_ROWS);
  let at = x;
  for (const { n, image } of images.slice(0, STRIP_MAX)) {
    const cols = image.thumb?.cols ?? thumbCols(image.info);
    if (at + cols > end) break;
    if (g?.kitty && image.thumb) g.kitty.want(image, 1, at, y, cols, THUMB_ROWS);
    else drawBlocks(cv, at, y, cols, THUMB_ROWS, image.thumb, n);
    at += cols + 1;
  }
  if (moreText && at + moreText.length <= end) cv.text(at, y + 1, moreText, roleAttr('muted'), end);
  return THUMB_ROWS;
}

/**
 * The image ctrl+o opens, larger, in `rows` rows at (x, y) at most `w` wide (kitty's graphics or
 * half blocks; at 16 colours its words and where to see it); answers the rows it took.
 */
export function drawImageLarge(cv: Canvas, x: number, y: number, w: number, rows: number, shown: { n: number; image: EditorImage }, ascii: boolean): number {
  const g = byCanvas.get(cv);
  const end = x + w;
  const { n, image } = shown;
  cv.fill(x, y, w, rows);
  if (graphicsOf(cv) === 'words') {
    cv.text(x, y, fit(imageWords(n, image.info, ascii), w, ascii), roleAttr('plain'), end);
    cv.text(x, y + 1, fit('This terminal shows no images: o opens it in your image viewer.', w, ascii), roleAttr('muted'), end);
    return Math.min(rows, 2);
  }
  const t = image.large && image.large.cols <= w ? image.large : null;
  const cols = Math.min(w, t?.cols ?? thumbCols(image.info, rows, w));
  if (g?.kitty && t) g.kitty.want(image, 2, x, y, cols, rows);
  else drawBlocks(cv, x, y, cols, rows, t, n);
  return rows;
}

/** Half blocks: each cell the upper pixel in the foreground, the lower in the background. */
function drawBlocks(cv: Canvas, x: number, y: number, cols: number, rows: number, t: Thumb | null, n: number): void {
  if (!t || t.rows !== rows) {
    // Not scaled yet: a grey box with the image's number, until the picture is there.
    cv.fill(x, y, cols, rows, attr(-1, 8));
    cv.text(x, y + (rows >> 1), `#${n}`.slice(0, cols), attr(15, 8), x + cols);
    return;
  }
  for (let row = 0; row < t.rows; row++) {
    for (let c = 0; c < t.cols; c++) {
      const top = (row * 2 * t.cols + c) * 3;
      const bottom = ((row * 2 + 1) * t.cols + c) * 3;
      cv.text(x + c, y + row, '▀', attr(rgbTo256(t.rgb[top]!, t.rgb[top + 1]!, t.rgb[top + 2]!), rgbTo256(t.rgb[bottom]!, t.rgb[bottom + 1]!, t.rgb[bottom + 2]!)), x + cols);
    }
  }
}

const CUBE = [0, 95, 135, 175, 215, 255];

function nearestCube(v: number): number {
  let best = 0;
  for (let i = 1; i < CUBE.length; i++) if (Math.abs(CUBE[i]! - v) < Math.abs(CUBE[best]! - v)) best = i;
  return best;
}

/** The nearest of xterm's 256 colours past the 16 a theme changes: the 6×6×6 cube or the 24 greys. */
export function rgbTo256(r: number, g: number, b: number): number {
  const [ri, gi, bi] = [nearestCube(r), nearestCube(g), nearestCube(b)];
  const cube = 16 + 36 * ri + 6 * gi + bi;
  const cd = (CUBE[ri]! - r) ** 2 + (CUBE[gi]! - g) ** 2 + (CUBE[bi]! - b) ** 2;
  const avg = (r + g + b) / 3;
  const gi2 = Math.max(0, Math.min(23, Math.round((avg - 8) / 10)));
  const gv = 8 + gi2 * 10;
  const gd = (gv - r) ** 2 + (gv - g) ** 2 + (gv - b) ** 2;
  return gd < cd ? 232 + gi2 : cube;
}

/**
 * The images placed with kitty's graphics protocol this frame. Each image is sent once (as PNG,
 * in 4096-byte pieces) under an id of this client's, placed where the strip drew it, and deleted
 * when a full frame no longer draws it. The cells under it are blank on the canvas.
 */
export class KittyImages {
  /** An id per image and placement kind (1 the strip's thumbnail, 2 the larger view's picture). */
  private ids = [new WeakMap<EditorImage, number>(), new WeakMap<EditorImage, number>()];
  private next = 1;
  private sent = new Set<number>();
  /** Placed now: id -> where. */
  private placed = new Map<number, string>();
  private wanted = new Map<number, { png: Buffer; at: string; x: number; y: number; cols: number; rows: number }>();

  /** A full frame starts: what it draws is all that stays placed. */
  begin(): void {
    this.wanted.clear();
  }

  /** Places `image` (`p`: 1 the strip's thumbnail, 2 the larger view's) over `cols`×`rows` cells at (x, y). */
  want(image: EditorImage, p: 1 | 2, x: number, y: number, cols: number, rows: number): void {
    const png = p === 2 ? image.large?.png : image.thumb?.png;
    if (!png) return;
    const ids = this.ids[p - 1]!;
    let id = ids.get(image);
    if (!id) {
      id = this.next++;
      ids.set(image, id);
    }
    this.wanted.set(id, { png, at: `${x},${y},${cols},${rows}`, x, y, cols, rows });
  }

  /** The bytes that bring the terminal from what was placed to what this frame wants. */
  end(): string {
    let out = '';
    for (const [id] of this.placed) {
      if (this.wanted.has(id)) continue;
      out += `\x1b_Ga=d,d=I,i=${id},q=2\x1b\\`;
      this.placed.delete(id);
      this.sent.delete(id);
    }
    for (const [id, w] of this.wanted) {
      if (this.placed.get(id) === w.at) continue;
      if (!this.sent.has(id)) {
        out += transmit(id, w.png);
        this.sent.add(id);
      }
      out += `\x1b7\x1b[${w.y + 1};${w.x + 1}H\x1b_Ga=p,i=${id},p=1,c=${w.cols},r=${w.rows},C=1,q=2\x1b\\\x1b8`;
      this.placed.set(id, w.at);
    }
    return out;
  }

  /** Everything placed goes (the client leaves). */
  clear(): string {
    const out = [...this.sent].map((id) => `\x1b_Ga=d,d=I,i=${id},q=2\x1b\\`).join('');
    this.placed.clear();
    this.sent.clear();
    return out;
  }
}

/** One image sent as PNG (f=100), base64 in pieces of at most 4096 bytes (m=1 until the last). */
function transmit(id: number, png: Buffer): string {
  const b64 = png.toString('base64');
  let out = '';
  for (let i = 0; i < b64.length; i += 4096) {
    const last = i + 4096 >= b64.length;
    const head = i === 0 ? `a=t,f=100,i=${id},q=2,m=${last ? 0 : 1}` : `m=${last ? 0 : 1}`;
    out += `\x1b_G${head};${b64.slice(i, i + 4096)}\x1b\\`;
  }
  return out;
}

/** The kitty images of `cv` (null: it draws none); the TUI brackets its full frames with these. */
export function kittyOf(cv: Canvas): KittyImages | null {
  return byCanvas.get(cv)?.kitty ?? null;
}
