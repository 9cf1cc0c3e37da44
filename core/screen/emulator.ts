// One headless emulator per pane: the screen truth that capture, waits, agent detection and the
// TUI all read. It parses the PTY's bytes, keeps the title, the modes and the OSC reports the
// daemon interprets, and exposes lines and cells. It never touches the PTY itself.
//
// Scrollback lives in two places: xterm keeps the newest SCROLLBACK_HOT_LINES in its own cells
// (and reflows them on resize); every older line, up to the configured scrollback, goes to a
// compact store (scrollback.ts) at the moment xterm drops it. Readers see one index space: the
// store's lines, oldest first, then xterm's buffer.
import xtermHeadless from '@xterm/headless';
import serializeAddon from '@xterm/addon-serialize';
import type { IMarker, Terminal as XTerminal } from '@xterm/headless';
import { SCROLLBACK_HOT_LINES, SCROLLBACK_PACK_DELAY_MS, RECENT_NOTIFICATIONS, RECENT_NOTIFICATION_CHARS } from '../limits.js';
import { Scrollback, isCoreLine, type CoreLine } from './scrollback.js';
import { RowTextCache } from './row-text.js';
import { installFastPrint } from './fast-print.js';
import { plainRunAt } from './plain-run.js';
import { lineString } from './line-text.js';
import { lineToSgr } from './sgr.js';
import { parseProgress, safeBase64, type Notification, type ProgressReport, type PromptMark } from './osc-reports.js';

const { Terminal } = xtermHeadless;
const { SerializeAddon } = serializeAddon;

export interface EmulatorHooks {
  onTitle?(title: string): void;
  onCwd?(uri: string): void;
  onNotification?(n: Notification): void;
  onProgress?(p: ProgressReport): void;
  onPromptMark?(m: PromptMark): void;
  /** OSC 7501 Program Status payload, unparsed (core/agent parses it). */
  onProgramStatus?(payload: string): void;
  onBell?(): void;
  /** The terminal's answer to a query the program made (CSI 6n, DA, DECRQM): goes back to the program. */
  onReply?(data: string): void;
}

export interface EmulatorOptions {
  cols: number;
  rows: number;
  scrollback: number;
}

/**
 * xterm 6.0.0's CircularList of BufferLines (`_core.buffers.normal.lines`), as far as it is used
 * here. The version is pinned exactly; if these are missing, xterm keeps the whole scrollback.
 */
interface CoreLines {
  length: number;
  maxLength: number;
  get(i: number): CoreLine | undefined;
  set(i: number, line: CoreLine): void;
  recycle(): CoreLine;
  push(line: CoreLine): void;
  splice(start: number, deleteCount: number, ...items: CoreLine[]): void;
}

/** A cursor-line marker: xterm's while the line is in xterm, a store sequence number after. */
interface Mark {
  inner: IMarker;
  /** Store sequence number once the line moved to the store, else -1. */
  seq: number;
  /** The buffer was reset (RIS): the line is gone. */
  dead: boolean;
}

export class Emulator {
  readonly term: XTerminal;
  private readonly serializer: InstanceType<typeof SerializeAddon>;
  private readonly rowText: RowTextCache;
  private hooks: EmulatorHooks = {};
  private kittyPending = new Map<string, { title: string; body: string }>();
  /** Bumps every time parsed output changed the buffer; readers compare it to skip clean screens. */
  generation = 0;
  title = '';
  lastProgress: ProgressReport | null = null;
  /** The last few OSC 9/777/99 notifications, oldest first (capture-state records them). */
  readonly recentNotifications: Array<Notification & { at: number }> = [];
  /** Lines older than xterm's hot scrollback; null when xterm keeps the whole scrollback. */
  private readonly store: Scrollback | null = null;
  /** xterm's own scrollback: the hot zone. */
  private readonly hot: number;
  /** The normal buffer's line list, hooked so the lines it drops go to the store. */
  private lines: CoreLines | null = null;
  /** Cursor-line markers whose lines are still in xterm (see keep). */
  private readonly marks = new Set<Mark>();
  private packTimer: NodeJS.Timeout | null = null;
  /** Lines pushed out of xterm since burstStart: more than the store holds is a flood. */
  private burst = 0;
  private burstStart = 0;

  constructor(opts: EmulatorOptions) {
    this.hot = Math.min(opts.scrollback, SCROLLBACK_HOT_LINES);
    this.term = new Terminal({
      cols: opts.cols,
      rows: opts.rows,
      scrollback: this.hot,
      allowProposedApi: true,
      // Convert nothing: the pane's program decides its own newlines.
      convertEol: false,
    });
    const wb = (this.term as unknown as { _core?: { _writeBuffer?: { writeSync?: (d: string | Uint8Array) => void } } })._core?._writeBuffer;
    this.syncParse = typeof wb?.writeSync === 'function' ? wb.writeSync.bind(wb) : null;
    installFastPrint(this.term);
    this.rowText = new RowTextCache(this.term);
    this.serializer = new SerializeAddon();
    this.term.loadAddon(this.serializer);
    this.term.onTitleChange((t) => {
      this.title = t;
      this.hooks.onTitle?.(t);
    });
    this.term.onBell(() => this.hooks.onBell?.());
    // What the terminal answers the program (cursor position, device attributes, mode reports):
    // the pane's program asks the emulator, as a program under tmux asks tmux.
    this.term.onData((d) => this.hooks.onReply?.(d));
    this.registerOsc();
    if (opts.scrollback > this.hot) {
      if (this.normalLines()) {
        this.store = new Scrollback(opts.scrollback - this.hot);
        this.attach();
        this.registerClears();
      } else {
        this.term.options.scrollback = opts.scrollback;
      }
    }
  }

  /** The normal buffer's line list, if xterm's internals are the ones this was written against. */
  private normalLines(): CoreLines | null {
    const core = (this.term as unknown as { _core?: { buffers?: { normal?: { lines?: Partial<CoreLines> } } } })._core;
    const l = core?.buffers?.normal?.lines;
    if (!l || typeof l.get !== 'function' || typeof l.set !== 'function' || typeof l.recycle !== 'function' || typeof l.push !== 'function' || typeof l.splice !== 'function') return null;
    return isCoreLine(l.get(0)) ? (l as CoreLines) : null;
  }

  /**
   * Hooks the normal buffer's line list so that every line xterm is about to drop from the top
   * goes to the store first. These are the only ways xterm 6.0.0 drops a line while parsing:
   * recycle (a scroll at a full buffer), splice past maxLength (a scroll above a bottom margin),
   * push on a full list (unused today). Resize drops lines too; resize() handles it. In each, xterm
   * holds no reference to the dropped line afterwards, so the store takes the object itself.
   */
  private attach(): void {
    const lines = this.normalLines();
    const store = this.store;
    if (!lines || !store || lines === this.lines) return;
    this.lines = lines;
    const proto = Object.getPrototypeOf(lines) as CoreLines;
    const keep = (j: number, line: CoreLine): CoreLine | null => this.keep(j, line);
    lines.recycle = function (this: CoreLines) {
      // xterm copies the new bottom line into whatever is in slot 0. If the store took the old
      // line itself, slot 0 gets a line the store is done with.
      const swap = keep(0, this.get(0)!);
      if (swap) this.set(0, swap);
      return proto.recycle.call(this);
    };
    lines.push = function (this: CoreLines, line: CoreLine) {
      if (this.length === this.maxLength) keep(0, this.get(0)!);
      proto.push.call(this, line);
    };
    lines.splice = function (this: CoreLines, start: number, del: number, ...items: CoreLine[]) {
      // After deleting and inserting, the first `over` lines go; p indexes that result.
      const over = this.length - del + items.length - this.maxLength;
      for (let p = 0; p < over; p++) {
        if (p < start) keep(p, this.get(p)!);
        else if (p < start + items.length) keep(-1, items[p - start]!);
        else keep(p - items.length + del, this.get(p - items.length + del)!);
      }
      proto.splice.call(this, start, del, ...items);
    };
  }

  /**
   * Gives xterm's line `j` (about to be dropped) to the store; markers on it follow. Outside a
   * flood the line is packed at once and null returned. In one (more lines than the store holds
   * within SCROLLBACK_PACK_DELAY_MS: most will be dropped unpacked), or while lines taken in one
   * are still unpacked (to keep the order), the store takes the object and this returns one for
   * xterm to use in its place.
   */
  private keep(j: number, line: CoreLine): CoreLine | null {
    const store = this.store!;
    let out: CoreLine | null = null;
    if (store.pending > 0 || ++this.burst > store.limit) out = store.add(line) ?? store.spare();
    else store.addPacked(line);
    if (this.marks.size > 0) {
      // `marks` holds only markers still in xterm, so one a caller forgets costs nothing for long.
      const seq = store.lastSeq;
      for (const m of this.marks) {
        if (m.inner.isDisposed) this.marks.delete(m);
        else if (m.inner.line === j) {
          m.seq = seq;
          this.marks.delete(m);
        }
      }
    }
    return out;
  }

  /** The store follows xterm's clears; the handlers return false so xterm still does its part. */
  private registerClears(): void {
    const ed3 = (params: (number | number[])[]) => {
      // ED 3 / DECSED 3 erase the saved lines of the active buffer; only the normal one has any.
      if (params[0] === 3 && this.term.buffer.active.type === 'normal') this.store?.clear();
      return false;
    };
    this.term.parser.registerCsiHandler({ final: 'J' }, ed3);
    this.term.parser.registerCsiHandler({ prefix: '?', final: 'J' }, ed3);
    // RIS (ESC c) makes new buffers: the store goes with the old ones, and the new list is hooked.
    this.term.buffer.onBufferChange(() => {
      if (this.normalLines() === this.lines) return;
      this.store?.clear(); // marks that moved there now read -1
      for (const m of this.marks) m.dead = true;
      this.marks.clear();
      this.attach();
    });
  }

  /** Lines of the store before xterm's own, in the index space every reader uses. */
  private get offset(): number {
    return this.store && this.term.buffer.active.type === 'normal' ? this.store.count : 0;
  }

  setHooks(hooks: EmulatorHooks): void {
    this.hooks = hooks;
  }

  /**
   * Where a run of `n` printable ASCII characters written now would be printed, in plain cells on
   * the cursor's row and changing nothing else (plain-run.ts); null when it would not, or when
   * the parse is not synchronous (xterm's own queue may hold output not yet parsed).
   */
  plainRunAt(n: number): { x: number; y: number } | null {
    return this.syncParse ? plainRunAt(this.term, n) : null;
  }

  /** Parses output. `done` runs once this chunk has been fully parsed (flow control hangs off it). */
  write(data: string | Uint8Array, done?: () => void): void {
    if (this.store) this.clock();
    if (this.syncParse) {
      this.syncParse(data);
      this.generation++;
      this.schedulePack();
      done?.();
      return;
    }
    this.term.write(data, () => {
      this.generation++;
      this.schedulePack();
      done?.();
    });
  }

  /** Stamps the time on lines that leave xterm from now on, and counts them per window of time. */
  private clock(): void {
    const now = performance.now(); // monotonic: a clock step must not hold lines unpacked
    this.store!.now = now;
    if (now - this.burstStart >= SCROLLBACK_PACK_DELAY_MS) {
      this.burstStart = now;
      this.burst = 0;
    }
  }

  /** Packs the store's lines once they are SCROLLBACK_PACK_DELAY_MS old (see scrollback.ts). */
  private schedulePack(): void {
    if (this.packTimer || !this.store || this.store.pending === 0) return;
    this.packTimer = setTimeout(() => {
      this.packTimer = null;
      this.store?.pack(performance.now() - SCROLLBACK_PACK_DELAY_MS);
      this.schedulePack();
    }, SCROLLBACK_PACK_DELAY_MS);
    this.packTimer.unref();
  }

  /** Packs every scrollback line now rather than on the timer (tests and measurements). */
  packScrollback(): void {
    this.store?.pack();
  }

  /**
   * The parser's synchronous entry. The public write() queues and then parses in 12 ms slices
   * separated by timers, which left the daemon idle a quarter of the time under a flood; the
   * window already batches and bounds what it hands over, so it parses synchronously instead.
   * We register no async OSC handlers, which is what makes the synchronous path unsafe in xterm.
   * Falls back to write() should a future xterm drop it (the version is pinned).
   */
  private readonly syncParse: ((d: string | Uint8Array) => void) | null;

  /** xterm's core, for its active buffer's line objects (xterm 6.0.0's `_core.buffer.lines`). */
  private get activeCore(): { buffer?: { lines?: { get(i: number): unknown } } } | undefined {
    return (this.term as unknown as { _core?: { buffer?: { lines?: { get(i: number): unknown } } } })._core;
  }

  resize(cols: number, rows: number): void {
    const lines = this.lines;
    if (this.store && lines && (cols !== this.term.cols || rows !== this.term.rows)) {
      // Reflow to fewer columns splits lines, and xterm would drop the overflow past its
      // scrollback without a word. So it gets room for all of them first; then the lines past the
      // hot zone go to the store, and restoring the scrollback makes xterm trim exactly those.
      const o = this.term.options;
      o.scrollback = this.hot + (lines.length + rows) * Math.ceil(this.term.cols / Math.max(1, cols));
      this.term.resize(cols, rows);
      const excess = lines.length - (this.term.rows + this.hot);
      this.clock();
      for (let j = 0; j < excess; j++) this.keep(j, lines.get(j)!);
      o.scrollback = this.hot;
      this.schedulePack();
    } else {
      this.term.resize(cols, rows);
    }
    this.generation++;
  }

  get cols(): number {
    return this.term.cols;
  }

  get rows(): number {
    return this.term.rows;
  }

  get modes() {
    const m = this.term.modes;
    return {
      bracketedPaste: m.bracketedPasteMode,
      applicationCursorKeys: m.applicationCursorKeysMode,
      applicationKeypad: m.applicationKeypadMode,
      mouseTracking: m.mouseTrackingMode,
      sendFocus: m.sendFocusMode,
      alternateScreen: this.term.buffer.active.type === 'alternate',
      cursorHidden: !this.cursorVisible(),
    };
  }

  private cursorVisible(): boolean {
    // The public API has no cursor-visibility flag; the core service keeps it (DECTCEM).
    const core = (this.term as unknown as { _core?: { coreService?: { isCursorHidden?: boolean } } })._core;
    return !(core?.coreService?.isCursorHidden ?? false);
  }

  get cursor(): { x: number; y: number } {
    const b = this.term.buffer.active;
    return { x: b.cursorX, y: b.cursorY };
  }

  /** Index of the first visible row inside the whole buffer. */
  get viewportTop(): number {
    return this.offset + this.term.buffer.active.baseY;
  }

  /** Total lines in the buffer (scrollback + screen). */
  get bufferLength(): number {
    return this.offset + this.term.buffer.active.length;
  }

  /** A line's text with trailing blanks trimmed, wrapped continuations not joined. */
  lineText(index: number): string {
    const off = this.offset;
    if (index < off) return this.store!.text(index);
    const b = this.term.buffer.active;
    return this.xtermLineText(index - off, b.baseY, b.viewportY === b.baseY);
  }

  /**
   * Line `k` of xterm's active buffer. A row of the screen comes from the cache, which holds it
   * until xterm says the row changed; the viewport is never scrolled away from the bottom here
   * (`atBottom`), so screen row y is refresh row y.
   */
  private xtermLineText(k: number, baseY: number, atBottom: boolean): string {
    const y = k - baseY;
    const cached = atBottom && y >= 0 && y < this.term.rows;
    let t = cached ? this.rowText.get(y) : undefined;
    if (t === undefined) {
      t = this.textAt(k);
      if (cached) this.rowText.set(y, t);
    }
    return t;
  }

  /** Line `i` of xterm's active buffer as text (see line-text.ts), through the public API when xterm is not the expected one. */
  private textAt(i: number): string {
    const line = this.activeCore?.buffer?.lines?.get(i);
    if (line !== undefined && isCoreLine(line)) return lineString(line);
    return this.term.buffer.active.getLine(i)?.translateToString(true) ?? '';
  }

  /** The visible screen, one string per row. */
  screenLines(): string[] {
    const b = this.term.buffer.active;
    const base = b.baseY;
    const rows = this.term.rows;
    const out: string[] = new Array(rows);
    // Rows the program has not touched since the last read come from the cache (see row-text.ts).
    const atBottom = b.viewportY === base;
    for (let y = 0; y < rows; y++) out[y] = this.xtermLineText(base + y, base, atBottom);
    return out;
  }

  /** The last `n` lines of the buffer ending at the bottom of the screen (scrollback included). */
  tailLines(n: number): string[] {
    const end = this.viewportTop + this.term.rows;
    return this.rangeLines(Math.max(0, end - n), end);
  }

  /** Lines [start, end) of the whole buffer as text. */
  rangeLines(start: number, end: number): string[] {
    const out: string[] = [];
    const off = this.offset;
    const b = this.term.buffer.active;
    const e = Math.min(off + b.length, end);
    let i = Math.max(0, start);
    for (; i < e && i < off; i++) out.push(this.store!.text(i));
    const base = b.baseY;
    const atBottom = b.viewportY === base;
    for (; i < e; i++) out.push(this.xtermLineText(i - off, base, atBottom));
    return out;
  }

  /** One line with its colours and attributes as SGR escapes (what `capture-pane -e` prints). */
  lineSgr(index: number): string {
    const nullCell = this.term.buffer.active.getNullCell();
    const off = this.offset;
    if (index < off) {
      const core = this.store!.line(index);
      if (!core) return '';
      return lineToSgr({ length: core.length, getCell: (x, cell) => (core.loadCell(x, cell), cell) }, nullCell);
    }
    const line = this.term.buffer.active.getLine(index - off);
    return line ? lineToSgr(line, nullCell) : '';
  }

  /**
   * A serialized screen (with modes) for a new viewer: a snapshot, not a byte log. Scrollback
   * beyond xterm's hot zone comes from the store as plain SGR lines (their wrapping is not kept).
   */
  serialize(scrollback = 0): string {
    const body = this.serializer.serialize({ scrollback });
    const off = this.offset;
    const extra = Math.min(off, scrollback + this.term.rows - this.term.buffer.active.length);
    let head = '';
    for (let i = off - Math.max(0, extra); i < off; i++) head += this.lineSgr(i) + '\r\n';
    return head + body;
  }

  /** A marker that follows a line as the buffer scrolls (used by waits to read output since they began). */
  markCursorLine(): { line: number; dispose(): void } | null {
    const inner = this.term.registerMarker(0);
    if (!inner) return null;
    const mark: Mark = { inner, seq: -1, dead: false };
    if (this.store) this.marks.add(mark);
    const store = this.store;
    return {
      get line() {
        if (mark.dead) return -1;
        if (mark.seq >= 0) return store!.indexOfSeq(mark.seq);
        return inner.isDisposed ? -1 : (store?.count ?? 0) + inner.line;
      },
      dispose: () => {
        inner.dispose();
        this.marks.delete(mark);
      },
    };
  }

  dispose(): void {
    this.hooks = {};
    if (this.packTimer) clearTimeout(this.packTimer);
    this.packTimer = null;
    this.marks.clear();
    this.store?.clear();
    this.term.dispose();
  }

  private registerOsc(): void {
    const p = this.term.parser;
    p.registerOscHandler(7, (data) => {
      this.hooks.onCwd?.(data);
      return true;
    });
    p.registerOscHandler(9, (data) => {
      if (data.startsWith('4;') || data === '4') {
        const prog = parseProgress(data);
        if (prog) {
          this.lastProgress = prog;
          this.hooks.onProgress?.(prog);
        }
        return true;
      }
      this.notify({ osc: 9, title: '', body: data });
      return true;
    });
    p.registerOscHandler(777, (data) => {
      // 777;notify;TITLE;BODY (rxvt-unicode, used by several harnesses)
      const parts = data.split(';');
      if (parts[0] === 'notify') {
        this.notify({ osc: 777, title: parts[1] ?? '', body: parts.slice(2).join(';') });
      }
      return true;
    });
    p.registerOscHandler(99, (data) => {
      this.kittyNotification(data);
      return true;
    });
    p.registerOscHandler(133, (data) => {
      const kind = data[0];
      if (kind === 'A' || kind === 'B' || kind === 'C' || kind === 'D') {
        let exitCode: number | null = null;
        if (kind === 'D') {
          const n = Number.parseInt(data.split(';')[1] ?? '', 10);
          exitCode = Number.isFinite(n) ? n : null;
        }
        this.hooks.onPromptMark?.({ kind, exitCode });
      }
      return true;
    });
    p.registerOscHandler(7501, (data) => {
      this.hooks.onProgramStatus?.(data);
      return true;
    });
  }

  /** Kitty's OSC 99: `metadata;payload`, chunked by `i=` id with `d=0` meaning more to come. */
  private kittyNotification(data: string): void {
    const semi = data.indexOf(';');
    const meta = semi >= 0 ? data.slice(0, semi) : '';
    const payload = semi >= 0 ? data.slice(semi + 1) : data;
    const kv = new Map<string, string>();
    for (const part of meta.split(':')) {
      const eq = part.indexOf('=');
      if (eq > 0) kv.set(part.slice(0, eq), part.slice(eq + 1));
    }
    const id = kv.get('i') ?? '';
    const done = kv.get('d') !== '0';
    const which = kv.get('p') ?? 'title';
    if (which !== 'title' && which !== 'body') return;
    const text = kv.get('e') === '1' ? safeBase64(payload) : payload;
    const acc = this.kittyPending.get(id) ?? { title: '', body: '' };
    acc[which] += text;
    if (!done) {
      // Bound the chunking a pane can make us keep: a notification past it is dropped whole
      // (acc may already be held, so it is taken out rather than only not added).
      if (acc.title.length + acc.body.length >= 4096) this.kittyPending.delete(id);
      else if (this.kittyPending.has(id) || this.kittyPending.size < 16) this.kittyPending.set(id, acc);
      return;
    }
    this.kittyPending.delete(id);
    this.notify({ osc: 99, title: acc.title, body: acc.body });
  }

  private notify(n: Notification): void {
    const r = this.recentNotifications;
    r.push({ osc: n.osc, title: n.title.slice(0, RECENT_NOTIFICATION_CHARS), body: n.body.slice(0, RECENT_NOTIFICATION_CHARS), at: Date.now() });
    if (r.length > RECENT_NOTIFICATIONS) r.shift();
    this.hooks.onNotification?.(n);
  }
}
