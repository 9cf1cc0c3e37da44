// The client's input, split into what it means while every byte of it is kept: a key that is
// not ours reaches the pane exactly as the terminal sent it. Escape sequences cut across two
// reads are held until the rest arrives; a lone ESC at the end of a read is the Escape key.
import { StringDecoder } from 'node:string_decoder';
import { MAX_PASTE_BYTES } from './limits.js';

export type Token =
  /** A key: `a`, `A`, `é`, `C-b`, `M-x`, `Up`, `M-Up`, `C-Left`, `Enter`, `Esc`, `Tab`, `S-Tab`, `BSpace`, `F5`... */
  | { t: 'key'; raw: string; name: string }
  /** A bracketed paste; `text` is what was pasted. */
  | { t: 'paste'; raw: string; text: string }
  /** An SGR mouse report, in 0-based client cells. `button` is the report's code (64/65 the wheel). */
  | { t: 'mouse'; raw: string; button: number; x: number; y: number; release: boolean };

const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';

const CSI_FINAL: Record<string, string> = { A: 'Up', B: 'Down', C: 'Right', D: 'Left', H: 'Home', F: 'End', P: 'F1', Q: 'F2', R: 'F3', S: 'F4' };
const CSI_TILDE: Record<string, string> = {
  '1': 'Home', '2': 'Insert', '3': 'Delete', '4': 'End', '5': 'PgUp', '6': 'PgDn', '7': 'Home', '8': 'End',
  '15': 'F5', '17': 'F6', '18': 'F7', '19': 'F8', '20': 'F9', '21': 'F10', '23': 'F11', '24': 'F12',
};

/** The xterm modifier parameter (1 + shift 1, alt 2, ctrl 4) as name prefixes. */
function modPrefix(p: string | undefined): string {
  const n = Number(p ?? '1') - 1;
  if (!(n > 0)) return '';
  return (n & 4 ? 'C-' : '') + (n & 2 ? 'M-' : '') + (n & 1 ? 'S-' : '');
}

function ctrlName(c: number): string {
  if (c === 13) return 'Enter';
  if (c === 9) return 'Tab';
  if (c === 127 || c === 8) return 'BSpace';
  if (c === 0) return 'C-Space';
  if (c === 10) return 'C-j';
  if (c >= 1 && c <= 26) return `C-${String.fromCharCode(96 + c)}`;
  return { 28: 'C-\\', 29: 'C-]', 30: 'C-^', 31: 'C-_' }[c] ?? `C-${c}`;
}

/** True when a read ends inside a UTF-8 character (its lead byte wants more bytes than follow). */
function endsMidCharacter(b: Buffer): boolean {
  for (let back = 1; back <= 3 && back <= b.length; back++) {
    const c = b[b.length - back]!;
    if (c < 0x80) return false;
    if (c >= 0xc0) return (c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2) > back;
  }
  return false;
}

export class KeyReader {
  private readonly decoder = new StringDecoder('utf8');
  private carry = '';
  /** Nothing is held from the last read: no half sequence, no half character. */
  idle = true;

  /** Bytes in, tokens out. */
  push(bytes: Buffer): Token[] {
    const tokens = this.read(bytes);
    this.idle = this.carry === '' && !endsMidCharacter(bytes);
    return tokens;
  }

  private read(bytes: Buffer): Token[] {
    const s = this.carry + this.decoder.write(bytes);
    this.carry = '';
    const out: Token[] = [];
    let i = 0;
    while (i < s.length) {
      const r = this.one(s, i);
      if (r === null) {
        this.carry = s.slice(i);
        if (this.carry.length > MAX_PASTE_BYTES) {
          // An unterminated paste past the limit: what we have is the paste.
          out.push({ t: 'paste', raw: this.carry, text: this.carry.slice(PASTE_START.length) });
          this.carry = '';
        }
        break;
      }
      out.push(r.tok);
      i = r.next;
    }
    return out;
  }

  /** One token at s[i], or null when the sequence there is not complete yet. */
  private one(s: string, i: number): { tok: Token; next: number } | null {
    const c = s.charCodeAt(i);
    if (c !== 0x1b) {
      const cp = s.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      const name = cp < 0x20 || cp === 0x7f ? ctrlName(cp) : ch;
      return { tok: { t: 'key', raw: ch, name }, next: i + ch.length };
    }
    if (i + 1 >= s.length) return { tok: { t: 'key', raw: '\x1b', name: 'Esc' }, next: i + 1 };
    const n = s[i + 1]!;
    if (n === '[') return this.csi(s, i);
    if (n === 'O') {
      if (i + 2 >= s.length) return null;
      const f = s[i + 2]!;
      return { tok: { t: 'key', raw: s.slice(i, i + 3), name: CSI_FINAL[f] ?? `SS3-${f}` }, next: i + 3 };
    }
    if (n === '\x1b') {
      // ESC ESC [ A: Meta held with a special key, as some terminals send it.
      const inner = this.one(s, i + 1);
      if (inner === null) return null;
      if (inner.tok.t !== 'key') return { tok: { t: 'key', raw: '\x1b', name: 'Esc' }, next: i + 1 };
      return { tok: { t: 'key', raw: s.slice(i, inner.next), name: `M-${inner.tok.name}` }, next: inner.next };
    }
    const cp = s.codePointAt(i + 1)!;
    const ch = String.fromCodePoint(cp);
    const base = cp < 0x20 || cp === 0x7f ? ctrlName(cp) : ch;
    return { tok: { t: 'key', raw: '\x1b' + ch, name: `M-${base}` }, next: i + 1 + ch.length };
  }

  private csi(s: string, i: number): { tok: Token; next: number } | null {
    if (s.startsWith(PASTE_START, i)) {
      const end = s.indexOf(PASTE_END, i + PASTE_START.length);
      if (end < 0) return null;
      const next = end + PASTE_END.length;
      return { tok: { t: 'paste', raw: s.slice(i, next), text: s.slice(i + PASTE_START.length, end) }, next };
    }
    let j = i + 2;
    // Parameter and intermediate bytes, then one final byte.
    while (j < s.length && s.charCodeAt(j) >= 0x20 && s.charCodeAt(j) <= 0x3f) j++;
    if (j >= s.length) return j - i > 64 ? { tok: { t: 'key', raw: s.slice(i, j), name: 'CSI?' }, next: j } : null;
    const fin = s[j]!;
    const raw = s.slice(i, j + 1);
    const params = s.slice(i + 2, j);
    const next = j + 1;
    if (params.startsWith('<') && (fin === 'M' || fin === 'm')) {
      const [b, x, y] = params.slice(1).split(';').map(Number);
      if (b !== undefined && x !== undefined && y !== undefined && [b, x, y].every(Number.isFinite)) {
        return { tok: { t: 'mouse', raw, button: b, x: x - 1, y: y - 1, release: fin === 'm' }, next };
      }
    }
    const parts = params.split(';');
    if (fin === '~') return { tok: { t: 'key', raw, name: modPrefix(parts[1]) + (CSI_TILDE[parts[0] ?? ''] ?? `CSI-${params}~`) }, next };
    if (fin === 'Z') return { tok: { t: 'key', raw, name: 'S-Tab' }, next };
    const base = CSI_FINAL[fin];
    if (base) return { tok: { t: 'key', raw, name: modPrefix(parts[1]) + base }, next };
    return { tok: { t: 'key', raw, name: `CSI-${params}${fin}` }, next };
  }
}
