// The person's typing as the pane's PTY delivers it, cut into what the prompt line and a
// permission question act on. A bracketed paste (the pane turns mode 2004 on) arrives as one
// `paste`, whatever it holds: a paste never answers a question and its line breaks never submit.
// Text that arrives in one read without brackets is also a paste; a key is a read of one
// character. Other escape sequences (arrows, function keys) are dropped. Pure, and it keeps the
// unfinished paste between reads.

export type Key =
  | { kind: 'char'; ch: string }
  | { kind: 'paste'; text: string }
  | { kind: 'enter' }
  | { kind: 'backspace' }
  /** ctrl+c: cancel the turn (or clear the line). */
  | { kind: 'interrupt' }
  /** ctrl+d on an empty line: leave. */
  | { kind: 'eof' }
  /** ctrl+u: clear the line. */
  | { kind: 'kill-line' };

const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';
/** A paste held past this many characters is cut: the prompt line has its own limit. */
export const PASTE_HELD_MAX = 256 * 1024;

export class KeyReader {
  /** The paste whose end has not arrived yet, or null. */
  private paste: string | null = null;

  read(chunk: string): Key[] {
    const keys: Key[] = [];
    let s = chunk;
    while (s.length > 0) {
      if (this.paste !== null) {
        const end = s.indexOf(PASTE_END);
        if (end < 0) {
          this.paste = (this.paste + s).slice(0, PASTE_HELD_MAX);
          return keys;
        }
        keys.push({ kind: 'paste', text: this.paste + s.slice(0, end) });
        this.paste = null;
        s = s.slice(end + PASTE_END.length);
        continue;
      }
      const start = s.indexOf(PASTE_START);
      const plain = start < 0 ? s : s.slice(0, start);
      keys.push(...plainKeys(plain));
      if (start < 0) break;
      this.paste = '';
      s = s.slice(start + PASTE_START.length);
    }
    return keys;
  }
}

/** Keys outside a bracketed paste. */
function plainKeys(s: string): Key[] {
  if (s === '') return [];
  const keys: Key[] = [];
  let text = '';
  const flush = () => {
    if (text === '') return;
    // One character read alone is a key; more arriving together is pasted or typed by a program.
    keys.push([...text].length === 1 && s.length === text.length ? { kind: 'char', ch: text } : { kind: 'paste', text });
    text = '';
  };
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    const code = c.charCodeAt(0);
    if (c === '\x1b') {
      flush();
      // ESC [ ... final, ESC O x, or a lone ESC: dropped.
      if (s[i + 1] === '[') {
        let j = i + 2;
        while (j < s.length && s.charCodeAt(j) >= 0x20 && s.charCodeAt(j) <= 0x3f) j++;
        i = j;
      } else if (s[i + 1] === 'O') i += 2;
      else if (i + 1 < s.length) i += 1;
      continue;
    }
    if (c === '\r' || c === '\n') {
      flush();
      keys.push({ kind: 'enter' });
      continue;
    }
    if (c === '\x7f' || c === '\b') {
      flush();
      keys.push({ kind: 'backspace' });
      continue;
    }
    if (c === '\x03') {
      flush();
      keys.push({ kind: 'interrupt' });
      continue;
    }
    if (c === '\x04') {
      flush();
      keys.push({ kind: 'eof' });
      continue;
    }
    if (c === '\x15') {
      flush();
      keys.push({ kind: 'kill-line' });
      continue;
    }
    if (code < 0x20 || (code >= 0x80 && code < 0xa0)) continue;
    text += c;
  }
  flush();
  return keys;
}
