// Sends the cells of a few row runs that differ from the last frame, as terminal-kit's delta
// blitter would, without its per-draw set-up: each draw builds Rect objects, binds iterators and
// walks the region through callbacks, which cost more than a typed key's one or two cells. The
// escape sequences are terminal-kit's own (its SGR for an attr word, its cursor move), and the
// last-frame buffer is kept exactly as its blitter keeps it, so later terminal-kit draws compare
// against what the terminal shows.

/** terminal-kit ScreenBuffer attr bits this writer needs (lib/ScreenBuffer.js, 3.1.4 pinned). */
const TRANSPARENCY = 15 << 24;
const FG_DEFAULT = 16 << 24;
const BG_DEFAULT = 32 << 24;
const LEADING_FULLWIDTH = 64 << 24;
const TRAILING_FULLWIDTH = 128 << 24;
/** The attr bits that change what a cell looks like (terminal-kit's ATTR_MASK). */
const ATTR_MASK = 255 + (255 << 8) + (255 << 16) + TRANSPARENCY + FG_DEFAULT + BG_DEFAULT;
const ITEM = 8;

/** What of terminal-kit's ScreenBuffer the writer reads and keeps up to date. */
export interface DeltaBuffer {
  buffer: Buffer;
  lastBuffer?: Buffer | null;
  lastBufferUpToDate?: boolean;
  x: number;
  y: number;
  generateEscapeSequence(term: unknown, attr: number): string;
  readChar(buffer: Buffer, at: number): string;
}

export interface DeltaTerm {
  optimized: { moveTo(x: number, y: number): string };
}

/** A box of cells: columns x0..x1 of rows y0..y1, inclusive. */
export interface CellBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** True when the buffer's last frame is one terminal-kit keeps up to date (the writer needs it). */
export function canWriteDelta(sb: DeltaBuffer): boolean {
  return !!sb.lastBuffer && sb.lastBuffer.length === sb.buffer.length && sb.lastBufferUpToDate === true;
}

/**
 * The escape sequence that draws the cells of `boxes` that differ from the last frame (and marks
 * them sent in it); '' when none does. `cols` is the buffer's width. Counts the cells in `sent`.
 */
export function cellDelta(sb: DeltaBuffer, term: DeltaTerm, cols: number, boxes: readonly CellBox[], nBoxes: number, sent: { cells: number }): string {
  const buf = sb.buffer;
  const last = sb.lastBuffer!;
  let seq = '';
  let lastAttr: number | null = null;
  let cx = -1;
  let cy = -1;
  for (let i = 0; i < nBoxes; i++) {
    const b = boxes[i]!;
    for (let y = b.y0; y <= b.y1; y++) {
      for (let x = b.x0; x <= b.x1; x++) {
        const at = (y * cols + x) * ITEM;
        const attr = buf.readInt32BE(at);
        if (attr === last.readInt32BE(at) && buf.readInt32BE(at + 4) === last.readInt32BE(at + 4)) continue;
        buf.copy(last, at, at, at + ITEM);
        // As terminal-kit: a transparent cell or the right half of a wide one draws nothing.
        if ((attr & TRANSPARENCY) === TRANSPARENCY || attr & TRAILING_FULLWIDTH) continue;
        sent.cells++;
        const dx = x + sb.x;
        const dy = y + sb.y;
        if (dx !== cx || dy !== cy) seq += term.optimized.moveTo(dx, dy);
        if (lastAttr === null || (attr & ATTR_MASK) !== (lastAttr & ATTR_MASK)) {
          seq += sb.generateEscapeSequence(term, attr);
          lastAttr = attr;
        }
        seq += sb.readChar(buf, at);
        cy = dy;
        if (attr & LEADING_FULLWIDTH) {
          // The right half goes with it: the terminal drew both, so both are sent in the last frame.
          if (x + 1 < cols) buf.copy(last, at + ITEM, at + ITEM, at + 2 * ITEM);
          cx = dx + 2;
          x++;
        } else cx = dx + 1;
      }
    }
  }
  return seq;
}

/**
 * The escape sequence that prints `text` (printable ASCII, one cell each) from column x of row y
 * in `attr`, with those cells set to it in the buffer and in its last frame alike, so later draws
 * compare against what the terminal then shows. null when the run leaves the row or touches half
 * of a wide character (printing over one half changes the other, which the frame would not know).
 */
export function cellRun(sb: DeltaBuffer, term: DeltaTerm, cols: number, x: number, y: number, text: string, attr: number): string | null {
  const buf = sb.buffer;
  const last = sb.lastBuffer!;
  const n = text.length;
  if (x < 0 || y < 0 || n === 0 || x + n > cols || (y + 1) * cols * ITEM > buf.length) return null;
  const wide = LEADING_FULLWIDTH | TRAILING_FULLWIDTH;
  for (let i = Math.max(0, x - 1); i <= Math.min(cols - 1, x + n); i++) {
    const at = (y * cols + i) * ITEM;
    if (buf.readInt32BE(at) & wide || last.readInt32BE(at) & wide) return null;
  }
  for (let i = 0; i < n; i++) {
    const at = (y * cols + x + i) * ITEM;
    buf.writeInt32BE(attr | 0, at);
    buf.writeInt32BE(text.charCodeAt(i) << 24, at + 4);
    buf.copy(last, at, at, at + ITEM);
  }
  return term.optimized.moveTo(x + sb.x, y + sb.y) + sb.generateEscapeSequence(term, attr) + text;
}
