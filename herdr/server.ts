// The herdr socket: `<daemon socket>.herdr`, owner only, herdr's wire (spec: herdr's pane state
// protocol): one JSON object on one line per connection, `{"id","method","params"}`, answered with
// one line, `{"id","result":{...}}` or `{"id","error":{"code","message"}}`, and the connection
// closes. The verb socket's bounds hold here too: a line is at most MAX_LINE_BYTES, a process
// holds at most MAX_CONNECTIONS_PER_PROCESS connections, and bad input is an error line on that
// connection, never a crash.
import type { Server, Socket } from 'node:net';
import { closePrivate, listenPrivate } from '../core/rpc/listen.js';
import type { Services } from '../core/daemon/services.js';
import { readPeer, type Caller } from '../core/rpc/caller.js';
import { LineSplitter } from '../core/rpc/framing.js';
import { toErrorBody } from '../core/errors.js';
import { MAX_CONNECTIONS_PER_PROCESS, MAX_LINE_BYTES } from '../core/limits.js';
import { HerdrError, methodFor, type MethodContext, type Params } from './methods.js';
import { reportMethods } from './reports.js';
import { eventsSubscribe, HerdrStream } from './events.js';
import { HERDR_ID_MAX, HERDR_MAX_STREAMS_PER_PROCESS } from './limits.js';

export function herdrSocketPath(verbSocket: string): string {
  return `${verbSocket}.herdr`;
}

type RequestId = string | number | null;

export interface HerdrRequest {
  id: RequestId;
  method: string;
  params: Params;
}

/** herdr's request envelope, or the error its client gets for the line. */
export function parseRequest(line: string): HerdrRequest {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    throw new HerdrError('invalid_request', 'the request is not JSON');
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new HerdrError('invalid_request', 'the request is not a JSON object');
  const o = v as Record<string, unknown>;
  if (!('id' in o)) throw new HerdrError('invalid_request', 'missing field `id`');
  const id = o.id;
  if (!(typeof id === 'string' || typeof id === 'number' || id === null)) throw new HerdrError('invalid_request', 'invalid type for `id`');
  if (typeof id === 'string' && id.length > HERDR_ID_MAX) throw new HerdrError('invalid_request', `\`id\` is longer than ${HERDR_ID_MAX} characters`);
  if (!('method' in o)) throw new HerdrError('invalid_request', 'missing field `method`');
  if (typeof o.method !== 'string') throw new HerdrError('invalid_request', 'invalid type for `method`: expected a string');
  if (o.method.length > HERDR_ID_MAX) throw new HerdrError('invalid_request', 'unknown method');
  const params = o.params ?? {};
  if (typeof params !== 'object' || params === null || Array.isArray(params)) throw new HerdrError('invalid_request', 'invalid type for `params`: expected a map');
  return { id, method: o.method, params: params as Params };
}

/** The id of a line that failed to parse, when it has a usable one. */
function idOf(line: string): RequestId {
  try {
    const v = JSON.parse(line) as { id?: unknown };
    if (typeof v.id === 'number' || (typeof v.id === 'string' && v.id.length <= HERDR_ID_MAX)) return v.id;
  } catch {
    // no id to give back
  }
  return null;
}

let nextConn = 4_000_000;

export class HerdrSocket {
  private server: Server | null = null;
  private readonly perPid = new Map<number, number>();
  private readonly streamsPerPid = new Map<number, number>();
  private readonly conns = new Set<Socket>();
  readonly path: string;

  constructor(private readonly svc: Services) {
    this.path = herdrSocketPath(svc.paths.socket);
  }

  async listen(): Promise<void> {
    this.server = await listenPrivate(this.path, (sock) => this.accept(sock), { replaceStale: true, onError: (e) => this.svc.log.warn('herdr socket error', { error: e.message }) });
  }

  get connectionCount(): number {
    return this.conns.size;
  }

  private accept(sock: Socket): void {
    sock.on('error', () => undefined);
    const { pid, uid } = readPeer(sock);
    if (pid !== null) {
      const n = (this.perPid.get(pid) ?? 0) + 1;
      if (n > MAX_CONNECTIONS_PER_PROCESS) {
        this.svc.log.warn('herdr socket refused a connection: too many from one process', { pid });
        sock.end(JSON.stringify({ id: null, error: { code: 'rate_limited', message: `this process already holds ${MAX_CONNECTIONS_PER_PROCESS} connections to the herdr socket` } }) + '\n');
        return;
      }
      this.perPid.set(pid, n);
    }
    this.conns.add(sock);
    const ctl = new AbortController();
    const caller: Caller = { connId: nextConn++, channel: 'socket', pid, uid, readOnly: false, paneHint: null };
    let answered = false;
    const send = (msg: unknown): void => {
      answered = true;
      if (sock.destroyed || !sock.writable) return;
      if (msg === null) sock.end();
      else sock.end(JSON.stringify(msg) + '\n');
    };
    const splitter = new LineSplitter(
      MAX_LINE_BYTES,
      (line) => {
        // One request per connection: what follows the first line is not read.
        if (answered || ctl.signal.aborted) return;
        answered = true;
        void this.run(line, caller, ctl.signal).then((a) => {
          if (!(a.stream instanceof HerdrStream)) return send(a.answer);
          // A stream: its first answer, then its lines until it ends or the client closes.
          const stream = a.stream;
          const streams = pid === null ? 0 : (this.streamsPerPid.get(pid) ?? 0);
          if (streams >= HERDR_MAX_STREAMS_PER_PROCESS) {
            return send({ id: a.id, error: { code: 'rate_limited', message: `this process already holds ${HERDR_MAX_STREAMS_PER_PROCESS} event streams` } });
          }
          if (pid !== null) {
            this.streamsPerPid.set(pid, streams + 1);
            sock.once('close', () => {
              const n = (this.streamsPerPid.get(pid) ?? 1) - 1;
              if (n <= 0) this.streamsPerPid.delete(pid);
              else this.streamsPerPid.set(pid, n);
            });
          }
          const write = (msg: object) => {
            if (!sock.destroyed && sock.writable) sock.write(JSON.stringify(msg) + '\n');
          };
          write({ id: a.id, result: stream.first });
          stream.start(
            write,
            (error) => send(error ? { id: a.id, error } : null),
            () => sock.writableLength,
            ctl.signal,
          );
        });
      },
      () => {
        if (answered) return sock.destroy();
        this.svc.log.warn('herdr socket closed a connection: line over the limit', { pid, limit: MAX_LINE_BYTES });
        send({ id: null, error: { code: 'invalid_request', message: `a request line is at most ${MAX_LINE_BYTES} bytes` } });
      },
    );
    sock.on('data', (chunk: Buffer) => {
      try {
        splitter.push(chunk);
      } catch (e) {
        this.svc.log.error('herdr connection handler threw', { conn: caller.connId, error: String(e) });
        sock.destroy();
      }
    });
    sock.on('close', () => {
      this.conns.delete(sock);
      ctl.abort();
      if (pid !== null) {
        const n = (this.perPid.get(pid) ?? 1) - 1;
        if (n <= 0) this.perPid.delete(pid);
        else this.perPid.set(pid, n);
      }
    });
  }

  /** One request to its answer line, or a stream. Never throws: every failure is herdr's error shape. */
  private async run(line: string, caller: Caller, signal: AbortSignal): Promise<{ id: RequestId; answer: unknown; stream?: HerdrStream }> {
    let id: RequestId = null;
    try {
      const req = parseRequest(line);
      id = req.id;
      const ctx: MethodContext = { svc: this.svc, caller, params: req.params, signal };
      if (req.method === 'events.subscribe') return { id, answer: null, stream: eventsSubscribe(ctx) };
      const report = Object.hasOwn(reportMethods, req.method) ? (reportMethods as Record<string, (ctx: MethodContext) => Promise<Record<string, unknown>>>)[req.method] : undefined;
      const method = report ?? methodFor(req.method);
      const result = await method(ctx);
      return { id, answer: { id, result } };
    } catch (e) {
      if (id === null) id = idOf(line);
      if (e instanceof HerdrError) return { id, answer: { id, error: { code: e.code, message: e.message } } };
      const b = toErrorBody(e);
      if (b.code === 'internal') this.svc.log.error('herdr method failed', { error: String(e) });
      return { id, answer: { id, error: { code: b.code, message: b.message } } };
    }
  }

  close(): Promise<void> {
    const srv = this.server;
    this.server = null;
    return closePrivate(srv, this.conns, this.path);
  }
}
