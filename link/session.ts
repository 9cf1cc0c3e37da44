// One link over one byte stream (an SSH channel, or the local link socket behind
// `tuios link-serve --stdio`): both sides send a Hello first, with their protocol range and
// their Frame schema, and every later frame is read against the schema the other side sent.
// A frame that does not decode, or is over the frame limit, closes this link with a logged
// reason; a branch this build does not know is answered `Unsupported` and the link goes on.
// Nothing here throws at its owner: every failure ends as `onClose(reason)`.
import type { Duplex } from 'node:stream';
import type { Logger } from '../core/log.js';
import { CAPABILITIES, FRAME_FINGERPRINT, FRAME_SCHEMA_JSON, PROTOCOL_MAX, PROTOCOL_MIN, type Bodies, type BranchName, type Frame } from './codec/schema.js';
import { encodeFrame, FrameDecoder, FrameTooLarge, WriterSchema } from './codec/frames.js';
import { HOST_NAME_RE } from '../core/config/schema.js';
import { VERSION } from '../core/version.js';
import { LINK_CONNECT_TIMEOUT_MS, LINK_DEAD_PINGS, LINK_MAX_FRAME_BYTES, LINK_MAX_PENDING_BYTES, LINK_PING_MS } from '../core/limits.js';

export type Hello = Bodies['Hello'];

/** Why a link ended, for `hosts ls` and the log: a short word first, then the detail. */
export interface CloseReason {
  /** version: no common protocol; refused: the other side said no; bad_frame; timeout; closed; slow. */
  code: 'version' | 'refused' | 'bad_frame' | 'timeout' | 'closed' | 'slow' | 'local';
  detail: string;
}

export interface SessionHandler {
  /** The other side's Hello, checked: a common protocol, a schema that reads. */
  hello(h: Hello, protocol: number): void;
  frame(f: Frame): void;
  close(reason: CloseReason): void;
}

export interface SessionOptions {
  /** This machine's name as the other side knows it. */
  host: string;
  bootId: string;
  log: Logger;
  /** Frames that may arrive on this side; any other is answered Unsupported (a link is one-way). */
  accepts: ReadonlySet<BranchName>;
}

const ALWAYS: ReadonlySet<BranchName> = new Set(['Ping', 'Pong', 'Unsupported', 'Bye']);

export class LinkSession {
  private readonly decoder: FrameDecoder;
  private peerSchema: WriterSchema | null = null;
  private closed = false;
  private lastHeard = Date.now();
  private pingTimer: NodeJS.Timeout | null = null;
  private helloTimer: NodeJS.Timeout | null = null;
  peer: Hello | null = null;
  protocol = 0;
  /** Bytes written since the link began: the backlog test reads `stream.writableLength`. */
  bytesOut = 0;
  bytesIn = 0;

  constructor(
    private readonly stream: Duplex,
    private readonly o: SessionOptions,
    private readonly handler: SessionHandler,
  ) {
    this.decoder = new FrameDecoder(LINK_MAX_FRAME_BYTES, {
      frame: (f) => this.onFrame(f),
      unknown: (branch, why) => {
        this.o.log.info('link frame of a branch this build does not read', { peer: this.peer?.host, branch: branch.slice(0, 64), why: why.slice(0, 200) });
        this.send('Unsupported', { branch: branch.slice(0, 64), reason: 'this build does not read that frame' });
      },
      error: (reason) => this.close({ code: 'bad_frame', detail: reason }),
    });
    stream.on('data', (d: Buffer) => {
      this.lastHeard = Date.now();
      this.bytesIn += d.length;
      try {
        this.decoder.push(d);
      } catch (e) {
        // The decoder reports, never throws; a handler that threw is this link's end, not the daemon's.
        this.o.log.error('link frame handler threw', { peer: this.peer?.host, error: e instanceof Error ? e.stack : String(e) });
        this.close({ code: 'local', detail: 'a frame could not be handled' });
      }
    });
    stream.on('end', () => {
      this.decoder.end();
      this.close({ code: 'closed', detail: 'the other side closed the link' });
    });
    stream.on('close', () => this.close({ code: 'closed', detail: 'the connection closed' }));
    stream.on('error', (e: Error) => this.close({ code: 'closed', detail: e.message }));
    stream.on('drain', this.wrote);
    this.helloTimer = setTimeout(() => this.close({ code: 'timeout', detail: 'no Hello in time' }), LINK_CONNECT_TIMEOUT_MS);
    this.helloTimer.unref();
    this.sendHello();
  }

  private readonly drainListeners = new Set<() => void>();
  /**
   * Tells the waiting stream senders that the send buffer shrank. Per frame written, not only on
   * 'drain': the transport emits that only after a write it refused, and a sender waits for the
   * buffer to fall under its own mark, below the transport's (an SSH channel's is 2 MB), where no
   * write is refused. Waiting for 'drain' there waited for a timer instead.
   */
  private readonly wrote = () => {
    if (this.drainListeners.size) this.drainListeners.forEach((fn) => fn());
  };

  /** Called as the send buffer shrinks (stream senders wait on it, each for its own mark). */
  onDrain(fn: () => void): () => void {
    this.drainListeners.add(fn);
    return () => this.drainListeners.delete(fn);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  get up(): boolean {
    return !this.closed && this.peer !== null;
  }

  /** True when the other side's schema has this frame: it reads it (a newer frame is not sent to an older build). */
  peerReads(kind: BranchName): boolean {
    return !!this.peerSchema?.knows(kind);
  }

  /** Bytes written that the other side has not taken yet. */
  get pending(): number {
    return this.stream.writableLength;
  }

  private sendHello(): void {
    const hello: Hello = {
      host: this.o.host,
      version: VERSION,
      protocol_min: PROTOCOL_MIN,
      protocol_max: PROTOCOL_MAX,
      boot_id: this.o.bootId,
      capabilities: [...CAPABILITIES],
      schema: FRAME_SCHEMA_JSON,
      fingerprint: FRAME_FINGERPRINT,
    };
    this.write({ kind: 'Hello', body: hello });
  }

  /** Sends one frame; false when it did not go (closed, too large, or a branch the peer lacks). */
  send<K extends BranchName>(kind: K, body: Bodies[K]): boolean {
    if (this.closed) return false;
    if (kind !== 'Hello' && this.peerSchema && !this.peerSchema.knows(kind)) {
      this.o.log.debug('link frame not sent: the peer does not read it', { peer: this.peer?.host, branch: kind });
      return false;
    }
    return this.write({ kind, body } as Frame);
  }

  private write(f: Frame): boolean {
    let buf: Buffer;
    try {
      buf = encodeFrame(f, LINK_MAX_FRAME_BYTES);
    } catch (e) {
      if (e instanceof FrameTooLarge) this.o.log.warn('link frame over the limit not sent', { peer: this.peer?.host, branch: f.kind, bytes: e.bytes });
      else this.o.log.error('link frame does not encode', { branch: f.kind, error: e instanceof Error ? e.message : String(e) });
      return false;
    }
    // A peer that takes nothing for this long is too slow: it resumes from its sequence on redial.
    if (this.stream.writableLength + buf.length > LINK_MAX_PENDING_BYTES) {
      this.close({ code: 'slow', detail: `the other side left ${this.stream.writableLength} bytes unread` });
      return false;
    }
    this.bytesOut += buf.length;
    try {
      this.stream.write(buf, this.wrote);
    } catch (e) {
      this.close({ code: 'closed', detail: e instanceof Error ? e.message : String(e) });
      return false;
    }
    return true;
  }

  private onFrame(f: Frame): void {
    if (this.closed) return;
    if (f.kind === 'Hello') return this.onHello(f.body);
    if (!this.peer) return this.close({ code: 'bad_frame', detail: `a ${f.kind} frame before the Hello` });
    switch (f.kind) {
      case 'Ping':
        this.send('Pong', { t: f.body.t });
        return;
      case 'Pong':
        return;
      case 'Bye':
        return this.close({ code: 'refused', detail: f.body.reason.slice(0, 200) || 'the other side ended the link' }, false);
      case 'Unsupported':
        this.o.log.info('the peer does not read a frame we sent', { peer: this.peer.host, branch: f.body.branch.slice(0, 64) });
        return this.handler.frame(f);
    }
    if (!ALWAYS.has(f.kind) && !this.o.accepts.has(f.kind)) {
      this.send('Unsupported', { branch: f.kind, reason: 'not on this side of the link' });
      return;
    }
    this.handler.frame(f);
  }

  private onHello(h: Hello): void {
    if (this.peer) return this.close({ code: 'bad_frame', detail: 'a second Hello' });
    if (!HOST_NAME_RE.test(h.host)) return this.close({ code: 'bad_frame', detail: 'the Hello names no valid host' });
    const lo = Math.max(PROTOCOL_MIN, h.protocol_min);
    const hi = Math.min(PROTOCOL_MAX, h.protocol_max);
    if (lo > hi) {
      this.send('Bye', { reason: `version: this tuios speaks link protocol ${PROTOCOL_MIN}-${PROTOCOL_MAX}, the other ${h.protocol_min}-${h.protocol_max}` });
      return this.close({ code: 'version', detail: `the other side speaks link protocol ${h.protocol_min}-${h.protocol_max} (tuios ${h.version.slice(0, 32)}), this one ${PROTOCOL_MIN}-${PROTOCOL_MAX}` });
    }
    try {
      this.peerSchema = WriterSchema.fromJson(h.schema);
    } catch (e) {
      return this.close({ code: 'bad_frame', detail: e instanceof Error ? e.message : String(e) });
    }
    this.decoder.writer = this.peerSchema;
    this.peer = { ...h, schema: '', host: h.host, version: h.version.slice(0, 64), boot_id: h.boot_id.slice(0, 64), capabilities: h.capabilities.slice(0, 32).map((c) => c.slice(0, 32)) };
    this.protocol = hi;
    if (this.helloTimer) clearTimeout(this.helloTimer);
    this.helloTimer = null;
    this.lastHeard = Date.now();
    this.pingTimer = setInterval(() => this.tick(), LINK_PING_MS);
    this.pingTimer.unref();
    this.handler.hello(this.peer, this.protocol);
  }

  /** Pings, and ends a link that has been silent too long: a pulled cable sends no FIN. */
  private tick(): void {
    if (Date.now() - this.lastHeard > LINK_PING_MS * LINK_DEAD_PINGS) {
      this.close({ code: 'timeout', detail: `nothing heard for ${Math.round((Date.now() - this.lastHeard) / 1000)} s` });
      return;
    }
    this.send('Ping', { t: Date.now() });
  }

  close(reason: CloseReason, bye = true): void {
    if (this.closed) return;
    if (bye && this.peer && reason.code !== 'closed' && reason.code !== 'slow') this.write({ kind: 'Bye', body: { reason: `${reason.code}: ${reason.detail}`.slice(0, 200) } });
    this.closed = true;
    if (this.pingTimer) clearInterval(this.pingTimer);
    if (this.helloTimer) clearTimeout(this.helloTimer);
    this.drainListeners.clear();
    try {
      this.stream.end();
    } catch {
      // already gone
    }
    // A stream that does not close after end (a dead TCP peer) is destroyed soon after.
    const t = setTimeout(() => this.stream.destroy(), 2000);
    t.unref();
    this.stream.once('close', () => clearTimeout(t));
    const level = reason.code === 'closed' || reason.code === 'local' ? 'info' : 'warn';
    this.o.log[level]('link closed', { peer: this.peer?.host ?? null, reason: reason.code, detail: reason.detail.slice(0, 300) });
    try {
      this.handler.close(reason);
    } catch (e) {
      this.o.log.error('link close handler threw', { error: e instanceof Error ? e.stack : String(e) });
    }
  }
}
