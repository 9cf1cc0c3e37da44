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
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { StringDecoder } from 'node:string_decoder';
import type { Services } from '../daemon/services.js';
import type { Caller } from '../rpc/caller.js';
import type { VerbDef } from '../rpc/verb.js';
import type { StreamKind, StreamSink } from './streams.js';
import { PaneProcess, type ExitStatus } from '../pty/pane-process.js';
import { buildHostedPaneEnv, isReservedEnvName, resolvePaneTerm } from '../pty/env.js';
import { readStat } from '../pty/procfs.js';
import { decodeTtyNr, ttyDeviceKey } from '../security/placement.js';
import { TuiosError } from '../errors.js';
import { FULL_ID_RE } from '../ids.js';
import { HOSTED_DROPPED_PARAMS, hostedBudgetMs, hostedVerbNames, hostedWaitRefusal } from './hosted-pane.js';
import type { HostedSpec } from '../pty/starter.js';
import { readPaneProcs } from './hosted-procs.js';
import { DEFAULT_COLS, DEFAULT_ROWS, HOSTED_PANES_MAX, LINK_CALL_MARGIN_MS, HOSTED_PROCS_MS, HOSTED_PROCS_SOON_MS, HOSTED_REATTACH_MS, HOSTED_RESEND_BYTES, HOSTED_SEND_HIGH_BYTES, HOSTED_SEND_LOW_BYTES, MAX_ARGV, MAX_COLS, MAX_ROWS, MIN_COLS, MIN_ROWS } from '../limits.js';

/** Ancestors walked at most when placing a caller (as core/security/placement.ts). */
const MAX_ANCESTRY = 64;
const MAX_ENV_VARS = 256;
const SIGNALS = new Set(['SIGHUP', 'SIGINT', 'SIGTERM', 'SIGKILL', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2', 'SIGWINCH']);

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
  route(verb: VerbDef, params: Record<string, unknown>, caller: Caller, signal: AbortSignal, verbs: readonly VerbDef[]): Promise<unknown> | null {
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

/** The `hosted-pane` stream kind: a process here for a window on the opener (needs write). */
export function hostedPaneStream(panes: HostedPanes): StreamKind {
  return {
    right: 'write',
    open(svc, params, sink, host) {
      const o = checkOpenParams(params);
      if (o.resume) {
        const run = running.get(panes)?.get(o.windowId);
        if (!run || run.pane.host !== host || !sameToken(run.token, o.resume.token)) {
          throw new TuiosError('not_found', `No process for the window ${o.windowId} waits here to be re-attached.`);
        }
        run.attach(sink, o.resume.from, o.cols, o.rows);
        return;
      }
      if (panes.size >= HOSTED_PANES_MAX) throw new TuiosError('limit_reached', `This machine already runs ${HOSTED_PANES_MAX} panes for other machines.`);
      if (panes.get(o.windowId)) throw new TuiosError('invalid_params', `A pane for the window ${o.windowId} already runs here.`);
      const base = svc.baseEnv;
      const argv = o.argv.length ? o.argv : [svc.config.current.daemon.shell || base.SHELL || '/bin/sh'];
      const cwd = o.cwd ?? (base.HOME || '/');
      const term = resolvePaneTerm(o.term, base);
      const env = buildHostedPaneEnv(base, o.env, { windowId: o.windowId, socket: svc.paths.socket, explicitSocket: svc.paths.socketExplicit }, term);
      const proc = PaneProcess.spawn({ argv, cwd, cols: o.cols, rows: o.rows, env, term });
      const pane: ServedPane = { windowId: o.windowId, host, process: proc, tty: ttyDeviceKey(proc.ttyName), sink: null };
      try {
        panes.add(pane);
      } catch (e) {
        proc.kill('SIGKILL');
        throw e;
      }
      svc.log.info('hosted pane started', { host, window: o.windowId, pid: proc.pid, argv: argv[0] });
      const run = new RunningPane(svc, panes, pane, cwd);
      let m = running.get(panes);
      if (!m) running.set(panes, (m = new Map()));
      m.set(o.windowId, run);
      run.attach(sink, 0, o.cols, o.rows);
    },
  };
}

/** The running side of each registry's panes (the registry holds only what callers are placed by). */
const running = new WeakMap<HostedPanes, Map<string, RunningPane>>();

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** One hosted pane's process and its current stream to the owner. */
class RunningPane {
  readonly token = randomBytes(16).toString('hex');
  private readonly ring = new OutputRing();
  private ownerPaused = false;
  private queued = 0;
  private sendPaused = false;
  private chain: Promise<void> = Promise.resolve();
  /** Counts attachments: what an earlier stream's writes do later is not this one's. */
  private gen = 0;
  private exit: ExitStatus | null = null;
  private linger: NodeJS.Timeout | null = null;
  private readonly decoder = new StringDecoder('utf8');
  /** The process tree last sent, so an unchanged one is not sent again. */
  private procsSent = '';
  private procsTimer: NodeJS.Timeout | null = null;
  private procsSoon: NodeJS.Timeout | null = null;

  constructor(
    private readonly svc: Services,
    private readonly panes: HostedPanes,
    readonly pane: ServedPane,
    private readonly cwd: string,
  ) {
    const proc = pane.process;
    proc.onData((d) => {
      this.ring.push(d);
      const sink = this.pane.sink;
      if (sink) this.send(sink, d);
      // Output often means a program started or ended: its tree is read again soon.
      if (sink && !this.procsSoon) {
        this.procsSoon = setTimeout(() => {
          this.procsSoon = null;
          this.sendProcs();
        }, HOSTED_PROCS_SOON_MS);
        this.procsSoon.unref();
      }
    });
    this.procsTimer = setInterval(() => this.sendProcs(), HOSTED_PROCS_MS);
    this.procsTimer.unref();
    proc.onExit((st) => {
      this.exit = st;
      svc.log.info('hosted pane exited', { host: pane.host, window: pane.windowId, code: st.code, signal: st.signal });
      const sink = this.pane.sink;
      if (sink) this.sendExit(sink);
      // Exited while the link was down: the exit waits with the output for a re-attach.
    });
  }

  /**
   * Flow control: the PTY is paused while the owner's emulator is behind (its pause), while more
   * than HOSTED_SEND_HIGH_BYTES wait for the link here, or while no link is attached; the program
   * then blocks in write(2) and nothing is read that would have to be held.
   */
  private apply(): void {
    if (this.ownerPaused || this.sendPaused || !this.pane.sink) this.pane.process.pause();
    else this.pane.process.resume();
  }

  private send(sink: StreamSink, d: Buffer): void {
    const gen = this.gen;
    this.queued += d.length;
    if (!this.sendPaused && this.queued > HOSTED_SEND_HIGH_BYTES) {
      this.sendPaused = true;
      this.apply();
    }
    this.chain = this.chain
      .then(() => sink.write(d))
      .then(() => {
        // A write of a stream re-attached since is no longer counted.
        if (gen !== this.gen) return;
        this.queued -= d.length;
        if (this.sendPaused && this.queued < HOSTED_SEND_LOW_BYTES) {
          this.sendPaused = false;
          this.apply();
        }
      });
  }

  /** Its last output goes before the exit. */
  private sendExit(sink: StreamSink): void {
    const st = this.exit!;
    void this.chain.then(() => {
      this.end();
      sink.control('exit', { code: st.code, signal: st.signal });
      sink.end();
    });
  }

  /** The pane's process tree to the owner, when it changed: the owner identifies what runs from it. */
  private sendProcs(): void {
    const sink = this.pane.sink;
    if (!sink || this.exit) return;
    const snap = readPaneProcs(this.pane.process.pid);
    if (!snap) return;
    const text = JSON.stringify(snap);
    if (text === this.procsSent) return;
    this.procsSent = text;
    sink.control('procs', snap as unknown as Record<string, unknown>);
  }

  private end(): void {
    if (this.procsTimer) clearInterval(this.procsTimer);
    if (this.procsSoon) clearTimeout(this.procsSoon);
    this.procsTimer = null;
    this.procsSoon = null;
    if (this.linger) clearTimeout(this.linger);
    this.linger = null;
    this.panes.remove(this.pane);
    running.get(this.panes)?.delete(this.pane.windowId);
  }

  /** A stream from the owner: the first, or a re-attach that takes over from `from`. */
  attach(sink: StreamSink, from: number, cols: number, rows: number): void {
    const old = this.pane.sink;
    this.pane.sink = sink;
    if (old) old.end('superseded: the window re-attached on another link');
    if (this.linger) clearTimeout(this.linger);
    this.linger = null;
    this.ownerPaused = false;
    this.gen++;
    this.chain = Promise.resolve();
    this.queued = 0;
    this.sendPaused = false;
    sink.onInput((data) => {
      if (this.pane.sink !== sink) return;
      const text = this.decoder.write(data);
      if (text) this.pane.process.write(text);
    });
    sink.onControl((op, p) => {
      if (this.pane.sink === sink) this.control(op, p);
    });
    sink.signal.addEventListener('abort', () => this.detached(sink));
    sink.control('started', { pid: this.pane.process.pid, cwd: this.cwd, token: this.token });
    if (from > 0 || this.ring.total > 0) {
      const { data, lost } = this.ring.since(from);
      // Said apart from the bytes, so the owner's count of them stays the host's.
      if (lost > 0) sink.control('lost', { bytes: lost });
      if (data.length) this.send(sink, data);
    }
    if (this.exit) return this.sendExit(sink);
    this.pane.process.resize(cols, rows);
    this.apply();
    this.procsSent = '';
    this.sendProcs();
  }

  private control(op: string, p: Record<string, unknown>): void {
    switch (op) {
      case 'resize': {
        const c = p.cols;
        const r = p.rows;
        if (typeof c === 'number' && typeof r === 'number' && Number.isInteger(c) && Number.isInteger(r) && c >= MIN_COLS && c <= MAX_COLS && r >= MIN_ROWS && r <= MAX_ROWS) this.pane.process.resize(c, r);
        return;
      }
      case 'pause':
        this.ownerPaused = true;
        return this.apply();
      case 'resume':
        this.ownerPaused = false;
        return this.apply();
      case 'kill':
        this.pane.process.kill(typeof p.signal === 'string' && SIGNALS.has(p.signal) ? p.signal : 'SIGHUP');
        return;
      default:
        return;
    }
  }

  /**
   * The stream went. The owner closed the window: the process is hung up, as a terminal that goes
   * away hangs up its programs. The link dropped: it waits, paused, for a re-attach.
   */
  private detached(sink: StreamSink): void {
    if (this.pane.sink !== sink) return;
    this.pane.sink = null;
    if (sink.signal.reason === 'link' && !this.exit) {
      this.apply();
      this.svc.log.info('hosted pane waits for its window to re-attach', { host: this.pane.host, window: this.pane.windowId, ms: HOSTED_REATTACH_MS });
      this.linger = setTimeout(() => {
        this.svc.log.info('hosted pane given up: its window did not re-attach', { host: this.pane.host, window: this.pane.windowId });
        this.end();
        this.pane.process.kill('SIGHUP');
      }, HOSTED_REATTACH_MS);
      this.linger.unref();
      return;
    }
    if (sink.signal.reason === 'link' && this.exit) {
      // Exited: keep the exit for a re-attach to read, for as long.
      this.linger = setTimeout(() => this.end(), HOSTED_REATTACH_MS);
      this.linger.unref();
      return;
    }
    this.end();
    if (!this.exit) this.pane.process.kill('SIGHUP');
  }
}
