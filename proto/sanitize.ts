// What the agent sends is data: before any of it reaches the pane, every escape sequence (CSI,
// OSC, DCS, SOS/PM/APC, the two-byte ESC forms, their 8-bit C1 introducers) and every control
// character goes, so a reply cannot move the cursor, set the pane's title or state (OSC 0/2,
// OSC 7501), write the clipboard (OSC 52) or ring. Line breaks stay (the transcript is lines); a
// tab becomes spaces; zero-width and bidi controls go too (they hide what a line says). Pure.
import { INVISIBLE_CLASS } from '../core/mail/fence.js';

/** A whole escape sequence, 7-bit or 8-bit, including an unterminated string at the end. */
const ESCAPES = new RegExp(
  [
    // OSC, DCS, SOS, PM, APC: a string up to BEL or ST (ESC \ or 0x9c), or to the end.
    '(?:\\x1b[\\]P X^_]|[\\x90\\x98\\x9d\\x9e\\x9f])[\\s\\S]*?(?:\\x07|\\x1b\\\\|\\x9c|$)',
    // CSI: parameters, intermediates, a final byte.
    '(?:\\x1b\\[|\\x9b)[\\x20-\\x3f]*[\\x40-\\x7e]?',
    // ESC with intermediates and a final byte (charset selection, ESC 7, ESC c ...).
    '\\x1b[\\x20-\\x2f]*[\\x30-\\x7e]?',
  ].join('|'),
  'g',
);

/** Controls other than the line break, DEL, C1, and the invisible characters (the fence's list). */
const CONTROLS = new RegExp(`[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f${INVISIBLE_CLASS}]`, 'gu');

/** The agent's text as the pane may show it: no escape sequence, no control but `\n`. */
export function paneText(text: string): string {
  return text.replace(ESCAPES, '').replace(/\r\n?/g, '\n').replace(/\t/g, '  ').replace(CONTROLS, '');
}

/** One line for the pane (a title, an option's words): line breaks become spaces, cut to `max`. */
export function paneLine(text: string, max: number): string {
  const one = paneText(text).replace(/\s+/g, ' ').trim();
  const cps = [...one];
  return cps.length <= max ? one : cps.slice(0, max - 3).join('').trimEnd() + '...';
}

/** Cuts text to at most `max` code points, keeping the start (a reply's chunk, a detail line). */
export function capText(text: string, max: number): string {
  if (text.length <= max) return text;
  const cps = [...text];
  return cps.length <= max ? text : cps.slice(0, max).join('');
}
