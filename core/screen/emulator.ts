// One headless emulator per pane: the screen truth that capture, waits, agent detection and the
// TUI all read. It parses the PTY's bytes, keeps the title, the modes and the OSC reports the
// daemon interprets, and exposes lines and cells. It never touches the PTY itself.
import xtermHeadless from '@xterm/headless';
import serializeAddon from '@xterm/addon-serialize';
import type { IBufferLine, IBufferCell, Terminal as XTerminal } from '@xterm/headless';

const { Terminal } = xtermHeadless;
const { SerializeAddon } = serializeAddon;

export interface Notification {
  /** Which sequence carried it: 9, 777 or 99. */
  osc: 9 | 777 | 99;
  title: string;
  body: string;
}

/** OSC 9;4: state 0 remove, 1 set, 2 error, 3 indeterminate, 4 paused. */
export interface ProgressReport {
  state: 0 | 1 | 2 | 3 | 4;
  percent: number | null;
}

export interface PromptMark {
  /** OSC 133 A (prompt start), B (input start), C (output start), D (command done). */
  kind: 'A' | 'B' | 'C' | 'D';
  exitCode: number | null;
}

export interface EmulatorHooks {
  onTitle?(title: string): void;
  onCwd?(uri: string): void;
  onNotification?(n: Notification): void;
  onProgress?(p: ProgressReport): void;
  onPromptMark?(m: PromptMark): void;
  /** OSC 7501 Program Status payload, unparsed (core/agent parses it). */
  onProgramStatus?(payload: string): void;
  onBell?(): void;
}

export interface EmulatorOptions {
  cols: number;
  rows: number;
  scrollback: number;
}

export class Emulator {
  readonly term: XTerminal;
  private readonly serializer: InstanceType<typeof SerializeAddon>;
  private hooks: EmulatorHooks = {};
  private kittyPending = new Map<string, { title: string; body: string }>();
  /** Bumps every time parsed output changed the buffer; readers compare it to skip clean screens. */
  generation = 0;
  title = '';
  lastProgress: ProgressReport | null = null;

  constructor(opts: EmulatorOptions) {
    this.term = new Terminal({
      cols: opts.cols,
      rows: opts.rows,
      scrollback: opts.scrollback,
      allowProposedApi: true,
      // Convert nothing: the pane's program decides its own newlines.
      convertEol: false,
    });
    const wb = (this.term as unknown as { _core?: { _writeBuffer?: { writeSync?: (d: string | Uint8Array) => void } } })._core?._writeBuffer;
    this.syncParse = typeof wb?.writeSync === 'function' ? wb.writeSync.bind(wb) : null;
    this.serializer = new SerializeAddon();
    this.term.loadAddon(this.serializer);
    this.term.onTitleChange((t) => {
      this.title = t;
      this.hooks.onTitle?.(t);
    });
    this.term.onBell(() => this.hooks.onBell?.());
    this.registerOsc();
  }

  setHooks(hooks: EmulatorHooks): void {
    this.hooks = hooks;
  }

  /** Parses output. `done` runs once this chunk has been fully parsed (flow control hangs off it). */
  write(data: string | Uint8Array, done?: () => void): void {
    if (this.syncParse) {
      this.syncParse(data);
      this.generation++;
      done?.();
      return;
    }
    this.term.write(data, () => {
      this.generation++;
      done?.();
    });
  }

  /**
   * The parser's synchronous entry. The public write() queues and then parses in 12 ms slices
   * separated by timers, which left the daemon idle a quarter of the time under a flood; the
   * window already batches and bounds what it hands over, so it parses synchronously instead.
   * We register no async OSC handlers, which is what makes the synchronous path unsafe in xterm.
   * Falls back to write() should a future xterm drop it (the version is pinned).
   */
  private readonly syncParse: ((d: string | Uint8Array) => void) | null;

  resize(cols: number, rows: number): void {
    this.term.resize(cols, rows);
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
    return this.term.buffer.active.baseY;
  }

  /** Total lines in the buffer (scrollback + screen). */
  get bufferLength(): number {
    return this.term.buffer.active.length;
  }

  lineAt(index: number): IBufferLine | undefined {
    return this.term.buffer.active.getLine(index);
  }

  /** A line's text with trailing blanks trimmed, wrapped continuations not joined. */
  lineText(index: number): string {
    return this.term.buffer.active.getLine(index)?.translateToString(true) ?? '';
  }

  /** The visible screen, one string per row. */
  screenLines(): string[] {
    const top = this.viewportTop;
    const out: string[] = [];
    for (let y = 0; y < this.term.rows; y++) out.push(this.lineText(top + y));
    return out;
  }

  /** The last `n` lines of the buffer ending at the bottom of the screen (scrollback included). */
  tailLines(n: number): string[] {
    const end = this.viewportTop + this.term.rows;
    const start = Math.max(0, end - n);
    const out: string[] = [];
    for (let i = start; i < end; i++) out.push(this.lineText(i));
    return out;
  }

  /** Lines [start, end) of the whole buffer as text. */
  rangeLines(start: number, end: number): string[] {
    const out: string[] = [];
    const s = Math.max(0, start);
    const e = Math.min(this.bufferLength, end);
    for (let i = s; i < e; i++) out.push(this.lineText(i));
    return out;
  }

  /** One line with its colours and attributes as SGR escapes (what `capture-pane -e` prints). */
  lineSgr(index: number): string {
    const line = this.lineAt(index);
    if (!line) return '';
    return lineToSgr(line, this.term.buffer.active.getNullCell());
  }

  /** A serialized screen (with modes) for a new viewer: a snapshot, not a byte log. */
  serialize(scrollback = 0): string {
    return this.serializer.serialize({ scrollback });
  }

  /** A marker that follows a line as the buffer scrolls (used by waits to read output since they began). */
  markCursorLine(): { line: number; dispose(): void } | null {
    const m = this.term.registerMarker(0);
    if (!m) return null;
    return {
      get line() {
        return m.line;
      },
      dispose: () => m.dispose(),
    };
  }

  dispose(): void {
    this.hooks = {};
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
      this.hooks.onNotification?.({ osc: 9, title: '', body: data });
      return true;
    });
    p.registerOscHandler(777, (data) => {
      // 777;notify;TITLE;BODY (rxvt-unicode, used by several harnesses)
      const parts = data.split(';');
      if (parts[0] === 'notify') {
        this.hooks.onNotification?.({ osc: 777, title: parts[1] ?? '', body: parts.slice(2).join(';') });
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
      // Bound the chunking a pane can make us keep.
      if (this.kittyPending.size < 16 && acc.title.length + acc.body.length < 4096) this.kittyPending.set(id, acc);
      return;
    }
    this.kittyPending.delete(id);
    this.hooks.onNotification?.({ osc: 99, title: acc.title, body: acc.body });
  }
}

function safeBase64(s: string): string {
  try {
    return Buffer.from(s, 'base64').toString('utf8');
  } catch {
    return '';
  }
}

export function parseProgress(data: string): ProgressReport | null {
  const parts = data.split(';');
  if (parts[0] !== '4') return null;
  const st = Number.parseInt(parts[1] ?? '0', 10);
  if (!(st >= 0 && st <= 4)) return null;
  const pct = parts[2] !== undefined && parts[2] !== '' ? Number.parseInt(parts[2], 10) : NaN;
  return {
    state: st as ProgressReport['state'],
    percent: Number.isFinite(pct) ? Math.max(0, Math.min(100, pct)) : null,
  };
}

/** SGR rendering of one buffer line, trailing default blanks dropped. */
export function lineToSgr(line: IBufferLine, nullCell: IBufferCell): string {
  let out = '';
  let prev = '';
  let cell: IBufferCell | undefined;
  // Find the last non-blank or styled cell so trailing default space is not emitted.
  let last = -1;
  for (let x = line.length - 1; x >= 0; x--) {
    cell = line.getCell(x, cell ?? nullCell);
    if (!cell) continue;
    if (cell.getChars() !== '' || !cell.isAttributeDefault() || !cell.isBgDefault()) {
      last = x;
      break;
    }
  }
  for (let x = 0; x <= last; x++) {
    cell = line.getCell(x, cell ?? nullCell);
    if (!cell) continue;
    if (cell.getWidth() === 0) continue; // second half of a wide char
    const sgr = cellSgr(cell);
    if (sgr !== prev) {
      out += `\x1b[0${sgr}m`;
      prev = sgr;
    }
    out += cell.getChars() || ' ';
  }
  if (prev !== '') out += '\x1b[0m';
  return out;
}

function cellSgr(c: IBufferCell): string {
  let s = '';
  if (c.isBold()) s += ';1';
  if (c.isDim()) s += ';2';
  if (c.isItalic()) s += ';3';
  if (c.isUnderline()) s += ';4';
  if (c.isBlink()) s += ';5';
  if (c.isInverse()) s += ';7';
  if (c.isInvisible()) s += ';8';
  if (c.isStrikethrough()) s += ';9';
  if (c.isFgRGB()) {
    const v = c.getFgColor();
    s += `;38;2;${(v >> 16) & 255};${(v >> 8) & 255};${v & 255}`;
  } else if (c.isFgPalette()) {
    const v = c.getFgColor();
    s += v < 8 ? `;${30 + v}` : v < 16 ? `;${90 + v - 8}` : `;38;5;${v}`;
  }
  if (c.isBgRGB()) {
    const v = c.getBgColor();
    s += `;48;2;${(v >> 16) & 255};${(v >> 8) & 255};${v & 255}`;
  } else if (c.isBgPalette()) {
    const v = c.getBgColor();
    s += v < 8 ? `;${40 + v}` : v < 16 ? `;${100 + v - 8}` : `;48;5;${v}`;
  }
  return s;
}
