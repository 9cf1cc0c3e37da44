// The basic reply editor (spec: Replying to an agent): line breaks kept, shell-like motion and
// deletion, undo and redo, and a long paste held as one block that the cursor steps over and
// backspace removes whole. Text only: what it returns is queued, never executed.
import type { Token } from './keys.js';
import { EDITOR_MAX_ROWS, MAX_DRAFT_CHARS, PASTE_BLOCK_CHARS, PASTE_BLOCK_LINES } from './limits.js';

/** A pasted block sits in the text as one private-use character that stands for it. */
const BLOCK_BASE = 0xf0000;

export type EditorResult = 'send' | 'close' | 'handled' | 'ignored';

export class Editor {
  private text = '';
  private pos = 0;
  private undo: Array<[string, number]> = [];
  private redo: Array<[string, number]> = [];
  private blocks: string[] = [];
  private backslash = false;

  get empty(): boolean {
    return this.text.trim() === '';
  }

  /** The text to send, blocks expanded. */
  value(): string {
    return [...this.text].map((ch) => this.expand(ch)).join('');
  }

  clear(): void {
    this.save();
    this.text = '';
    this.pos = 0;
  }

  private expand(ch: string): string {
    const cp = ch.codePointAt(0)!;
    return cp >= BLOCK_BASE && cp < BLOCK_BASE + this.blocks.length ? this.blocks[cp - BLOCK_BASE]! : ch;
  }

  private isBlock(ch: string | undefined): boolean {
    if (!ch) return false;
    const cp = ch.codePointAt(0)!;
    return cp >= BLOCK_BASE && cp < BLOCK_BASE + this.blocks.length;
  }

  private save(): void {
    this.undo.push([this.text, this.pos]);
    if (this.undo.length > 200) this.undo.shift();
    this.redo = [];
  }

  private insert(s: string): void {
    if (this.text.length + s.length > MAX_DRAFT_CHARS) return;
    this.save();
    this.text = this.text.slice(0, this.pos) + s + this.text.slice(this.pos);
    this.pos += s.length;
  }

  private paste(s: string): void {
    const t = s.replace(/\r\n?/g, '\n');
    if (t.length > PASTE_BLOCK_CHARS || t.split('\n').length > PASTE_BLOCK_LINES) {
      this.blocks.push(t);
      this.insert(String.fromCodePoint(BLOCK_BASE + this.blocks.length - 1));
    } else this.insert(t);
  }

  /** The code unit length of the character before / at the cursor. */
  private prevLen(): number {
    const c = this.text.charCodeAt(this.pos - 1);
    return c >= 0xdc00 && c <= 0xdfff && this.pos >= 2 ? 2 : 1;
  }
  private nextLen(): number {
    const c = this.text.charCodeAt(this.pos);
    return c >= 0xd800 && c <= 0xdbff ? 2 : 1;
  }

  private wordLeft(): number {
    let p = this.pos;
    while (p > 0 && /\s/.test(this.text[p - 1]!)) p--;
    while (p > 0 && !/\s/.test(this.text[p - 1]!)) p--;
    return p;
  }
  private wordRight(): number {
    let p = this.pos;
    while (p < this.text.length && /\s/.test(this.text[p]!)) p++;
    while (p < this.text.length && !/\s/.test(this.text[p]!)) p++;
    return p;
  }
  private lineStart(): number {
    return this.text.lastIndexOf('\n', this.pos - 1) + 1;
  }
  private lineEnd(): number {
    const e = this.text.indexOf('\n', this.pos);
    return e < 0 ? this.text.length : e;
  }
  private cut(from: number, to: number): void {
    if (from === to) return;
    this.save();
    this.text = this.text.slice(0, from) + this.text.slice(to);
    this.pos = from;
  }

  key(tok: Token): EditorResult {
    if (tok.t === 'paste') {
      this.paste(tok.text);
      return 'handled';
    }
    if (tok.t !== 'key') return 'ignored';
    const k = tok.name;
    const wasBackslash = this.backslash;
    this.backslash = false;
    switch (k) {
      case 'Enter':
        if (wasBackslash && this.text[this.pos - 1] === '\\') {
          this.cut(this.pos - 1, this.pos);
          this.insert('\n');
          return 'handled';
        }
        return 'send';
      case 'C-j':
      case 'M-Enter':
      case 'S-Enter':
        this.insert('\n');
        return 'handled';
      case 'Esc':
        return 'close';
      case 'Left':
        if (this.pos > 0) this.pos -= this.prevLen();
        return 'handled';
      case 'Right':
        if (this.pos < this.text.length) this.pos += this.nextLen();
        return 'handled';
      case 'M-Left':
      case 'C-Left':
      case 'M-b':
        this.pos = this.wordLeft();
        return 'handled';
      case 'M-Right':
      case 'C-Right':
      case 'M-f':
        this.pos = this.wordRight();
        return 'handled';
      case 'Home':
      case 'C-a':
        this.pos = this.lineStart();
        return 'handled';
      case 'End':
      case 'C-e':
        this.pos = this.lineEnd();
        return 'handled';
      case 'Up':
      case 'Down': {
        const col = this.pos - this.lineStart();
        if (k === 'Up') {
          const s = this.lineStart();
          if (s === 0) return 'handled';
          const ps = this.text.lastIndexOf('\n', s - 2) + 1;
          this.pos = Math.min(ps + col, s - 1);
        } else {
          const e = this.lineEnd();
          if (e >= this.text.length) return 'handled';
          const ne = this.text.indexOf('\n', e + 1);
          this.pos = Math.min(e + 1 + col, ne < 0 ? this.text.length : ne);
        }
        return 'handled';
      }
      case 'BSpace':
        if (this.pos > 0) this.cut(this.pos - this.prevLen(), this.pos);
        return 'handled';
      case 'Delete':
        if (this.pos < this.text.length) this.cut(this.pos, this.pos + this.nextLen());
        return 'handled';
      case 'C-w':
      case 'M-BSpace':
        this.cut(this.wordLeft(), this.pos);
        return 'handled';
      case 'C-u':
        this.cut(this.lineStart(), this.pos);
        return 'handled';
      case 'C-k':
        this.cut(this.pos, this.lineEnd());
        return 'handled';
      case 'C-z': {
        const u = this.undo.pop();
        if (u) {
          this.redo.push([this.text, this.pos]);
          [this.text, this.pos] = u;
        }
        return 'handled';
      }
      case 'M-z': {
        const r = this.redo.pop();
        if (r) {
          this.undo.push([this.text, this.pos]);
          [this.text, this.pos] = r;
        }
        return 'handled';
      }
      case 'C-c':
        this.clear();
        return 'handled';
    }
    const ch = tok.raw;
    if ([...ch].length === 1 && ch.codePointAt(0)! >= 0x20 && ch !== '\x7f') {
      if (ch === '\\') this.backslash = true;
      this.insert(ch);
      return 'handled';
    }
    return 'ignored';
  }

  /** The lines to draw (blocks as their label) and the cursor in them, scrolled to `rows`. */
  view(rows = EDITOR_MAX_ROWS): { lines: string[]; cursor: { x: number; y: number }; selectedBlock: boolean } {
    let shown = '';
    let cursorAt = 0;
    let i = 0;
    for (const ch of this.text) {
      if (i === this.pos) cursorAt = shown.length;
      if (this.isBlock(ch)) {
        const b = this.blocks[ch.codePointAt(0)! - BLOCK_BASE]!;
        shown += `[Pasted text #${ch.codePointAt(0)! - BLOCK_BASE + 1} · ${b.split('\n').length} lines]`;
      } else shown += ch;
      i += ch.length;
    }
    if (this.pos >= this.text.length) cursorAt = shown.length;
    const before = shown.slice(0, cursorAt).split('\n');
    const all = shown.split('\n');
    const cy = before.length - 1;
    const cx = [...before[cy]!].length;
    const top = Math.max(0, cy - rows + 1);
    return { lines: all.slice(top, top + rows), cursor: { x: cx, y: cy - top }, selectedBlock: this.isBlock([...this.text.slice(0, this.pos)].pop()) };
  }
}
