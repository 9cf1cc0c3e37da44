// A paste: text made safe to type into a terminal. Control characters are removed (an ESC in a
// paste could end the bracket and type commands), newlines become carriage returns as a
// terminal's paste does, and the text is bracketed only when the program asked (DECSET 2004).

// C0 controls except TAB, LF and CR; DEL; C1 controls.
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u0080-\u009f]/g;

/** Removes control characters, keeping tabs and line breaks. */
export function sanitizePaste(text: string): string {
  return text.replace(CONTROLS, '');
}

/** Removes every control character, line breaks included (one-line texts: names, messages). */
export function stripControls(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\x00-\x1f\x7f\u0080-\u009f]/g, '');
}

export const PASTE_START = '\x1b[200~';
export const PASTE_END = '\x1b[201~';

/** The bytes of a paste for a pane in the given mode. */
export function encodePaste(text: string, bracketed: boolean): string {
  const body = sanitizePaste(text).replace(/\r\n|\n/g, '\r');
  return bracketed ? PASTE_START + body + PASTE_END : body;
}
