// The built-in SSH server: `ssh -p 2222 box` lands in that box's TUI. Public-key authentication
// only, against the authorized keys; a session (session.ts) gets a TUI, a verb, or a subsystem,
// and everything else (port forwarding, agents, X11, env, sftp) is refused, each refusal logged
// with the peer's address and key. One session failing closes that session; nothing a client
// sends stops the daemon. docs/ssh.md says what a person can rely on.
import ssh2 from 'ssh2';
import { createServer, type Server as TcpServer } from 'node:net';
import type { Connection, ServerChannel, AuthContext, PublicKeyAuthContext, ClientInfo } from 'ssh2';
import type { Services } from '../core/daemon/services.js';
import type { Logger } from '../core/log.js';
import { fingerprintOf, type HostKey } from './keys.js';
import { AuthorizedKeys } from './authorized.js';
import { judgeKey } from './auth.js';
import { findPeerProcess, type PeerProcess } from './peer.js';
import { serveSession, guard, type Conn, type ShellRequest } from './session.js';
import { SubsystemRegistry } from './subsystems.js';
import { poolPadding } from './padding.js';
import { HandshakeGate } from './handshake-gate.js';
import { LOGIN_GRACE_MS, MAX_CHANNELS_PER_CONNECTION, MAX_USERNAME_LOGGED } from './limits.js';

export type { ShellRequest } from './session.js';
export { clampSize, cleanTerm } from './session.js';

const { Server } = ssh2;

export interface SshConfig {
  listen: string;
  authorizedKeys: string[];
  maxSessions: number;
  maxAuthTries: number;
  idleTimeoutMs: number;
  execWrite: boolean;
}

export interface SshHandlers {
  /** A pty-req + shell session: the TUI. */
  shell?(req: ShellRequest): void;
  /** Named subsystems (the link registers tuios-link). */
  subsystems: SubsystemRegistry;
}

/** What the server has seen since it started, for `tuios ssh status` and the leak tests. */
export interface SshCounts {
  connections: number;
  /** Connections that have not logged in yet (a TCP connection counts from its accept). */
  loggingIn: number;
  /** Connections closed for no handshake in time or refused past the limit of those waiting. */
  dropped: number;
  shells: number;
  accepted: number;
  authRefused: number;
  requestsRefused: number;
}

export class SshServer {
  private server: InstanceType<typeof Server> | null = null;
  /** The listening socket, whose connections the gate hands to ssh2. */
  private tcp: TcpServer | null = null;
  private gate: HandshakeGate | null = null;
  private readonly clients = new Set<Connection>();
  /** Connections logged in: what max_sessions counts. */
  private readonly loggedIn = new Set<Connection>();
  private readonly shells = new Set<ServerChannel>();
  private readonly keys: AuthorizedKeys;
  private accepted = 0;
  private authRefused = 0;
  private requestsRefused = 0;
  readonly handlers: SshHandlers;
  address: { host: string; port: number } | null = null;

  constructor(
    private readonly svc: Services,
    private readonly cfg: () => SshConfig,
    private readonly hostKey: HostKey,
    private readonly log: Logger,
    subsystems: SubsystemRegistry = new SubsystemRegistry(),
  ) {
    this.keys = new AuthorizedKeys(() => this.cfg().authorizedKeys, log);
    this.handlers = { subsystems };
  }

  counts(): SshCounts {
    return { connections: this.clients.size, loggingIn: this.gate?.loggingIn ?? 0, dropped: this.gate?.dropped ?? 0, shells: this.shells.size, accepted: this.accepted, authRefused: this.authRefused, requestsRefused: this.requestsRefused };
  }

  /** Keys the authorized keys files list now (0: nobody can log in yet). */
  authorizedCount(): number {
    return this.keys.count();
  }

  listen(): Promise<{ host: string; port: number }> {
    const { host, port } = parseListen(this.cfg().listen);
    const srv = new Server({ hostKeys: [this.hostKey.private], ident: 'tuios' }, (client, info) => {
      try {
        this.onClient(client, info);
      } catch (e) {
        this.log.error('ssh connection setup threw', { peer: info.ip, error: e instanceof Error ? e.stack : String(e) });
        client.end();
      }
    });
    srv.on('error', (e: Error) => this.log.error('ssh server error', { error: e.message }));
    this.server = srv;
    const gate = new HandshakeGate(this.log, (socket) => srv.injectSocket(socket));
    this.gate = gate;
    const tcp = createServer((socket) => gate.accept(socket));
    this.tcp = tcp;
    return new Promise((resolve, reject) => {
      const failed = (e: NodeJS.ErrnoException) => {
        this.server = null;
        this.tcp = null;
        reject(e.code === 'EADDRINUSE' ? new Error(`${host}:${port} is in use; set [ssh] listen to another port, or [ssh] enabled = false`) : e);
      };
      tcp.once('error', failed);
      tcp.listen(port, host, () => {
        tcp.off('error', failed);
        tcp.on('error', (e: Error) => this.log.error('ssh server error', { error: e.message }));
        const a = tcp.address() as { address: string; port: number };
        this.address = { host: a.address, port: a.port };
        resolve(this.address);
      });
    });
  }

  private onClient(client: Connection, info: ClientInfo): void {
    const cfg = this.cfg();
    const peer = info.ip;
    client.on('error', (e: Error) => this.log.debug('ssh client error', { peer, error: e.message }));
    this.clients.add(client);
    client.on('handshake', () => this.gate?.handshaken(peer, info.port));
    let tries = 0;
    /** The last key offered, for the closing line of a connection that never logged in. */
    let lastKey: string | null = null;
    let idle: NodeJS.Timeout | null = null;
    let noMoreSessions = false;
    const conn: Conn = {
      peer,
      port: info.port,
      key: '',
      keyComment: '',
      noPty: false,
      observe: null,
      where: Promise.resolve({ where: 'remote' } as PeerProcess),
      channels: 0,
      touch: () => {
        if (!cfg.idleTimeoutMs) return;
        // Every key arrives here: the timer is moved on, not made again.
        if (idle) return void idle.refresh();
        idle = setTimeout(() => {
          this.log.info('ssh session closed: idle', { peer, key: conn.key, idle_timeout_s: cfg.idleTimeoutMs / 1000 });
          client.end();
        }, cfg.idleTimeoutMs);
        idle.unref();
      },
    };
    const grace = setTimeout(() => {
      this.log.warn('ssh connection closed: no authentication in time', { peer, key: conn.key || null, seconds: LOGIN_GRACE_MS / 1000 });
      client.end();
    }, LOGIN_GRACE_MS);
    grace.unref();
    client.on('close', () => {
      this.clients.delete(client);
      this.loggedIn.delete(client);
      clearTimeout(grace);
      if (idle) clearTimeout(idle);
      if (conn.key) this.log.info('ssh client closed', { peer, key: conn.key });
      // A client that offers only passwords never sends one (we list publickey alone): this line
      // is what such an attempt leaves.
      else this.log.info('ssh connection closed without logging in', { peer, key: lastKey, tries });
    });

    client.on('authentication', (ctx: AuthContext) => {
      guardAuth(this.log, ctx, () => {
        if (ctx.method === 'none') return ctx.reject(['publickey']);
        // Past the limit the connection is closing: what the client still sends is not judged.
        if (tries >= cfg.maxAuthTries) return ctx.reject([], false);
        const refuse = (why: string, key: string | null) => {
          tries++;
          this.authRefused++;
          // The username is what the client typed: cut short, never a password or a key's options.
          this.log.warn('ssh auth refused', { peer, key, user: ctx.username.slice(0, MAX_USERNAME_LOGGED), method: ctx.method, why, tries, limit: cfg.maxAuthTries });
          if (tries < cfg.maxAuthTries) return ctx.reject(['publickey']);
          this.log.warn('ssh connection closed: too many authentication attempts', { peer, key, tries });
          ctx.reject([], false);
          setImmediate(() => client.end());
        };
        if (ctx.method !== 'publickey') return refuse('only public keys are accepted', null);
        const pk = ctx as PublicKeyAuthContext;
        const fp = fingerprintOf(pk.key.data);
        lastKey = fp;
        const v = judgeKey(this.keys.keys(), { algo: pk.key.algo, data: pk.key.data, hashAlgo: pk.hashAlgo, signature: pk.signature, blob: pk.blob }, peer);
        if (!v.ok) return refuse(v.why, fp);
        if (!pk.signature) return ctx.accept(); // the query phase: the key is acceptable
        conn.key = fp;
        conn.keyComment = v.key.comment.slice(0, 128);
        conn.noPty = v.key.noPty;
        conn.observe = v.key.observe ? v.key.source : null;
        ctx.accept();
      });
    });

    client.on('ready', () => {
      clearTimeout(grace);
      this.gate?.loggedIn(peer, info.port);
      // max_sessions counts logins: a connection that never logs in holds none of them.
      if (this.loggedIn.size >= cfg.maxSessions) {
        this.log.warn('ssh connection refused: too many sessions', { peer, key: conn.key, limit: cfg.maxSessions });
        client.end();
        return;
      }
      this.loggedIn.add(client);
      // The cipher is the negotiated one from here on (a rekey makes another of the same class).
      poolPadding((client as unknown as { _protocol?: { _cipher?: unknown } })._protocol?._cipher);
      this.accepted++;
      conn.touch();
      this.log.info('ssh client authenticated', { peer, key: conn.key, comment: conn.keyComment, observe: conn.observe !== null });
      const port = this.address?.port;
      if (port) conn.where = findPeerProcess(peer, info.port, port).catch(() => ({ where: 'remote' }) as const);
      client.on('session', (accept, reject) => {
        if (noMoreSessions || conn.channels >= MAX_CHANNELS_PER_CONNECTION) {
          this.requestsRefused++;
          this.log.warn('ssh refused: another session on this connection', { peer, key: conn.key, open: conn.channels, limit: MAX_CHANNELS_PER_CONNECTION, no_more_sessions: noMoreSessions });
          return reject();
        }
        const session = accept();
        const refused = () => void this.requestsRefused++;
        guard(
          this.log,
          'session',
          () => serveSession(session, conn, { svc: this.svc, log: this.log, execWrite: () => this.cfg().execWrite, shell: this.handlers.shell, subsystems: this.handlers.subsystems, shells: this.shells, refused }),
          () => session.close(),
        );
      });
      client.on('tcpip', (_accept, reject, i) => {
        this.requestsRefused++;
        this.log.warn('ssh refused: port forwarding', { peer, key: conn.key, to: `${String(i.destIP).slice(0, 255)}:${i.destPort}` });
        reject();
      });
      client.on('openssh.streamlocal', (_accept: unknown, reject: () => void) => {
        this.requestsRefused++;
        this.log.warn('ssh refused: unix socket forwarding', { peer, key: conn.key });
        reject();
      });
      client.on('request', (accept, reject, requested) => {
        const name = String(requested);
        // OpenSSH's hint that this connection opens no more sessions: honoured, as sshd does.
        if (name === 'no-more-sessions@openssh.com') {
          noMoreSessions = true;
          return accept?.();
        }
        this.requestsRefused++;
        this.log.warn(`ssh refused: ${name.includes('forward') ? 'port forwarding' : 'global request'}`, { peer, key: conn.key, request: name });
        reject?.();
      });
    });
  }

  close(): Promise<void> {
    for (const c of this.clients) c.end();
    this.gate?.close();
    this.server = null;
    return new Promise((resolve) => {
      if (!this.tcp) return resolve();
      this.tcp.close(() => resolve());
      this.tcp = null;
    });
  }
}

/** A handler that throws refuses the attempt (logged); the connection stays usable for a retry. */
function guardAuth(log: Logger, ctx: AuthContext, fn: () => void): void {
  try {
    fn();
  } catch (e) {
    log.error('ssh handler threw', { where: 'auth', error: e instanceof Error ? e.stack : String(e) });
    try {
      ctx.reject(['publickey']);
    } catch (e2) {
      log.debug('ssh auth could not be refused cleanly', { error: String(e2) });
    }
  }
}

export function parseListen(listen: string): { host: string; port: number } {
  const m = /^\[?([^\]]*?)\]?:(\d+)$/.exec(listen.trim());
  if (!m || Number(m[2]) > 65535) throw new Error(`[ssh] listen must be HOST:PORT, not ${JSON.stringify(listen)}`);
  return { host: m[1] || '127.0.0.1', port: Number(m[2]) };
}
