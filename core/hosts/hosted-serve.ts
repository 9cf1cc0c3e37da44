// The machine that runs a process for a window held on another machine (spec: A pane on another
// machine). The `hosted-pane` stream spawns it in a PTY here, sends its output to the window's
// owner (pausing the PTY while the link or the owner's emulator is behind) and takes its input,
// resize, pause and kill. A report from inside it (`tuios set-agent-state`, `tuios agent-hook`)
// reaches this daemon naming the owner's window id; only a process in that pane is forwarded
// for, judged by the pid the kernel gave for its connection, and the owner runs it as that window.
// A wait from it (wait-for agent-message, request-approval) runs there too, with its own deadline
// over the link; the link dropping ends it at once with host_down.
// When the link drops the process is kept, its PTY paused, for HOSTED_REATTACH_MS: the owner
// re-attaches with the pane's token and the count of bytes it took, and gets what followed.
import type { Caller } from '../rpc/caller.js';
import type { VerbInfo } from '../rpc/verb-info.js';
import type { StreamSink } from './streams.js';
import type { PaneProcess } from '../pty/pane-process.js';
import { isReservedEnvName } from '../pty/env.js';
import { readStat } from '../pty/procfs.js';
import { decodeTtyNr } from '../security/placement.js';
import { TuiosError } from '../errors.js';
import { FULL_ID_RE } from '../ids.js';
import { HOSTED_DROPPED_PARAMS, hostedBudgetMs, hostedVerbNames, hostedWaitRefusal } from './hosted-pane.js';
import type { HostedSpec } from '../pty/starter.js';
import { DEFAULT_COLS, DEFAULT_ROWS, HOSTED_PANES_MAX, LINK_CALL_MARGIN_MS, HOSTED_RESEND_BYTES, MAX_ARGV, MAX_COLS, MAX_ROWS, MIN_COLS, MIN_ROWS, MAX_ANCESTRY, MAX_ENV_VARS } from '../limits.js';

export const SIGNALS = new Set(['SIGHUP', 'SIGINT', 'SIGTERM', 'SIGKILL', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2', 'SIGWINCH']);

export interface ServedPane {
  /** The window's id on the owner: TUIOS_PANE_ID in the pane. */
  readonly windowId: string;
  /** The owner: the linked host that opened the stream. */
  readonly host: string;
  readonly process: PaneProcess;
  /** major:minor of its terminal, for placing callers. */
  readonly tty: string | null;
  /** The stream to the owner; null while the link is down (the process waits, paused). */
  sink: StreamSink | null;
}

/** The panes this daemon runs for windows on other machines, by the owner's window id. */
export class HostedPanes {
  private readonly panes = new Map<string, ServedPane>();

  get size(): number {
    return this.panes.size;
  }

  get(windowId: string): ServedPane | undefined {
    return this.panes.get(windowId);
  }

  list(): ServedPane[] {
    return [...this.panes.values()];
  }

  add(p: ServedPane): void {
    if (this.panes.size >= HOSTED_PANES_MAX) throw new TuiosError('limit_reached', `This machine already runs ${HOSTED_PANES_MAX} panes for other machines.`);
    if (this.panes.has(p.windowId)) throw new TuiosError('invalid_params', `A pane for the window ${p.windowId} already runs here.`);
    this.panes.set(p.windowId, p);
  }

  remove(p: ServedPane): void {
    if (this.panes.get(p.windowId) === p) this.panes.delete(p.windowId);
  }

  /** The panes of a dropped link keep their place until they are re-attached or given up. */
  /** True when the process with `pid` is the pane's, descends from it, or runs on its terminal. */
  contains(p: ServedPane, pid: number | null): boolean {
    if (pid === null || p.process.exitStatus) return false;
    const st = readStat(pid);
    if (!st) return false;
    if (p.tty && st.ttyNr > 0) {
      const [ma, mi] = decodeTtyNr(st.ttyNr);
      if (`${ma}:${mi}` === p.tty) return true;
    }
    const root = p.process.pid;
    let cur = st;
    for (let i = 0; i < MAX_ANCESTRY; i++) {
      if (cur.pid === root) return true;
      if (cur.ppid <= 1) return false;
      const up = readStat(cur.ppid);
      if (!up) return false;
      cur = up;
    }
    return false;
  }

  /**
   * A call that names one of these panes (its -w, or the TUIOS_PANE_ID the CLI sent for a verb
   * that targets a window): forwarded to the owner when the caller is inside that pane, refused
   * otherwise. Null: the call is not about a hosted pane and runs here as usual.
   */
  route(verb: VerbInfo, params: Record<string, unknown>, caller: Caller, signal: AbortSignal, verbs: readonly VerbInfo[]): Promise<unknown> | null {
    if (this.panes.size === 0 || caller.channel !== 'socket') return null;
    // Mail as the pane: the pane is the sender or the mailbox, named by the CLI's TUIOS_PANE_ID;
    // its window param names a recipient on the window's machine.
    const mail = verb.hosted === 'mail';
    const targetsWindow = verb.target === 'window' || verb.target === 'window-optional';
    const named = mail ? caller.paneHint : typeof params.window === 'string' ? params.window : targetsWindow ? caller.paneHint : null;
    if (!named) return null;
    const p = this.panes.get(named);
    if (!p) return null;
    if (!this.contains(p, caller.pid)) {
      return Promise.reject(new TuiosError('forbidden', `The pane ${named.slice(0, 12)} runs here for a window on ${p.host}, and only a process inside it reports for it.`, 'Run the command inside that pane.'));
    }
    const waits = verb.hosted === 'wait';
    if (!verb.hosted) {
      return Promise.reject(new TuiosError('unsupported', `${verb.name} does not reach a window on another machine from a pane that runs here.`, `A pane here calls: ${hostedVerbNames(verbs).join(', ')}; run other verbs against ${p.host} itself.`));
    }
    const why = waits ? hostedWaitRefusal(verb.name, params) : null;
    if (why) return Promise.reject(new TuiosError('unsupported', why, `Run it against ${p.host} itself.`));
    if (!p.sink) return Promise.reject(new TuiosError('host_down', `The link to ${p.host}, which holds this pane's window, is down.`, 'The report goes once the link is back; send it again then.'));
    const out: Record<string, unknown> = { ...params };
    if (mail) delete out.nonce;
    else for (const k of HOSTED_DROPPED_PARAMS) delete out[k];
    // A call that waits on purpose (wait-for agent-message, request-approval's hold) carries its
    // own deadline over the link, as forwardCall gives a long verb; the rest have the generic cap.
    const budget = waits ? hostedBudgetMs(verb, out) : undefined;
    const timeoutMs = budget !== undefined && Number.isFinite(budget) ? budget + LINK_CALL_MARGIN_MS : undefined;
    return p.sink.callAs(p.windowId, verb.name, out, signal, timeoutMs);
  }

  /** This daemon is stopping: every hosted pane's process is hung up. */
  dispose(): void {
    for (const p of this.panes.values()) p.process.kill('SIGHUP');
    this.panes.clear();
  }
}

/** What the owner asked for (its HostedSpec, less the host: that is the link it came on). */
type OpenParams = Omit<HostedSpec, 'host'> & {
  /** A re-attach after the link dropped: the pane's token and the output bytes the owner took. */
  resume: { token: string; from: number } | null;
};

/** The opener's params, checked: it is another machine, so nothing is taken on trust. */
export function checkOpenParams(p: Record<string, unknown>): OpenParams {
  const bad = (what: string) => new TuiosError('invalid_params', `A hosted pane's ${what}.`);
  const windowId = p.window_id;
  if (typeof windowId !== 'string' || !FULL_ID_RE.test(windowId)) throw bad('window id is 32 hex digits');
  const argv = p.argv ?? [];
  if (!Array.isArray(argv) || argv.length > MAX_ARGV || !argv.every((a) => typeof a === 'string' && a.length <= 65536 && !a.includes('\0'))) throw bad('command is a list of strings');
  const cwd = p.cwd ?? null;
  if (cwd !== null && (typeof cwd !== 'string' || !cwd.startsWith('/') || cwd.length > 4096 || cwd.includes('\0'))) throw bad('folder is an absolute path');
  const size = (v: unknown, lo: number, hi: number, def: number) => {
    if (v === undefined || v === null) return def;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < lo || v > hi) throw bad(`size is ${lo} to ${hi}`);
    return v;
  };
  const cols = size(p.cols, MIN_COLS, MAX_COLS, DEFAULT_COLS);
  const rows = size(p.rows, MIN_ROWS, MAX_ROWS, DEFAULT_ROWS);
  const envIn = p.env ?? {};
  if (!envIn || typeof envIn !== 'object' || Array.isArray(envIn)) throw bad('environment is an object');
  const env: Record<string, string> = {};
  const entries = Object.entries(envIn as Record<string, unknown>);
  if (entries.length > MAX_ENV_VARS) throw bad(`environment has at most ${MAX_ENV_VARS} variables`);
  for (const [k, v] of entries) {
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(k) || typeof v !== 'string' || v.length > 65536 || v.includes('\0')) throw bad('environment is NAME=VALUE strings');
    if (!isReservedEnvName(k)) env[k] = v;
  }
  const term = typeof p.term === 'string' && p.term.length <= 64 ? p.term : undefined;
  let resume: OpenParams['resume'] = null;
  if (p.resume !== undefined && p.resume !== null) {
    const r = p.resume as { token?: unknown; from?: unknown };
    if (typeof r !== 'object' || typeof r.token !== 'string' || !/^[0-9a-f]{32}$/.test(r.token) || typeof r.from !== 'number' || !Number.isSafeInteger(r.from) || r.from < 0) throw bad('re-attach names its token and a byte count');
    resume = { token: r.token, from: r.from };
  }
  return { windowId, resume, argv: argv as string[], cwd, cols, rows, env, term };
}

/** The last HOSTED_RESEND_BYTES of a pane's output, by offset, to send again on a re-attach. */
export class OutputRing {
  private parts: Buffer[] = [];
  private held = 0;
  /** Offset of the first byte held. */
  private first = 0;
  /** Bytes ever pushed. */
  total = 0;

  constructor(private readonly cap = HOSTED_RESEND_BYTES) {}

  push(b: Buffer): void {
    this.parts.push(b);
    this.held += b.length;
    this.total += b.length;
    while (this.parts.length > 1 && this.held - this.parts[0]!.length >= this.cap) {
      const x = this.parts.shift()!;
      this.held -= x.length;
      this.first += x.length;
    }
  }

  /** The bytes from offset `from` on; `lost` counts those no longer held. */
  since(from: number): { data: Buffer; lost: number } {
    const start = Math.min(Math.max(from, this.first), this.total);
    const lost = Math.max(0, Math.min(this.first, this.total) - from);
    let skip = start - this.first;
    const out: Buffer[] = [];
    for (const p of this.parts) {
      if (skip >= p.length) {
        skip -= p.length;
        continue;
      }
      out.push(skip ? p.subarray(skip) : p);
      skip = 0;
    }
    return { data: Buffer.concat(out), lost };
  }
}
