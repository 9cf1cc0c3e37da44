// The client terminal's input modes follow the focused pane's: a program that asks for mouse
// reports, bracketed paste, application cursor keys or the application keypad gets the client's
// keys in the form it asked for, passed through unchanged. Only a change is written.
import type { MouseMode, SourceModes } from './source.js';

export interface ClientModes {
  mouse: MouseMode;
  bracketedPaste: boolean;
  applicationCursorKeys: boolean;
  applicationKeypad: boolean;
}

export const NO_MODES: ClientModes = { mouse: 'none', bracketedPaste: false, applicationCursorKeys: false, applicationKeypad: false };

const MOUSE_SET: Record<MouseMode, string> = { none: '', x10: '\x1b[?9h', vt200: '\x1b[?1000h', drag: '\x1b[?1002h', any: '\x1b[?1003h' };
const MOUSE_OFF = '\x1b[?1003l\x1b[?1002l\x1b[?1000l\x1b[?9l\x1b[?1006l';

export function modesFrom(m: SourceModes | null): ClientModes {
  if (!m) return NO_MODES;
  return { mouse: m.mouse, bracketedPaste: m.bracketedPaste, applicationCursorKeys: m.applicationCursorKeys, applicationKeypad: m.applicationKeypad };
}

/** The sequences that take the client from `from` to `to`. Mouse reports are always SGR-encoded. */
export function modeChange(from: ClientModes, to: ClientModes): string {
  let s = '';
  if (from.mouse !== to.mouse) s += MOUSE_OFF + (to.mouse === 'none' ? '' : MOUSE_SET[to.mouse] + '\x1b[?1006h');
  if (from.bracketedPaste !== to.bracketedPaste) s += to.bracketedPaste ? '\x1b[?2004h' : '\x1b[?2004l';
  if (from.applicationCursorKeys !== to.applicationCursorKeys) s += to.applicationCursorKeys ? '\x1b[?1h' : '\x1b[?1l';
  if (from.applicationKeypad !== to.applicationKeypad) s += to.applicationKeypad ? '\x1b=' : '\x1b>';
  return s;
}

/** A mouse report for a pane, in the encoding it asked for, at pane-relative 0-based (x, y). */
export function encodeMouse(button: number, x: number, y: number, release: boolean, sgr: boolean): string | null {
  if (sgr) return `\x1b[<${button};${x + 1};${y + 1}${release ? 'm' : 'M'}`;
  // The X10 encoding: one byte each, so only up to column and row 223; a release is button 3.
  if (x > 222 || y > 222) return null;
  const b = release ? 3 | (button & ~3 & ~64) : button;
  return `\x1b[M${String.fromCharCode(32 + b, 33 + x, 33 + y)}`;
}
