// The drawing surface: one terminal-kit ScreenBuffer the size of the client's terminal. Views
// write cells into it; draw() sends only the cells that differ from the last frame (terminal-kit's
// delta blitter), so a frame costs what changed, never a full screen. Cells are written straight
// into the buffer (attr word + UTF-8 char, terminal-kit's own layout): put() re-parses every
// string, which costs more than the rest of a frame.
import termkit from 'terminal-kit';
import type { KitTerminal } from './terminal.js';
import { charWidth } from './text.js';
import { canWriteDelta, cellDelta, cellRun, type DeltaBuffer, type DeltaTerm } from './cell-delta.js';
import type { Role } from './marks.js';

// terminal-kit ScreenBuffer attr bits (lib/ScreenBuffer.js, 3.1.4 pinned).
export const A_BOLD = 1 << 16;
export const A_DIM = 2 << 16;
export const A_ITALIC = 4 << 16;
export const A_UNDERLINE = 8 << 16;
export const A_BLINK = 16 << 16;
export const A_INVERSE = 32 << 16;
export const A_HIDDEN = 64 << 16;
export const A_STRIKE = 128 << 16;
const FG_DEFAULT = 16 << 24;
const BG_DEFAULT = 32 << 24;
const LEADING_FULLWIDTH = 64 << 24;
const TRAILING_FULLWIDTH = 128 << 24;
const ITEM = 8;
/** Distinct non-ASCII characters whose encoded word is kept (pane text brings new ones). */
const MAX_CACHED_WORDS = 4096;
const words = new Map<string, number>();

/**
 * The chrome's own non-ASCII punctuation and the ASCII it is drawn as for an ASCII-only client
 * (--ascii-only, the `ascii` glyph set). Each is East Asian Ambiguous width, which a CJK terminal
 * draws two cells wide and so misplaces everything after it on the line. Text that is not the
 * chrome's (a name, a summary, a pane's cells) is left as it is.
 */
const CHROME_ASCII: ReadonlyMap<number, string> = new Map([
  [0x00b7, '-'], // · separator
  [0x2026, '~'], // … cut
  [0x2014, '-'], // — dash
  [0x2013, '-'], // – dash
  [0x2192, '>'], // →
  [0x2190, '<'], // ←
  [0x2191, '^'], // ↑
  [0x2193, 'v'], // ↓
  [0x00d7, 'x'], // ×
  [0x2265, '>='], // ≥
  [0x2264, '<='], // ≤
  [0x2500, '-'], // ─
  [0x2502, '|'], // │
]);

/** An attr word: fg and bg are palette indexes (0-255) or -1 for the terminal's default. */
export function attr(fg = -1, bg = -1, flags = 0): number {
  let a = flags;
  a |= fg < 0 ? FG_DEFAULT : fg & 255;
  a |= bg < 0 ? BG_DEFAULT : (bg & 255) << 8;
  return a;
}

export const PLAIN = attr();

/** The palette index each role is drawn in (the 16 ANSI colours: the user's theme decides). */
export const ROLE_COLOR: Record<Role, number> = {
  info: 4,
  warning: 3,
  success: 2,
  muted: 8,
  error: 1,
  accent: 6,
  plain: -1,
};

export function roleAttr(role: Role, flags = 0, bg = -1): number {
  return attr(ROLE_COLOR[role], bg, flags);
}

/** What terminal-kit's delta blitter hands its per-cell iterator (lib/ScreenBuffer.js 3.1.4). */
interface CellIteration {
  srcStart: number;
  context: { srcBuffer: Buffer; srcLastBuffer?: Buffer };
}

interface KitScreenBuffer extends DeltaBuffer {
  terminalBlitterCellIterator(p: CellIteration): boolean | undefined;
  width: number;
  height: number;
  buffer: Buffer;
  draw(o: { delta: boolean; srcClipRect?: { xmin: number; ymin: number; xmax: number; ymax: number } }): { cells: number; moves: number; attrs: number; writes: number };
}

/** The rows and columns written since the last draw, as a box (empty: nothing to send). */
interface Dirty {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export class Canvas {
  private sb: KitScreenBuffer;
  cols: number;
  rows: number;
  /** An ASCII-only client: text() draws the chrome's punctuation as CHROME_ASCII says. */
  ascii = false;
  /** Cells that changed since the last draw: terminal-kit compares only inside this box. */
  private dirty: Dirty | null = null;
  /** A new buffer: its first draw sends every cell. */
  private fresh = true;
  private readonly scratch = Buffer.alloc(4);
  /** The row runs of the frame being sent (see changedRuns). */
  private readonly runs: Dirty[] = Array.from({ length: MAX_DRAW_RUNS }, () => ({ x0: 0, y0: 0, x1: 0, y1: 0 }));
  private readonly sent = { cells: 0 };

  constructor(
    private readonly term: KitTerminal,
    cols: number,
    rows: number,
  ) {
    this.cols = cols;
    this.rows = rows;
    this.sb = this.make();
  }

  private make(): KitScreenBuffer {
    const SB = (termkit as unknown as { ScreenBuffer: new (o: object) => KitScreenBuffer }).ScreenBuffer;
    const sb = new SB({ dst: this.term, width: this.cols, height: this.rows });
    // terminal-kit compares a cell with its last frame by decoding both chars to strings, which
    // was most of a frame's cost. Cells are written whole here (canvas.raw), so two equal cells
    // are two equal integer pairs: an unchanged cell is skipped before the decode.
    const inner = sb.terminalBlitterCellIterator;
    sb.terminalBlitterCellIterator = function (this: KitScreenBuffer, p: CellIteration) {
      const last = p.context.srcLastBuffer;
      if (last) {
        const src = p.context.srcBuffer;
        const at = p.srcStart;
        if (src.readInt32BE(at) === last.readInt32BE(at) && src.readInt32BE(at + 4) === last.readInt32BE(at + 4)) return undefined;
      }
      return inner.call(this, p);
    };
    // Fill with the same zero-padded words raw() writes, so the first compare is exact too.
    for (let off = 0; off < sb.buffer.length; off += ITEM) {
      sb.buffer.writeInt32BE(PLAIN, off);
      sb.buffer.writeInt32BE(32 << 24, off + 4);
    }
    return sb;
  }

  /** A new size: the next draw sends every cell (the terminal was cleared by the caller). */
  resize(cols: number, rows: number): void {
    this.cols = cols;
    this.rows = rows;
    this.sb = this.make();
    this.fresh = true;
    this.dirty = null;
  }

  /** One cell. A wide character takes this cell and the next; one that does not fit is a space. */
  set(x: number, y: number, ch: string, a: number, width = 1): void {
    if (x < 0 || y < 0 || x >= this.cols || y >= this.rows) return;
    const buf = this.sb.buffer;
    const off = (y * this.cols + x) * ITEM;
    if (width === 2) {
      if (x + 1 >= this.cols) {
        this.raw(buf, off, ' ', a, x, y);
        return;
      }
      this.raw(buf, off, ch, a | LEADING_FULLWIDTH, x, y);
      this.raw(buf, off + ITEM, ' ', a | TRAILING_FULLWIDTH, x + 1, y);
      return;
    }
    this.raw(buf, off, ch, a, x, y);
  }

  /**
   * Writes a cell unless it already holds exactly this; a change widens the dirty box. The char
   * is kept as one 32-bit word, zero-padded, so two cells compare as two integers.
   */
  private raw(buf: Buffer, off: number, ch: string, a: number, x: number, y: number): void {
    const code = ch.length === 1 ? ch.charCodeAt(0) : 0x80;
    let word: number;
    if (code < 0x80) word = code << 24;
    else word = this.wordOf(ch);
    if (buf.readInt32BE(off) === (a | 0) && buf.readInt32BE(off + 4) === word) return;
    buf.writeInt32BE(a | 0, off);
    buf.writeInt32BE(word, off + 4);
    const d = this.dirty;
    if (!d) this.dirty = { x0: x, y0: y, x1: x, y1: y };
    else {
      if (x < d.x0) d.x0 = x;
      if (x > d.x1) d.x1 = x;
      if (y < d.y0) d.y0 = y;
      if (y > d.y1) d.y1 = y;
    }
  }

  /** The char word of a non-ASCII character; borders and marks repeat, so words are kept. */
  private wordOf(ch: string): number {
    const hit = words.get(ch);
    if (hit !== undefined) return hit;
    // Four bytes hold one code point; a combining sequence keeps its base character.
    this.scratch.fill(0);
    const n = this.scratch.write(String.fromCodePoint(ch.codePointAt(0) ?? 32), 0, 4, 'utf8');
    const word = n > 0 ? this.scratch.readInt32BE(0) : 32 << 24;
    if (words.size < MAX_CACHED_WORDS) words.set(ch, word);
    return word;
  }

  /** Text from (x, y), clipped at `maxX` (exclusive). Returns the column after the text. */
  text(x: number, y: number, s: string, a: number, maxX = this.cols): number {
    for (const ch of s) {
      const cp = ch.codePointAt(0)!;
      if (this.ascii && cp >= 0x80) {
        const plain = CHROME_ASCII.get(cp);
        if (plain !== undefined) {
          x = this.text(x, y, plain, a, maxX);
          continue;
        }
      }
      const w = charWidth(cp);
      if (w === 0) continue;
      if (x + w > maxX) break;
      this.set(x, y, cp < 0x20 ? ' ' : ch, a, w);
      x += w;
    }
    return x;
  }

  fill(x: number, y: number, w: number, h: number, a = PLAIN, ch = ' '): void {
    const x1 = Math.min(this.cols, x + w);
    const y1 = Math.min(this.rows, y + h);
    for (let j = Math.max(0, y); j < y1; j++) for (let i = Math.max(0, x); i < x1; i++) this.set(i, j, ch, a);
  }

  /**
   * Sends the changed cells. Writes mark a box, but a frame rewrites most cells with what they
   * held, so the box is narrowed first against the last frame: rows that equal it are skipped
   * with one memcmp each, and the runs of changed rows, each from its first changed column to its
   * last, go out in one sequence (cell-delta.ts). A typed key is then a cell or two to compare and
   * send, not the screen. A first frame, or too many runs, goes through terminal-kit's delta
   * blitter. Returns how many cells it sent.
   */
  draw(): number {
    if (this.fresh) {
      this.fresh = false;
      this.dirty = null;
      return this.sb.draw({ delta: true }).cells;
    }
    const d = this.dirty;
    if (!d) return 0;
    this.dirty = null;
    const last = this.sb.lastBuffer;
    // One column more each side: a wide character's halves are compared together.
    const x0 = Math.max(0, d.x0 - 1);
    const x1 = Math.min(this.cols - 1, d.x1 + 1);
    const whole = () => this.sb.draw({ delta: true, srcClipRect: { xmin: x0, ymin: d.y0, xmax: x1, ymax: d.y1 } }).cells;
    if (!last || last.length !== this.sb.buffer.length) return whole();
    const n = this.changedRuns(last, x0, x1, d.y0, d.y1);
    if (n < 0 || !canWriteDelta(this.sb)) return whole();
    for (let i = 0; i < n; i++) {
      const r = this.runs[i]!;
      r.x0 = Math.max(0, r.x0 - 1);
      r.x1 = Math.min(this.cols - 1, r.x1 + 1);
    }
    this.sent.cells = 0;
    const seq = cellDelta(this.sb, this.term as unknown as DeltaTerm, this.cols, this.runs, n, this.sent);
    if (seq) (this.term as unknown as { raw(s: string): void }).raw(seq);
    return this.sent.cells;
  }

  /**
   * The bytes that print `text` (printable ASCII) at (x, y) in `a` on the terminal now, ahead of
   * the frame, with the canvas and its last frame set to those cells: the frame that follows
   * finds them drawn. null when that cannot be known to be what the terminal shows (a first
   * frame not sent yet, a wide character beside the run); the frame then draws them.
   */
  run(x: number, y: number, text: string, a: number): string | null {
    if (this.fresh || !canWriteDelta(this.sb)) return null;
    return cellRun(this.sb, this.term as unknown as DeltaTerm, this.cols, x, y, text, a);
  }

  /** Runs of rows that differ from the last frame inside the box, each with its changed columns,
   *  written into this.runs (kept across frames: a frame allocates none); their count, or -1
   *  when there are so many that one box is cheaper. */
  private changedRuns(last: Buffer, x0: number, x1: number, y0: number, y1: number): number {
    const buf = this.sb.buffer;
    let n = 0;
    let run: Dirty | null = null;
    for (let y = y0; y <= y1; y++) {
      const a = (y * this.cols + x0) * ITEM;
      const b = (y * this.cols + x1 + 1) * ITEM;
      if (buf.compare(last, a, b, a, b) === 0) {
        run = null;
        continue;
      }
      let lo = x0;
      while (lo < x1 && sameItem(buf, last, (y * this.cols + lo) * ITEM)) lo++;
      let hi = x1;
      while (hi > lo && sameItem(buf, last, (y * this.cols + hi) * ITEM)) hi--;
      if (run && run.y1 === y - 1) {
        run.y1 = y;
        if (lo < run.x0) run.x0 = lo;
        if (hi > run.x1) run.x1 = hi;
      } else {
        if (n >= MAX_DRAW_RUNS) return -1;
        run = this.runs[n++]!;
        run.x0 = lo;
        run.y0 = y;
        run.x1 = hi;
        run.y1 = y;
      }
    }
    return n;
  }
}

/** Separate draws per frame at most; past it one box costs less than many blitter set-ups. */
const MAX_DRAW_RUNS = 8;

function sameItem(a: Buffer, b: Buffer, off: number): boolean {
  return a.readInt32BE(off) === b.readInt32BE(off) && a.readInt32BE(off + 4) === b.readInt32BE(off + 4);
}
