// The worktree transfer's wire format (transfer.ts packs and unpacks it): the magic, then frames
// of [type u8][length u32 BE][payload], read back by FrameReader with a limit per frame, and the
// errors a bad or cut stream answers.
import type { Writable } from 'node:stream';
import { TuiosError } from '../errors.js';
import { PULL_CHUNK_BYTES, PULL_MAX_HEADER_BYTES } from '../limits.js';
import { ByteQueue } from '../byte-queue.js';

export const PULL_MAGIC = Buffer.from('TUIOSWT1', 'latin1');
export const FRAME_HEADER = 1;
export const FRAME_PACK = 2;
export const FRAME_END = 3;
/** The pack frames after it belong to the next pack. */
export const FRAME_NEXT = 4;
/**
 * Before the header, a commit the receiver has near HEAD (JSON {commit}): it may write that
 * commit's files into the new worktree while the packs come. Sent only to a receiver that asked
 * for it (PackOptions.earlyBase), so an older receiver never meets a frame it does not know.
 */
export const FRAME_BASE = 5;
/** A file of the worktree as it is (JSON {path, mode, size}); its bytes follow in DATA frames. */
export const FRAME_FILE = 6;
/** Bytes of the file the last FILE frame named, in order. */
export const FRAME_DATA = 7;
/** A file of the index the worktree no longer has (JSON {path}). */
export const FRAME_GONE = 8;
/**
 * Format 2 carries the files that differ from the index as they are (FILE, DATA, GONE) where
 * format 1 hashed them into a commit; a format-1 reader refuses it by its header.
 */
export const PULL_FORMAT = 2;
const KNOWN_FRAMES = new Set([FRAME_HEADER, FRAME_PACK, FRAME_END, FRAME_NEXT, FRAME_BASE, FRAME_FILE, FRAME_DATA, FRAME_GONE]);

export function frame(type: number, payload: Buffer): Buffer {
  return Buffer.concat([frameHead(type, payload.length), payload]);
}

/** A frame's 5 bytes before its payload: a pack's megabyte is written after them as it is, never copied. */
export function frameHead(type: number, length: number): Buffer {
  const h = Buffer.alloc(5);
  h.writeUInt8(type, 0);
  h.writeUInt32BE(length, 1);
  return h;
}

export interface Frame {
  type: number;
  payload: Buffer;
}

/**
 * Splits a byte stream into frames; pure, fed chunk by chunk. A PACK or DATA frame is passed on in
 * pieces as its bytes come, one for each read that holds some of them (entries of its type whose
 * payloads, in order, are its payload): what they carry is hashed and written as it goes, so
 * waiting for the whole frame would only join its reads with a copy. Every other frame comes whole,
 * as one entry.
 */
export class FrameReader {
  // A payload is a view of the read that holds it: a link's reads are each a buffer of their own,
  // freed with the payload (copying each megabyte was 0.27 CPU-s of a 28 MB transfer).
  private readonly held = new ByteQueue();
  private magicSeen = false;
  /** The PACK or DATA frame being passed on in pieces: its type and the bytes it still owes. */
  private piecing: { type: number; left: number } | null = null;
  /** Bytes fed so far. */
  bytes = 0;

  feed(chunk: Buffer): Frame[] {
    this.bytes += chunk.length;
    this.held.push(chunk);
    const out: Frame[] = [];
    if (!this.magicSeen) {
      if (this.held.size < PULL_MAGIC.length) return out;
      if (!this.held.take(PULL_MAGIC.length).equals(PULL_MAGIC)) throw badStream('it does not start as a tuios worktree transfer');
      this.magicSeen = true;
    }
    for (;;) {
      const p = this.piecing;
      if (p) {
        if (this.held.size === 0) break;
        const piece = this.held.takeUpTo(p.left);
        p.left -= piece.length;
        if (p.left === 0) this.piecing = null;
        out.push({ type: p.type, payload: piece });
        continue;
      }
      if (this.held.size < 5) break;
      const h = this.held.peek(5);
      const type = h.readUInt8(0);
      const len = h.readUInt32BE(1);
      if (!KNOWN_FRAMES.has(type)) throw badStream(`it holds a frame of unknown type ${type}`);
      const streamed = type === FRAME_PACK || type === FRAME_DATA;
      const limit = streamed ? PULL_CHUNK_BYTES : PULL_MAX_HEADER_BYTES;
      if (len > limit) throw badStream(`a frame of ${len} bytes is past its limit of ${limit}`);
      if (streamed) {
        // Its bytes as views of the reads that hold them: one entry when one read holds them all.
        this.held.take(5);
        if (len === 0) out.push({ type, payload: Buffer.alloc(0) });
        else this.piecing = { type, left: len };
        continue;
      }
      if (this.held.size < 5 + len) break;
      const f = this.held.take(5 + len);
      out.push({ type, payload: f.subarray(5) });
    }
    return out;
  }

  /** Bytes held that do not yet make a whole frame, and those a frame passed on in pieces still owes. */
  get pending(): number {
    return this.held.size + (this.piecing?.left ?? 0);
  }
}

export function badStream(why: string): TuiosError {
  return new TuiosError('invalid_request', `The worktree transfer is not valid: ${why}. Nothing was made.`, undefined, { reason: 'bad_stream' });
}

export function cutStream(bytes: number): TuiosError {
  return new TuiosError('git_failed', `The worktree transfer was cut after ${bytes} bytes. Nothing was made.`, 'Pull again once the connection is back.', { reason: 'cut' });
}

export async function writeOut(out: Writable, buf: Buffer, signal?: AbortSignal): Promise<void> {
  if (out.destroyed || out.writableEnded) throw new TuiosError('git_failed', 'The transfer\'s output closed before the end.', undefined, { reason: 'cut' });
  if (out.write(buf)) return;
  await new Promise<void>((resolve, reject) => {
    const cleanup = () => {
      out.off('drain', onDrain);
      out.off('close', onClose);
      out.off('error', onErr);
      signal?.removeEventListener('abort', onAbort);
    };
    const onDrain = () => {
      cleanup();
      resolve();
    };
    const onClose = () => {
      cleanup();
      reject(new TuiosError('git_failed', 'The transfer\'s output closed before the end.', undefined, { reason: 'cut' }));
    };
    const onErr = (e: Error) => {
      cleanup();
      reject(e);
    };
    const onAbort = () => {
      cleanup();
      reject(new TuiosError('timeout', 'The transfer was cancelled.'));
    };
    out.on('drain', onDrain);
    out.on('close', onClose);
    out.on('error', onErr);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

// ---- the receiver's offer ----
