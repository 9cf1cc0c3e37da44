// A faster print for the common run: printable ASCII that fits on the cursor's row, in the plain
// modes. xterm's print() asks the Unicode tables, the charset, the link and insert modes and the
// wrap margin for every character; for such a run every answer is known up front (width 1, no
// join, no wrap), so the cells are written in one loop. Anything else (a wide or non-ASCII
// character, a run that wraps, a G0 charset, insert mode, an OSC 8 link, screen reader mode,
// another Unicode version) goes to xterm's own print, unchanged. It is most of what a flood of
// program output parses, and roughly halves what printing it costs.
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
  _activeBuffer: { x: number; y: number; ybase: number; lines: { get(i: number): CoreRow | undefined } };
  _bufferService: { cols: number };
  _charsetService: { charset: unknown };
  _coreService: { modes: { insertMode: boolean } };
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
  const h = ih as CoreInputHandler;
  const slow = h.print.bind(h);
  h.print = (data, start, end) => {
    const buf = h._activeBuffer;
    const x = buf.x;
    const cols = h._bufferService.cols;
    const attr = h._curAttrData;
    if (end <= start || x >= cols || h._charsetService.charset || h._coreService.modes.insertMode || attr.extended.urlId || h._optionsService.rawOptions.screenReaderMode || h._unicodeService.activeVersion !== '6') {
      slow(data, start, end);
      return;
    }
    const row = buf.lines.get(buf.ybase + buf.y);
    const d = row?._data;
    if (!row || !(d instanceof Uint32Array)) {
      slow(data, start, end);
      return;
    }
    h._dirtyRowTracker.markDirty(buf.y);
    // The left half of a wide character under the cursor loses its right half: blank it (as xterm).
    if (x > 0 && row.getWidth(x - 1) === 2) row.setCellFromCodepoint(x - 1, 0, 1, attr);
    const fg = attr.fg;
    const bg = attr.bg;
    // Up to the right margin, while the characters are printable ASCII.
    const stop = Math.min(end, start + cols - x);
    let i = start;
    let j = x * 3;
    for (; i < stop; i++) {
      const c = data[i]!;
      if (c < 0x20 || c > 0x7e) break;
      d[j] = c | WIDTH_1;
      d[j + 1] = fg;
      d[j + 2] = bg;
      j += 3;
    }
    const nx = x + (i - start);
    if (bg & BG_HAS_EXTENDED) for (let k = x; k < nx; k++) row._extendedAttrs[k] = attr.extended;
    if (nx > x) {
      buf.x = nx;
      h._parser.precedingJoinState = JOIN_STATE_WIDTH_1;
    }
    if (i < end) {
      // The rest (a wrap, or a character this path does not handle) is xterm's, from here on:
      // cell by cell it would have reached this same state first.
      slow(data, i, end);
      return;
    }
    // The right half of a wide character now without its left half: blank it (as xterm).
    if (nx < cols && row.getWidth(nx) === 0 && !row.hasContent(nx)) row.setCellFromCodepoint(nx, 0, 1, attr);
    h._dirtyRowTracker.markDirty(buf.y);
  };
  return true;
}
