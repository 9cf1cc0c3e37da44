// A faster print for the common run: printable ASCII in the plain modes. xterm's print() asks the
// Unicode tables, the charset, the link and insert modes and the margin for every character; for
// such a run every answer is known up front (width 1, no join), so the cells are written row by
// row in one loop, wrapping at the margin as xterm does. From the first character it does not
// handle (wide, combining or non-ASCII, a wrap with autowrap off) the rest of the run goes to
// xterm's own print, as it does whole under a G0 charset, insert mode, an OSC 8 link, screen
// reader mode or another Unicode version. Most of a flood of program output is such runs.
//
// Written against xterm 6.0.0's InputHandler (the version is pinned); if the fields it needs are
// not there, nothing is patched.
import type { Terminal } from '@xterm/headless';

type Print = (data: Uint32Array, start: number, end: number) => void;

interface CoreAttr {
  fg: number;
  bg: number;
  extended: { urlId: number };
}

interface CoreRow {
  _data: Uint32Array;
  _extendedAttrs: Record<number, unknown>;
  getWidth(x: number): number;
  hasContent(x: number): boolean;
  setCellFromCodepoint(x: number, cp: number, width: number, attr: CoreAttr): void;
}

interface CoreInputHandler {
  print: Print;
  _activeBuffer: { x: number; y: number; ybase: number; scrollBottom: number; lines: { get(i: number): (CoreRow & { isWrapped: boolean }) | undefined } };
  _bufferService: { cols: number; rows: number; scroll(eraseAttr: unknown, isWrapped: boolean): void };
  _charsetService: { charset: unknown };
  _coreService: { modes: { insertMode: boolean }; decPrivateModes: { wraparound: boolean } };
  _eraseAttrData(): unknown;
  _optionsService: { rawOptions: { screenReaderMode?: boolean } };
  _unicodeService: { activeVersion: string };
  _curAttrData: CoreAttr;
  _dirtyRowTracker: { markDirty(y: number): void };
  _parser: { precedingJoinState: number };
}

// xterm's buffer/Constants.ts and UnicodeService: a cell's width sits at bit 22 of its content
// word; the join state after a width-1 character that joins nothing is createPropertyValue(0, 1).
const WIDTH_1 = 1 << 22;
const BG_HAS_EXTENDED = 0x10000000;
const JOIN_STATE_WIDTH_1 = 1 << 1;

/** Installs the fast path on a terminal's input handler; false when xterm is not the expected one. */
export function installFastPrint(term: Terminal): boolean {
  const ih = (term as unknown as { _core?: { _inputHandler?: Partial<CoreInputHandler> } })._core?._inputHandler;
  if (!ih || typeof ih.print !== 'function' || !ih._activeBuffer || !ih._bufferService || !ih._charsetService || !ih._coreService) return false;
  if (!ih._optionsService || !ih._unicodeService || !ih._curAttrData || !ih._dirtyRowTracker || !ih._parser) return false;
  if (typeof ih._eraseAttrData !== 'function' || typeof ih._bufferService.scroll !== 'function' || !ih._coreService.decPrivateModes) return false;
  const h = ih as CoreInputHandler;
  const slow = h.print.bind(h);
  h.print = (data, start, end) => {
    const buf = h._activeBuffer;
    const cols = h._bufferService.cols;
    const attr = h._curAttrData;
    if (end <= start || h._charsetService.charset || h._coreService.modes.insertMode || attr.extended.urlId || h._optionsService.rawOptions.screenReaderMode || h._unicodeService.activeVersion !== '6') {
      slow(data, start, end);
      return;
    }
    let row = buf.lines.get(buf.ybase + buf.y);
    if (!row || !(row._data instanceof Uint32Array)) {
      slow(data, start, end);
      return;
    }
    let x = buf.x;
    h._dirtyRowTracker.markDirty(buf.y);
    // The left half of a wide character under the cursor loses its right half: blank it (as xterm).
    if (x > 0 && row.getWidth(x - 1) === 2) row.setCellFromCodepoint(x - 1, 0, 1, attr);
    const fg = attr.fg;
    const bg = attr.bg;
    const wrap = h._coreService.decPrivateModes.wraparound;
    let i = start;
    while (i < end) {
      if (x >= cols) {
        // Past the margin: wrap as xterm does for a width-1 character, if the next one is one.
        const c = data[i]!;
        if (!wrap || c < 0x20 || c > 0x7e) break;
        buf.y++;
        if (buf.y === buf.scrollBottom + 1) {
          buf.y--;
          h._bufferService.scroll(h._eraseAttrData(), true);
        } else {
          if (buf.y >= h._bufferService.rows) buf.y = h._bufferService.rows - 1;
          buf.lines.get(buf.ybase + buf.y)!.isWrapped = true;
        }
        row = buf.lines.get(buf.ybase + buf.y);
        if (!row || !(row._data instanceof Uint32Array)) {
          buf.x = 0;
          slow(data, i, end);
          return;
        }
        x = 0;
      }
      // Up to the right margin, while the characters are printable ASCII.
      const d = row._data;
      const x0 = x;
      const i0 = i;
      const stop = Math.min(end, i + cols - x);
      let j = x * 3;
      for (; i < stop; i++) {
        const c = data[i]!;
        if (c < 0x20 || c > 0x7e) break;
        d[j] = c | WIDTH_1;
        d[j + 1] = fg;
        d[j + 2] = bg;
        j += 3;
      }
      x = x0 + (i - i0);
      if (bg & BG_HAS_EXTENDED) for (let k = x0; k < x; k++) row._extendedAttrs[k] = attr.extended;
      if (i < stop) break;
    }
    if (i > start) h._parser.precedingJoinState = JOIN_STATE_WIDTH_1;
    buf.x = x;
    if (i < end) {
      // The rest (a character this path does not handle, or a wrap with autowrap off) is xterm's,
      // from here on: cell by cell it would have reached this same state first.
      slow(data, i, end);
      return;
    }
    // The right half of a wide character now without its left half: blank it (as xterm).
    if (x < cols && row.getWidth(x) === 0 && !row.hasContent(x)) row.setCellFromCodepoint(x, 0, 1, attr);
    h._dirtyRowTracker.markDirty(buf.y);
  };
  return true;
}
