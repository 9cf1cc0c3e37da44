// A herdr socket client written from the spec's tables (agents-guide.md, herdr's pane state
// protocol and herdr compatibility): one JSON object on one line per connection, `{"id","method",
// "params"}`, one answer line, `{"id","result"}` or `{"id","error":{"code","message"}}`, and the
// server closes the connection.
import { execFile } from 'node:child_process';
import { connect } from 'node:net';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { waitFor } from './wait.js';

/** What these helpers need of a test daemon (test/helpers/daemon.ts's TestDaemon). */
export interface HerdrTestDaemon {
  socket: string;
  home: string;
  env: Record<string, string | undefined>;
  json<T>(args: string[]): Promise<T>;
  ok(args: string[]): Promise<string>;
}

/** A window as list-windows gives it, the fields the herdr tests read. */
export interface HerdrWin {
  id: string;
  name: string;
  session: string;
  session_id: string;
  workspace: number;
  focused: boolean;
  pid: number | null;
  foreground: { pid: number; comm: string; argv: string[] | null } | null;
}

/** The herdr socket of a daemon: its socket with `.herdr` added. */
export const herdrSocketOf = (d: { socket: string }): string => `${d.socket}.herdr`;

/** herdr's workspace id of a session (or a session id): `w` and its first 12 hex digits. */
export const herdrWsId = (s: { id: string } | string): string => `w${(typeof s === 'string' ? s : s.id).slice(0, 12)}`;
/** herdr's tab id: the workspace id, `:t` and the tab number. */
export const herdrTabIdOf = (s: { id: string } | string, n: number): string => `${herdrWsId(s)}:t${n}`;
/** herdr's pane id of a window: `w<session>:p<window>`, 12 hex digits each. */
export const herdrPaneIdOf = (w: { id: string; session_id: string }): string => `w${w.session_id.slice(0, 12)}:p${w.id.slice(0, 12)}`;

/** Every window of the daemon (list-windows). */
export async function herdrWindows<W = HerdrWin>(d: Pick<HerdrTestDaemon, 'json'>): Promise<W[]> {
  return (await d.json<{ windows: W[] }>(['list-windows'])).windows;
}

/** The window with this name (or id); throws when there is none. */
export async function herdrWin<W = HerdrWin>(d: Pick<HerdrTestDaemon, 'json'>, ref: string): Promise<W> {
  const w = (await herdrWindows<HerdrWin>(d)).find((x) => x.name === ref || x.id === ref);
  if (!w) throw new Error(`no window ${ref}`);
  return w as W;
}

/** A session as list-sessions gives it, the fields the herdr tests read. */
export interface HerdrSession {
  id: string;
  name: string;
  active_workspace: number;
  tabs: Array<{ workspace: number; number: number; name: string | null }>;
}

/** The session with this name, or undefined when there is none. */
export async function herdrSession<S = HerdrSession>(d: Pick<HerdrTestDaemon, 'json'>, name: string): Promise<S | undefined> {
  return (await d.json<{ sessions: Array<S & { name: string }> }>(['list-sessions'])).sessions.find((s) => s.name === name);
}

/** get-agent-state of the window with this name. */
export function herdrAgentState<T = { state: string; kind: string; message: string; source: string | null; harness_id: string | null; agent_session_id: string | null }>(d: Pick<HerdrTestDaemon, 'json'>, name: string): Promise<T> {
  return d.json<T>(['get-agent-state', '-w', name]);
}

/** herdr's pane id of the window with this name. */
export async function herdrPaneOf(d: Pick<HerdrTestDaemon, 'json'>, ref: string): Promise<string> {
  return herdrPaneIdOf(await herdrWin(d, ref));
}

/** A pane's shell waits at its prompt: its foreground process is the pane's own. */
export async function herdrAtPrompt(d: Pick<HerdrTestDaemon, 'json'>, ref: string): Promise<void> {
  await waitFor(async () => {
    const w = await herdrWin(d, ref);
    return w.foreground !== null && w.foreground.pid === w.pid;
  }, { what: `${ref} at its prompt` });
}

/** The link named `herdr` to tuios that the daemon makes beside its socket. */
export const herdrLinkOf = (d: { socket: string }): string => join(dirname(d.socket), 'herdr', 'bin', 'herdr');

export interface HerdrCliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** herdr's command line: the daemon's herdr link run with HERDR_SOCKET_PATH set to its herdr socket. */
export function herdrCli(d: Pick<HerdrTestDaemon, 'socket' | 'env'>, args: string[], env: Record<string, string> = {}, timeoutMs = 60_000): Promise<HerdrCliRun> {
  return new Promise((resolve) => {
    execFile(herdrLinkOf(d), args, { env: { ...d.env, HERDR_SOCKET_PATH: herdrSocketOf(d), ...env }, timeout: timeoutMs }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** herdr's command line, its JSON answer's result; throws when it exits other than 0. */
export async function herdrCliJson<T = Record<string, unknown>>(d: Pick<HerdrTestDaemon, 'socket' | 'env'>, args: string[]): Promise<T> {
  const r = await herdrCli(d, args);
  if (r.code !== 0) throw new Error(`herdr ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return (JSON.parse(r.stdout) as { result: T }).result;
}

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
s.on('error', (e) => fs.writeFileSync(file, JSON.stringify({ client_error: e.message }) + '\\n'));
s.write(JSON.stringify({ id: 1, method, params: JSON.parse(params) }) + '\\n');
`;

let paneRuns = 0;

/**
 * The path of the one-request client script (args: method, params as JSON, answer file), written
 * into the daemon's home the first time, for a test that runs it from a program of its own.
 */
export function herdrPaneClient(d: Pick<HerdrTestDaemon, 'home'>): string {
  const client = join(d.home, 'herdr-pane-client.cjs');
  if (!existsSync(client)) writeFileSync(client, PANE_CLIENT);
  return client;
}

/**
 * One herdr request sent by a process in the pane `window` (typed at its shell prompt), so the
 * daemon places the caller in that pane. Resolves with the answer line, parsed.
 */
export async function herdrFromPane(d: Pick<HerdrTestDaemon, 'home' | 'ok'>, window: string, method: string, params: Record<string, unknown> = {}): Promise<HerdrAnswer> {
  const client = herdrPaneClient(d);
  const file = join(d.home, `herdr-answer-${process.pid}-${++paneRuns}.json`);
  const json = JSON.stringify(params).replaceAll("'", `'\\''`);
  await d.ok(['send-text', '-w', window, '--submit', `${process.execPath} ${client} ${method} '${json}' ${file}`]);
  const a = await waitFor(() => (existsSync(file) && readFileSync(file, 'utf8').endsWith('\n') ? (JSON.parse(readFileSync(file, 'utf8')) as HerdrAnswer & { client_error?: string }) : null), { what: `the answer to ${method} from ${window}` });
  if (a.client_error) throw new Error(`the client in ${window} could not reach the herdr socket: ${a.client_error}`);
  return a;
}
