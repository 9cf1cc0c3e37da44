// Byte streams over a link: pane output for a replica emulator, files, and whatever a part of the
// daemon registers in svc.linkStreams (worktree pull's packs). The dialer opens a stream by kind with JSON params;
// the serving side's handler for that kind writes into a sink that becomes StreamData frames,
// waits when the link's send buffer is full, and ends with one StreamClose. Each side holds at
// most LINK_MAX_STREAMS; a kind nobody registered is closed with `unsupported`.
import { Readable } from 'node:stream';
import type { Services } from '../core/daemon/services.js';
import { TuiosError, toErrorBody } from '../core/errors.js';
import type { LinkSession } from './session.js';
import type { LinkPolicy } from './policy.js';
import type { StreamKinds, StreamSink } from '../core/hosts/streams.js';

export type { StreamKind, StreamSink } from '../core/hosts/streams.js';
import { LINK_MAX_PENDING_BYTES, LINK_MAX_STREAMS, LINK_STREAM_CHUNK_BYTES, LINK_STREAM_HIGH_WATER } from '../core/limits.js';

/** The serving side of one link's streams. */
export class ServedStreams {
  private readonly open = new Map<number, AbortController>();

  constructor(
    private readonly svc: Services,
    private readonly session: LinkSession,
    private readonly kinds: StreamKinds,
    private readonly host: string,
    private readonly policy: () => LinkPolicy,
  ) {}

  onOpen(id: number, kind: string, paramsJson: string): void {
    const close = (reason: string): void => {
      this.session.send('StreamClose', { stream: id, reason: reason.slice(0, 500) });
    };
    if (this.open.has(id)) return close('protocol: that stream id is open');
    if (this.open.size >= LINK_MAX_STREAMS) return close(`limit_reached: at most ${LINK_MAX_STREAMS} streams per link`);
    const k = this.kinds.get(kind);
    if (!k) return close(`unsupported: no stream of kind ${kind.slice(0, 64)} here`);
    const p = this.policy();
    if (!p[k.right]) return close(`forbidden: the linked host ${this.host} may not open ${kind.slice(0, 64)} streams here ([hosts.${this.host}] ${k.right})`);
    let params: Record<string, unknown>;
    try {
      const v = JSON.parse(paramsJson) as unknown;
      if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('not an object');
      params = v as Record<string, unknown>;
    } catch {
      return close('invalid_params: the stream params are not a JSON object');
    }
    const ctl = new AbortController();
    this.open.set(id, ctl);
    let ended = false;
    const sink: StreamSink = {
      signal: ctl.signal,
      write: async (data) => {
        for (let off = 0; off < data.length && !ended && !this.session.isClosed; off += LINK_STREAM_CHUNK_BYTES) {
          if (this.session.pending > LINK_STREAM_HIGH_WATER) await this.drained();
          if (ended || this.session.isClosed) return;
          this.session.send('StreamData', { stream: id, data: data.subarray(off, off + LINK_STREAM_CHUNK_BYTES) });
        }
      },
      end: (reason) => {
        if (ended) return;
        ended = true;
        this.open.delete(id);
        ctl.abort();
        close(reason ?? '');
      },
    };
    Promise.resolve()
      .then(() => k.open(this.svc, params, sink, this.host))
      .catch((e: unknown) => {
        const b = toErrorBody(e);
        if (b.code === 'internal') this.svc.log.error('link stream failed', { host: this.host, kind, error: e instanceof Error ? e.stack : String(e) });
        sink.end(`${b.code}: ${b.message}`);
      });
  }

  /** The opener closed it (or the link went): its handler's signal aborts. */
  onClose(id: number): void {
    const ctl = this.open.get(id);
    if (!ctl) return;
    this.open.delete(id);
    ctl.abort();
  }

  private drained(): Promise<void> {
    return new Promise((resolve) => {
      const off = this.session.onDrain(() => {
        off();
        resolve();
      });
      // A link that closes meanwhile never drains.
      const t = setInterval(() => {
        if (this.session.isClosed || this.session.pending <= LINK_STREAM_HIGH_WATER) {
          clearInterval(t);
          off();
          resolve();
        }
      }, 200);
      t.unref();
    });
  }

  dispose(): void {
    for (const ctl of this.open.values()) ctl.abort();
    this.open.clear();
  }
}

/** A stream this side opened: its bytes as a Readable, its end with the other side's reason. */
export class OpenedStream extends Readable {
  /** Empty for a clean end, else `code: words` from the other side (or this side's link). */
  closeReason: string | null = null;

  constructor(
    readonly id: number,
    private readonly cancel: () => void,
  ) {
    super({ highWaterMark: LINK_STREAM_HIGH_WATER });
  }

  override _read(): void {
    // Data is pushed as frames arrive; there is no credit to ask for.
  }

  /** Called by the link: one frame's data. A reader that takes nothing is ended, not buffered for. */
  feed(data: Buffer): void {
    if (this.closeReason !== null) return;
    if (this.readableLength > LINK_MAX_PENDING_BYTES) {
      this.cancel();
      this.finish('slow: the stream was not read; open it again');
      return;
    }
    this.push(Buffer.from(data));
  }

  /** Called by the link: the stream ended, cleanly or with a reason. */
  finish(reason: string): void {
    if (this.closeReason !== null) return;
    this.closeReason = reason;
    if (reason) this.destroy(streamError(reason));
    else this.push(null);
  }

  override _destroy(err: Error | null, cb: (e?: Error | null) => void): void {
    if (this.closeReason === null) {
      this.closeReason = 'closed';
      this.cancel();
    }
    cb(err);
  }
}

function streamError(reason: string): TuiosError {
  const m = /^([a-z_]+): (.*)$/s.exec(reason);
  const known = ['forbidden', 'unsupported', 'limit_reached', 'invalid_params', 'not_found', 'host_down', 'timeout', 'window_not_found', 'session_not_found', 'not_repo'];
  if (m && known.includes(m[1]!)) return new TuiosError(m[1] as 'forbidden', m[2]!);
  return new TuiosError('host_down', reason || 'the stream ended');
}
