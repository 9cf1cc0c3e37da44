// A typed key's echo sent to the client before the pane's output is parsed and its frame drawn.
// What the floor of any server does with an echo (the pane's bytes straight to the channel) costs
// a fraction of the parse and the frame, and the person waits for nothing else. So when the
// output is a short run of printable ASCII that the emulator will print at its cursor in plain
// cells (core/screen/plain-run.ts), inside the pane's tile, the client gets those cells now, with
// a cursor move before them and the attributes set; the canvas records them as sent (Canvas.run),
// and the frame drawn right after the parse finds them drawn and sends only what else changed.
// Anything else (an escape sequence, a colour, a wrap, a wide character near) is the frame's.
import type { Window } from '../core/model/window.js';
import { printableAscii } from '../core/screen/plain-run.js';
import { PLAIN, type Canvas } from './canvas.js';
import { contentRect } from './tiles.js';
import type { Rect } from './pane-draw.js';
import { ECHO_AHEAD_MAX_BYTES } from './limits.js';

/** The bytes that draw `chunk` on the client now, and where they leave its cursor; null when the
 *  frame must draw it. `tile` is where `w` is drawn on the canvas. */
export function echoAhead(cv: Canvas, w: Window, tile: Rect, chunk: Buffer): { seq: string; cursor: { x: number; y: number } } | null {
  const n = chunk.length;
  if (n === 0 || n > ECHO_AHEAD_MAX_BYTES || !printableAscii(chunk)) return null;
  const at = w.screen.plainRunAt(n);
  if (!at) return null;
  const c = contentRect(tile);
  if (at.y >= c.h || at.x + n > c.w) return null;
  const seq = cv.run(c.x + at.x, c.y + at.y, chunk.toString('latin1'), PLAIN);
  return seq === null ? null : { seq, cursor: { x: c.x + at.x + n, y: c.y + at.y } };
}
