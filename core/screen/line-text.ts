// A line's text as xterm's translateToString(true) gives it, without building it a character at a
// time: a row of Latin-1 characters of width 1 (nearly every row of program output) is read
// straight from the cells into one string. xterm's version appends each cell's string, which for
// a row of 60 characters makes 60 strings for the collector and a rope that every join or regex
// flattens again; waits, looks and captures read thousands of rows while a flood runs.
/** The fields of xterm 6.0.0's BufferLine used here (the version is pinned; see emulator.ts); the scrollback stores them. */
export interface CoreLine {
  _data: Uint32Array;
  _combined: Record<number, string>;
  _extendedAttrs: Record<number, CoreExtendedAttrs | undefined>;
  length: number;
  isWrapped: boolean;
  translateToString(trimRight?: boolean): string;
  loadCell(x: number, cell: unknown): unknown;
}

/** xterm's ExtendedAttrs (underline style and colour, OSC 8 link id), by its raw fields. */
export interface CoreExtendedAttrs {
  _ext: number;
  _urlId: number;
}

// A cell's content word (xterm's buffer/Constants.ts): codepoint in bits 0-20, the combined flag
// at 21, the width at 22-23. Text here is a Latin-1 codepoint (or none) with width 1.
const HAS_CONTENT = 0x3fffff;
const WIDTH_SHIFT = 22;
const WIDTH_1 = 1 << WIDTH_SHIFT;

const scratch = Buffer.allocUnsafeSlow(1024);

/** The text of an xterm line, trailing blanks trimmed. */
export function lineString(line: CoreLine): string {
  const d = line._data;
  const cols = line.length;
  if (cols > scratch.length) return line.translateToString(true);
  // The trimmed length: through the last cell with text (and the width of that cell), as xterm.
  let end = 0;
  for (let x = cols - 1; x >= 0; x--) {
    const c = d[x * 3]!;
    if (c & HAS_CONTENT) {
      end = Math.min(cols, x + (c >>> WIDTH_SHIFT));
      break;
    }
  }
  for (let x = 0; x < end; x++) {
    const c = d[x * 3]!;
    if ((c & -256) !== WIDTH_1) return line.translateToString(true);
    // An empty cell reads as a space.
    scratch[x] = c & 0xff || 0x20;
  }
  return scratch.toString('latin1', 0, end);
}
