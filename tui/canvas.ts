// The drawing surface: one terminal-kit ScreenBuffer the size of the client's terminal. Views
// write cells into it; draw() sends only the cells that differ from the last frame (terminal-kit's
// delta blitter), so a frame costs what changed, never a full screen. Cells are written straight
// into the buffer (attr word + UTF-8 char, terminal-kit's own layout): put() re-parses every
// string, which costs more than the rest of a frame.
import termkit from 'terminal-kit';
import type { KitTerminal } from './terminal.js';
import { charWidth } from './text.js';
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

interface KitScreenBuffer {
  width: number;
  height: number;
  buffer: Buffer;
  draw(o: { delta: boolean }): { cells: number; moves: number; attrs: number; writes: number };
}

export class Canvas {
  private sb: KitScreenBuffer;
  cols: number;
  rows: number;

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
    return new SB({ dst: this.term, width: this.cols, height: this.rows });
  }

  /** A new size: the next draw sends every cell (the terminal was cleared by the caller). */
  resize(cols: number, rows: number): void {
    this.cols = cols;
    this.rows = rows;
    this.sb = this.make();
  }

  /** One cell. A wide character takes this cell and the next; one that does not fit is a space. */
  set(x: number, y: number, ch: string, a: number, width = 1): void {
    if (x < 0 || y < 0 || x >= this.cols || y >= this.rows) return;
    const buf = this.sb.buffer;
    const off = (y * this.cols + x) * ITEM;
    if (width === 2) {
      if (x + 1 >= this.cols) {
        this.raw(buf, off, ' ', a);
        return;
      }
      this.raw(buf, off, ch, a | LEADING_FULLWIDTH);
      this.raw(buf, off + ITEM, ' ', a | TRAILING_FULLWIDTH);
      return;
    }
    this.raw(buf, off, ch, a);
  }

  private raw(buf: Buffer, off: number, ch: string, a: number): void {
    buf.writeInt32BE(a | 0, off);
    if (ch.length === 1 && ch.charCodeAt(0) < 0x80) {
      buf[off + 4] = ch.charCodeAt(0);
      return;
    }
    // Four bytes hold one code point; a combining sequence keeps its base character.
    const cp = ch.codePointAt(0) ?? 32;
    const n = buf.write(String.fromCodePoint(cp), off + 4, 4, 'utf8');
    if (n === 0) buf[off + 4] = 32;
  }

  /** Text from (x, y), clipped at `maxX` (exclusive). Returns the column after the text. */
  text(x: number, y: number, s: string, a: number, maxX = this.cols): number {
    for (const ch of s) {
      const cp = ch.codePointAt(0)!;
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

  /** Sends the changed cells through terminal-kit; returns how many cells it wrote. */
  draw(): number {
    return this.sb.draw({ delta: true }).cells;
  }
}
