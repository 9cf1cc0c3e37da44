// A pane's process: one node-pty child. This module owns spawning, input, resize, pause and exit;
// it knows nothing of emulators or sessions.
import * as pty from 'node-pty';
import { closeSync, existsSync, readSync, statSync, writeSync } from 'node:fs';
import { TuiosError, errorText } from '../errors.js';
import type { ExitStatus, WindowProcess } from './window-process.js';
import { readInThread, type ReadHandle } from './pty-reader.js';
import { fdAddon } from './fd-addon.js';
import { PTY_DIRECT_WRITE_BYTES, PTY_EXIT_DRAIN_MS, PTY_THREAD_FLOOD_BYTES, PTY_THREAD_FLOOD_WINDOW_MS, PTY_THREAD_QUIET_MS } from '../limits.js';

export type { ExitStatus, WindowProcess } from './window-process.js';

export interface SpawnOptions {
  argv: string[];
  cwd: string;
  cols: number;
  rows: number;
  env: Record<string, string>;
  /** TERM for the pane (also node-pty's `name`). */
  term: string;
}

export class PaneProcess implements WindowProcess {
  readonly host = null;
  private readonly p: pty.IPty;
  private exited: ExitStatus | null = null;
  private paused = false;
  private dataListener: ((data: Buffer) => void) | null = null;
  private exitListener: ((s: ExitStatus) => void) | null = null;
  /** Reads in the PTY reader thread (pty-reader.ts); null while node-pty reads here. */
  private reader: ReadHandle | null = null;
  /** The process was reaped; its exit is told once the output before it is in (settleExit). */
  private reaped: ExitStatus | null = null;
  private lastDataAt = 0;
  /** Bytes read on the main thread since floodFrom (a flood moves reads to the thread). */
  private floodBytes = 0;
  private floodFrom = 0;
  /** While the thread reads: checks for quiet, to bring reads back (see toMainReads). */
  private quietTimer: NodeJS.Timeout | null = null;
  /** A hand-back asked of the thread and not yet done. */
  private releasing = false;
  /** The terminal reached EOF and node-pty's descriptor was closed (see moveReadsToThread). */
  private closedTerminal = false;
  private exitTimer: NodeJS.Timeout | null = null;
  /**
   * A duplicate of the terminal's descriptor, read to its end when node-pty has read its last
   * (drainAtExit); -1 without the addon. libuv ends node-pty's read stream when the terminal hangs
   * up after a short read, with what the kernel still holds unread: a program that wrote ~60 KB
   * and exited lost its last 8 KB. The reader thread drains its own duplicate the same way.
   */
  private drainFd = -1;

  private constructor(p: pty.IPty) {
    this.p = p;
    rawReads(p);
    const fd = (p as unknown as { _fd?: unknown })._fd;
    const dup = fdAddon().dupFd;
    if (dup && typeof fd === 'number') {
      try {
        this.drainFd = dup(fd);
      } catch {
        this.drainFd = -1;
      }
    }
    p.onData((d: string | Buffer) => this.bytes(typeof d === 'string' ? Buffer.from(d) : d));
    p.onExit(({ exitCode, signal }) => {
      this.reaped = { code: signal ? null : exitCode, signal: signal || null };
      // node-pty tells the exit once its stream has closed: what it left unread is read now,
      // before the exit is told. While the thread reads, its own drain does this.
      if (!this.reader) this.drainAtExit();
      this.settleExit();
    });
  }

  /** Reads what the terminal still holds (to EAGAIN or EIO) as output, then closes the duplicate. */
  private drainAtExit(): void {
    if (this.drainFd < 0) return;
    const buf = Buffer.allocUnsafe(65536);
    try {
      for (;;) {
        const n = readSync(this.drainFd, buf, 0, buf.length, null);
        if (n <= 0) break;
        this.bytes(Buffer.from(buf.subarray(0, n)));
      }
    } catch {
      // EAGAIN: nothing more now; EIO: nothing more ever.
    }
    this.closeDrain();
  }

  private closeDrain(): void {
    if (this.drainFd < 0) return;
    try {
      closeSync(this.drainFd);
    } catch {
      // already closed
    }
    this.drainFd = -1;
  }

  private bytes(d: Buffer): void {
    const now = performance.now();
    this.lastDataAt = now;
    if (!this.reader && !this.paused && !this.moving) {
      if (now - this.floodFrom > PTY_THREAD_FLOOD_WINDOW_MS) {
        this.floodFrom = now;
        this.floodBytes = 0;
      }
      this.floodBytes += d.length;
      if (this.floodBytes >= PTY_THREAD_FLOOD_BYTES) {
        this.moving = true;
        // Out of node-pty's data event, and before the poll phase can read again.
        process.nextTick(() => {
          this.moving = false;
          this.moveReadsToThread();
        });
      }
    }
    this.dataListener?.(d);
  }

  private moving = false;

  /**
   * Hands reading to the reader thread (a flood: reads there overlap the main thread's parse).
   * node-pty's socket is stopped first, in this tick, and what it read and holds is delivered, so
   * every byte is read by exactly one of them and in order. node-pty keeps its descriptor for
   * writes, resizes and its own close.
   */
  private moveReadsToThread(): void {
    const inner = this.p as unknown as { _fd?: unknown; _socket?: { pause(): void; resume(): void; destroy(): void; read(): Buffer | string | null; _handle?: { reading?: boolean; readStop?: () => number; readStart?: () => number } } };
    const fd = inner._fd;
    const sock = inner._socket;
    if (typeof fd !== 'number' || !sock || typeof sock._handle?.readStop !== 'function' || typeof sock._handle.readStart !== 'function') return;
    {
      const handle = sock._handle;
      if (this.reaped || this.reader || this.paused || this.closedTerminal || !handle) return;
      const reader = readInThread(fd, {
        data: (b) => this.bytes(b),
        end: () => {
          // As node-pty's own read of EIO would: its socket closes, then it tells the exit.
          // Its descriptor closes with it, so nothing may write to or resize that number again.
          this.reader = null;
          this.closedTerminal = true;
          sock.destroy();
          this.settleExit();
        },
        lost: () => back(),
        released: () => back(),
      });
      if (!reader) return;
      // Back to node-pty's own reads: the thread is gone (what it held is gone with it), or it
      // handed reading back after a quiet spell with every byte it read delivered.
      const back = () => {
        if (this.reader !== reader) return;
        this.reader = null;
        this.releasing = false;
        if (this.quietTimer) clearTimeout(this.quietTimer);
        this.quietTimer = null;
        this.floodFrom = performance.now();
        this.floodBytes = 0;
        if (this.closedTerminal || !sock._handle) return;
        handle.reading = true;
        handle.readStart!();
        if (!this.paused) sock.resume();
        this.settleExit();
      };
      // Read by the socket and not handed out yet: output, in order, before the thread's. Taken
      // while the handle still reads, as a read() of a stopped socket would start it again; no
      // read of the handle can come between this and readStop, in the same tick.
      sock.pause();
      for (let c = sock.read(); c !== null; c = sock.read()) this.bytes(typeof c === 'string' ? Buffer.from(c) : c);
      handle.reading = false;
      handle.readStop!();
      this.reader = reader;
      this.threadSpells++;
      if (this.paused) reader.pause();
      this.watchQuiet();
    }
  }

  /** While the thread reads, brings reads back to the main thread once no output came for PTY_THREAD_QUIET_MS. */
  private watchQuiet(): void {
    if (this.quietTimer) clearTimeout(this.quietTimer);
    this.quietTimer = setTimeout(() => {
      this.quietTimer = null;
      if (!this.reader || this.releasing || this.reaped) return;
      const quiet = performance.now() - this.lastDataAt;
      if (this.paused || quiet < PTY_THREAD_QUIET_MS) return this.watchQuiet();
      this.releasing = true;
      this.reader.release();
    }, PTY_THREAD_QUIET_MS);
    this.quietTimer.unref();
  }

  /**
   * Tells the exit once the output is in: at the terminal's EOF, or, since a background process
   * may hold the terminal open past the exit, once no bytes came for PTY_EXIT_DRAIN_MS while
   * reading was not paused (as node-pty gives its socket 200 ms after an exit).
   */
  private settleExit(): void {
    if (!this.reaped || this.exited) return;
    if (this.reader) {
      const quiet = performance.now() - this.lastDataAt;
      if (this.paused || quiet < PTY_EXIT_DRAIN_MS) {
        if (!this.exitTimer) {
          this.exitTimer = setTimeout(() => {
            this.exitTimer = null;
            this.settleExit();
          }, PTY_EXIT_DRAIN_MS);
        }
        return;
      }
      this.reader.close();
      this.reader = null;
    }
    if (this.quietTimer) clearTimeout(this.quietTimer);
    this.quietTimer = null;
    if (this.exitTimer) clearTimeout(this.exitTimer);
    this.exitTimer = null;
    this.closeDrain();
    this.exited = this.reaped;
    this.exitListener?.(this.exited);
  }

  static spawn(o: SpawnOptions): PaneProcess {
    const [file, ...args] = o.argv;
    if (!file) throw new TuiosError('invalid_params', 'The command is empty.', 'Pass a program to run, or none for your shell.');
    try {
      const st = statSync(o.cwd);
      if (!st.isDirectory()) throw new Error('not a directory');
    } catch {
      throw new TuiosError('invalid_params', `The folder ${o.cwd} does not exist or is not a folder.`, 'Pass an existing folder with --cwd.', { field: 'cwd' });
    }
    if (file.includes('/') && !existsSync(file)) {
      throw new TuiosError('spawn_failed', `The program ${file} does not exist.`, 'Check the path, or name a program on PATH.');
    }
    try {
      const p = pty.spawn(file, args, {
        name: o.term,
        cols: o.cols,
        rows: o.rows,
        cwd: o.cwd,
        env: o.env,
      });
      return new PaneProcess(p);
    } catch (e) {
      throw new TuiosError('spawn_failed', `The program ${file} could not be started: ${errorText(e)}.`, 'Check that it exists and is executable.');
    }
  }

  get pid(): number {
    return this.p.pid;
  }

  /** The pty device path, e.g. /dev/pts/3 (node-pty keeps it on a private field). */
  get ttyName(): string | null {
    const n = (this.p as unknown as { _pty?: string })._pty;
    return typeof n === 'string' ? n : null;
  }

  get exitStatus(): ExitStatus | null {
    return this.exited;
  }

  foregroundGroup(): number | null {
    const ask = fdAddon().foregroundGroup;
    const inner = this.p as unknown as { _fd?: unknown; _socket?: { destroyed?: boolean } };
    const fd = inner._fd;
    // Once node-pty's socket is gone its descriptor is closed, and the number may name another file.
    if (!ask || typeof fd !== 'number' || this.reaped || this.closedTerminal || inner._socket?.destroyed !== false) return null;
    const g = ask(fd);
    return g >= 0 ? g : null;
  }

  onData(fn: (data: Buffer) => void): void {
    this.dataListener = fn;
  }

  onExit(fn: (s: ExitStatus) => void): void {
    this.exitListener = fn;
    if (this.exited) fn(this.exited);
  }

  write(data: string | Buffer): void {
    if (this.exited || this.closedTerminal) return;
    const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    const done = buf.length <= PTY_DIRECT_WRITE_BYTES ? this.writeNow(buf) : 0;
    if (done < buf.length) this.p.write((done ? buf.subarray(done) : buf) as unknown as string);
  }

  /**
   * Writes to the terminal in this call, when nothing of an earlier write waits in node-pty's
   * queue (which it writes later through libuv's thread pool, a hand-off that cost a typed key
   * 50-100 µs before the program had it). The descriptor does not block: what the kernel does not
   * take now (EAGAIN, a short write) goes to node-pty's queue, behind which nothing is written here.
   * Returns the bytes written.
   */
  private writeNow(buf: Buffer): number {
    const inner = this.p as unknown as { _fd?: unknown; _writeStream?: { _writeQueue?: unknown[] } };
    const fd = inner._fd;
    if (typeof fd !== 'number' || inner._writeStream?._writeQueue?.length !== 0) return 0;
    try {
      return writeSync(fd, buf);
    } catch {
      // EAGAIN: the terminal is full; node-pty's queue waits for it. Anything else, it reports.
      return 0;
    }
  }

  resize(cols: number, rows: number): void {
    if (this.exited || this.closedTerminal) return;
    try {
      this.p.resize(cols, rows);
    } catch {
      // The pty may have closed between the exit check and the ioctl.
    }
  }

  pause(): void {
    if (this.paused || this.exited) return;
    this.paused = true;
    if (this.reader) this.reader.pause();
    else this.p.pause();
  }

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    if (this.reader) this.reader.resume();
    else this.p.resume();
    this.lastDataAt = performance.now(); // the drain after an exit counts from here
  }

  /** How many times a flood moved reads to the thread. */
  threadSpells = 0;

  /** Whether the reader thread reads this terminal (else node-pty, on the main thread). */
  get readsInThread(): boolean {
    return this.reader !== null;
  }

  get isPaused(): boolean {
    return this.paused;
  }

  kill(signal = 'SIGHUP'): void {
    if (this.exited) return;
    try {
      this.p.kill(signal);
    } catch {
      // already gone
    }
  }
}

/**
 * Hands the PTY's bytes over undecoded. node-pty decodes to strings only because `encoding` is
 * utf8, and that same option is what sets IUTF8 on the terminal (line editing of multi-byte
 * characters), so the option stays and the decoder is taken off the read stream instead: the
 * emulator decodes UTF-8 itself, across chunk boundaries, ~12% faster than from strings.
 * Should node-pty change shape, reads stay strings and are converted; nothing breaks.
 */
function rawReads(p: pty.IPty): void {
  const st = (p as unknown as { _socket?: { _readableState?: { decoder: unknown; encoding: unknown } } })._socket?._readableState;
  if (st && st.decoder) {
    st.decoder = null;
    st.encoding = null;
  }
}
