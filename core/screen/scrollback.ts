// The compact scrollback behind an Emulator. xterm keeps every line as 12 bytes per cell at the
// full width of the pane; lines that leave xterm's small "hot" scrollback come here instead.
//
// A line is packed into a record: its cells up to the last one with text or colour, one byte per
// cell for Latin-1 text (a word otherwise) plus runs of attributes, in 64 KB chunks of one arena
// (5000 lines are a dozen allocations, not 5000). Packing costs about a fifth of parsing the
// line, so in a flood (see Emulator.keep) lines are not packed as they come: the store takes
// xterm's BufferLine object itself (xterm gets a spare in its place, a few pointer moves) and
// packs it once it has been here SCROLLBACK_PACK_DELAY_MS, by which time a flood has pushed most
// of them out. Outside floods lines are packed at once, so xterm keeps reusing its own line
// objects and nothing is allocated and freed per line (freed memory that glibc keeps). Reading
// a packed line rebuilds an xterm BufferLine from its record, so text and attributes come out
// through xterm's own code, exactly as they went in.
//
// A stored line keeps the width and wrapping it had when it left xterm: resizes reflow only the
// hot zone, never these lines.
import { SCROLLBACK_CHUNK_WORDS as CHUNK, SCROLLBACK_SPARE_LINES } from '../limits.js';
import { lineString, type CoreLine, type CoreExtendedAttrs } from './line-text.js';

export type { CoreLine } from './line-text.js';


// A cell is three words of BufferLine._data (xterm's buffer/Constants.ts): content, fg, bg.
const CONTENT_HAS_TEXT = 0x3fffff; // codepoint bits and the combined flag
const CONTENT_WIDTH_1 = 1 << 22;
const BG_HAS_EXTENDED = 0x10000000;

// A record, in words: [n | cols << 16] [flags | runs << 8] [content] [runs]. `n` cells were kept
// of `cols`. Content is n bytes (padded to a word) unless WIDE, then n words. A run is
// [start fg bg], plus [ext urlId] if EXT.
const F_WRAPPED = 1;
/** Some cell is not one Latin-1 character of width 1 (wide, combined, past U+00FF). */
const F_WIDE = 2;
/** Some cell has extended attributes. */
const F_EXT = 4;

export class Scrollback {
  private chunks: Uint32Array[] = [];
  private chunkBytes: Uint8Array[] = [];
  /** Sequence number of chunks[0]; a record's position is chunkSeq * CHUNK + word offset. */
  private firstChunk = 0;
  private cur: Uint32Array = new Uint32Array(0);
  private curBytes: Uint8Array = new Uint8Array(0);
  /** Next free word in `cur`, the last chunk. */
  private writeAt = 0;
  private spareChunk: Uint32Array | null = null;
  /** Ring of record positions, oldest first: the packed lines, which come before the raw ones. */
  private ring = new Float64Array(64);
  private head = 0;
  private n = 0;
  /** Lines still as xterm's objects, after the packed ones: a ring, oldest at rawHead. */
  private raw: (CoreLine | undefined)[] = new Array<CoreLine | undefined>(64);
  private rawHead = 0;
  private rawN = 0;
  /** When raw lines came: pairs [seq, time], meaning lines from seq on (to the next pair) came at time. */
  private stamps: number[] = [];
  private stampedAt = -1;
  private spares: CoreLine[] = [];
  /** Sequence number of line 0: lines are numbered in the order they came. */
  private firstSeq = 0;
  /** The time stamped on lines added from now on; the emulator sets it before each parse. */
  now = 0;
  /** Combining sequences (accents, ZWJ emoji) by line sequence number: rare, so kept aside. */
  private combined = new Map<number, Record<number, string>>();
  private lineCtor: (new (cols: number) => CoreLine) | null = null;
  private extCtor: (new (ext: number, urlId: number) => CoreExtendedAttrs) | null = null;
  private scratch: CoreLine | null = null;

  /** Keeps at most `limit` lines; past it the oldest go. */
  constructor(readonly limit: number) {}

  get count(): number {
    return this.n + this.rawN;
  }

  /** Lines not packed yet. */
  get pending(): number {
    return this.rawN;
  }

  /** Sequence number of the newest line. */
  get lastSeq(): number {
    return this.firstSeq + this.n + this.rawN - 1;
  }

  /** Index of the line with sequence number `seq`, or -1 once it is gone. */
  indexOfSeq(seq: number): number {
    const i = seq - this.firstSeq;
    return i >= 0 && i < this.count ? i : -1;
  }

  clear(): void {
    this.firstSeq += this.count;
    while (this.rawN > 0) this.toSpares(this.shiftRaw());
    this.raw = new Array<CoreLine | undefined>(64);
    this.rawHead = 0;
    this.stamps = [];
    this.stampedAt = -1;
    this.n = 0;
    this.head = 0;
    this.combined.clear();
    if (this.cur.length > 0) this.spareChunk = this.cur;
    this.chunks = [];
    this.chunkBytes = [];
    this.cur = new Uint32Array(0);
    this.curBytes = new Uint8Array(0);
    this.writeAt = 0;
    if (this.ring.length > 64) this.ring = new Float64Array(64);
  }

  /** Bytes held by the arena and the index. */
  get bytes(): number {
    return this.chunks.length * CHUNK * 4 + this.ring.byteLength;
  }

  /**
   * Takes one line over from xterm, which must hold no reference to it any more. Runs for every
   * line that leaves the hot zone, so it only moves pointers. Returns the line that the limit
   * pushed out, if it was still xterm's object: xterm may reuse it (see spare()).
   */
  add(line: CoreLine): CoreLine | undefined {
    if (this.now !== this.stampedAt) {
      this.stamps.push(this.firstSeq + this.count, this.now);
      this.stampedAt = this.now;
    }
    if (this.rawN === this.limit && this.rawN === this.raw.length) {
      // A flood at full speed: every line is raw and the ring is full; the new one takes the
      // oldest's place and that object goes back to xterm.
      const k = this.rawHead;
      const out = this.raw[k];
      this.raw[k] = line;
      this.rawHead = k + 1 === this.raw.length ? 0 : k + 1;
      this.firstSeq++;
      return out;
    }
    this.lineCtor ??= line.constructor as new (cols: number) => CoreLine;
    const out = this.count >= this.limit ? this.dropOldest() : undefined;
    if (this.rawN === this.raw.length) this.growRaw();
    let k = this.rawHead + this.rawN;
    if (k >= this.raw.length) k -= this.raw.length;
    this.raw[k] = line;
    this.rawN++;
    return out;
  }

  /** Packs one line from xterm at once; xterm keeps its object. */
  addPacked(line: CoreLine): void {
    if (this.rawN > 0) this.pack(); // the raw lines are older: they go first
    this.lineCtor ??= line.constructor as new (cols: number) => CoreLine;
    if (this.count >= this.limit) this.dropOldest();
    this.packLine(line);
  }

  /** A line object for xterm to reuse: one this store is done with, else a new one. */
  spare(): CoreLine {
    return this.spares.pop() ?? new this.lineCtor!(0);
  }

  /** Packs the raw lines that came at or before `time` (all of them by default); returns how many are left. */
  pack(time = Infinity): number {
    const st = this.stamps;
    let s = 0;
    while (this.rawN > 0) {
      const seq = this.firstSeq + this.n; // the oldest raw line
      while (s + 2 < st.length && st[s + 2]! <= seq) s += 2;
      if (st[s + 1]! > time) break;
      const line = this.shiftRaw();
      this.packLine(line);
      this.toSpares(line);
    }
    if (this.rawN === 0) {
      this.stamps = [];
      this.stampedAt = -1;
      if (this.raw.length > 64) this.raw = new Array<CoreLine | undefined>(64); // a flood grew it
      this.rawHead = 0;
    } else if (s > 0) {
      st.splice(0, s);
    }
    return this.rawN;
  }

  private shiftRaw(): CoreLine {
    const line = this.raw[this.rawHead]!;
    this.raw[this.rawHead] = undefined;
    if (++this.rawHead === this.raw.length) this.rawHead = 0;
    this.rawN--;
    return line;
  }

  private toSpares(line: CoreLine): void {
    if (this.spares.length < SCROLLBACK_SPARE_LINES) this.spares.push(line);
  }

  private growRaw(): void {
    const next = new Array<CoreLine | undefined>(Math.max(64, Math.min(this.limit, this.raw.length * 2)));
    for (let i = 0; i < this.rawN; i++) next[i] = this.raw[(this.rawHead + i) % this.raw.length];
    this.raw = next;
    this.rawHead = 0;
  }

  /**
   * Appends a line's record after the packed ones: the oldest raw line's, or a new line's when
   * there are none. The common case (Latin-1 text, no extended attributes) is one pass over the
   * cells that allocates nothing.
   */
  private packLine(line: CoreLine): void {
    const seq = this.firstSeq + this.n;
    const d = line._data;
    const cols = line.length;
    // Keep cells through the last one with text or any attribute: all that translateToString and
    // lineToSgr read. The rest are rebuilt as null cells. (`| 0` keeps V8 on int32 arithmetic.)
    let n = cols;
    while (n > 0) {
      const j = (n - 1) * 3;
      if (((d[j]! & CONTENT_HAS_TEXT) | d[j + 1]! | d[j + 2]!) !== 0) break;
      n--;
    }
    if (this.writeAt + 2 + 6 * n > this.cur.length) this.newChunk(); // room for the widest layout
    const u = this.cur;
    const b8 = this.curBytes;
    const w = this.writeAt;
    const at = (w + 2) * 4;
    const runsAt = w + 2 + ((n + 3) >> 2);
    let r = runsAt;
    let odd = 0;
    let pf = 0;
    let pb = 0;
    for (let i = 0; i < n; i++) {
      const j = i * 3;
      const c = d[j]! | 0;
      const f = d[j + 1]! | 0;
      const b = d[j + 2]! | 0;
      odd |= ((c & -256) ^ CONTENT_WIDTH_1) | (b & BG_HAS_EXTENDED);
      b8[at + i] = c;
      if (i === 0 || ((f ^ pf) | (b ^ pb)) !== 0) {
        u[r] = i;
        u[r + 1] = pf = f;
        u[r + 2] = pb = b;
        r += 3;
      }
    }
    if (odd !== 0) r = this.writeFull(line, n, seq, u, w);
    else {
      u[w] = n | (cols << 16);
      u[w + 1] = (line.isWrapped ? F_WRAPPED : 0) | (((r - runsAt) / 3) << 8);
    }
    this.writeAt = r;
    if (this.n === this.ring.length) this.growRing();
    this.ring[(this.head + this.n) % this.ring.length] = (this.firstChunk + this.chunks.length - 1) * CHUNK + w;
    this.n++;
  }

  /** The record for a line with wide or combined characters or extended attributes. */
  private writeFull(line: CoreLine, n: number, seq: number, u: Uint32Array, w: number): number {
    const d = line._data;
    let wide = false;
    let ext = false;
    for (let i = 0; i < n; i++) {
      if (((d[i * 3]! & -256) ^ CONTENT_WIDTH_1) !== 0) wide = true;
      if (d[i * 3 + 2]! & BG_HAS_EXTENDED) ext = true;
    }
    let r = w + 2 + (wide ? n : (n + 3) >> 2);
    const runsAt = r;
    if (wide) for (let i = 0; i < n; i++) u[w + 2 + i] = d[i * 3]!; // else the bytes are written
    let pf = 0;
    let pb = 0;
    let pe = 0;
    let pu = 0;
    for (let i = 0; i < n; i++) {
      const f = d[i * 3 + 1]! | 0;
      const b = d[i * 3 + 2]! | 0;
      const x = b & BG_HAS_EXTENDED ? line._extendedAttrs[i] : undefined;
      if (x) this.extCtor ??= x.constructor as new (ext: number, urlId: number) => CoreExtendedAttrs;
      const e = x ? x._ext | 0 : 0;
      const url = x ? x._urlId : 0;
      if (i === 0 || f !== pf || b !== pb || e !== pe || url !== pu) {
        u[r] = i;
        u[r + 1] = pf = f;
        u[r + 2] = pb = b;
        r += 3;
        if (ext) {
          u[r] = pe = e;
          u[r + 1] = pu = url;
          r += 2;
        }
      }
    }
    const runs = (r - runsAt) / (ext ? 5 : 3);
    u[w] = n | (line.length << 16);
    u[w + 1] = (line.isWrapped ? F_WRAPPED : 0) | (wide ? F_WIDE : 0) | (ext ? F_EXT : 0) | (runs << 8);
    let comb: Record<number, string> | null = null;
    for (const k in line._combined) {
      if (Number(k) < n) (comb ??= {})[Number(k)] = line._combined[Number(k)]!;
    }
    if (comb) this.combined.set(seq, comb);
    return r;
  }

  /** The text of line `i`, trailing blanks trimmed (xterm's translateToString(true)). */
  text(i: number): string {
    if (i >= this.n) {
      const raw = this.rawLine(i);
      return raw ? lineString(raw) : '';
    }
    const loc = this.locate(i);
    if (!loc) return '';
    const { u, b8, w } = loc;
    if (u[w + 1]! & F_WIDE) return this.line(i)!.translateToString(true);
    // Latin-1: one byte per cell, 0 for an empty cell, which reads as a space.
    const at = (w + 2) * 4;
    let end = u[w]! & 0xffff;
    while (end > 0 && b8[at + end - 1] === 0) end--;
    const s = Buffer.from(b8.buffer, b8.byteOffset + at, end).toString('latin1');
    return s.includes('\0') ? s.replaceAll('\0', ' ') : s;
  }

  /** Line `i` rebuilt as an xterm BufferLine, for xterm's own readers. Reused by the next call. */
  line(i: number): CoreLine | null {
    if (i >= this.n) return this.rawLine(i);
    const loc = this.locate(i);
    if (!loc || !this.lineCtor) return null;
    const { u, b8, w } = loc;
    const n = u[w]! & 0xffff;
    const cols = u[w]! >>> 16;
    const flags = u[w + 1]! & 0xff;
    const runs = u[w + 1]! >>> 8;
    const runWords = flags & F_EXT ? 5 : 3;
    const runsAt = w + 2 + (flags & F_WIDE ? n : (n + 3) >> 2);
    if (this.scratch?.length !== cols) this.scratch = new this.lineCtor(cols);
    const s = this.scratch;
    const d = s._data;
    s.isWrapped = (flags & F_WRAPPED) !== 0;
    s._combined = (flags & F_WIDE ? this.combined.get(this.firstSeq + i) : undefined) ?? {};
    s._extendedAttrs = {};
    for (let x = 0; x < n; x++) d[x * 3] = flags & F_WIDE ? u[w + 2 + x]! : b8[(w + 2) * 4 + x]! | CONTENT_WIDTH_1;
    for (let k = 0; k < runs; k++) {
      const at = runsAt + k * runWords;
      const end = k + 1 < runs ? u[at + runWords]! : n;
      const e = flags & F_EXT && u[at + 2]! & BG_HAS_EXTENDED && this.extCtor ? new this.extCtor(u[at + 3]!, u[at + 4]!) : null;
      for (let x = u[at]!; x < end; x++) {
        d[x * 3 + 1] = u[at + 1]!;
        d[x * 3 + 2] = u[at + 2]!;
        if (e) s._extendedAttrs[x] = e;
      }
    }
    for (let x = n; x < cols; x++) {
      d[x * 3] = CONTENT_WIDTH_1; // a null cell: no text, width 1, default colours
      d[x * 3 + 1] = 0;
      d[x * 3 + 2] = 0;
    }
    return s;
  }

  private rawLine(i: number): CoreLine | null {
    if (i >= this.count) return null;
    return this.raw[(this.rawHead + i - this.n) % this.raw.length] ?? null;
  }

  private locate(i: number): { u: Uint32Array; b8: Uint8Array; w: number } | null {
    if (i < 0 || i >= this.n) return null;
    const pos = this.ring[(this.head + i) % this.ring.length]!;
    const c = Math.floor(pos / CHUNK) - this.firstChunk;
    return { u: this.chunks[c]!, b8: this.chunkBytes[c]!, w: pos % CHUNK };
  }

  private newChunk(): void {
    this.cur = this.spareChunk ?? new Uint32Array(CHUNK);
    this.curBytes = new Uint8Array(this.cur.buffer);
    this.spareChunk = null;
    this.chunks.push(this.cur);
    this.chunkBytes.push(this.curBytes);
    this.writeAt = 0;
  }

  private growRing(): void {
    const next = new Float64Array(Math.max(64, Math.min(this.limit, this.ring.length * 2)));
    for (let i = 0; i < this.n; i++) next[i] = this.ring[(this.head + i) % this.ring.length]!;
    this.ring = next;
    this.head = 0;
  }

  /** Drops line 0; returns it if it was still xterm's object. */
  private dropOldest(): CoreLine | undefined {
    if (this.n === 0) {
      this.firstSeq++;
      return this.shiftRaw();
    }
    if (this.combined.size > 0) this.combined.delete(this.firstSeq);
    this.head = (this.head + 1) % this.ring.length;
    this.n--;
    this.firstSeq++;
    // Release chunks no kept line points into (the one being written always stays).
    const first = this.n > 0 ? Math.floor(this.ring[this.head]! / CHUNK) : this.firstChunk + this.chunks.length - 1;
    while (this.firstChunk < first) {
      this.spareChunk = this.chunks.shift()!;
      this.chunkBytes.shift();
      this.firstChunk++;
    }
    return undefined;
  }
}

/** True when `line` looks like the BufferLine this module was written against. */
export function isCoreLine(line: unknown): line is CoreLine {
  const l = line as Partial<CoreLine> | null;
  return !!l && l._data instanceof Uint32Array && typeof l._combined === 'object' && typeof l._extendedAttrs === 'object' && typeof l.length === 'number' && typeof l.loadCell === 'function' && typeof l.translateToString === 'function';
}
