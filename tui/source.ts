// A screen source: what the TUI draws a pane from. A local pane reads its window's emulator; a
// pane on another host reads a replica emulator fed over the link's pane stream (replica.ts).
// The TUI sees only this interface, so it cannot tell the two apart.
import type { IBufferCell } from '@xterm/headless';
import type { Emulator } from '../core/screen/emulator.js';
import { RowDamage, type RowRange } from './row-damage.js';

/** Colour of a cell: -1 the terminal's default, 0-255 a palette index, RGB as 0x1000000 | rgb. */
export const RGB_FLAG = 0x1000000;

export const S_BOLD = 1;
export const S_DIM = 2;
export const S_ITALIC = 4;
export const S_UNDERLINE = 8;
export const S_BLINK = 16;
export const S_INVERSE = 32;
export const S_INVISIBLE = 64;
export const S_STRIKE = 128;

export type CellSink = (x: number, chars: string, width: number, fg: number, bg: number, style: number) => void;

export type MouseMode = 'none' | 'x10' | 'vt200' | 'drag' | 'any';

export interface SourceModes {
  bracketedPaste: boolean;
  applicationCursorKeys: boolean;
  applicationKeypad: boolean;
  mouse: MouseMode;
  /** How the program wants mouse reports encoded. */
  mouseSgr: boolean;
  cursorHidden: boolean;
}

export interface ScreenSource {
  readonly cols: number;
  readonly rows: number;
  /** Bumps whenever anything drawn changed. */
  generation(): number;
  cursor(): { x: number; y: number };
  modes(): SourceModes;
  /** The visible row y, cell by cell (wide characters once, with width 2); with `from` and
   *  `to`, only the cells from..to (inclusive) need be read (a source may report more). */
  readRow(y: number, sink: CellSink, from?: number, to?: number): void;
  /**
   * The cells of visible row y as words that change whenever the row does (xterm's own: three
   * per cell, content, fg, bg), so a drawer can skip a row that is as it was. Not a copy: read it
   * at once. Absent or null: the row is always drawn.
   */
  rowWords?(y: number): Uint32Array | null;
  /**
   * The visible rows that may have changed since the last call (null: none), forgotten as they
   * are told; a drawer that kept what it drew reads only these. Absent: every row may have.
   */
  takeChangedRows?(): RowRange | null;
  /** Stops what the source listens to (the drawer no longer shows it). */
  dispose?(): void;
}

/** Flags in those words that point outside them (a combined character, extended attributes):
 *  such a cell can change while its words stay the same, so its row is always drawn. */
export const WORD_COMBINED = 0x200000;
export const WORD_EXTENDED = 0x10000000;

/** What of xterm's internal active buffer rowWords reads (the version is pinned). */
interface CoreBuffer {
  ybase: number;
  lines?: { get(i: number): { _data?: Uint32Array; length?: number } | undefined };
}

interface CoreMouse {
  activeEncoding?: string;
}

/** What holds the emulator a source reads: a window here, or a replica of a pane on another host. */
export interface HasScreen {
  readonly screen: Emulator;
}

/** A pane of this host (its window's emulator), or a replica's emulator: the same cells either way. */
export class LocalSource implements ScreenSource {
  private cell: IBufferCell | undefined;
  private damage: RowDamage | null = null;
  /** The emulator's terminal the damage listens to (a new one after a respawn, say). */
  private damageOf: unknown = null;

  constructor(private readonly w: HasScreen) {}

  takeChangedRows(): RowRange | null {
    const term = this.w.screen.term;
    if (this.damageOf !== term) {
      this.damage?.dispose();
      this.damage = new RowDamage(term);
      this.damageOf = term;
    }
    return this.damage!.take(this.rows);
  }

  dispose(): void {
    this.damage?.dispose();
    this.damage = null;
    this.damageOf = null;
  }

  get cols(): number {
    return this.w.screen.cols;
  }

  get rows(): number {
    return this.w.screen.rows;
  }

  generation(): number {
    return this.w.screen.generation;
  }

  cursor(): { x: number; y: number } {
    return this.w.screen.cursor;
  }

  modes(): SourceModes {
    const m = this.w.screen.modes;
    const core = (this.w.screen.term as unknown as { _core?: { coreMouseService?: CoreMouse } })._core;
    return {
      bracketedPaste: m.bracketedPaste,
      applicationCursorKeys: m.applicationCursorKeys,
      applicationKeypad: m.applicationKeypad,
      mouse: m.mouseTracking as MouseMode,
      mouseSgr: core?.coreMouseService?.activeEncoding === 'SGR',
      cursorHidden: m.cursorHidden,
    };
  }

  rowWords(y: number): Uint32Array | null {
    // xterm's own active buffer: the public getLine() checks the proposed-API flag and makes a
    // wrapper per call, which every frame paid for every row of every pane drawn.
    const buf = (this.w.screen.term as unknown as { _core?: { buffer?: CoreBuffer } })._core?.buffer;
    const line = buf?.lines?.get(buf.ybase + y);
    const data = line?._data;
    if (!(data instanceof Uint32Array)) return null;
    const n = Math.min(line!.length ?? 0, this.w.screen.cols) * 3;
    return n <= data.length ? data.subarray(0, n) : null;
  }

  readRow(y: number, sink: CellSink, from = 0, to = Infinity): void {
    const b = this.w.screen.term.buffer.active;
    const line = b.getLine(b.baseY + y);
    if (!line) return;
    const n = Math.min(line.length, this.w.screen.cols, to + 1);
    let c = this.cell ?? b.getNullCell();
    for (let x = Math.max(0, from); x < n; x++) {
      const got = line.getCell(x, c);
      if (!got) continue;
      c = got;
      const width = c.getWidth();
      if (width === 0) continue; // the right half of a wide character
      let style = 0;
      if (c.isBold()) style |= S_BOLD;
      if (c.isDim()) style |= S_DIM;
      if (c.isItalic()) style |= S_ITALIC;
      if (c.isUnderline()) style |= S_UNDERLINE;
      if (c.isBlink()) style |= S_BLINK;
      if (c.isInverse()) style |= S_INVERSE;
      if (c.isInvisible()) style |= S_INVISIBLE;
      if (c.isStrikethrough()) style |= S_STRIKE;
      const fg = c.isFgDefault() ? -1 : c.isFgRGB() ? RGB_FLAG | c.getFgColor() : c.getFgColor();
      const bg = c.isBgDefault() ? -1 : c.isBgRGB() ? RGB_FLAG | c.getBgColor() : c.getBgColor();
      sink(x, c.getChars() || ' ', width, fg, bg, style);
    }
    this.cell = c;
  }
}
