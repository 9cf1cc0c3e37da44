// A window here whose process runs on a linked host (`new-window NAME --host HOST`; spec: A pane on
// another machine). The process is a `hosted-pane` stream on that host's link: its output feeds the
// window's emulator like a PTY's, and input, resize, flow control and kill go back as stream bytes
// and control words. Reports from inside the pane come back as calls naming the window
// (hosted-report.ts), which run here as that window and nothing else.
import type { HostedSpec } from '../pty/starter.js';
import type { VerbInfo } from '../rpc/verb-info.js';
import type { RemoteHosts } from './remote.js';
import type { RemoteStream } from './streams.js';
import type { ExitStatus, ProcView, WindowProcess } from '../pty/window-process.js';
import { checkSnapshot, snapshotReader } from './hosted-procs.js';
import { TuiosError } from '../errors.js';
import { DEFAULT_WAIT_MS, HOSTED_KILL_GRACE_MS, HOSTED_REATTACH_MS, HOSTED_START_TIMEOUT_MS, HOSTED_WAIT_MAX_MS } from '../limits.js';

/** The stream kind a hosted pane is on the host that runs it. */
export const HOSTED_PANE_STREAM = 'hosted-pane';

/**
 * What a hosted pane's process may call as its window is in each verb's record (VerbInfo.hosted):
 * - `report`: its state and what it does; their session and window params are replaced by the
 *   window's;
 * - `mail`: sending (its window and session name the recipient here) and reading (its own mailbox
 *   by default);
 * - `wait`: calls that wait on purpose, run here as its window like a report: `wait-for
 *   agent-message` on its own mailbox (for at most HOSTED_WAIT_MAX_MS), and `request-approval`, the
 *   hold a hook makes for the Inbox (bounded by the hold). The link waits each one's budget
 *   (hostedBudgetMs) plus LINK_CALL_MARGIN_MS, not its generic cap, and drops it with the link.
 */

/** Every verb a hosted pane's process may call as its window, for refusals to list. */
export function hostedVerbNames(verbs: readonly VerbInfo[]): string[] {
  const of = (k: VerbInfo['hosted']) => verbs.filter((v) => v.hosted === k).map((v) => (v.name === 'wait-for' ? 'wait-for agent-message' : v.name));
  return [...of('report'), ...of('mail'), ...of('wait')];
}

/** How long a wait from a hosted pane runs here: its --timeout (default DEFAULT_WAIT_MS), at most an hour. */
export function hostedWaitMs(timeout: unknown): number {
  const t = typeof timeout === 'number' && Number.isFinite(timeout) && timeout >= 0 ? timeout : DEFAULT_WAIT_MS;
  return Math.min(t, HOSTED_WAIT_MAX_MS);
}

/**
 * The longest a call from a hosted pane may run on the window's owner: a wait-for its (capped)
 * timeout, another verb its own budget (request-approval: the hold); undefined for a quick report.
 */
export function hostedBudgetMs(verb: VerbInfo, params: Record<string, unknown>): number | undefined {
  if (verb.name === 'wait-for') return hostedWaitMs(params.timeout);
  return verb.budgetMs?.(params as never);
}

/** Why a waiting verb's params do not travel from a hosted pane (only agent-message waits do), or null. */
export function hostedWaitRefusal(verb: string, params: Record<string, unknown>): string | null {
  if (verb === 'wait-for' && params.condition !== 'agent-message') {
    return `wait-for ${String(params.condition).slice(0, 32)} does not reach a window on another machine from a pane that runs there; only wait-for agent-message does.`;
  }
  return null;
}

/** Params a report from another machine never keeps: targets (it runs as its window), a nonce, and paths and pids that name things there. */
export const HOSTED_DROPPED_PARAMS = ['session', 'window', 'nonce', 'transcript_path', 'harness_pid'] as const;


const SIGNALS = new Set(['SIGHUP', 'SIGINT', 'SIGTERM', 'SIGKILL', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2', 'SIGWINCH']);

/**
 * The process as this machine sees it: `starting` until the host says it runs; `disconnected`
 * while the link is down (the host keeps it, its PTY paused, for HOSTED_REATTACH_MS); `ended`.
 */
export type HostedState = 'starting' | 'running' | 'disconnected' | 'ended';

export class HostedPane implements WindowProcess {
  readonly pid = null;
  readonly ttyName = null;
  /** Resolves once the host says the process started; rejects with its refusal. */
  readonly ready: Promise<void>;
  /** The process's pid on the host, once it started. */
  hostPid: number | null = null;
  /** The folder it started in on the host. */
  hostCwd: string | null = null;
  private state: HostedState = 'starting';
  /** The host's secret for this process: a re-attach proves it is the same window. */
  private token = '';
  /** Output bytes taken so far: a re-attach asks the host for what follows. */
  private got = 0;
  private cols: number;
  private rows: number;
  private stream: RemoteStream;
  private exited: ExitStatus | null = null;
  private exitSaid: { code: number | null; signal: number | null } | null = null;
  private paused = false;
  private dataListener: ((d: Buffer) => void) | null = null;
  private exitListener: ((s: ExitStatus) => void) | null = null;
  private settle!: { resolve(): void; reject(e: unknown): void };
  private startTimer: NodeJS.Timeout | null;
  private killTimer: NodeJS.Timeout | null = null;
  private giveUp: NodeJS.Timeout | null = null;
  private offUp: (() => void) | null = null;
  /** Why the link went, while disconnected. */
  private downReason = '';
  /** Its process tree as the host last read it, for identification here. */
  private procs: ProcView | null = null;

  private constructor(
    readonly host: string,
    private readonly remote: RemoteHosts,
    private readonly windowId: string,
    spec: HostedSpec,
  ) {
    this.cols = spec.cols;
    this.rows = spec.rows;
    this.ready = new Promise<void>((resolve, reject) => (this.settle = { resolve, reject }));
    // A window that is never awaited (a restore) must not leave an unhandled rejection.
    this.ready.catch(() => undefined);
    this.stream = remote.openStream(spec.host, HOSTED_PANE_STREAM, { window_id: spec.windowId, argv: spec.argv, cwd: spec.cwd, cols: spec.cols, rows: spec.rows, env: spec.env, term: spec.term ?? null });
    this.bind(this.stream);
    this.startTimer = setTimeout(() => {
      this.startTimer = null;
      if (this.state !== 'starting') return;
      this.settle.reject(new TuiosError('timeout', `${host} did not start the process within ${HOSTED_START_TIMEOUT_MS / 1000} s.`, 'Check the link with: tuios hosts ls'));
      this.stream.destroy();
    }, HOSTED_START_TIMEOUT_MS);
    this.startTimer.unref();
  }

  /** Opens the process on the host; throws host_down / host_not_found when the link cannot take it. */
  static open(remote: RemoteHosts | null, s: HostedSpec): HostedPane {
    if (!remote) throw new TuiosError('unsupported', 'This daemon has no link between hosts.', 'Run it on that machine itself.');
    if (!remote.has(s.host)) throw new TuiosError('host_not_found', `There is no linked host "${s.host.slice(0, 64)}".`, 'List them with: tuios hosts ls');
    return new HostedPane(s.host, remote, s.windowId, s);
  }

  /** Where it is: starting, running, disconnected (the link is down, the host keeps it), ended. */
  get status(): HostedState {
    return this.state;
  }

  get disconnected(): boolean {
    return this.state === 'disconnected';
  }

  private bind(st: RemoteStream): void {
    st.on('data', (d: Buffer) => {
      if (st !== this.stream || this.exited) return;
      this.got += d.length;
      this.dataListener?.(d);
    });
    st.onControl((op, p) => {
      if (st === this.stream) this.onControl(op, p);
    });
    let ended = false;
    const gone = () => {
      if (ended || st !== this.stream) return;
      ended = true;
      this.streamEnded();
    };
    st.on('end', gone);
    st.on('error', gone);
    st.on('close', gone);
  }

  private onControl(op: string, p: Record<string, unknown>): void {
    if (op === 'started') {
      if (this.state !== 'starting' && this.state !== 'disconnected') return;
      const first = this.state === 'starting';
      this.state = 'running';
      if (this.startTimer) clearTimeout(this.startTimer);
      this.startTimer = null;
      this.clearReattach();
      if (typeof p.token === 'string' && /^[0-9a-f]{16,64}$/.test(p.token)) this.token = p.token;
      if (!first) {
        // Back on the same process: its size and flow state as this side has them now.
        this.stream.control('resize', { cols: this.cols, rows: this.rows });
        if (this.paused) this.stream.control('pause', {});
        return;
      }
      this.hostPid = typeof p.pid === 'number' && Number.isInteger(p.pid) && p.pid > 0 ? p.pid : null;
      this.hostCwd = typeof p.cwd === 'string' ? p.cwd.slice(0, 4096) : null;
      this.settle.resolve();
      return;
    }
    if (op === 'procs') {
      const snap = checkSnapshot(p);
      this.procs = snap ? { pid: snap.pid, tpgid: snap.tpgid, leaderStart: snap.leaderStart, reader: snapshotReader(snap) } : null;
      return;
    }
    if (op === 'lost') {
      const n = typeof p.bytes === 'number' && Number.isSafeInteger(p.bytes) && p.bytes > 0 ? p.bytes : 0;
      if (n) this.dataListener?.(Buffer.from(`\r\n[tuios: ${n} bytes of output from ${this.host} were lost while the link was down]\r\n`));
      return;
    }
    if (op === 'exit') {
      const num = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) ? v : null);
      this.exitSaid = { code: num(p.code), signal: num(p.signal) };
    }
  }

  /** The stream ended: the program's exit when the host said it; a dropped link waits to re-attach. */
  private streamEnded(): void {
    if (this.exited) return;
    const why = this.stream.closeReason;
    if (this.exitSaid) return this.finish({ ...this.exitSaid });
    if (this.state === 'starting') {
      this.settle.reject(refusal(why, this.host));
      return this.finish({ code: null, signal: null, reason: why || 'disconnected: the host ended the stream' });
    }
    if (why?.startsWith('host_down') && this.token && this.state !== 'ended') return this.linkDropped(why.replace(/^host_down: /, ''));
    if (this.state === 'disconnected') return this.finish({ code: null, signal: null, reason: `disconnected: ${this.host} no longer runs the process (${why?.replace(/^[a-z_]+: /, '') || 'it ended the stream'})` });
    this.finish({ code: null, signal: null, reason: `disconnected: ${why ? why.replace(/^host_down: /, '') : 'the host ended the stream'}` });
  }

  private linkDropped(why: string): void {
    this.state = 'disconnected';
    this.downReason = why;
    if (!this.giveUp) {
      this.giveUp = setTimeout(() => this.finish({ code: null, signal: null, reason: `disconnected: the link to ${this.host} did not come back within ${HOSTED_REATTACH_MS / 60_000} min (${this.downReason})` }), HOSTED_REATTACH_MS);
      this.giveUp.unref();
    }
    this.offUp ??= this.remote.onLinkUp((h) => {
      if (h === this.host) this.reattach();
    });
    // The link may be back already.
    this.reattach();
  }

  private reattach(): void {
    if (this.state !== 'disconnected') return;
    let st: RemoteStream;
    try {
      st = this.remote.openStream(this.host, HOSTED_PANE_STREAM, { window_id: this.windowId, resume: { token: this.token, from: this.got }, cols: this.cols, rows: this.rows });
    } catch {
      return; // not up yet: the next time it comes up
    }
    this.stream = st;
    this.bind(st);
  }

  private clearReattach(): void {
    if (this.giveUp) clearTimeout(this.giveUp);
    this.giveUp = null;
    this.offUp?.();
    this.offUp = null;
  }

  private finish(s: ExitStatus): void {
    if (this.exited) return;
    this.state = 'ended';
    this.clearReattach();
    if (this.startTimer) clearTimeout(this.startTimer);
    this.startTimer = null;
    if (this.killTimer) clearTimeout(this.killTimer);
    this.killTimer = null;
    this.exited = s;
    this.exitListener?.(s);
  }

  get exitStatus(): ExitStatus | null {
    return this.exited;
  }

  /** Its tree as the host last read it; null before the first reading or while the link is down. */
  procView(): ProcView | null {
    return this.state === 'running' ? this.procs : null;
  }

  get isPaused(): boolean {
    return this.paused;
  }

  onData(fn: (data: Buffer) => void): void {
    this.dataListener = fn;
  }

  onExit(fn: (s: ExitStatus) => void): void {
    this.exitListener = fn;
    if (this.exited) fn(this.exited);
  }

  /** Typed input; while the link is down it goes nowhere (as keys typed into a frozen ssh). */
  write(data: string | Buffer): void {
    if (this.exited || this.state === 'disconnected') return;
    this.stream.input(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
  }

  resize(cols: number, rows: number): void {
    this.cols = cols;
    this.rows = rows;
    if (this.exited || this.state === 'disconnected') return;
    this.stream.control('resize', { cols, rows });
  }

  /** The emulator here is behind: the host stops reading the PTY, so the program there blocks. */
  pause(): void {
    if (this.paused || this.exited) return;
    this.paused = true;
    this.stream.control('pause', {});
  }

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    if (!this.exited) this.stream.control('resume', {});
  }

  /** Signals the process there; a host that does not end the stream soon after is dropped. */
  kill(signal = 'SIGHUP'): void {
    if (this.exited) return;
    if (this.state === 'disconnected') {
      // Nothing to tell while the link is down; the host hangs it up when its wait runs out.
      return this.finish({ code: null, signal: null, reason: `disconnected: closed while the link to ${this.host} was down` });
    }
    this.stream.control('kill', { signal: SIGNALS.has(signal) ? signal : 'SIGHUP' });
    if (this.killTimer) return;
    this.killTimer = setTimeout(() => {
      this.killTimer = null;
      this.stream.destroy();
    }, HOSTED_KILL_GRACE_MS);
    this.killTimer.unref();
  }
}

function refusal(reason: string | null, host: string): TuiosError {
  const m = /^([a-z_]+): (.*)$/s.exec(reason ?? '');
  const known = ['forbidden', 'unsupported', 'limit_reached', 'invalid_params', 'spawn_failed', 'host_down', 'timeout', 'protocol_mismatch'];
  if (m && known.includes(m[1]!)) return new TuiosError(m[1] as 'forbidden', `${host}: ${m[2]!}`);
  return new TuiosError('host_down', `${host} ended the pane before it started${reason ? `: ${reason}` : ''}.`);
}
