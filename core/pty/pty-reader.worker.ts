// The PTY reader thread: reads every local pane's terminal off the daemon's main thread, so a
// pane printing at full speed is drained while the main thread parses what came before (the
// kernel holds only ~68 KB per terminal, and a read costs as much kernel time as a fifth of the
// parse). Bundled on its own (dist/pty-reader.cjs); main side and protocol: pty-reader.ts.
//
// Each pane comes as two duplicates of node-pty's descriptor (native/fd): the stream's, which
// the stream closes, and one drained at the end, which the main thread closes once told `end`, `released` or
// `closed` (a thread closing a descriptor it did not open is warned about by Node).
// Bytes go to the main thread in batches (the reads' own buffers, moved, not copied): one batch
// per pane in flight at a time, the next one
// gathering meanwhile, so the faster the main thread takes them, the smaller they are. Past
// PTY_READER_HOLD_BYTES gathered, or when the main thread says so (its flow control), reading stops and
// the program blocks in write(2), as it would without this thread.
import { parentPort } from 'node:worker_threads';
import { ReadStream } from 'node:tty';
import { readSync } from 'node:fs';
import type { FromReader, ToReader } from './pty-reader.js';
import { PTY_READER_HOLD_BYTES } from '../limits.js';

interface Pane {
  stream: ReadStream;
  /** A second duplicate, read to the end after the stream ends (see drain). */
  drainFd: number;
  parts: Buffer[];
  size: number;
  /** A batch the main thread has not acknowledged yet. */
  inFlight: boolean;
  /** Paused by the main thread's flow control. */
  held: boolean;
  /** The stream is paused (by `held` or by PTY_READER_HOLD_BYTES). */
  stopped: boolean;
  scheduled: boolean;
}

const port = parentPort!;
const panes = new Map<number, Pane>();

function send(m: FromReader, transfer?: ArrayBuffer[]): void {
  port.postMessage(m, transfer);
}

/**
 * Sends what has gathered as one batch. Each read comes in its own ArrayBuffer, which moves to
 * the main thread as it is (nothing copied, nothing left for this thread's GC); a chunk sharing
 * its buffer is copied first.
 */
function post(id: number, p: Pane, force = false): void {
  p.scheduled = false;
  if (p.size === 0 || (p.inFlight && !force)) return;
  const chunks: Uint8Array[] = [];
  const transfer: ArrayBuffer[] = [];
  for (const part of p.parts) {
    const own = part.byteOffset === 0 && part.buffer.byteLength === part.length && part.buffer instanceof ArrayBuffer;
    const c = own ? new Uint8Array(part.buffer as ArrayBuffer, 0, part.length) : new Uint8Array(part);
    chunks.push(c);
    transfer.push(c.buffer as ArrayBuffer);
  }
  p.parts = [];
  p.size = 0;
  p.inFlight = true;
  send({ t: 'data', id, chunks }, transfer);
  if (panes.get(id) === p) flowing(p);
}

function flowing(p: Pane): void {
  const stop = p.held || p.size >= PTY_READER_HOLD_BYTES;
  if (stop && !p.stopped) p.stream.pause();
  else if (!stop && p.stopped) p.stream.resume();
  p.stopped = stop;
}

/**
 * Reads what the terminal still holds, to EAGAIN or EIO. libuv ends a stream when the terminal
 * hangs up (POLLHUP) after a read shorter than its buffer, and every PTY read is (4 KB at most),
 * so an exit with more than one read's worth still in the kernel would lose the rest.
 */
function drain(fd: number, p: Pane): void {
  const buf = Buffer.allocUnsafe(65536);
  try {
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n <= 0) break;
      const own = Buffer.alloc(n); // its own ArrayBuffer, to be transferred (see post)
      buf.copy(own, 0, 0, n);
      p.parts.push(own);
      p.size += n;
    }
  } catch {
    // EAGAIN: nothing more now; EIO: nothing more ever.
  }
}

function open(id: number, fd: number, drainFd: number): void {
  let stream: ReadStream;
  try {
    stream = new ReadStream(fd);
  } catch {
    send({ t: 'end', id });
    return;
  }
  const p: Pane = { stream, drainFd, parts: [], size: 0, inFlight: false, held: false, stopped: false, scheduled: false };
  panes.set(id, p);
  stream.on('data', (d: Buffer) => {
    p.parts.push(d);
    p.size += d.length;
    if (p.size >= PTY_READER_HOLD_BYTES) flowing(p);
    if (!p.inFlight && !p.scheduled) {
      // Reads that land in the same turn go as one batch.
      p.scheduled = true;
      setImmediate(post, id, p);
    }
  });
  // EIO once no process holds the terminal any more: the end of its output. The stream closes
  // its descriptor (the duplicate) itself.
  const finish = () => {
    if (panes.get(id) !== p) return;
    panes.delete(id);
    // A paused stream may have read a chunk it has not emitted yet: it is output too.
    for (let c: Buffer | null; (c = stream.read() as Buffer | null) !== null; ) {
      p.parts.push(c);
      p.size += c.length;
    }
    drain(drainFd, p);
    post(id, p, true);
    send({ t: 'end', id });
  };
  stream.on('end', finish);
  stream.on('error', finish);
  stream.on('close', finish);
}

port.on('message', (m: ToReader) => {
  if (m.t === 'open') return open(m.id, m.fd, m.drainFd);
  const p = panes.get(m.id);
  if (!p) return;
  switch (m.t) {
    case 'ack':
      p.inFlight = false;
      post(m.id, p);
      break;
    case 'pause':
      p.held = true;
      flowing(p);
      break;
    case 'resume':
      p.held = false;
      flowing(p);
      break;
    case 'close':
      panes.delete(m.id);
      p.stream.destroy();
      send({ t: 'closed', id: m.id });
      break;
    case 'release': {
      // Reading goes back to the main thread: what the stream read and has not emitted goes with
      // the last batch, and once it is destroyed nothing more is read here. Bytes still in the
      // kernel are the main thread's to read.
      panes.delete(m.id);
      for (let c: Buffer | null; (c = p.stream.read() as Buffer | null) !== null; ) {
        p.parts.push(c);
        p.size += c.length;
      }
      p.stream.destroy();
      post(m.id, p, true);
      send({ t: 'released', id: m.id });
      break;
    }
  }
});
