// A buffer line as SGR-styled text (capture-pane -e, fixtures' colour files): each run of cells
// with the same style behind one SGR sequence.
import type { IBufferCell, IBufferLine } from '@xterm/headless';

/** SGR rendering of one buffer line, trailing default blanks dropped. */
export function lineToSgr(line: Pick<IBufferLine, 'length' | 'getCell'>, nullCell: IBufferCell): string {
  let out = '';
  let prev = '';
  let cell: IBufferCell | undefined;
  // Find the last non-blank or styled cell so trailing default space is not emitted.
  let last = -1;
  for (let x = line.length - 1; x >= 0; x--) {
    cell = line.getCell(x, cell ?? nullCell);
    if (!cell) continue;
    if (cell.getChars() !== '' || !cell.isAttributeDefault() || !cell.isBgDefault()) {
      last = x;
      break;
    }
  }
  for (let x = 0; x <= last; x++) {
    cell = line.getCell(x, cell ?? nullCell);
    if (!cell) continue;
    if (cell.getWidth() === 0) continue; // second half of a wide char
    const sgr = cellSgr(cell);
    if (sgr !== prev) {
      out += `\x1b[0${sgr}m`;
      prev = sgr;
    }
    out += cell.getChars() || ' ';
  }
  if (prev !== '') out += '\x1b[0m';
  return out;
}

function cellSgr(c: IBufferCell): string {
  let s = '';
  if (c.isBold()) s += ';1';
  if (c.isDim()) s += ';2';
  if (c.isItalic()) s += ';3';
  if (c.isUnderline()) s += ';4';
  if (c.isBlink()) s += ';5';
  if (c.isInverse()) s += ';7';
  if (c.isInvisible()) s += ';8';
  if (c.isStrikethrough()) s += ';9';
  if (c.isFgRGB()) {
    const v = c.getFgColor();
    s += `;38;2;${(v >> 16) & 255};${(v >> 8) & 255};${v & 255}`;
  } else if (c.isFgPalette()) {
    const v = c.getFgColor();
    s += v < 8 ? `;${30 + v}` : v < 16 ? `;${90 + v - 8}` : `;38;5;${v}`;
  }
  if (c.isBgRGB()) {
    const v = c.getBgColor();
    s += `;48;2;${(v >> 16) & 255};${(v >> 8) & 255};${v & 255}`;
  } else if (c.isBgPalette()) {
    const v = c.getBgColor();
    s += v < 8 ? `;${40 + v}` : v < 16 ? `;${100 + v - 8}` : `;48;5;${v}`;
  }
  return s;
}
