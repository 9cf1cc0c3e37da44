// The link between hosts as one service: the hosts this machine dials (every `[hosts.NAME]` with
// an address, kept in step with config.toml), the hosts that dialed it, the journal they follow,
// and what core asks of linked hosts (core/hosts/remote.ts). Mail waiting for a host and mail a
// host refused are rows of this machine's Inbox (Waiting to send).
import { hostname, userInfo } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import type { Services } from '../core/daemon/services.js';
import type { Logger } from '../core/log.js';
import type { Disposable } from '../core/bus.js';
import type { Config } from '../core/config/schema.js';
import { HOST_NAME_RE } from '../core/config/schema.js';
import { ensurePrivateDir } from '../core/config/paths.js';
import { TuiosError } from '../core/errors.js';
import type { MailOutcome, OutgoingMail, RemoteAgentRow, RemoteCallOptions, RemoteHosts, RemoteItemRow } from '../core/hosts/remote.js';
import { PeerLink, type PeerConfig, type PeerStatus } from './peer.js';
import { Journal } from './serve/journal.js';
import { ServedLink, type ServedInfo } from './serve/served-link.js';
import { SeenMail } from './serve/mail-in.js';
import type { OpenedStream } from './streams.js';
import { paneStream } from './serve/pane-stream.js';
import { KnownHosts } from './transport/known-hosts.js';
import type { Refusal } from './outbox/outbox.js';
import { agentEvent } from './events.js';
import { LINK_MAX_SERVED } from '../core/limits.js';

export const KNOWN_HOSTS_FILE = 'known_hosts';

/** This machine's name as linked hosts see it: [link] name, else the hostname made into one. */
export function selfName(c: Config): string {
  if (c.link.name) return c.link.name;
  const h = hostname().split('.')[0]!.replace(/[^A-Za-z0-9_.-]/g, '-').slice(0, 63);
  return HOST_NAME_RE.test(h) && h !== 'local' ? h : 'host';
}

function expandHome(p: string, home: string): string {
  return p === '~' ? home : p.startsWith('~/') ? join(home, p.slice(2)) : p;
}

function peerConfigs(svc: Services): Map<string, PeerConfig> {
  const out = new Map<string, PeerConfig>();
  const home = svc.baseEnv.HOME ?? '';
  let user = svc.baseEnv.USER ?? '';
  if (!user) {
    try {
      user = userInfo().username;
    } catch {
      user = 'root';
    }
  }
  for (const [name, h] of Object.entries(svc.config.current.hosts)) {
    if (!h.address) continue;
    out.set(name, { name, address: h.address, port: h.port, user: h.user ?? user, identity: h.identity ? expandHome(h.identity, home) : null, command: h.command });
  }
  return out;
}

export class Links implements RemoteHosts, Disposable {
  readonly peers = new Map<string, PeerLink>();
  readonly served = new Set<ServedLink>();
  readonly journal: Journal;
  readonly known: KnownHosts;
  private readonly seenMail = new Map<string, SeenMail>();
  private readonly outboxDir: string;
  /** The Waiting to send row per host, and one row per refused message. */
  private readonly waitingRows = new Map<string, number>();
  private readonly refusalRows = new Map<number, { host: string; id: string }>();
  /** Rows of linked hosts the person dismissed here, by `HOST:ID`, until that row changes. */
  private readonly hidden = new Map<string, number>();
  private readonly subs: Disposable[] = [];
  private readonly unregisterPane: () => void;
  private readonly upListeners = new Set<(host: string) => void>();

  constructor(
    private readonly svc: Services,
    private readonly log: Logger,
  ) {
    const linkDir = join(svc.paths.stateDir, 'link');
    this.outboxDir = join(linkDir, 'outbox');
    ensurePrivateDir(linkDir);
    ensurePrivateDir(this.outboxDir);
    this.known = new KnownHosts(join(svc.paths.stateDir, KNOWN_HOSTS_FILE), svc.baseEnv.HOME ? join(svc.baseEnv.HOME, '.ssh', 'known_hosts') : null);
    this.journal = new Journal(svc);
    this.unregisterPane = svc.linkStreams.register('pane', paneStream);
  }

  get self(): string {
    return selfName(this.svc.config.current);
  }

  start(): void {
    this.reconcile();
    this.subs.push(
      this.svc.config.onChange(() => this.reconcile()),
      // `d` on a Waiting to send row discards what waits; on a refusal it forgets the refusal.
      this.svc.bus.on('attention', (ev) => {
        if (ev.op !== 'close' || ev.item.kind !== 'waiting') return;
        const host = String(ev.item.ref.host ?? '');
        const refusal = this.refusalRows.get(ev.item.id);
        if (refusal) {
          this.refusalRows.delete(ev.item.id);
          if (ev.reason === 'dismissed') this.peers.get(refusal.host)?.sender.outbox.forgetRefusal(refusal.id);
          return;
        }
        if (this.waitingRows.get(host) !== ev.item.id) return;
        this.waitingRows.delete(host);
        if (ev.reason === 'dismissed') {
          const n = this.peers.get(host)?.sender.discardAll() ?? 0;
          this.log.info('waiting mail discarded by the person', { host, messages: n });
        }
      }),
    );
  }

  /** Dials the hosts config.toml names, drops the ones it no longer names. */
  private reconcile(): void {
    const want = peerConfigs(this.svc);
    for (const [name, p] of this.peers) {
      if (want.has(name)) continue;
      p.dispose();
      this.peers.delete(name);
      this.closeWaitingRow(name);
      this.svc.bus.publish('host-link', { host: name, state: 'down', reason: 'removed' });
    }
    for (const [name, cfg] of want) {
      const cur = this.peers.get(name);
      if (cur) {
        cur.reconfigure(cfg);
        continue;
      }
      const p = new PeerLink(cfg, {
        svc: this.svc,
        known: this.known,
        outboxDir: this.outboxDir,
        self: this.self,
        log: this.log.child({ host: name }),
        events: {
          rows: (host, changes) => {
            for (const c of changes) {
              if (c.what === 'agent') this.svc.bus.publish('host-agent-state', agentEvent(host, c.row, c.old));
              else {
                const id = `${host}:${c.key}`;
                if (c.row && c.old && c.row.updated_at !== c.old.updated_at) this.hidden.delete(id);
                this.svc.bus.publish('host-attention', { host, op: !c.row ? 'close' : c.old ? 'update' : 'open', id, item: c.row });
              }
            }
          },
          state: (host, s) => {
            this.svc.bus.publish('host-link', { host, state: s.state, reason: s.reason });
            if (s.state === 'up') for (const fn of [...this.upListeners]) fn(host);
          },
          outbox: (host) => this.updateWaitingRow(host),
          refused: (host, r) => this.openRefusalRow(host, r),
        },
      });
      this.peers.set(name, p);
      p.start();
      this.updateWaitingRow(name);
      for (const r of p.sender.outbox.refusals()) this.openRefusalRow(name, r);
    }
  }

  // ---- Waiting to send (spec: Mail waiting for another machine) ----

  private updateWaitingRow(host: string): void {
    const n = this.peers.get(host)?.sender.outbox.size ?? 0;
    const cur = this.waitingRows.get(host);
    const item = cur !== undefined ? this.svc.inbox.get(cur) : undefined;
    if (n === 0) return this.closeWaitingRow(host);
    const summary = `${n} message${n === 1 ? '' : 's'} wait${n === 1 ? 's' : ''} for the link to ${host}`;
    if (item) this.svc.inbox.update(item, { summary });
    else this.waitingRows.set(host, this.svc.inbox.open('waiting', { summary, ref: { host } }).id);
  }

  private closeWaitingRow(host: string): void {
    const cur = this.waitingRows.get(host);
    if (cur === undefined) return;
    this.waitingRows.delete(host);
    this.svc.inbox.close(cur, 'everything went');
  }

  private openRefusalRow(host: string, r: Refusal): void {
    const item = this.svc.inbox.open('waiting', { summary: `a message for ${host}:${r.to} was refused there: ${r.reason || r.code}`, ref: { host, refused: r.id } });
    this.refusalRows.set(item.id, { host, id: r.id });
  }

  // ---- the serving side ----

  /** A host dialed this machine: serve it until the link ends. */
  serve(stream: Duplex, info: ServedInfo): ServedLink | null {
    if (this.served.size >= LINK_MAX_SERVED) {
      this.log.warn('link refused: too many links served', { via: info.via, limit: LINK_MAX_SERVED });
      stream.destroy();
      return null;
    }
    const l = new ServedLink(stream, { svc: this.svc, journal: this.journal, streams: this.svc.linkStreams, self: this.self, log: this.log, seen: (h) => this.seen(h) }, info, (x) => this.served.delete(x));
    this.served.add(l);
    return l;
  }

  private seen(host: string): SeenMail {
    let s = this.seenMail.get(host);
    if (!s) this.seenMail.set(host, (s = new SeenMail()));
    return s;
  }

  // ---- RemoteHosts ----

  has(name: string): boolean {
    return this.peers.has(name);
  }

  private peer(host: string): PeerLink {
    const p = this.peers.get(host);
    if (!p) throw new TuiosError('host_not_found', `There is no linked host "${host.slice(0, 64)}".`, 'List them with: tuios hosts ls');
    return p;
  }

  call(host: string, verb: string, params: Record<string, unknown>, o: RemoteCallOptions): Promise<unknown> {
    return this.peer(host).call(verb, params, o.vouched, o.signal, o.timeoutMs);
  }

  sendMail(host: string, m: OutgoingMail, signal: AbortSignal): Promise<MailOutcome> {
    return this.peer(host).sendMail(m, signal);
  }

  /** A byte stream from a linked host: a pane's screen (`pane`), or a kind a part registered there. */
  openStream(host: string, kind: string, params: Record<string, unknown>): OpenedStream {
    return this.peer(host).openStream(kind, params);
  }

  onLinkUp(fn: (host: string) => void): () => void {
    this.upListeners.add(fn);
    return () => this.upListeners.delete(fn);
  }

  agentRows(): RemoteAgentRow[] {
    const out: RemoteAgentRow[] = [];
    for (const p of this.peers.values()) {
      const down = !p.isUp;
      const seen = p.status().seen_at;
      for (const r of p.mirror.agents.values()) {
        out.push({ host: p.name, window_id: r.window_id, short_id: r.short_id, name: r.name, session: r.session, session_id: r.session_id, harness: r.harness, state: r.state, kind: r.kind, message: r.message, needs_you: r.needs_you && !down, state_since: r.state_since, finished_unread: r.finished_unread, group: r.group, cwd: r.cwd, down, seen_at: seen });
      }
    }
    return out;
  }

  itemRows(): RemoteItemRow[] {
    const out: RemoteItemRow[] = [];
    for (const p of this.peers.values()) {
      const down = !p.isUp;
      const seen = p.status().seen_at;
      for (const r of p.mirror.items.values()) {
        if (this.hidden.has(`${p.name}:${r.id}`)) continue;
        out.push({ host: p.name, id: r.id, kind: r.kind, window_id: r.window_id, session: r.session, name: r.name, harness: r.harness, summary: r.summary, opened_at: r.opened_at, updated_at: r.updated_at, options: r.options, held: r.held, unread: r.unread, down, seen_at: seen });
      }
    }
    return out.sort((a, b) => a.opened_at - b.opened_at);
  }

  /** Dismissing a linked host's row hides it here only, until that row changes (spec). */
  hideItem(host: string, id: number): boolean {
    const p = this.peers.get(host);
    const r = p?.mirror.items.get(id);
    if (!r) return false;
    this.hidden.set(`${host}:${id}`, r.updated_at);
    return true;
  }

  status(): PeerStatus[] {
    return [...this.peers.values()].map((p) => p.status()).sort((a, b) => a.name.localeCompare(b.name));
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
    for (const p of this.peers.values()) p.dispose();
    this.peers.clear();
    for (const l of [...this.served]) l.close('this daemon is stopping');
    this.journal.dispose();
    this.unregisterPane();
    this.upListeners.clear();
  }
}
