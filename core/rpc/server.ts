// The verb socket: a Unix socket in a 0700 folder, JSON lines, many requests per connection.
// Bad input on one connection never reaches another: a bad line gets an error line, an oversized
// line closes that connection only, a process holding too many connections is refused, and a
// connection whose unread replies pass their limit is no longer read until its client reads.
import type { Server, Socket } from 'node:net';
import { listenPrivate } from './listen.js';
import type { Logger } from '../log.js';
import { LineSplitter, PartialBudget } from './framing.js';
import { RequestFlow } from './request-flow.js';
import { readPeer, type Caller } from './caller.js';
import type { Dispatcher, Responder } from './dispatch.js';
import { MAX_CONNECTIONS_PER_PROCESS, MAX_LINE_BYTES, MAX_PARTIAL_LINE_BYTES } from '../limits.js';

export class RpcServer {
  private server: Server | null = null;
  private nextConn = 1;
  private readonly perPid = new Map<number, number>();
  private readonly sockets = new Set<Socket>();
  /** Unfinished request lines, across every connection: many half lines cannot grow the daemon. */
  private readonly partials = new PartialBudget(MAX_PARTIAL_LINE_BYTES);

  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly log: Logger,
    private readonly onCaller?: (c: Caller) => void,
  ) {}

  async listen(path: string): Promise<void> {
    this.server = await listenPrivate(path, (sock) => this.accept(sock), { onError: (e) => this.log.error('socket server error', { error: String(e) }) });
  }

  get connectionCount(): number {
    return this.sockets.size;
  }

  private accept(sock: Socket): void {
    const { pid, uid } = readPeer(sock);
    if (pid !== null) {
      const n = (this.perPid.get(pid) ?? 0) + 1;
      if (n > MAX_CONNECTIONS_PER_PROCESS) {
        this.log.warn('connection refused: too many from one process', { pid });
        sock.end(
          JSON.stringify({
            id: null,
            error: {
              code: 'rate_limited',
              message: `This process already holds ${MAX_CONNECTIONS_PER_PROCESS} connections to the daemon.`,
              hint: 'Close connections you no longer use.',
            },
          }) + '\n',
        );
        return;
      }
      this.perPid.set(pid, n);
    }
    this.sockets.add(sock);
    const ctl = new AbortController();
    const caller: Caller = { connId: this.nextConn++, channel: 'socket', pid, uid, readOnly: false, paneHint: null };
    this.onCaller?.(caller);

    const out: Responder = {
      send: (msg) => {
        if (sock.destroyed || !sock.writable) return;
        sock.write(JSON.stringify(msg) + '\n');
      },
      pendingBytes: () => sock.writableLength,
      close: () => {
        sock.end();
        ctl.abort();
      },
      signal: ctl.signal,
    };
    // What waits on this connection is bounded: past the limits, reading it stops (request-flow.ts).
    const flow = new RequestFlow({
      pendingBytes: () => sock.writableLength,
      pause: () => sock.pause(),
      resume: () => sock.resume(),
      run: (line) => this.dispatcher.handleLine(line, caller, out),
    });
    sock.on('drain', () => flow.drained());
    const splitter = new LineSplitter(
      MAX_LINE_BYTES,
      (line) => flow.push(line),
      () => {
        this.log.warn('connection closed: line over the limit', { conn: caller.connId, pid, limit: MAX_LINE_BYTES });
        out.send({
          id: null,
          error: { code: 'line_too_long', message: `A request line is at most ${MAX_LINE_BYTES} bytes; this connection is closed.`, hint: 'Send large text in smaller calls.' },
        });
        out.close();
      },
      {
        pool: this.partials,
        onExhausted: () => {
          this.log.warn('connection closed: half lines held across connections over the limit', { conn: caller.connId, pid, limit: MAX_PARTIAL_LINE_BYTES });
          out.send({
            id: null,
            error: { code: 'rate_limited', message: `The daemon holds ${MAX_PARTIAL_LINE_BYTES} bytes of unfinished request lines across its connections; this connection is closed.`, hint: 'Send each request as one whole line, and try again.' },
          });
          out.close();
        },
      },
    );
    sock.on('data', (chunk: Buffer) => {
      try {
        splitter.push(chunk);
      } catch (e) {
        this.log.error('connection handler threw', { conn: caller.connId, error: String(e) });
      }
    });
    sock.on('error', () => {
      // A peer that vanished mid-write; close handles the cleanup.
    });
    sock.on('close', () => {
      flow.close();
      splitter.dispose();
      this.sockets.delete(sock);
      ctl.abort();
      if (pid !== null) {
        const n = (this.perPid.get(pid) ?? 1) - 1;
        if (n <= 0) this.perPid.delete(pid);
        else this.perPid.set(pid, n);
      }
    });
  }

  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => {
      if (!this.server) return resolve();
      this.server.close(() => resolve());
      this.server = null;
    });
  }
}
