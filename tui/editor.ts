// The basic reply editor (spec: Replying to an agent): line breaks kept, shell-like motion and
// deletion, undo and redo, and a long paste held as one block that the cursor steps over and
// backspace removes whole. Text only: what it returns is queued, never executed.
import type { Token } from './keys.js';
import { dispatchKey, hintRows, hintText, OTHER_KEY, type KeyRow, type KeyTable } from './key-table.js';
import { removeInvisible } from './invisible.js';
import { EDITOR_MAX_ROWS, MAX_DRAFT_CHARS, PASTE_BLOCK_CHARS, PASTE_BLOCK_LINES } from './limits.js';
import type { RememberedReply } from '../core/delivery/reply-history.js';
import { blockLabel, PARTS_TOO_LARGE, WORDS_TOO_LARGE, type PartParam } from '../core/delivery/parts.js';
import { MESSAGE_PARTS_MAX_BYTES, PASTE_INLINE_MAX_BYTES, QUEUE_MESSAGE_MAX_BYTES } from '../core/limits.js';
import { candidates, NameList, opensList, type NameEntry, type NameSource } from './names.js';
import { rejoinBlocks } from './draft-file.js';
import { alreadyInMessage, imageLabel, imageRefusal, sniffFormat } from '../core/delivery/images.js';
import { editorImage, type EditorImage } from './editor-images.js';

/** A message as queue-prompt takes it: one text, or parts when blocks go to files (over 12 KB). */
export type EditorMessage = { text: string } | { parts: PartParam[] };

/** A pasted block sits in the text as one private-use character that stands for it. */
const BLOCK_BASE = 0xf0000;
/** An attached image likewise (editor-images.ts), from here up. */
const IMAGE_BASE = 0xf8000;

export type EditorResult = 'send' | 'close' | 'handled' | 'ignored';

/** What the editor's keys depend on: a block right before the cursor, a block open to read. */
export interface EditorKeyState {
  block: boolean;
  reading: boolean;
  /** ctrl+r: searching what was sent. */
  searching?: boolean;
  /** `@`: the list of names is open under the draft. */
  naming?: boolean;
  /** The block selected or open is an image. */
  image?: boolean;
}

export class Editor {
  private text = '';
  private pos = 0;
  private undo: Array<[string, number]> = [];
  private redo: Array<[string, number]> = [];
  private blocks: string[] = [];
  private images: EditorImage[] = [];
  /** Offered each paste first: true when it attaches an image (an image path, an empty paste), set by the view. */
  imagePaste: ((text: string) => boolean) | null = null;
  /** ctrl+v: the clipboard's text or image, read by the view (editor-images.ts); null pastes nothing. */
  clipboard: (() => void) | null = null;
  /** ctrl+o on an image (image-paste.ts): it is shown larger, `o` opens it in the desktop's viewer, esc closes both. */
  imageView: { shown(img: EditorImage): void; open(img: EditorImage): void; close(): void } | null = null;
  /** An image brought back from what was sent: the view reads its size and makes its thumbnail. */
  restored: ((img: EditorImage) => void) | null = null;
  /** The image ctrl+o shows in place of the draft. */
  private viewing: { n: number; image: EditorImage } | null = null;
  private backslash = false;
  /** The key before this one typed a backslash (see enter). */
  private afterBackslash = false;
  /** ctrl+o: a block's text open to read in place of the draft, and the first line shown. */
  private reading: { lines: string[]; top: number } | null = null;
  /** Rows the editor was last drawn with (the page keys of the reader move by it). */
  private rows = EDITOR_MAX_ROWS;
  /** A line for the key line, until the next key (a block too large to edit in the draft). */
  notice = '';
  /** What was sent to this agent before, newest first (the daemon's reply history); set by the view. */
  history: (() => readonly RememberedReply[]) | null = null;
  /** Keeps a draft that ctrl+c cleared in the history (spec: it is kept there too). */
  remember: ((parts: PartParam[]) => void) | null = null;
  /** `@` names (spec: Naming a pane, an agent or a file): where they come from, set by the view; none, and `@` is a character. */
  names: NameSource | null = null;
  /** The list of names while it is open. */
  private naming: NameList | null = null;
  /** ctrl+g: the view opens the draft in the person's editor (none: the key says it cannot here). */
  external: (() => void) | null = null;
  /** Walking the history with up and down: which message is shown, and the draft that was there. */
  private recall: { index: number; draft: { text: string; pos: number } } | null = null;

  /** Up on the first row: the message sent before the one shown (newest first). */
  private older(): EditorResult {
    const list = this.history?.() ?? [];
    const index = (this.recall?.index ?? -1) + 1;
    if (index >= list.length) return 'handled';
    this.recall = { index, draft: this.recall?.draft ?? { text: this.text, pos: this.pos } };
    this.load(list[index]!);
    return 'handled';
  }

  /** Down on the last row: the message sent after the one shown, then the draft you had. */
  private newer(): EditorResult {
    const r = this.recall;
    if (!r) return 'handled';
    if (r.index === 0) {
      this.save();
      this.text = r.draft.text;
      this.pos = r.draft.pos;
      this.recall = null;
      return 'handled';
    }
    this.recall = { ...r, index: r.index - 1 };
    this.load((this.history?.() ?? [])[r.index - 1]!);
    return 'handled';
  }

  private load(m: RememberedReply): void {
    this.save();
    let text = '';
    for (const p of m.parts) {
      if ('text' in p) text += p.text;
      else if ('image' in p) {
        // Its size is read again (restored), its label meanwhile without it.
        const data = Buffer.from(p.image, 'base64');
        const img = editorImage(data, { format: sniffFormat(data) ?? 'png', width: 0, height: 0, bytes: data.length });
        this.images.push(img);
        this.restored?.(img);
        text += String.fromCodePoint(IMAGE_BASE + this.images.length - 1);
      } else {
        this.blocks.push(p.paste);
        text += String.fromCodePoint(BLOCK_BASE + this.blocks.length - 1);
      }
    }
    this.text = text;
    this.pos = 0;
    if (m.dropped) this.notice = `${m.dropped === 1 ? 'A paste' : `${m.dropped} pastes`} of this message passed 256 KB and ${m.dropped === 1 ? 'was' : 'were'} not kept.`;
  }

  keyState(): EditorKeyState {
    const image = this.viewing !== null || (this.reading === null && this.imageBefore() !== null);
    return { block: this.blockBefore() !== null || this.imageBefore() !== null, reading: this.reading !== null, searching: this.search !== null, ...(this.naming ? { naming: true } : {}), ...(image ? { image } : {}) };
  }

  /** ctrl+r: what was sent, narrowed by what is typed; the arrows choose, enter loads it. */
  private search: { query: string; index: number } | null = null;

  private matches(): RememberedReply[] {
    const q = this.search?.query.toLowerCase() ?? '';
    return (this.history?.() ?? []).filter((m) => oneLine(m).toLowerCase().includes(q));
  }

  openSearch(): EditorResult {
    if ((this.history?.() ?? []).length === 0) this.notice = 'Nothing sent to this agent yet.';
    else this.search = { query: '', index: 0 };
    return 'handled';
  }

  searchKey(key: string, tok: Token): EditorResult {
    const s = this.search;
    if (!s) return 'handled';
    const n = this.matches().length;
    if (key === 'Esc') this.search = null;
    else if (key === 'Up') s.index = Math.max(0, s.index - 1);
    else if (key === 'Down') s.index = Math.min(Math.max(0, n - 1), s.index + 1);
    else if (key === 'BSpace') s.query = [...s.query].slice(0, -1).join('');
    else if (key === 'Enter') {
      const m = this.matches()[s.index];
      this.search = null;
      if (m) this.load(m);
    } else if (tok.t === 'key' && [...tok.raw].length === 1 && tok.raw.codePointAt(0)! >= 0x20 && tok.raw !== '\x7f') {
      s.query += tok.raw;
      s.index = 0;
    }
    return 'handled';
  }

  /** The image right before the cursor (its index), or null. */
  private imageBefore(): number | null {
    const cp = [...this.text.slice(Math.max(0, this.pos - 2), this.pos)].pop()?.codePointAt(0) ?? 0;
    return cp >= IMAGE_BASE && cp < IMAGE_BASE + this.images.length ? cp - IMAGE_BASE : null;
  }

  /** The images in the draft, in order, with their numbers (the strip above it). */
  shownImages(): Array<{ n: number; image: EditorImage }> {
    const out: Array<{ n: number; image: EditorImage }> = [];
    for (const ch of this.text) {
      const i = ch.codePointAt(0)! - IMAGE_BASE;
      if (i >= 0 && i < this.images.length) out.push({ n: i + 1, image: this.images[i]! });
    }
    return out;
  }

  /** Attaches an image at the cursor, as one edit; answers why not (the limits, the same image twice). */
  attachImage(img: EditorImage): string | null {
    const held = this.shownImages();
    const same = held.find((h) => h.image.hash === img.hash);
    if (same) return alreadyInMessage(same.n);
    const why = imageRefusal(held.map((h) => h.image.data.length), img.data.length);
    if (why) return why;
    this.images.push(img);
    const before = this.text.length;
    this.insert(String.fromCodePoint(IMAGE_BASE + this.images.length - 1));
    if (this.text.length === before) {
      this.images.pop();
      return 'The draft is full.';
    }
    return null;
  }

  /** The index of the block right before the cursor, or null. */
  private blockBefore(): number | null {
    const ch = [...this.text.slice(Math.max(0, this.pos - 2), this.pos)].pop();
    return this.isBlock(ch) ? ch!.codePointAt(0)! - BLOCK_BASE : null;
  }

  /** ctrl+o on a selected block: its text to read, the arrows and page keys scroll, esc goes back. */
  openBlock(): EditorResult {
    const i = this.blockBefore();
    if (i !== null) this.reading = { lines: this.blocks[i]!.split('\n'), top: 0 };
    const img = this.imageBefore();
    if (img !== null) {
      this.reading = { lines: [], top: 0 };
      this.viewing = { n: img + 1, image: this.images[img]! };
      this.imageView?.shown(this.viewing.image);
    }
    return 'handled';
  }

  closeBlock(): EditorResult {
    if (this.viewing) this.imageView?.close();
    this.reading = null;
    this.viewing = null;
    return 'handled';
  }

  /** The image open in place of the draft (ctrl+o), or null. */
  viewedImage(): { n: number; image: EditorImage } | null {
    return this.viewing;
  }

  /** `o` on an image open: the desktop's image viewer shows it. */
  openViewer(): EditorResult {
    if (this.viewing) this.imageView?.open(this.viewing.image);
    return 'handled';
  }

  scrollBlock(key: string): EditorResult {
    const r = this.reading;
    if (!r) return 'handled';
    const page = Math.max(1, this.rows - 1);
    const d = key === 'Up' ? -1 : key === 'Down' ? 1 : key === 'PgUp' ? -page : page;
    r.top = Math.max(0, Math.min(Math.max(0, r.lines.length - this.rows), r.top + d));
    return 'handled';
  }

  /** ctrl+e on a selected block: its text in the draft in its place, to edit; undo brings the block back. */
  expandBlock(): EditorResult {
    const i = this.blockBefore();
    if (i === null) return 'handled';
    const b = this.blocks[i]!;
    const at = this.pos - 2 >= 0 && this.isBlock(this.text.slice(this.pos - 2, this.pos)) ? this.pos - 2 : this.pos - 1;
    if (this.text.length - (this.pos - at) + b.length > MAX_DRAFT_CHARS) {
      this.notice = 'This paste is too large to edit in the draft; ctrl+o reads it.';
      return 'handled';
    }
    this.save();
    this.text = this.text.slice(0, at) + b + this.text.slice(this.pos);
    this.pos = at + b.length;
    return 'handled';
  }

  /**
   * Removes invisible characters (tags, bidi controls, zero-width) from the words and the blocks,
   * as one edit undo brings back; answers how many went.
   */
  scrub(): number {
    const words = removeInvisible(this.text);
    const blocks = this.blocks.map((b) => removeInvisible(b));
    const n = words.removed + blocks.reduce((k, b) => k + b.removed, 0);
    if (n === 0) return 0;
    this.save();
    const before = removeInvisible(this.text.slice(0, this.pos)).text.length;
    this.text = words.text;
    this.pos = before;
    blocks.forEach((b, i) => (this.blocks[i] = b.text));
    return n;
  }

  get empty(): boolean {
    return this.text.trim() === '';
  }

  /** The text to send, blocks expanded. */
  value(): string {
    return [...this.text].map((ch) => this.expand(ch)).join('');
  }

  /** The draft as parts: the words between blocks, and each block with its number. */
  parts(): PartParam[] {
    const out: PartParam[] = [];
    let words = '';
    for (const ch of this.text) {
      const img = ch.codePointAt(0)! - IMAGE_BASE;
      if (img >= 0 && img < this.images.length) {
        if (words) out.push({ text: words });
        words = '';
        out.push({ image: this.images[img]!.data.toString('base64'), n: img + 1 });
        continue;
      }
      if (!this.isBlock(ch)) {
        words += ch;
        continue;
      }
      if (words) out.push({ text: words });
      words = '';
      const i = ch.codePointAt(0)! - BLOCK_BASE;
      out.push({ paste: this.blocks[i]!, n: i + 1 });
    }
    if (words) out.push({ text: words });
    return out;
  }

  /** Bytes of the typed words and of the whole message, blocks expanded. */
  sizes(): { words: number; total: number; blocks: number } {
    let words = 0;
    let total = 0;
    let blocks = 0;
    for (const p of this.parts()) {
      if ('image' in p) continue; // held to the images' limits as they are attached
      const b = Buffer.byteLength('text' in p ? p.text : 'paste' in p ? p.paste : '');
      total += b;
      if ('text' in p) words += b;
      else blocks++;
    }
    return { words, total, blocks };
  }

  /** Why this draft cannot be sent as it is (spec: Large pastes), in the spec's words; null when it can. */
  refusal(): string | null {
    const s = this.sizes();
    if (s.words > QUEUE_MESSAGE_MAX_BYTES) return WORDS_TOO_LARGE;
    if (s.total > MESSAGE_PARTS_MAX_BYTES) return PARTS_TOO_LARGE;
    return null;
  }

  /** What to queue: a message of 12 KB or less as one text, blocks in place; a larger one in parts. */
  message(): EditorMessage {
    const s = this.sizes();
    if (this.shownImages().length > 0) return { parts: this.parts() };
    return s.blocks === 0 || s.total <= PASTE_INLINE_MAX_BYTES ? { text: this.value() } : { parts: this.parts() };
  }

  clear(): void {
    if (!this.empty) this.remember?.(this.parts());
    this.recall = null;
    this.save();
    this.text = '';
    this.pos = 0;
  }

  private expand(ch: string): string {
    const cp = ch.codePointAt(0)!;
    if (cp >= IMAGE_BASE && cp < IMAGE_BASE + this.images.length) return '';
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

  /** A paste as text, never as an image (a path that named no image after all). */
  pasteText(s: string): void {
    const hook = this.imagePaste;
    this.imagePaste = null;
    try {
      this.paste(s);
    } finally {
      this.imagePaste = hook;
    }
  }

  private paste(s: string): void {
    if (this.imagePaste?.(s)) return;
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
    this.notice = '';
    if (this.search) return this.searchKey(tok.t === 'key' ? tok.name : '', tok);
    if (this.reading) {
      // Reading a block: its keys only; nothing is typed or pasted into the draft behind it.
      const hit = dispatchKey(EDITOR_KEYS, this.keyState(), this, tok);
      return hit.ran ? hit.result : 'handled';
    }
    if (tok.t === 'paste') {
      this.paste(tok.text);
      this.followNames(false);
      return 'handled';
    }
    if (tok.t !== 'key') return 'ignored';
    this.afterBackslash = this.backslash;
    this.backslash = false;
    const hit = dispatchKey(EDITOR_KEYS, this.keyState(), this, tok);
    if (hit.ran) {
      this.followNames(false);
      return hit.result;
    }
    const ch = tok.raw;
    if ([...ch].length === 1 && ch.codePointAt(0)! >= 0x20 && ch !== '\x7f') {
      if (ch === '\\') this.backslash = true;
      this.insert(ch);
      this.followNames(ch === '@');
      return 'handled';
    }
    return 'ignored';
  }

  /** After a key: the list of names closes when the text under it no longer fits, and `@` opens it. */
  private followNames(typedAt: boolean): void {
    if (this.naming && !this.naming.holds(this.text, this.pos)) this.naming = null;
    if (!this.naming && typedAt && this.names && opensList(this.text, this.pos - 1)) this.naming = new NameList(this.pos - 1, true);
  }

  /** The names listed now and the chosen one (null: the list is closed). */
  nameList(): { entries: NameEntry[]; index: number; loading: boolean } | null {
    if (!this.naming || !this.names) return null;
    const c = candidates(this.names, this.naming.query(this.text, this.pos));
    this.naming.move(0, c.entries.length);
    return { ...c, index: this.naming.index };
  }

  /** tab, the arrows and esc on the list of names. */
  nameKey(key: string): EditorResult {
    const n = this.naming;
    const list = this.nameList();
    if (!n || !list) return 'handled';
    if (key === 'Esc') this.naming = null;
    else if (key === 'Up' || key === 'Down') n.move(key === 'Up' ? -1 : 1, list.entries.length);
    else if (key === 'Tab') {
      const e = list.entries[list.index];
      if (!e) return 'handled';
      this.save();
      const end = n.end(this.text, this.pos);
      this.text = this.text.slice(0, n.start) + e.insert + this.text.slice(end);
      this.pos = n.start + e.insert.length;
      // A folder keeps the list open, inside it.
      this.naming = e.kind === 'folder' ? new NameList(n.start, false) : null;
    }
    return 'handled';
  }

  /** ctrl+g: the view's, or a line saying it is not offered here. */
  openExternal(): EditorResult {
    if (this.external) this.external();
    else this.notice = 'ctrl+g opens the draft in your editor from the Inbox reply.';
    return 'handled';
  }

  /** The draft as ctrl+g writes it to a file: each block's text in its place. */
  fileText(): string {
    // An image is its label in the file (the editor shows text only); the label coming back
    // whole brings the image back, as a block's text does.
    return [...this.text].map((ch) => this.imageLabelOf(ch) ?? this.expand(ch)).join('');
  }

  private imageLabelOf(ch: string): string | null {
    const img = ch.codePointAt(0)! - IMAGE_BASE;
    return img >= 0 && img < this.images.length ? imageLabel(img + 1, this.images[img]!.info) : null;
  }

  /**
   * What ctrl+g's editor saved, as the draft: a block whose text is still there whole is the
   * block again, under its own label. A text larger than a draft holds is refused (its reason
   * answered) and the draft stays as it was; undo brings back the draft from before.
   */
  fromFile(edited: string): string | null {
    // In the order they stand in the draft, as the file has them: blocks by their text, images by their label.
    const blocks = [...this.text].flatMap((ch) => {
      const label = this.imageLabelOf(ch);
      if (label !== null) return [{ ch, text: label }];
      return this.isBlock(ch) ? [{ ch, text: this.expand(ch) }] : [];
    });
    const text = rejoinBlocks(edited.replace(/\r\n?/g, '\n').replace(/\n$/, ''), blocks);
    if (text.length > MAX_DRAFT_CHARS) return 'The file is larger than a draft holds; the draft stays as it was.';
    this.save();
    this.text = text;
    this.pos = text.length;
    this.naming = null;
    return null;
  }

  /**
   * A reply that was not sent, back at the top of this draft (spec: a reply the daemon refuses
   * keeps its draft; one started meanwhile gets it on top). Its blocks join this draft's.
   */
  putOnTop(parts: readonly PartParam[]): void {
    let top = '';
    for (const p of parts) {
      if ('text' in p) top += p.text;
      else if ('paste' in p) {
        this.blocks.push(p.paste);
        top += String.fromCodePoint(BLOCK_BASE + this.blocks.length - 1);
      }
    }
    if (!top) return;
    this.save();
    const sepr = this.text ? '\n' : '';
    this.text = top + sepr + this.text;
    this.pos += top.length + sepr.length;
  }

  /** Enter: a line ending in `\` typed just before takes a line break instead of sending. */
  enter(): EditorResult {
    if (this.afterBackslash && this.text[this.pos - 1] === '\\') {
      this.cut(this.pos - 1, this.pos);
      this.insert('\n');
      return 'handled';
    }
    return 'send';
  }

  newLine(): EditorResult {
    this.insert('\n');
    return 'handled';
  }

  left(): EditorResult {
    if (this.pos > 0) this.pos -= this.prevLen();
    return 'handled';
  }

  right(): EditorResult {
    if (this.pos < this.text.length) this.pos += this.nextLen();
    return 'handled';
  }

  /** To a place in the text: a word or a line's either end. */
  jump(to: 'word-left' | 'word-right' | 'line-start' | 'line-end'): EditorResult {
    this.pos = to === 'word-left' ? this.wordLeft() : to === 'word-right' ? this.wordRight() : to === 'line-start' ? this.lineStart() : this.lineEnd();
    return 'handled';
  }

  /** Up or down a line, keeping the column where the line is long enough. */
  vertical(up: boolean): EditorResult {
    const col = this.pos - this.lineStart();
    if (up) {
      const s = this.lineStart();
      if (s === 0) return this.older();
      const ps = this.text.lastIndexOf('\n', s - 2) + 1;
      this.pos = Math.min(ps + col, s - 1);
    } else {
      const e = this.lineEnd();
      if (e >= this.text.length) return this.newer();
      const ne = this.text.indexOf('\n', e + 1);
      this.pos = Math.min(e + 1 + col, ne < 0 ? this.text.length : ne);
    }
    return 'handled';
  }

  /** Deletes: the character before or at the cursor, the word before it, or the line before or after it. */
  erase(what: 'back' | 'forward' | 'word' | 'line-before' | 'line-after'): EditorResult {
    if (what === 'back') {
      if (this.pos > 0) this.cut(this.pos - this.prevLen(), this.pos);
    } else if (what === 'forward') {
      if (this.pos < this.text.length) this.cut(this.pos, this.pos + this.nextLen());
    } else if (what === 'word') this.cut(this.wordLeft(), this.pos);
    else if (what === 'line-before') this.cut(this.lineStart(), this.pos);
    else this.cut(this.pos, this.lineEnd());
    return 'handled';
  }

  undoEdit(): EditorResult {
    const u = this.undo.pop();
    if (u) {
      this.redo.push([this.text, this.pos]);
      [this.text, this.pos] = u;
    }
    return 'handled';
  }

  redoEdit(): EditorResult {
    const r = this.redo.pop();
    if (r) {
      this.undo.push([this.text, this.pos]);
      [this.text, this.pos] = r;
    }
    return 'handled';
  }

  /** The lines to draw (blocks as their label) and the cursor in them, scrolled to `rows`. */
  view(rows = EDITOR_MAX_ROWS): { lines: string[]; cursor: { x: number; y: number }; selectedBlock: boolean; selectedCols: number } {
    this.rows = rows;
    if (this.search) {
      const found = this.matches();
      const top = Math.max(0, this.search.index - (rows - 2));
      const list = found.slice(top, top + rows - 1).map((m, i) => `${top + i === this.search!.index ? '▸ ' : '  '}${oneLine(m)}`);
      const head = `search: ${this.search.query}`;
      return { lines: [head, ...(list.length ? list : ['  (nothing matches)'])], cursor: { x: [...head].length, y: 0 }, selectedBlock: false, selectedCols: 0 };
    }
    if (this.reading) return { lines: this.reading.lines.slice(this.reading.top, this.reading.top + rows), cursor: { x: 0, y: 0 }, selectedBlock: true, selectedCols: 0 };
    let shown = '';
    let cursorAt = 0;
    let i = 0;
    for (const ch of this.text) {
      if (i === this.pos) cursorAt = shown.length;
      const img = ch.codePointAt(0)! - IMAGE_BASE;
      if (img >= 0 && img < this.images.length) shown += imageLabel(img + 1, this.images[img]!.info);
      else if (this.isBlock(ch)) {
        const b = this.blocks[ch.codePointAt(0)! - BLOCK_BASE]!;
        shown += blockLabel(ch.codePointAt(0)! - BLOCK_BASE + 1, b);
      } else shown += ch;
      i += ch.length;
    }
    if (this.pos >= this.text.length) cursorAt = shown.length;
    const before = shown.slice(0, cursorAt).split('\n');
    const all = shown.split('\n');
    const cy = before.length - 1;
    const cx = [...before[cy]!].length;
    const top = Math.max(0, cy - rows + 1);
    const sel = this.blockBefore();
    // The selected block's label ends at the cursor: that many columns before it are drawn selected.
    const img = this.imageBefore();
    const selectedCols = sel !== null ? [...blockLabel(sel + 1, this.blocks[sel]!)].length : img !== null ? [...imageLabel(img + 1, this.images[img]!.info)].length : 0;
    return { lines: all.slice(top, top + rows), cursor: { x: cx, y: cy - top }, selectedBlock: sel !== null || img !== null, selectedCols };
  }
}

/**
 * The editor's keys. The footers of the views that type into an editor list its hinted rows; a
 * view's own rows for Enter and Esc take over those two (`enter queue it`, `esc keep the draft`).
 * Keys no row takes are typed, when they are a printable character.
 */
const plain = (s: EditorKeyState | null) => !s?.reading && !s?.searching;
const searching = (s: EditorKeyState | null) => !!s?.searching;

/** A remembered message on one line, its blocks as their labels (the ctrl+r list). */
function oneLine(m: RememberedReply): string {
  let n = 0;
  return m.parts.map((p) => ('text' in p ? p.text : 'image' in p ? `[Image #${p.n ?? 1}]` : blockLabel(p.n ?? ++n, p.paste))).join('').replace(/\s+/g, ' ').trim();
}
const onBlock = (s: EditorKeyState | null) => !!s?.block && !s.reading;
const reading = (s: EditorKeyState | null) => !!s?.reading;

type EditorRow = KeyRow<EditorKeyState | null, Editor, EditorResult>;

/** A block open to read (ctrl+o): the arrows and page keys scroll it, esc goes back to the draft. */
const READING_KEYS: EditorRow[] = [
  { keys: ['Up', 'Down', 'PgUp', 'PgDn'], label: 'up/down', help: 'scroll', when: (s) => reading(s) && !s?.image, run: (e, k) => e.scrollBlock(k) },
  { keys: ['o'], help: 'open in your image viewer', when: (s) => reading(s) && !!s?.image, run: (e) => e.openViewer() },
  { keys: ['Esc'], label: 'esc', help: 'back to the draft', when: reading, run: (e) => e.closeBlock() },
  { keys: [OTHER_KEY], help: 'nothing while reading', when: reading, footer: false, run: () => 'handled' },
];

/** ctrl+r: searching what was sent (the editor takes every key itself then; these are its hints). */
const SEARCH_KEYS: EditorRow[] = [
  { keys: ['Up', 'Down'], label: 'up/down', help: 'choose', when: searching, run: (e, k, t) => e.searchKey(k, t) },
  { keys: ['Enter'], help: 'load it', when: searching, run: (e, k, t) => e.searchKey(k, t) },
  { keys: ['Esc'], help: 'back to the draft', when: searching, run: (e, k, t) => e.searchKey(k, t) },
];

const naming = (s: EditorKeyState | null) => !!s?.naming && !s.reading && !s.searching;
const notNaming = (s: EditorKeyState | null) => !s?.naming;

/** `@`: the list of names open under the draft; other keys type and edit the draft, which narrows it. */
const NAMING_KEYS: EditorRow[] = [
  { keys: ['Tab'], help: 'put it in', when: naming, run: (e, k) => e.nameKey(k) },
  { keys: ['Up', 'Down'], label: 'up/down', help: 'choose', when: naming, run: (e, k) => e.nameKey(k) },
  { keys: ['Esc'], help: 'close the list', when: naming, run: (e, k) => e.nameKey(k) },
];

/** The draft's keys, none of which applies while a block is open to read. */
const DRAFT_KEYS: EditorRow[] = [
  // The cursor right after a block: the block is selected, and these are its keys.
  { keys: ['C-o'], help: 'read it', when: (s) => onBlock(s) && !s?.image, run: (e) => e.openBlock() },
  { keys: ['C-o'], help: 'view it', when: (s) => onBlock(s) && !!s?.image, run: (e) => e.openBlock() },
  { keys: ['C-e'], help: 'edit it', when: (s) => onBlock(s) && !s?.image, run: (e) => e.expandBlock() },
  { keys: ['BSpace'], label: 'backspace', help: 'remove it', when: onBlock, run: (e) => e.erase('back') },
  { keys: ['Enter'], help: 'send', when: plain, run: (e) => e.enter() },
  { keys: ['C-j', 'M-Enter', 'S-Enter'], help: 'new line', run: (e) => e.newLine() },
  { keys: ['C-z'], help: 'undo', run: (e) => e.undoEdit() },
  { keys: ['Esc'], help: 'close', when: notNaming, run: () => 'close' },
  { keys: ['M-z'], help: 'redo', footer: false, run: (e) => e.redoEdit() },
  { keys: ['Left', 'Right'], label: 'left/right', help: 'move a character', footer: false, run: (e, k) => (k === 'Left' ? e.left() : e.right()) },
  { keys: ['M-Left', 'C-Left', 'M-b', 'M-Right', 'C-Right', 'M-f'], label: 'alt+left/right', help: 'move a word', footer: false, run: (e, k) => e.jump(/Left|b$/.test(k) ? 'word-left' : 'word-right') },
  { keys: ['Home', 'C-a', 'End'], label: 'home/end', help: 'line start, end', footer: false, run: (e, k) => e.jump(k === 'Home' || k === 'C-a' ? 'line-start' : 'line-end') },
  { keys: ['C-e'], help: 'line end', when: (s) => !s?.block || !!s.image, footer: false, run: (e) => e.jump('line-end') },
  { keys: ['Up', 'Down'], label: 'up/down', help: 'move a line', when: notNaming, footer: false, run: (e, k) => e.vertical(k === 'Up') },
  { keys: ['BSpace'], label: 'backspace', help: 'delete a character', when: (s) => !s?.block, footer: false, run: (e) => e.erase('back') },
  { keys: ['Delete'], help: 'delete the next character', footer: false, run: (e) => e.erase('forward') },
  { keys: ['C-w', 'M-BSpace'], help: 'delete a word back', footer: false, run: (e) => e.erase('word') },
  { keys: ['C-u'], help: 'delete to the line start', footer: false, run: (e) => e.erase('line-before') },
  { keys: ['C-k'], help: 'delete to the line end', footer: false, run: (e) => e.erase('line-after') },
  { keys: ['C-c'], help: 'clear', footer: false, run: (e) => (e.clear(), 'handled') },
  { keys: ['C-r'], help: 'search what was sent', footer: false, run: (e) => e.openSearch() },
  { keys: ['C-g'], help: 'open the draft in $VISUAL or $EDITOR', footer: false, run: (e) => e.openExternal() },
  { keys: ['C-v'], help: 'paste the clipboard (its image when it holds no text)', footer: false, run: (e) => (e.clipboard?.(), 'handled') },
];

export const EDITOR_KEYS: KeyTable<EditorKeyState | null, Editor, EditorResult> = [
  ...READING_KEYS,
  ...SEARCH_KEYS,
  ...NAMING_KEYS,
  ...DRAFT_KEYS.map((r): EditorRow => {
    const when = r.when;
    return { ...r, when: when ? (s) => plain(s) && when(s) : plain };
  }),
];

/**
 * The editor's own footer line (`enter send  ctrl+j new line  ctrl+z undo  esc close`); with a
 * block selected its keys come first, and a block open to read has only its own.
 */
export function editorHint(ascii: boolean, s: EditorKeyState | null = null): string {
  const line = hintText(hintRows(EDITOR_KEYS, s), s, '  ', (l) => (l === 'enter' && !ascii ? '↵' : l));
  return line;
}

/**
 * The footer of a mode that types into an editor: the mode's rows, and before its last one (esc)
 * the editor's hinted keys the mode leaves to the editor.
 */
export function typingHint<S>(rows: ReadonlyArray<KeyRow<S, never, unknown>>, s: S): string {
  const own = new Set(rows.flatMap((r) => r.keys));
  const editor = hintText(hintRows(EDITOR_KEYS, null).filter((r) => !r.keys.some((k) => own.has(k))), null);
  const last = rows.length - 1;
  return [hintText(rows.slice(0, last), s), editor, hintText(rows.slice(last), s)].filter(Boolean).join('   ');
}

/**
 * A token for a mode that types into `ed`. The mode's rows for keys other than Enter and Esc go
 * first (ctrl+] in a reply); the rest is the editor's, and what it makes of Enter and Esc (send,
 * close: a `\`-ended line's Enter is a line break instead) runs the mode's row for that key.
 */
export function typeInto<S, V>(table: KeyTable<S, V>, s: S, v: V, ed: Editor, tok: Token): void {
  if (tok.t === 'key' && tok.name !== 'Enter' && tok.name !== 'Esc' && dispatchKey(table, s, v, tok).ran) return;
  const res = ed.key(tok);
  if (res === 'send' || res === 'close') {
    const name = res === 'send' ? 'Enter' : 'Esc';
    dispatchKey(table, s, v, { t: 'key', raw: '', name });
  }
}
