// The serving side of one link: a host that dialed this machine (over the SSH server's tuios-link
// subsystem, or `tuios link-serve --stdio` behind OpenSSH). It follows this machine's agents and
// Inbox, mails its agents, calls its verbs and opens streams, each judged by that host's
// [hosts] policy here, read again for every act so a config change applies at once.
import type { Duplex } from 'node:stream';
import type { Services } from '../../core/daemon/services.js';
import type { Logger } from '../../core/log.js';
import type { Bodies, Frame, BranchName } from '../codec/schema.js';
import { LinkSession, type CloseReason } from '../session.js';
import { policyFor, type LinkPolicy } from '../policy.js';
import type { Journal, JournalFrame } from './journal.js';
import { deliverMail, SeenMail } from './mail-in.js';
import { runCall } from './calls-in.js';
import { ServedStreams } from '../streams.js';
import type { StreamKinds } from '../../core/hosts/streams.js';
import { TuiosError } from '../../core/errors.js';
import { settleResult } from '../clean.js';
import { LINK_CALL_TIMEOUT_MS, LINK_MAX_INFLIGHT_CALLS } from '../../core/limits.js';

interface PendingCall {
  resolve(v: unknown): void;
  reject(e: unknown): void;
  timer: NodeJS.Timeout;
}

// StreamData and StreamControl: a hosted pane's input and control; StreamCredit: what the opener
// of a stream has read; Result: the answer to a hosted pane's report, which this side calls the
// dialer with (Call with as_window).
const ACCEPTS: ReadonlySet<BranchName> = new Set(['Follow', 'Mail', 'Call', 'StreamOpen', 'StreamClose', 'StreamData', 'StreamControl', 'StreamCredit', 'Result']);

export interface ServeDeps {
  svc: Services;
  journal: Journal;
  streams: StreamKinds;
  /** This machine's name as its linked hosts know it. */
  self: string;
  log: Logger;
  /** Mail ids each host already delivered here (kept across that host's reconnects). */
  seen: (host: string) => SeenMail;
}

export interface ServedInfo {
  /** SHA256:... of the SSH key the link authenticated with; null behind OpenSSH (not known here). */
  keyFingerprint: string | null;
  /** Where it came from, for the log. */
  via: string;
}

export class ServedLink {
  readonly session: LinkSession;
  private host = '';
  private unfollow: (() => void) | null = null;
  private streams: ServedStreams | null = null;
  private readonly calls = new AbortController();
  private inflight = 0;
  private done = false;
  /** Calls this side made to the dialer as one of its windows (hosted panes' reports). */
  private readonly outCalls = new Map<number, PendingCall>();
  private nextOutCall = 1;

  constructor(
    stream: Duplex,
    private readonly d: ServeDeps,
    private readonly info: ServedInfo,
    private readonly onEnd: (l: ServedLink, why: CloseReason) => void,
  ) {
    this.session = new LinkSession(stream, { host: d.self, bootId: d.svc.bootId, log: d.log, accepts: ACCEPTS }, {
      hello: (h) => this.onHello(h.host),
      frame: (f) => this.onFrame(f),
      close: (why) => this.onClose(why),
    });
  }

  get hostName(): string {
    return this.host;
  }

  private policy(): LinkPolicy {
    return policyFor(this.d.svc.config.current, this.host);
  }

  private onHello(host: string): void {
    this.host = host;
    const p = this.policy();
    if (p.key && p.key !== this.info.keyFingerprint) {
      this.d.log.warn('link refused: the host did not authenticate with its key', { host, via: this.info.via, key: this.info.keyFingerprint });
      return this.session.close({ code: 'refused', detail: `refused: [hosts.${host}] key names another key than the one this link authenticated with` });
    }
    this.streams = new ServedStreams(this.d.svc, this.session, this.d.streams, host, () => this.policy(), (w, verb, p, signal, timeoutMs) => this.callAs(w, verb, p, signal, timeoutMs));
    this.d.log.info('link served', { host, via: this.info.via, key: this.info.keyFingerprint });
  }

  private onFrame(f: Frame): void {
    switch (f.kind) {
      case 'Follow':
        return this.follow(f.body.boot_id, f.body.seq);
      case 'Mail':
        this.session.send('MailAck', deliverMail(this.d.svc, this.host, this.policy(), f.body, this.d.seen(this.host)));
        return;
      case 'Call':
        return this.call(f.body);
      case 'StreamOpen':
        return this.streams?.onOpen(f.body.stream, f.body.kind, f.body.params, f.body.window ?? 0);
      case 'StreamClose':
        return this.streams?.onClose(f.body.stream);
      case 'StreamData':
        return this.streams?.onData(f.body.stream, f.body.data);
      case 'StreamControl':
        return this.streams?.onControl(f.body.stream, f.body.op, f.body.params);
      case 'StreamCredit':
        return this.streams?.onCredit(f.body.stream, f.body.bytes);
      case 'Result':
        return this.onResult(f.body);
      default:
        return;
    }
  }

  /** Current from where the host left off, then every change as it happens (no polling). */
  private follow(bootId: string, seq: number): void {
    this.unfollow?.();
    this.unfollow = null;
    if (!this.policy().list) {
      this.d.log.info('link follow refused: the host may not list here', { host: this.host });
      // Empty snapshots: whatever the host held of ours is gone from its view.
      this.session.send('AgentSnapshot', { boot_id: this.d.journal.bootId, seq: 0, rows: [], last: true });
      this.session.send('InboxSnapshot', { boot_id: this.d.journal.bootId, seq: 0, items: [], last: true });
      return;
    }
    const send = (fr: JournalFrame) => this.session.send(fr.kind, fr.body as never);
    for (const fr of this.d.journal.resume(bootId.slice(0, 64), seq)) send(fr);
    this.unfollow = this.d.journal.follow(send);
  }

  private call(c: Bodies['Call']): void {
    if (this.inflight >= LINK_MAX_INFLIGHT_CALLS) {
      this.session.send('Result', { id: c.id, ok: false, result: 'null', error: JSON.stringify({ code: 'limit_reached', message: `At most ${LINK_MAX_INFLIGHT_CALLS} calls run at once for one link.` }) });
      return;
    }
    this.inflight++;
    void runCall(this.d.svc, this.host, this.policy(), c, this.calls.signal).then((r) => {
      this.inflight--;
      if (!this.done) this.session.send('Result', r);
    });
  }

  /**
   * A call to the dialer, run there as its window `asWindow` (a hosted pane's report or wait),
   * answered within `timeoutMs` (a wait's own budget), else the generic cap.
   */
  private callAs(asWindow: string, verb: string, params: Record<string, unknown>, signal: AbortSignal, timeoutMs?: number): Promise<unknown> {
    if (this.done || !this.session.up) return Promise.reject(new TuiosError('host_down', `The link to ${this.host || 'the window\'s machine'} is closed.`));
    if (this.outCalls.size >= LINK_MAX_INFLIGHT_CALLS) return Promise.reject(new TuiosError('limit_reached', `${LINK_MAX_INFLIGHT_CALLS} reports to ${this.host} are already waiting.`));
    const id = this.nextOutCall++;
    // The generic cap, as the dialer's: TUIOS_LINK_CALL_TIMEOUT_SECONDS sets it for tests.
    const secs = Number(this.d.svc.baseEnv.TUIOS_LINK_CALL_TIMEOUT_SECONDS);
    const ms = timeoutMs ?? (Number.isFinite(secs) && secs > 0 ? secs * 1000 : LINK_CALL_TIMEOUT_MS);
    return new Promise((resolve, reject) => {
      const settle = () => {
        const c = this.outCalls.get(id);
        if (c) clearTimeout(c.timer);
        this.outCalls.delete(id);
      };
      const timer = setTimeout(() => {
        settle();
        reject(new TuiosError('timeout', `${this.host} did not answer ${verb} within ${Math.round(ms / 1000)} s.`));
      }, ms);
      timer.unref();
      this.outCalls.set(id, { resolve, reject, timer });
      signal.addEventListener('abort', () => {
        if (!this.outCalls.has(id)) return;
        settle();
        reject(new TuiosError('timeout', 'The caller went away.'));
      }, { once: true });
      if (!this.session.send('Call', { id, verb, params: JSON.stringify(params), outside: false, as_window: asWindow })) {
        settle();
        reject(new TuiosError('protocol_mismatch', `${this.host} does not take reports from a pane here, or the report is larger than one frame.`));
      }
    });
  }

  private onResult(r: Bodies['Result']): void {
    const c = this.outCalls.get(r.id);
    if (!c) return;
    this.outCalls.delete(r.id);
    clearTimeout(c.timer);
    settleResult(r, this.host, c);
  }

  private onClose(why: CloseReason): void {
    this.done = true;
    for (const c of this.outCalls.values()) {
      clearTimeout(c.timer);
      c.reject(new TuiosError('host_down', `The link to ${this.host} dropped before it answered.`, 'A wait on it (wait-for agent-message, an approval) ended with the link; run it again once the link is back.'));
    }
    this.outCalls.clear();
    this.unfollow?.();
    this.unfollow = null;
    this.streams?.dispose();
    this.calls.abort();
    this.onEnd(this, why);
  }

  close(detail: string): void {
    this.session.close({ code: 'local', detail });
  }
}
