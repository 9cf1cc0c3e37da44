// The verb client: what the CLI, hooks and tests use to talk to a daemon. It loads only node:net,
// so a CLI call stays fast.
import { connect, type Socket } from 'node:net';

export interface RpcErrorBody {
  code: string;
  message: string;
  hint?: string;
  [k: string]: unknown;
}

export class RpcError extends Error {
  constructor(readonly body: RpcErrorBody) {
    super(body.message);
    this.name = 'RpcError';
  }
  get code(): string {
    return this.body.code;
  }
}

interface Pending {
  resolve(v: unknown): void;
  reject(e: unknown): void;
  onEvent?: (ev: unknown) => void;
  answered: boolean;
}

export class RpcClient {
  private buf = '';
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private closedError: Error | null = null;
  private closeListeners: Array<(e: Error) => void> = [];

  private constructor(
    private readonly sock: Socket,
    private readonly pane: string | null,
  ) {
    sock.setEncoding('utf8');
    sock.on('data', (d: string) => this.onData(d));
    sock.on('error', (e) => this.fail(e));
    sock.on('close', () => this.fail(new Error('the daemon closed the connection')));
  }

  /** Connects, or rejects with the socket error (ENOENT, ECONNREFUSED: no daemon answers). */
  static connect(path: string, opts: { timeoutMs?: number; pane?: string | null } = {}): Promise<RpcClient> {
    return new Promise((resolve, reject) => {
      const sock = connect(path);
      const t = setTimeout(() => {
        sock.destroy();
        reject(Object.assign(new Error(`connect to ${path} timed out`), { code: 'ETIMEDOUT' }));
      }, opts.timeoutMs ?? 5000);
      sock.once('connect', () => {
        clearTimeout(t);
        resolve(new RpcClient(sock, opts.pane ?? null));
      });
      sock.once('error', (e) => {
        clearTimeout(t);
        reject(e);
      });
    });
  }

  call<T = unknown>(verb: string, params: Record<string, unknown> = {}): Promise<T> {
    return this.request(verb, params) as Promise<T>;
  }

  /** A stream verb: resolves with the first result; `onEvent` gets every event after it. */
  stream<T = unknown>(verb: string, params: Record<string, unknown>, onEvent: (ev: unknown) => void): Promise<T> {
    return this.request(verb, params, onEvent) as Promise<T>;
  }

  /** Writes a raw line (tests use it to send malformed input). */
  sendRaw(line: string): void {
    this.sock.write(line);
  }

  onClose(fn: (e: Error) => void): void {
    if (this.closedError) fn(this.closedError);
    else this.closeListeners.push(fn);
  }

  close(): void {
    this.sock.end();
    this.sock.destroy();
  }

  private request(verb: string, params: Record<string, unknown>, onEvent?: (ev: unknown) => void): Promise<unknown> {
    if (this.closedError) return Promise.reject(this.closedError);
    const id = this.nextId++;
    const msg: Record<string, unknown> = { id, verb, params };
    if (this.pane) msg.pane = this.pane;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onEvent, answered: false });
      this.sock.write(JSON.stringify(msg) + '\n');
    });
  }

  private onData(d: string): void {
    this.buf += d;
    let nl: number;
    while ((nl = this.buf.indexOf('\n')) >= 0) {
      const line = this.buf.slice(0, nl);
      this.buf = this.buf.slice(nl + 1);
      if (line) this.onLine(line);
    }
  }

  private onLine(line: string): void {
    let msg: { id?: unknown; result?: unknown; error?: RpcErrorBody; event?: unknown };
    try {
      msg = JSON.parse(line);
    } catch {
      return;
    }
    const id = typeof msg.id === 'number' ? msg.id : null;
    const p = id !== null ? this.pending.get(id) : undefined;
    if (!p) {
      // An error with no id (framing, rate limit) fails everything outstanding.
      if (msg.error && id === null) for (const q of this.pending.values()) q.reject(new RpcError(msg.error));
      return;
    }
    if ('event' in msg) {
      p.onEvent?.(msg.event);
      return;
    }
    if (msg.error) {
      if (p.answered) p.onEvent?.({ type: 'stream-error', error: msg.error });
      else p.reject(new RpcError(msg.error));
      this.pending.delete(id!);
      return;
    }
    p.answered = true;
    p.resolve(msg.result);
    if (!p.onEvent) this.pending.delete(id!);
  }

  private fail(e: Error): void {
    if (this.closedError) return;
    this.closedError = e;
    for (const p of this.pending.values()) {
      if (p.answered) p.onEvent?.({ type: 'stream-closed' });
      else p.reject(e);
    }
    this.pending.clear();
    for (const fn of this.closeListeners) fn(e);
    this.closeListeners = [];
  }
}
