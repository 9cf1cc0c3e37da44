// Key names to the bytes a terminal sends (send-keys). tmux's names, xterm's encodings, and the
// pane's own cursor-key mode (DECCKM). An argument that is not a key name is literal text.
import { TuiosError } from '../errors.js';

export interface KeyModes {
  applicationCursorKeys: boolean;
}

const CSI = '\x1b[';
const SS3 = '\x1bO';

// Keys whose xterm form is CSI <n> ~ (and CSI <n>;<mod> ~ with modifiers).
const TILDE: Record<string, number> = {
  insert: 2, ic: 2,
  delete: 3, dc: 3,
  pageup: 5, pgup: 5, ppage: 5,
  pagedown: 6, pgdn: 6, npage: 6,
  f5: 15, f6: 17, f7: 18, f8: 19, f9: 20, f10: 21, f11: 23, f12: 24,
};

// Keys whose xterm form is CSI <letter> (SS3 <letter> in application mode / for F1-F4).
const LETTER: Record<string, string> = { up: 'A', down: 'B', right: 'C', left: 'D', home: 'H', end: 'F' };
const FKEY_SS3: Record<string, string> = { f1: 'P', f2: 'Q', f3: 'R', f4: 'S' };

const PLAIN: Record<string, string> = {
  enter: '\r',
  return: '\r',
  tab: '\t',
  btab: `${CSI}Z`,
  escape: '\x1b',
  esc: '\x1b',
  space: ' ',
  bspace: '\x7f',
  backspace: '\x7f',
};

interface Mods {
  ctrl: boolean;
  meta: boolean;
  shift: boolean;
}

/** Splits `C-M-x` style prefixes off a key name. */
function splitMods(name: string): { mods: Mods; base: string } {
  const mods: Mods = { ctrl: false, meta: false, shift: false };
  let rest = name;
  for (;;) {
    const m = /^([CMS])-(.+)$/.exec(rest);
    if (!m) break;
    if (m[1] === 'C') mods.ctrl = true;
    else if (m[1] === 'M') mods.meta = true;
    else mods.shift = true;
    rest = m[2]!;
  }
  return { mods, base: rest };
}

function modParam(m: Mods): number {
  return 1 + (m.shift ? 1 : 0) + (m.meta ? 2 : 0) + (m.ctrl ? 4 : 0);
}

function ctrlChar(ch: string): string | null {
  const c = ch.toLowerCase();
  if (c >= 'a' && c <= 'z') return String.fromCharCode(c.charCodeAt(0) - 96);
  switch (ch) {
    case '@': case ' ': case '2': return '\x00';
    case '[': case '3': return '\x1b';
    case '\\': case '4': return '\x1c';
    case ']': case '5': return '\x1d';
    case '^': case '6': return '\x1e';
    case '_': case '-': case '7': case '/': return '\x1f';
    case '?': case '8': return '\x7f';
    default: return null;
  }
}

/** The bytes for one key name, or null when the name is not a key (so it is text). */
export function encodeKey(name: string, modes: KeyModes): string | null {
  const { mods, base } = splitMods(name);
  const hasMods = mods.ctrl || mods.meta || mods.shift;
  const lower = base.toLowerCase();

  if (lower in LETTER) {
    const letter = LETTER[lower]!;
    if (hasMods) return `${CSI}1;${modParam(mods)}${letter}`;
    return (modes.applicationCursorKeys ? SS3 : CSI) + letter;
  }
  if (lower in FKEY_SS3) {
    const letter = FKEY_SS3[lower]!;
    return hasMods ? `${CSI}1;${modParam(mods)}${letter}` : SS3 + letter;
  }
  if (lower in TILDE) {
    const n = TILDE[lower]!;
    return hasMods ? `${CSI}${n};${modParam(mods)}~` : `${CSI}${n}~`;
  }
  if (lower in PLAIN && base.length > 1) {
    let s = PLAIN[lower]!;
    if (mods.shift && lower === 'tab') s = `${CSI}Z`;
    if (mods.ctrl && lower === 'space') s = '\x00';
    return mods.meta ? '\x1b' + s : s;
  }
  // A single character with modifiers: C-c, M-x, C-M-a.
  if (hasMods && [...base].length === 1) {
    let s = base;
    if (mods.shift) s = s.toUpperCase();
    if (mods.ctrl) {
      const c = ctrlChar(base);
      if (c === null) throw new TuiosError('invalid_params', `C-${base} is not a key a terminal can send.`, undefined, { field: 'keys' });
      s = c;
    }
    return mods.meta ? '\x1b' + s : s;
  }
  return null;
}

/** Every argument of a send-keys call to bytes. `literal` sends each argument as text. */
export function encodeKeys(keys: string[], modes: KeyModes, literal = false): string {
  let out = '';
  for (const k of keys) {
    if (literal) {
      out += k;
      continue;
    }
    out += encodeKey(k, modes) ?? k;
  }
  return out;
}
