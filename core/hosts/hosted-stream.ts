// The `hosted-pane` stream kind (hosted-serve.ts holds the panes it serves): spawns the process
// for a window on the opener in a PTY here, sends its output (pausing the PTY while the link or
// the owner's emulator is behind), takes its input, resize, pause and kill, and keeps it for
// HOSTED_REATTACH_MS when the link drops.
import { randomBytes } from 'node:crypto';
import { sameToken } from '../security/same-token.js';
import { StringDecoder } from 'node:string_decoder';
import type { Services } from '../daemon/services.js';
import type { StreamKind, StreamSink } from './streams.js';
import { PaneProcess, type ExitStatus } from '../pty/pane-process.js';
import { buildHostedPaneEnv, resolvePaneTerm } from '../pty/env.js';
import { ttyDeviceKey } from '../security/placement.js';
import { TuiosError } from '../errors.js';
import { readPaneProcs } from './hosted-procs.js';
import { HostedPanes, OutputRing, SIGNALS, checkOpenParams, type ServedPane } from './hosted-serve.js';
import { HOSTED_PANES_MAX, HOSTED_PROCS_MS, HOSTED_PROCS_SOON_MS, HOSTED_REATTACH_MS, HOSTED_SEND_HIGH_BYTES, HOSTED_SEND_LOW_BYTES, MAX_COLS, MAX_ROWS, MIN_COLS, MIN_ROWS } from '../limits.js';

/** The `hosted-pane` stream kind: a process here for a window on the opener (needs write). */
export function hostedPaneStream(panes: HostedPanes): StreamKind<Services> {
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
