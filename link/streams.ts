// Byte streams over a link: pane output for a replica emulator, files, and whatever a part of the
// daemon registers in svc.linkStreams (worktree pull's packs, hosted panes). The dialer opens a stream by kind with JSON params;
// the serving side's handler for that kind writes into a sink that becomes StreamData frames,
// waits when the link's send buffer is full, and ends with one StreamClose. The opener may send
// bytes back (StreamData) and both sides control words (StreamControl): a hosted pane's input,
// resize and flow control. Each side holds at most LINK_MAX_STREAMS; a kind nobody registered is
// closed with `unsupported`.
//
// Flow control: an opener whose peer reads StreamCredit opens with a window (StreamOpen.window,
// LINK_STREAM_WINDOW_BYTES) and grants credit (StreamCredit) as its reader takes bytes, so it never
// holds more than the window. The server's sink sends no byte past its credit: its write waits,
// and so does whatever feeds it (a git pipe, a PTY). A wait for credit past LINK_STREAM_UNREAD_MS
// ends the stream `slow`. With a peer of an older build (window 0) nothing waits for credit and the
// opener still ends a stream it holds LINK_MAX_PENDING_BYTES of.
import { Readable } from 'node:stream';
import type { Services } from '../core/daemon/services.js';
import { TuiosError, toErrorBody } from '../core/errors.js';
import type { LinkSession } from './session.js';
import type { LinkPolicy } from './policy.js';
import { jsonObject, type StreamKinds, type StreamSink } from '../core/hosts/streams.js';

export type { StreamKind, StreamSink } from '../core/hosts/streams.js';
import { LINK_MAX_PENDING_BYTES, LINK_MAX_STREAMS, LINK_STREAM_CHUNK_BYTES, LINK_STREAM_CREDIT_BYTES, LINK_STREAM_HIGH_WATER, LINK_STREAM_UNREAD_MS } from '../core/limits.js';
import { EARLY_MAX_ITEMS } from './limits.js';

/** A call back to the opener's machine as one of its windows (a hosted pane's report). */
export type CallAs = (asWindow: string, verb: string, params: Record<string, unknown>, signal: AbortSignal, timeoutMs?: number) => Promise<unknown>;

interface Served {
  ctl: AbortController;
  input: ((data: Buffer) => void) | null;
  control: ((op: string, params: Record<string, unknown>) => void) | null;
  /** What the opener sent before the handler listened (it starts a turn later), in order. */
  early: Array<{ data: Buffer } | { op: string; params: Record<string, unknown> }>;
  earlyBytes: number;
  /** Bytes the opener lets this side send before it grants more; null: it grants none (an older build). */
  credit: number | null;
  /** Writes waiting for credit, woken by a grant or the stream's end. */
  waiting: Set<() => void>;
}

export interface ServedStreamsOptions {
  /** How long a write waits for credit before the stream is ended `slow` (tests shorten it). */
  unreadMs?: number;
}

const noCalls: CallAs = () => Promise.reject(new TuiosError('unsupported', 'This link does not call back to the opener.'));

/** A control word's params: a JSON object, else nothing (a bad one is never an exception). */
export function controlParams(json: string): Record<string, unknown> {
  return jsonObject(json) ?? {};
}

/** The serving side of one link's streams. */
export class ServedStreams {
  private readonly open = new Map<number, Served>();

  constructor(
    private readonly svc: Services,
    private readonly session: LinkSession,
    private readonly kinds: StreamKinds<Services>,
    private readonly host: string,
    private readonly policy: () => LinkPolicy,
    private readonly callAs: CallAs = noCalls,
    private readonly o: ServedStreamsOptions = {},
  ) {}

  /** `window`: the opener's StreamOpen window; 0 (an older opener) sends as the link takes it. */
  onOpen(id: number, kind: string, paramsJson: string, window = 0): void {
    const close = (reason: string): void => {
      this.session.send('StreamClose', { stream: id, reason: reason.slice(0, 500) });
    };
    if (this.open.has(id)) return close('protocol: that stream id is open');
    if (this.open.size >= LINK_MAX_STREAMS) return close(`limit_reached: at most ${LINK_MAX_STREAMS} streams per link`);
    const k = this.kinds.get(kind);
    if (!k) return close(`unsupported: no stream of kind ${kind.slice(0, 64)} here`);
    const p = this.policy();
    if (!p[k.right]) {
      // observe takes write and respond away whatever they say: name the key that decided.
      const key = p.observe && (k.right === 'write' || k.right === 'respond') ? 'observe = true' : k.right;
      return close(`forbidden: the linked host ${this.host} may not open ${kind.slice(0, 64)} streams here ([hosts.${this.host}] ${key})`);
    }
    const params = jsonObject(paramsJson);
    if (!params) return close('invalid_params: the stream params are not a JSON object');
    const ctl = new AbortController();
    const credit = Number.isSafeInteger(window) && window > 0 ? Math.min(window, LINK_MAX_PENDING_BYTES) : null;
    const entry: Served = { ctl, input: null, control: null, early: [], earlyBytes: 0, credit, waiting: new Set() };
    ctl.signal.addEventListener('abort', () => wake(entry), { once: true });
    // Held words go to their listener once it is set, in the order they came.
    const flush = () => {
      const keep: Served['early'] = [];
      for (const x of entry.early) {
        if ('data' in x) {
          if (entry.input) entry.input(x.data);
          else keep.push(x);
        } else if (entry.control) entry.control(x.op, x.params);
        else keep.push(x);
      }
      entry.early = keep;
      entry.earlyBytes = keep.reduce((n, x) => n + ('data' in x ? x.data.length : 0), 0);
    };
    this.open.set(id, entry);
    let ended = false;
    const sink: StreamSink = {
      signal: ctl.signal,
      host: this.host,
      onInput: (fn) => {
        entry.input = fn;
        flush();
      },
      onControl: (fn) => {
        entry.control = fn;
        flush();
      },
      control: (op, p) => !ended && this.session.send('StreamControl', { stream: id, op, params: JSON.stringify(p) }),
      callAs: (asWindow, verb, p, signal, timeoutMs) => this.callAs(asWindow, verb, p, signal, timeoutMs),
      write: async (data) => {
        let off = 0;
        while (off < data.length && !ended && !this.session.isClosed) {
          if (this.session.pending > LINK_STREAM_HIGH_WATER) await this.drained();
          if (entry.credit !== null && entry.credit <= 0 && !(await this.credited(entry))) {
            if (!ended) sink.end(`slow: ${this.host} read nothing of the stream for ${Math.round(this.unreadMs / 1000)} s; open it again`);
            return;
          }
          if (ended || this.session.isClosed) return;
          const n = Math.min(LINK_STREAM_CHUNK_BYTES, data.length - off, entry.credit ?? Infinity);
          this.session.send('StreamData', { stream: id, data: data.subarray(off, off + n) });
          if (entry.credit !== null) entry.credit -= n;
          off += n;
        }
      },
      end: (reason) => {
        if (ended) return;
        ended = true;
        this.open.delete(id);
        ctl.abort('ended');
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
    const e = this.open.get(id);
    if (!e) return;
    this.open.delete(id);
    e.ctl.abort('closed');
  }

  /** Bytes from the opener: to the handler that takes them, held until it listens. */
  onData(id: number, data: Buffer): void {
    const e = this.open.get(id);
    if (!e) return;
    if (e.input && e.early.length === 0) return e.input(data);
    this.hold(id, e, { data: Buffer.from(data) }, data.length);
  }

  onControl(id: number, op: string, paramsJson: string): void {
    const e = this.open.get(id);
    if (!e) return;
    const params = controlParams(paramsJson);
    if (e.control && e.early.length === 0) return e.control(op.slice(0, 64), params);
    this.hold(id, e, { op: op.slice(0, 64), params }, 0);
  }

  /** Streams whose writes wait for their opener's credit now (it holds a full window unread). */
  get waitingForCredit(): number {
    let n = 0;
    for (const e of this.open.values()) if (e.waiting.size > 0) n++;
    return n;
  }

  /** The opener read `bytes` more: its stream's writes may send that many more. */
  onCredit(id: number, bytes: number): void {
    const e = this.open.get(id);
    if (!e || e.credit === null || !Number.isSafeInteger(bytes) || bytes <= 0) return;
    // An honest opener never grants past its window; a bigger grant is held to the opener's own cut.
    e.credit = Math.min(e.credit + bytes, LINK_MAX_PENDING_BYTES);
    wake(e);
  }

  private get unreadMs(): number {
    return this.o.unreadMs ?? LINK_STREAM_UNREAD_MS;
  }

  /** Waits for credit: true once there is some, false after unreadMs without (the caller ends the stream). */
  private credited(e: Served): Promise<boolean> {
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(t);
        e.waiting.delete(onWake);
        resolve(ok);
      };
      const onWake = () => done(true);
      const t = setTimeout(() => done(false), this.unreadMs);
      t.unref();
      e.waiting.add(onWake);
    });
  }

  /** A kind that never listens (a one-way stream) is ended once too much waits for it. */
  private hold(id: number, e: Served, x: Served['early'][number], bytes: number): void {
    if (e.early.length >= EARLY_MAX_ITEMS || e.earlyBytes + bytes > LINK_STREAM_HIGH_WATER) {
      this.open.delete(id);
      e.ctl.abort('ended');
      this.session.send('StreamClose', { stream: id, reason: 'limit_reached: the stream does not take that much from its opener' });
      return;
    }
    e.early.push(x);
    e.earlyBytes += bytes;
  }

  /** Waits until the link's send buffer is under LINK_STREAM_HIGH_WATER. */
  private drained(): Promise<void> {
    return new Promise((resolve) => {
      const off = this.session.onDrain(() => {
        if (this.session.pending > LINK_STREAM_HIGH_WATER) return;
        off();
        clearInterval(t);
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
    for (const e of this.open.values()) e.ctl.abort('link');
    this.open.clear();
  }
}

function wake(e: Served): void {
  for (const fn of [...e.waiting]) fn();
}

/** How an opened stream reaches the other side besides closing. */
export interface StreamOut {
  data(data: Buffer): boolean;
  control(op: string, params: Record<string, unknown>): boolean;
  /** Grants the server `bytes` more (StreamCredit); only called on a stream opened with a window. */
  credit?(bytes: number): boolean;
}

const noOut: StreamOut = { data: () => false, control: () => false };

/** A stream this side opened: its bytes as a Readable, its end with the other side's reason. */
export class OpenedStream extends Readable {
  /** Empty for a clean end, else `code: words` from the other side (or this side's link). */
  closeReason: string | null = null;

  private controlListener: ((op: string, params: Record<string, unknown>) => void) | null = null;
  /** Bytes fed, and bytes granted back as credit (the server may send window + granted in all). */
  private received = 0;
  private granted = 0;
  private readonly step: number;

  /**
   * `window`: what StreamOpen told the server it may send unread (0: it grants no credit, and a
   * reader that leaves LINK_MAX_PENDING_BYTES unread ends the stream).
   */
  constructor(
    readonly id: number,
    private readonly cancel: () => void,
    private readonly out: StreamOut = noOut,
    readonly window = 0,
  ) {
    super({ highWaterMark: LINK_STREAM_HIGH_WATER });
    this.step = Math.max(1, Math.min(LINK_STREAM_CREDIT_BYTES, window));
  }

  /** Bytes to the serving side, cut to frames of at most LINK_STREAM_CHUNK_BYTES. */
  input(data: Buffer): boolean {
    if (this.closeReason !== null) return false;
    for (let off = 0; off < data.length; off += LINK_STREAM_CHUNK_BYTES) if (!this.out.data(data.subarray(off, off + LINK_STREAM_CHUNK_BYTES))) return false;
    return true;
  }

  control(op: string, params: Record<string, unknown>): boolean {
    if (this.closeReason !== null) return false;
    return this.out.control(op, params);
  }

  onControl(fn: (op: string, params: Record<string, unknown>) => void): void {
    this.controlListener = fn;
  }

  /** Called by the link: a control word from the serving side. */
  feedControl(op: string, paramsJson: string): void {
    if (this.closeReason !== null) return;
    this.controlListener?.(op.slice(0, 64), controlParams(paramsJson));
  }

  override _read(): void {
    // Data is pushed as frames arrive; credit is granted as it is read (read, below).
  }

  /** Every way bytes leave the buffer (read(), flowing 'data', pipe, async iteration) passes here. */
  override read(size?: number): ReturnType<Readable['read']> {
    const r: unknown = super.read(size);
    if (this.window) this.grant();
    return r;
  }

  /**
   * Grants what the reader took since the last grant, once it is a step: the server then may send
   * up to `window` past what was read. A reader that drains its buffer always grants (the step is
   * at most the window), so a server waiting for credit is always woken.
   */
  private grant(): void {
    if (this.closeReason !== null) return;
    const owed = this.received - this.readableLength - this.granted;
    if (owed >= this.step && this.out.credit?.(owed)) this.granted += owed;
  }

  /**
   * Called by the link: one frame's data. Without a window, a reader that takes nothing is ended,
   * not buffered for; with one, the server never sends past it, and a server that does is cut.
   */
  feed(data: Buffer): void {
    if (this.closeReason !== null) return;
    const limit = this.window || LINK_MAX_PENDING_BYTES;
    if (this.readableLength + data.length > limit) {
      this.cancel();
      this.finish(this.window ? 'protocol: the other side sent past the stream\'s credit' : 'slow: the stream was not read; open it again');
      return;
    }
    this.received += data.length;
    // A view of the frame as it was read: the SSH layer decrypts each packet into a buffer of its
    // own and the decoder keeps none, so nothing else writes these bytes.
    this.push(data);
    // Pushed straight to a flowing reader, the bytes are taken already.
    if (this.window) this.grant();
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
