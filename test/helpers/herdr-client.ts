// A herdr socket client written from the spec's tables (agents-guide.md, herdr's pane state
// protocol and herdr compatibility): one JSON object on one line per connection, `{"id","method",
// "params"}`, one answer line, `{"id","result"}` or `{"id","error":{"code","message"}}`, and the
// server closes the connection.
import { connect } from 'node:net';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from './wait.js';

export interface HerdrAnswer<T = Record<string, unknown>> {
  id: string | number | null;
  result?: T;
  error?: { code: string; message: string };
}

let seq = 0;

/** Sends raw bytes and reads what comes back until the server closes the connection. */
export function herdrRaw(socket: string, bytes: string | Buffer, timeoutMs = 20_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(socket);
    let out = '';
    const timer = setTimeout(() => {
      s.destroy();
      reject(new Error(`the herdr socket did not close within ${timeoutMs} ms; read so far: ${out.slice(0, 200)}`));
    }, timeoutMs);
    s.setEncoding('utf8');
    s.on('data', (x: string) => (out += x));
    s.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    s.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
    s.write(bytes);
  });
}

/** One request and its one answer line. */
export async function herdrCall<T = Record<string, unknown>>(socket: string, method: string, params: Record<string, unknown> = {}): Promise<HerdrAnswer<T>> {
  const id = `t${++seq}`;
  const out = await herdrRaw(socket, JSON.stringify({ id, method, params }) + '\n');
  const lines = out.split('\n').filter(Boolean);
  if (lines.length !== 1) throw new Error(`expected one answer line, got ${lines.length}: ${out.slice(0, 300)}`);
  const a = JSON.parse(lines[0]!) as HerdrAnswer<T>;
  if (a.id !== id) throw new Error(`answer id ${String(a.id)} is not the request's ${id}`);
  return a;
}

/** The result, or a thrown error carrying herdr's code. */
export async function herdrOk<T = Record<string, unknown>>(socket: string, method: string, params: Record<string, unknown> = {}): Promise<T> {
  const a = await herdrCall<T>(socket, method, params);
  if (a.error) throw Object.assign(new Error(`${method}: ${a.error.code}: ${a.error.message}`), { code: a.error.code });
  return a.result!;
}

/** The error code a call answers; throws when it succeeds. */
export async function herdrErr(socket: string, method: string, params: Record<string, unknown> = {}): Promise<{ code: string; message: string }> {
  const a = await herdrCall(socket, method, params);
  if (!a.error) throw new Error(`${method} succeeded where an error was expected: ${JSON.stringify(a.result).slice(0, 300)}`);
  return a.error;
}

/** An events.subscribe stream: the lines as they come, until closed. */
export class HerdrStreamClient {
  readonly lines: Array<Record<string, unknown>> = [];
  closed = false;
  private readonly sock;
  private buf = '';

  constructor(socket: string, params: Record<string, unknown>) {
    this.sock = connect(socket);
    this.sock.setEncoding('utf8');
    this.sock.on('data', (x: string) => {
      this.buf += x;
      let nl;
      while ((nl = this.buf.indexOf('\n')) >= 0) {
        this.lines.push(JSON.parse(this.buf.slice(0, nl)));
        this.buf = this.buf.slice(nl + 1);
      }
    });
    this.sock.on('error', () => undefined);
    this.sock.on('close', () => (this.closed = true));
    this.sock.write(JSON.stringify({ id: 'sub', method: 'events.subscribe', params }) + '\n');
  }

  /** The events (not the first answer) named `event`. */
  events(event: string): Array<Record<string, unknown>> {
    return this.lines.filter((l) => l.event === event).map((l) => l.data as Record<string, unknown>);
  }

  close(): void {
    this.sock.destroy();
  }
}

/** A one-request herdr client run inside a pane (HERDR_SOCKET_PATH from the pane), its answer written to a file. */
const PANE_CLIENT = `
const net = require('node:net');
const fs = require('node:fs');
const [method, params, file] = process.argv.slice(2);
const s = net.connect(process.env.HERDR_SOCKET_PATH);
let out = '';
s.setEncoding('utf8');
s.on('data', (x) => (out += x));
s.on('close', () => fs.writeFileSync(file, out));
s.write(JSON.stringify({ id: 1, method, params: JSON.parse(params) }) + '\\n');
`;

let paneRuns = 0;

/**
 * One herdr request sent by a process in the pane `window` (typed at its shell prompt), so the
 * daemon places the caller in that pane. Resolves with the answer line, parsed.
 */
export async function herdrFromPane(d: { home: string; ok(args: string[]): Promise<string> }, window: string, method: string, params: Record<string, unknown>): Promise<HerdrAnswer> {
  const client = join(d.home, 'herdr-pane-client.cjs');
  if (!existsSync(client)) writeFileSync(client, PANE_CLIENT);
  const file = join(d.home, `herdr-answer-${process.pid}-${++paneRuns}.json`);
  const json = JSON.stringify(params).replaceAll("'", `'\\''`);
  await d.ok(['send-text', '-w', window, '--submit', `${process.execPath} ${client} ${method} '${json}' ${file}`]);
  return waitFor(() => (existsSync(file) && readFileSync(file, 'utf8').endsWith('\n') ? (JSON.parse(readFileSync(file, 'utf8')) as HerdrAnswer) : null), { what: `the answer to ${method} from ${window}` });
}
