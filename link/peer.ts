// One host this machine links to (a `[hosts.NAME]` table with an address): the dial loop, the
// state `hosts ls` shows, the mirror of its agents and Inbox, its outbox, and the remote calls
// and streams in flight. The link is redialed after it drops (soon, then backing off to
// LINK_REDIAL_MAX_MS) and resumes from the last sequence it applied.
import type { Services } from '../core/daemon/services.js';
import type { Logger } from '../core/log.js';
import type { MailOutcome, OutgoingMail } from '../core/hosts/remote.js';
import { TuiosError, toErrorBody } from '../core/errors.js';
import type { Bodies, BranchName, Frame } from './codec/schema.js';
import { LinkSession, type CloseReason } from './session.js';
import { HostMirror, type RowChange } from './follow/mirror.js';
import { Outbox, type Refusal } from './outbox/outbox.js';
import { OutboxSender } from './outbox/sender.js';
import { dialLink, DialError, EXIT_NO_DAEMON, type Dialed } from './transport/dial.js';
import type { KnownHosts } from './transport/known-hosts.js';
import { OpenedStream } from './streams.js';
import { settleResult, peerLine } from './clean.js';
import { runHostedReport } from '../core/hosts/hosted-report.js';
import { LINK_CALL_TIMEOUT_MS, LINK_MAX_INFLIGHT_CALLS, LINK_MAX_STREAMS, LINK_REDIAL_FIRST_MS, LINK_REDIAL_MAX_MS, LINK_SEND_TIMEOUT_MS, LINK_STREAM_WINDOW_BYTES } from '../core/limits.js';

// Call: only a hosted pane's report (as_window), run here as that window; StreamControl: a hosted
// pane's start and exit.
const ACCEPTS: ReadonlySet<BranchName> = new Set(['AgentSnapshot', 'AgentDelta', 'InboxSnapshot', 'InboxDelta', 'MailAck', 'Result', 'StreamData', 'StreamClose', 'StreamControl', 'Call']);

export interface PeerConfig {
  name: string;
  address: string;
  port: number;
  user: string;
  identity: string | null;
  command: string;
}

export type PeerState = 'connecting' | 'up' | 'down';

export interface PeerStatus {
  name: string;
  address: string;
  port: number;
  state: PeerState;
  /** When the state last changed. */
  since: number;
  /** When the link last heard the host; 0 when it never did. */
  seen_at: number;
  /** Why the host refused, in the words `hosts ls` shows: no daemon, no tuios, version, host key ... */
  reason: string | null;
  detail: string | null;
  version: string | null;
  protocol: number | null;
  via: string | null;
  agents: number;
  items: number;
  dropped: number;
  mail_waiting: number;
  refused: readonly Refusal[];
}

export interface PeerEvents {
  rows(host: string, changes: RowChange[]): void;
  state(host: string, s: PeerStatus): void;
  outbox(host: string): void;
  refused(host: string, r: Refusal): void;
}

export interface PeerDeps {
  svc: Services;
  known: KnownHosts;
  outboxDir: string;
  /** This machine's name as the host knows it. */
  self: string;
  log: Logger;
  events: PeerEvents;
}

interface PendingCall {
  resolve(v: unknown): void;
  reject(e: unknown): void;
  timer: NodeJS.Timeout;
}

export class PeerLink {
  readonly mirror = new HostMirror();
  readonly sender: OutboxSender;
  private state: PeerState = 'connecting';
  private since = Date.now();
  private seenAt = 0;
  private reason: string | null = null;
  private detail: string | null = null;
  private session: LinkSession | null = null;
  private dialed: Dialed | null = null;
  private redial: NodeJS.Timeout | null = null;
  private backoff = LINK_REDIAL_FIRST_MS;
  private dialing: AbortController | null = null;
  private disposed = false;
  private nextCall = 1;
  private nextStream = 1;
  private readonly calls = new Map<number, PendingCall>();
  private readonly streams = new Map<number, OpenedStream>();
  private hostedInflight = 0;
  /** Aborted when the session closes: a hosted pane's wait (wait-for agent-message, a hold) ends with the link. */
  private hostedCalls = new AbortController();

  constructor(
    public cfg: PeerConfig,
    private readonly d: PeerDeps,
  ) {
    const outbox = new Outbox(d.outboxDir, cfg.name, d.log);
    this.sender = new OutboxSender(
      outbox,
      { up: () => this.isUp, send: (e) => !!this.session?.send('Mail', { id: e.id, to_session: e.to_session, to_window: e.to_window, from: e.from, from_kind: e.from_kind, subject: e.subject, body: e.body, sent_at: e.queued_at, as_window: null }) },
      { changed: () => d.events.outbox(cfg.name), refused: (r) => d.events.refused(cfg.name, r) },
      d.log,
    );
  }

  get name(): string {
    return this.cfg.name;
  }

  get isUp(): boolean {
    return this.state === 'up' && !!this.session?.up;
  }

  status(): PeerStatus {
    const p = this.session?.peer ?? null;
    return {
      name: this.cfg.name,
      address: this.cfg.address,
      port: this.cfg.port,
      state: this.state,
      since: this.since,
      seen_at: this.seenAt,
      reason: this.reason,
      detail: this.detail,
      version: p?.version ?? null,
      protocol: this.session?.protocol || null,
      via: this.dialed?.via ?? null,
      agents: this.mirror.agents.size,
      items: this.mirror.items.size,
      dropped: this.mirror.dropped,
      mail_waiting: this.sender.outbox.size,
      refused: this.sender.outbox.refusals(),
    };
  }

  start(): void {
    void this.connect();
  }

  private setState(s: PeerState, reason: string | null = null, detail: string | null = null): void {
    const changed = s !== this.state || reason !== this.reason;
    if (s !== this.state) this.since = Date.now();
    this.state = s;
    this.reason = reason;
    this.detail = detail;
    // Rows of a down link stay, muted: they are what the host said last (listeners read them again).
    if (changed) this.d.events.state(this.cfg.name, this.status());
  }

  private async connect(): Promise<void> {
    if (this.disposed || this.session || this.dialing) return;
    const ctl = new AbortController();
    this.dialing = ctl;
    const home = this.d.svc.baseEnv.HOME ?? '';
    let dialed: Dialed;
    try {
      dialed = await dialLink({ address: this.cfg.address, port: this.cfg.port, user: this.cfg.user, identity: this.cfg.identity, agentSock: this.d.svc.baseEnv.SSH_AUTH_SOCK ?? null, home, command: this.cfg.command, known: this.d.known }, ctl.signal);
    } catch (e) {
      this.dialing = null;
      if (this.disposed) return;
      const de = e instanceof DialError ? e : new DialError('unreachable', e instanceof Error ? e.message : String(e));
      this.d.log.info('link dial failed', { host: this.cfg.name, reason: de.reason, detail: de.message.slice(0, 300) });
      if (de.reason === 'host key changed') this.d.log.error('linked host key changed; link refused', { host: this.cfg.name, fingerprint: de.fingerprint });
      this.setState('down', de.reason === 'unreachable' ? null : de.reason, peerLine(de.message, 300));
      return this.scheduleRedial();
    }
    this.dialing = null;
    if (this.disposed) return dialed.close();
    this.dialed = dialed;
    this.session = new LinkSession(dialed.stream, { host: this.d.self, bootId: this.d.svc.bootId, log: this.d.log, accepts: ACCEPTS }, {
      hello: () => this.onHello(),
      frame: (f) => this.onFrame(f),
      close: (why) => this.onClose(why),
    });
  }

  private scheduleRedial(): void {
    if (this.disposed || this.redial) return;
    const wait = this.backoff;
    this.backoff = Math.min(this.backoff * 2, LINK_REDIAL_MAX_MS);
    this.redial = setTimeout(() => {
      this.redial = null;
      void this.connect();
    }, wait);
    this.redial.unref();
  }

  private onHello(): void {
    const s = this.session!;
    this.seenAt = Date.now();
    this.backoff = LINK_REDIAL_FIRST_MS;
    // A host that restarted has a new boot id: the mirror's sequence then means nothing, and it
    // answers with a snapshot.
    s.send('Follow', { boot_id: this.mirror.bootId, seq: this.mirror.seq });
    this.d.log.info('link up', { host: this.cfg.name, peer: s.peer?.host, version: s.peer?.version, protocol: s.protocol, via: this.dialed?.via });
    this.setState('up');
    this.sender.linkUp();
  }

  private onFrame(f: Frame): void {
    this.seenAt = Date.now();
    switch (f.kind) {
      case 'AgentSnapshot':
      case 'AgentDelta':
      case 'InboxSnapshot':
      case 'InboxDelta': {
        const changes = this.mirror.apply(f);
        if (changes.length) this.d.events.rows(this.cfg.name, changes);
        return;
      }
      case 'MailAck':
        return this.sender.onAck(f.body);
      case 'Result':
        return this.onResult(f.body);
      case 'StreamData':
        this.streams.get(f.body.stream)?.feed(f.body.data);
        return;
      case 'StreamClose': {
        const st = this.streams.get(f.body.stream);
        this.streams.delete(f.body.stream);
        st?.finish(peerLine(f.body.reason, 500));
        return;
      }
      case 'StreamControl':
        this.streams.get(f.body.stream)?.feedControl(f.body.op, f.body.params);
        return;
      case 'Call':
        return this.onHostedCall(f.body);
      default:
        return;
    }
  }

  /** A report from a pane of ours whose process runs on the host: run here as that window only. */
  private onHostedCall(c: Bodies['Call']): void {
    const s = this.session;
    const answer = (r: Bodies['Result']) => {
      if (this.session === s) s?.send('Result', r);
    };
    if (this.hostedInflight >= LINK_MAX_INFLIGHT_CALLS) {
      return answer({ id: c.id, ok: false, result: 'null', error: JSON.stringify({ code: 'limit_reached', message: `At most ${LINK_MAX_INFLIGHT_CALLS} reports run at once for one link.` }) });
    }
    this.hostedInflight++;
    void runHostedReport(this.d.svc, this.cfg.name, c.as_window, c.verb, c.params, this.hostedCalls.signal).then(
      (result) => answer({ id: c.id, ok: true, result: JSON.stringify(result ?? {}), error: 'null' }),
      (e: unknown) => {
        const b = toErrorBody(e);
        if (b.code === 'internal') this.d.log.error('hosted pane report failed', { host: this.cfg.name, verb: c.verb.slice(0, 64), error: e instanceof Error ? e.stack : String(e) });
        answer({ id: c.id, ok: false, result: 'null', error: JSON.stringify(b) });
      },
    ).finally(() => this.hostedInflight--);
  }

  private onClose(why: CloseReason): void {
    const dialed = this.dialed;
    this.session = null;
    this.dialed = null;
    this.hostedCalls.abort();
    this.hostedCalls = new AbortController();
    this.sender.linkDown();
    for (const [id, c] of this.calls) {
      clearTimeout(c.timer);
      c.reject(new TuiosError('host_down', `The link to ${this.cfg.name} dropped before it answered.`, 'The call may or may not have run there; check before running it again.'));
      this.calls.delete(id);
    }
    for (const [id, st] of this.streams) {
      st.finish(`host_down: the link to ${this.cfg.name} dropped`);
      this.streams.delete(id);
    }
    dialed?.close();
    if (this.disposed) return;
    let reason: string | null = null;
    const code = dialed?.exitCode() ?? null;
    if (code === 127) reason = 'no tuios';
    else if (code === EXIT_NO_DAEMON) reason = 'no daemon';
    else if (why.code === 'version' || why.detail.startsWith('version')) reason = 'version';
    else if (why.code === 'refused') reason = 'refused';
    const detail = reason === 'no tuios' || reason === 'no daemon' ? (dialed?.stderr().trim() || why.detail) : why.detail;
    this.setState('down', reason, peerLine(detail, 300));
    this.scheduleRedial();
  }

  // ---- what the rest of the daemon asks of the host ----

  /** The generic cap on a remote call: LINK_CALL_TIMEOUT_MS, or TUIOS_LINK_CALL_TIMEOUT_SECONDS (tests). */
  private genericCallMs(): number {
    const secs = Number(this.d.svc.baseEnv.TUIOS_LINK_CALL_TIMEOUT_SECONDS);
    return Number.isFinite(secs) && secs > 0 ? secs * 1000 : LINK_CALL_TIMEOUT_MS;
  }

  /** One verb on the host; its answer within `timeoutMs` (a long verb's own deadline), else the generic cap. */
  call(verb: string, params: Record<string, unknown>, vouched: boolean, signal: AbortSignal, timeoutMs?: number): Promise<unknown> {
    const s = this.session;
    if (!s || !this.isUp) return Promise.reject(this.downError());
    if (this.calls.size >= LINK_MAX_INFLIGHT_CALLS) return Promise.reject(new TuiosError('limit_reached', `${LINK_MAX_INFLIGHT_CALLS} calls to ${this.cfg.name} are already running.`, 'Wait for them to end.'));
    const id = this.nextCall++;
    const ms = timeoutMs ?? this.genericCallMs();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.calls.delete(id);
        reject(new TuiosError('timeout', `${this.cfg.name} did not answer ${verb} within ${Math.round(ms / 1000)} s.`));
      }, ms);
      timer.unref();
      this.calls.set(id, { resolve, reject, timer });
      signal.addEventListener(
        'abort',
        () => {
          const c = this.calls.get(id);
          if (!c) return;
          clearTimeout(c.timer);
          this.calls.delete(id);
          reject(new TuiosError('timeout', 'The caller went away.'));
        },
        { once: true },
      );
      if (!s.send('Call', { id, verb, params: JSON.stringify(params), outside: vouched, as_window: null })) {
        clearTimeout(timer);
        this.calls.delete(id);
        reject(new TuiosError('limit_reached', `The call to ${this.cfg.name} is larger than one link frame.`));
      }
    });
  }

  private onResult(r: Bodies['Result']): void {
    const c = this.calls.get(r.id);
    if (!c) return;
    this.calls.delete(r.id);
    clearTimeout(c.timer);
    settleResult(r, this.cfg.name, c);
  }

  openStream(kind: string, params: Record<string, unknown>): OpenedStream {
    const s = this.session;
    if (!s || !this.isUp) throw this.downError();
    if (this.streams.size >= LINK_MAX_STREAMS) throw new TuiosError('limit_reached', `${LINK_MAX_STREAMS} streams to ${this.cfg.name} are open.`);
    const id = this.nextStream++;
    // A host of a build that reads StreamCredit sends no more than this unread; an older one sends
    // as its link takes it, and the stream is cut here past LINK_MAX_PENDING_BYTES unread.
    const window = s.peerReads('StreamCredit') ? LINK_STREAM_WINDOW_BYTES : 0;
    const st = new OpenedStream(
      id,
      () => {
        this.streams.delete(id);
        if (this.session === s) s.send('StreamClose', { stream: id, reason: 'closed by the viewer' });
      },
      {
        data: (data) => this.session === s && s.send('StreamData', { stream: id, data }),
        control: (op, params) => this.session === s && s.send('StreamControl', { stream: id, op, params: JSON.stringify(params) }),
        credit: (bytes) => this.session === s && s.send('StreamCredit', { stream: id, bytes }),
      },
      window,
    );
    this.streams.set(id, st);
    if (!s.send('StreamOpen', { stream: id, kind, params: JSON.stringify(params), window })) {
      this.streams.delete(id);
      throw new TuiosError('limit_reached', 'The stream request is larger than one link frame.');
    }
    return st;
  }

  async sendMail(m: OutgoingMail, signal: AbortSignal): Promise<MailOutcome> {
    const waitedBefore = this.sender.outbox.size;
    const e = this.sender.add(m);
    const queued = (reason: string): MailOutcome => ({ delivered: false, host: this.cfg.name, queued: true, waiting: this.sender.outbox.size, reason });
    if (!this.isUp) return queued(`the link to ${this.cfg.name} is ${this.state}`);
    // Behind earlier mail it cannot overtake: it waits its turn.
    if (waitedBefore > 0) return queued(`earlier mail for ${this.cfg.name} still waits`);
    const ack = await this.sender.waitFor(e.id, LINK_SEND_TIMEOUT_MS, signal);
    if (!ack) return queued(`${this.cfg.name} did not answer within ${LINK_SEND_TIMEOUT_MS / 1000} s`);
    if (!ack.ok) throw new TuiosError(ack.code === 'forbidden' ? 'forbidden' : 'not_found', `${this.cfg.name} refused the message: ${peerLine(ack.message, 300)}`, undefined, { host: this.cfg.name, refused: true });
    return { delivered: true, host: this.cfg.name, message_id: ack.message_id, thread: ack.thread, held: ack.held, held_for: ack.held_for ? peerLine(ack.held_for, 128) : null };
  }

  private downError(): TuiosError {
    const seen = this.seenAt ? `, seen ${Math.round((Date.now() - this.seenAt) / 1000)} s ago` : '';
    return new TuiosError('host_down', `${this.cfg.name} cannot be reached (${this.state}${this.reason ? `: ${this.reason}` : ''}${seen}).`, 'tuios hosts ls says why; mail sent now waits for the link.');
  }

  /** The config changed: a new address or key reconnects; nothing else does. */
  reconfigure(cfg: PeerConfig): void {
    const same = JSON.stringify(cfg) === JSON.stringify(this.cfg);
    this.cfg = cfg;
    if (same) return;
    this.session?.close({ code: 'local', detail: 'the host\'s [hosts] table changed' });
    this.backoff = LINK_REDIAL_FIRST_MS;
    if (this.redial) clearTimeout(this.redial);
    this.redial = null;
    void this.connect();
  }

  dispose(): void {
    this.disposed = true;
    if (this.redial) clearTimeout(this.redial);
    this.dialing?.abort();
    this.session?.close({ code: 'local', detail: 'this daemon is stopping' });
    this.sender.dispose();
  }
}
