// The main thread's side of the PTY reader thread (pty-reader.worker.ts): one thread for every
// local pane of the daemon, started with the first pane. A pane's terminal is read there, on a
// duplicate of node-pty's descriptor, and its bytes come back here in batches, in order.
//
// Why a thread: under a flood the main thread parses (about 80% of its time) and reads (the
// rest, half of it in the kernel, 4 KB a read). On one thread the two take turns and the program
// waits while we parse; with reads on another core they overlap. Only reading moves: the
// emulator, writes, resizes and exits stay where they were.
//
// When the thread cannot run (the fd addon did not build, the bundle is missing, the thread
// died) `readInThread` returns null, or the handle reports `lost`, and the pane reads through
// node-pty on the main thread as before.
import { Worker } from 'node:worker_threads';
import { existsSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../config/package-root.js';
import { fdAddon } from './fd-addon.js';

/** Messages to the reader thread. */
export type ToReader = { t: 'open'; id: number; fd: number; drainFd: number } | { t: 'ack' | 'pause' | 'resume' | 'close' | 'release'; id: number };
/** Messages from it: a batch of a pane's bytes, the end of its terminal's output, or done after a close. */
export type FromReader = { t: 'data'; id: number; chunks: Uint8Array[] } | { t: 'end' | 'closed' | 'released'; id: number };

export interface ReadSink {
  data(bytes: Buffer): void;
  /** The terminal reported EOF (every process closed it); every byte before it was delivered. */
  end(): void;
  /** The thread is gone: read on the main thread from now on. */
  lost(): void;
  /** After release(): the thread reads no more, every byte it read was delivered; read here now. */
  released(): void;
}

export interface ReadHandle {
  pause(): void;
  resume(): void;
  /** Stops reading and closes the duplicate descriptor. */
  close(): void;
  /** Hands reading back: the thread stops, delivers what it read, and the sink is told released. */
  release(): void;
}

type DupFd = (fd: number) => number;

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
}

class ReaderThread {
  private worker: Worker | null = null;
  private broken = false;
  /** The thread has exited (on its own or terminated). */
  private exited = false;
  private readonly sinks = new Map<number, ReadSink>();
  /** Each open pane's drain descriptor, closed here once the thread is done with it. */
  private readonly drains = new Map<number, number>();
  private nextId = 1;
  private dup: DupFd | null | undefined;
  /** Told once when the thread fails (the daemon logs it at warn). */
  onFailure: ((why: string) => void) | null = null;

  private start(): Worker | null {
    if (this.worker) return this.worker;
    if (this.broken) return null;
    const file = join(packageRoot(), 'dist', 'pty-reader.cjs');
    if (!existsSync(file)) return this.fail('dist/pty-reader.cjs is missing (run npm run build)');
    let w: Worker;
    try {
      w = new Worker(file);
    } catch (e) {
      return this.fail(String((e as Error).message ?? e));
    }
    w.on('message', (m: FromReader) => this.receive(m));
    w.on('error', (e) => this.fail(`the PTY reader thread failed: ${e.message}`));
    w.on('exit', (code) => {
      this.exited = true;
      if (this.broken) this.handOver();
      else this.fail(`the PTY reader thread exited (${code})`);
    });
    // The daemon lives by its socket; the thread never keeps a process up. After the listeners:
    // adding a message listener refs the thread's port again.
    w.unref();
    this.worker = w;
    return w;
  }

  /**
   * Stops the thread for good. Its panes go back to main-thread reads once it has exited: until
   * then it may still read, and what it sends before it goes is delivered as usual, so no byte
   * is read by both nor lost between them.
   */
  private fail(why: string): null {
    if (this.broken) return null;
    this.broken = true;
    this.onFailure?.(why);
    if (this.worker && !this.exited) void this.worker.terminate();
    else this.handOver();
    return null;
  }

  private handOver(): void {
    this.worker = null;
    for (const fd of this.drains.values()) closeQuietly(fd);
    this.drains.clear();
    const sinks = [...this.sinks.values()];
    this.sinks.clear();
    for (const s of sinks) s.lost();
  }

  failForTest(): void {
    this.fail('stopped by a test');
  }

  private receive(m: FromReader): void {
    const sink = this.sinks.get(m.id);
    if (m.t !== 'data') {
      const fd = this.drains.get(m.id);
      if (fd !== undefined) closeQuietly(fd);
      this.drains.delete(m.id);
      this.sinks.delete(m.id);
      if (m.t === 'end') sink?.end();
      else if (m.t === 'released') sink?.released();
      return;
    }
    // Acknowledged at once: the window's own watermarks decide when reading pauses.
    this.send({ t: 'ack', id: m.id });
    if (sink) for (const c of m.chunks) sink.data(Buffer.from(c.buffer, c.byteOffset, c.byteLength));
  }

  private send(m: ToReader): void {
    this.worker?.postMessage(m);
  }

  open(fd: number, sink: ReadSink): ReadHandle | null {
    if (this.dup === undefined) this.dup = fdAddon().dupFd;
    if (!this.dup || !this.start()) return null;
    // Two duplicates, both the thread's to close: one it streams, one it drains at the end.
    const copies: number[] = [];
    try {
      copies.push(this.dup(fd), this.dup(fd));
    } catch {
      for (const c of copies) closeQuietly(c);
      return null;
    }
    const id = this.nextId++;
    this.sinks.set(id, sink);
    this.drains.set(id, copies[1]!);
    this.send({ t: 'open', id, fd: copies[0]!, drainFd: copies[1]! });
    return {
      pause: () => this.send({ t: 'pause', id }),
      resume: () => this.send({ t: 'resume', id }),
      close: () => {
        if (this.sinks.delete(id)) this.send({ t: 'close', id });
      },
      release: () => {
        if (this.sinks.has(id)) this.send({ t: 'release', id });
      },
    };
  }
}

const thread = new ReaderThread();

/** Reads the terminal `fd` in the reader thread; null when it cannot (read it here then). */
export function readInThread(fd: number, sink: ReadSink): ReadHandle | null {
  return thread.open(fd, sink);
}

/** Ends the thread as a failure would (its panes go back to main-thread reads); for tests. */
export function stopReaderThreadForTest(): void {
  thread.failForTest();
}

/** Where the thread's one failure is reported. */
export function onReaderFailure(fn: (why: string) => void): void {
  thread.onFailure = fn;
}
