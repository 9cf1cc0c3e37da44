// JSON-RPC 2.0 over newline-delimited JSON, as `codex app-server` speaks it on stdio (it leaves
// out the "jsonrpc" member, and accepts messages without it). Framing, ids and bounds only: what
// the messages mean is proto/codex.ts's.
//
// Every line is data from another program: a line that is not JSON, not an object, or longer
// than CODEX_LINE_MAX_BYTES is dropped and counted, never thrown.
import type { Readable, Writable } from 'node:stream';
import { CODEX_LINE_MAX_BYTES, CODEX_PENDING_MAX } from './codex-limits.js';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue };
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

/** The code Codex reads as "not handled" (and an approval so answered as not approved). */
export const METHOD_NOT_FOUND = -32601;

/** An answer the other side gave as a JSON-RPC error. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export interface WireHandlers {
  /** A notification from the server. */
  notification(method: string, params: Json): void;
  /** A request from the server; answer it with respond or respondError (exactly once). */
  request(id: string | number, method: string, params: Json): void;
  /** The stream ended (the process exited or closed stdout). */
  closed(): void;
}

/** What one line carried, for a recording tap (the capture script). */
export type Tapped = { dir: 'in' | 'out'; msg: Json };

export class LineRpc {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: Json) => void; reject: (e: Error) => void; timer: NodeJS.Timeout | null }>();
  private buf: Buffer[] = [];
  private bufBytes = 0;
  /** True while the rest of an over-long line is being skipped. */
  private skipping = false;
  private ended = false;
  /** Lines dropped: over-long, not JSON, or not a message. */
  dropped = 0;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly handlers: WireHandlers,
    private readonly tap?: (t: Tapped) => void,
  ) {
    input.on('data', (chunk: Buffer | string) => this.onData(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    input.on('end', () => this.end());
    input.on('close', () => this.end());
    input.on('error', () => this.end());
    // A write to a process that is gone fails here, not as an uncaught exception.
    output.on('error', () => this.end());
  }

  /** Sends a request; resolves with its result, rejects with RpcError or on timeout or close. */
  request(method: string, params: Json, timeoutMs: number): Promise<Json> {
    if (this.ended) return Promise.reject(new Error(`the app-server is gone (${method} not sent)`));
    if (this.pending.size >= CODEX_PENDING_MAX) return Promise.reject(new Error(`too many requests awaiting an answer (${CODEX_PENDING_MAX})`));
    const id = this.nextId++;
    return new Promise<Json>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`the app-server did not answer ${method} within ${Math.round(timeoutMs / 1000)} s`));
      }, timeoutMs);
      timer.unref?.();
      this.pending.set(id, { resolve, reject, timer });
      this.write({ id, method, params });
    });
  }

  notify(method: string, params?: Json): void {
    this.write(params === undefined ? { method } : { method, params });
  }

  respond(id: string | number, result: Json): void {
    this.write({ id, result });
  }

  respondError(id: string | number, code: number, message: string): void {
    this.write({ id, error: { code, message } });
  }

  get closed(): boolean {
    return this.ended;
  }

  private write(msg: Json): void {
    if (this.ended) return;
    this.tap?.({ dir: 'out', msg });
    this.output.write(`${JSON.stringify(msg)}\n`);
  }

  private onData(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl < 0) break;
      this.take(chunk.subarray(start, nl), true);
      start = nl + 1;
    }
    if (start < chunk.length) this.take(chunk.subarray(start), false);
  }

  /** A piece of a line; `last` when the newline ended it. */
  private take(piece: Buffer, last: boolean): void {
    if (!this.skipping) {
      if (this.bufBytes + piece.length > CODEX_LINE_MAX_BYTES) {
        this.buf = [];
        this.bufBytes = 0;
        this.skipping = true;
        this.dropped++;
      } else if (piece.length > 0) {
        this.buf.push(piece);
        this.bufBytes += piece.length;
      }
    }
    if (!last) return;
    if (this.skipping) {
      this.skipping = false;
      return;
    }
    const line = this.buf.length === 1 ? this.buf[0]! : Buffer.concat(this.buf);
    this.buf = [];
    this.bufBytes = 0;
    if (line.length === 0) return;
    let msg: Json;
    try {
      msg = JSON.parse(line.toString('utf8'));
    } catch {
      this.dropped++;
      return;
    }
    if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) {
      this.dropped++;
      return;
    }
    this.tap?.({ dir: 'in', msg });
    this.dispatch(msg);
  }

  private dispatch(msg: Json): void {
    const hasId = typeof msg.id === 'number' || typeof msg.id === 'string';
    if (typeof msg.method === 'string') {
      if (hasId) this.handlers.request(msg.id, msg.method, msg.params);
      else this.handlers.notification(msg.method, msg.params);
      return;
    }
    if (!hasId || typeof msg.id !== 'number') {
      this.dropped++;
      return;
    }
    const p = this.pending.get(msg.id);
    if (!p) return; // an answer after its timeout
    this.pending.delete(msg.id);
    if (p.timer) clearTimeout(p.timer);
    if (msg.error && typeof msg.error === 'object') {
      const code = typeof msg.error.code === 'number' ? msg.error.code : 0;
      p.reject(new RpcError(code, typeof msg.error.message === 'string' ? msg.error.message : 'error', msg.error.data));
    } else p.resolve(msg.result);
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    for (const [, p] of this.pending) {
      if (p.timer) clearTimeout(p.timer);
      p.reject(new Error('the app-server exited'));
    }
    this.pending.clear();
    this.handlers.closed();
  }
}
