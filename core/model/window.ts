// A window: one pane's process and its emulator, joined by flow control, plus the plain data the
// model keeps about it (name, session, workspace, size, exit status).
import { Emulator, type EmulatorHooks } from '../screen/emulator.js';
import type { Notification } from '../screen/osc-reports.js';
import type { ExitStatus, WindowProcess } from '../pty/window-process.js';
import { readCwd, readComm, foregroundPgid, readArgv } from '../pty/procfs.js';
import { shortId } from '../ids.js';
import { ECHO_PARSE_NOW_BYTES, PTY_HIGH_WATERMARK_BYTES, PTY_LOW_WATERMARK_BYTES, PARSE_SLICE_BYTES } from '../limits.js';

export interface WindowInit {
  id: string;
  name: string;
  sessionId: string;
  workspace: number;
  order: number;
  argv: string[];
  /** The folder the pane's first process started in. */
  startCwd: string;
  cols: number;
  rows: number;
  scrollback: number;
  paneToken: string;
  /** True when the window runs the user's shell (no command given). */
  isShell: boolean;
  /** The linked host its process runs on (`new-window --host`); none: this machine. */
  host?: string | null;
}

/** How long after spawning /proc still shows the daemon's own folder for a pane. */
const SPAWN_SETTLE_MS = 1000;

/** After output was parsed; `chunk` is the bytes just parsed (a pane stream over a link relays them). */
export type OutputListener = (w: Window, chunk: Buffer) => void;

/** A few bytes into an idle pane, before they are parsed (see onBeforeParse); true: they were shown already. */
export type BeforeParseListener = (w: Window, chunk: Buffer) => boolean;

export class Window {
  readonly id: string;
  readonly shortId: string;
  name: string;
  sessionId: string;
  workspace: number;
  readonly order: number;
  readonly argv: string[];
  readonly startCwd: string;
  readonly paneToken: string;
  readonly isShell: boolean;
  /** The linked host the process runs on; null: this machine. */
  readonly host: string | null;
  readonly createdAt = Date.now();
  cols: number;
  rows: number;
  readonly screen: Emulator;
  process: WindowProcess | null = null;
  exit: ExitStatus | null = null;
  closed = false;
  /** Last folder the pane reported with OSC 7 (a hint only; /proc wins). */
  oscCwd: string | null = null;
  /** Wall time of the last chunk of output the emulator parsed. */
  lastOutputAt = 0;
  /** Bytes of output parsed since the window opened. */
  outputBytes = 0;
  /** Per-window attributes later services keep and persist (grants, agent session, ...). */
  readonly attrs = new Map<string, unknown>();

  private pending = 0;
  private inbox: Buffer[] = [];
  private flushScheduled = false;
  private lane: Promise<unknown> = Promise.resolve();
  private readonly outputListeners = new Set<OutputListener>();
  private readonly beforeParseListeners = new Set<BeforeParseListener>();
  private readonly hookSets = new Set<EmulatorHooks>();

  constructor(init: WindowInit) {
    this.id = init.id;
    this.shortId = shortId(init.id);
    this.name = init.name;
    this.sessionId = init.sessionId;
    this.workspace = init.workspace;
    this.order = init.order;
    this.argv = init.argv;
    this.startCwd = init.startCwd;
    this.paneToken = init.paneToken;
    this.isShell = init.isShell;
    this.host = init.host ?? null;
    this.cols = init.cols;
    this.rows = init.rows;
    this.screen = new Emulator({ cols: init.cols, rows: init.rows, scrollback: init.scrollback });
    this.screen.setHooks(this.fanOutHooks());
  }

  /** Joins a started process to the emulator. PTY bytes flow only through here. */
  attachProcess(p: WindowProcess, onExit: (w: Window, s: ExitStatus) => void): void {
    this.process = p;
    p.onData((data) => this.feed(data));
    p.onExit((s) => {
      this.exit = s;
      onExit(this, s);
    });
  }

  /**
   * Output into the emulator with backpressure: past the high watermark of unparsed bytes the
   * PTY is paused, so a program printing at full speed blocks in write(2) instead of growing us.
   * Reads that arrive in one turn of the event loop are handed to the parser as one write: it
   * parses large writes markedly faster than many 4 KB ones.
   */
  feed(data: Buffer): void {
    if (this.closed) return;
    this.pending += data.length;
    this.inbox.push(data);
    if (this.pending > PTY_HIGH_WATERMARK_BYTES) this.process?.pause();
    if (this.flushScheduled) return;
    // A few bytes into an idle pane (a typed key's echo) are parsed now: a turn of the loop would
    // only delay the frame that draws them. Once a turn: what else comes in it (a flood in small
    // pieces) is left for the turn's end, to be parsed as one write and counted for flow control.
    if (this.pending === data.length && data.length <= ECHO_PARSE_NOW_BYTES && !this.parsedNow) {
      this.parsedNow = true;
      setImmediate(this.turnEnded);
      let shown = false;
      for (const fn of this.beforeParseListeners) if (fn(this, data)) shown = true;
      if (!shown) return this.flush();
      // A client has these bytes on screen already (a typed key's echo sent ahead): the parse
      // waits a timer's tick. The process sleeps meanwhile, and the reader of the echo gets the
      // CPU; parsing now kept it from the reader (the kernel wakes a loopback reader on the
      // writer's core) for the parse's and the frame's length, which was most of the echo's gap.
      this.flushScheduled = true;
      setTimeout(this.flush, 0);
      return;
    }
    this.flushScheduled = true;
    setImmediate(this.flush);
  }

  /** Output was parsed at once in this turn of the loop (see feed). */
  private parsedNow = false;
  private readonly turnEnded = (): void => {
    this.parsedNow = false;
  };

  private readonly flush = (): void => {
    this.flushScheduled = false;
    if (this.closed || this.inbox.length === 0) return;
    // Bound one turn's parse (about 10-20 ms), so other panes and verbs get the loop between.
    let take = 0;
    let size = 0;
    while (take < this.inbox.length && (take === 0 || size + this.inbox[take]!.length <= PARSE_SLICE_BYTES)) size += this.inbox[take++]!.length;
    const parts = this.inbox.splice(0, take);
    const chunk = parts.length === 1 ? parts[0]! : Buffer.concat(parts, size);
    if (this.inbox.length > 0 && !this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(this.flush);
    }
    const n = chunk.length;
    this.screen.write(chunk, () => {
      this.pending -= n;
      if (this.closed) return;
      this.outputBytes += n;
      this.lastOutputAt = Date.now();
      if (this.pending < PTY_LOW_WATERMARK_BYTES) this.process?.resume();
      for (const fn of this.outputListeners) fn(this, chunk);
    });
  };

  /** Unparsed bytes waiting in the emulator (flow control state, for tests and benches). */
  get pendingBytes(): number {
    return this.pending;
  }

  onOutput(fn: OutputListener): { dispose(): void } {
    this.outputListeners.add(fn);
    return { dispose: () => this.outputListeners.delete(fn) };
  }

  /**
   * A few bytes of output into an idle pane (every byte before them parsed), before they are: a
   * client that can tell where a typed key's echo lands sends it ahead of the parse
   * (tui/echo-ahead.ts) and returns true. A listener must not write to the pane or parse.
   */
  onBeforeParse(fn: BeforeParseListener): { dispose(): void } {
    this.beforeParseListeners.add(fn);
    return { dispose: () => this.beforeParseListeners.delete(fn) };
  }

  /** Adds listeners for what the emulator reads out of the output (title, OSC reports, bell). */
  addScreenHooks(h: EmulatorHooks): { dispose(): void } {
    this.hookSets.add(h);
    return { dispose: () => this.hookSets.delete(h) };
  }

  /**
   * A notification the pane's program sent another way than an escape sequence (herdr's
   * notification.show): told to the same listeners as one the emulator read, so it is published
   * and matched against the harness's notify rules alike.
   */
  raiseNotification(n: Notification): void {
    if (this.closed) return;
    this.fanOutHooks().onNotification!(n);
  }

  private fanOutHooks(): EmulatorHooks {
    const each = <K extends keyof EmulatorHooks>(k: K) =>
      ((...args: unknown[]) => {
        for (const h of this.hookSets) (h[k] as ((...a: unknown[]) => void) | undefined)?.(...args);
      }) as NonNullable<EmulatorHooks[K]>;
    return {
      onTitle: each('onTitle'),
      onCwd: each('onCwd'),
      onNotification: each('onNotification'),
      onProgress: each('onProgress'),
      onPromptMark: each('onPromptMark'),
      onProgramStatus: each('onProgramStatus'),
      onBell: each('onBell'),
      // Not fanned out: the answer goes to the pane's program alone. Without it a program that
      // asks where the cursor is (Codex before 0.100) waits, then gives up and exits.
      onReply: (d: string) => this.write(d),
    };
  }

  write(data: string): void {
    if (this.closed) return;
    this.process?.write(data);
  }

  /** Runs typing jobs one after another, so two callers' pastes and keys never interleave. */
  typeJob<T>(fn: () => Promise<T> | T): Promise<T> {
    const run = this.lane.then(fn, fn);
    this.lane = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  resize(cols: number, rows: number): void {
    this.cols = cols;
    this.rows = rows;
    this.screen.resize(cols, rows);
    this.process?.resize(cols, rows);
  }

  get pid(): number | null {
    return this.process?.pid ?? null;
  }

  get running(): boolean {
    return !!this.process && !this.exit;
  }

  get title(): string {
    return this.screen.title;
  }

  /** The foreground process of the pane's terminal, read from the kernel now. */
  foreground(): { pid: number; comm: string; argv: string[] } | null {
    const view = this.process?.procView?.();
    if (view) {
      // A pane on another machine: as last read there (its pids are that machine's).
      const p = !this.exit && view.tpgid > 0 ? view.reader.info(view.tpgid) : null;
      return p?.comm ? { pid: p.pid, comm: p.comm, argv: p.argv ?? [] } : null;
    }
    const pid = this.pid;
    if (pid === null || this.exit) return null;
    const fg = foregroundPgid(pid);
    if (fg === null) return null;
    const comm = readComm(fg);
    if (comm === null) return null;
    return { pid: fg, comm, argv: readArgv(fg) ?? [] };
  }

  /** The folder the pane is in: the foreground process's, else its shell's, else OSC 7, else the start. */
  currentCwd(): string {
    const view = this.process?.procView?.();
    if (view) {
      const c = (view.tpgid > 0 ? view.reader.info(view.tpgid)?.cwd : null) ?? view.reader.info(view.pid)?.cwd;
      return c ?? this.oscCwd ?? this.startCwd;
    }
    const pid = this.pid;
    // Right after the fork the child is still a copy of the daemon (its folder, not the pane's)
    // until it changes folder and execs; the start folder is the truth then.
    if (pid !== null && !this.exit && Date.now() - this.createdAt > SPAWN_SETTLE_MS) {
      const fg = foregroundPgid(pid);
      const c = (fg !== null ? readCwd(fg) : null) ?? readCwd(pid);
      if (c) return c;
    }
    return this.oscCwd ?? this.startCwd;
  }

  /** Stops the process; the emulator stays readable until dispose. */
  kill(): void {
    this.process?.kill('SIGHUP');
  }

  dispose(): void {
    this.closed = true;
    this.outputListeners.clear();
    this.hookSets.clear();
    this.process?.kill('SIGHUP');
    this.screen.dispose();
  }
}
