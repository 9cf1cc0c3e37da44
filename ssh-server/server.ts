// The built-in SSH server: `ssh -p 2222 box` lands in that box's TUI. Public-key authentication
// only, against the authorized keys; a shell session gets a TUI bound to its channel, exec runs a
// verb (read-only by default), the tuios-link subsystem goes to the link layer, and everything
// else (forwarding, agents, X11, env, sftp) is refused. One session failing closes that session.
import ssh2 from 'ssh2';
import type { Connection, ServerChannel, AuthContext, PublicKeyAuthContext } from 'ssh2';
import { readFileSync, existsSync } from 'node:fs';
import { timingSafeEqual } from 'node:crypto';
import type { Services } from '../core/daemon/services.js';
import type { Logger } from '../core/log.js';
import type { Caller } from '../core/rpc/caller.js';
import { parseAuthorizedKeys, fromAllows, fingerprintOf, type AuthorizedKey, type HostKey } from './keys.js';
import { runExec } from './exec.js';

const { Server, utils } = ssh2;

export interface SshConfig {
  listen: string;
  authorizedKeys: string[];
  maxSessions: number;
  maxAuthTries: number;
  idleTimeoutMs: number;
  execWrite: boolean;
}

export interface ShellRequest {
  channel: ServerChannel;
  cols: number;
  rows: number;
  term: string;
  /** Resizes reach the shell through this. */
  onResize(fn: (cols: number, rows: number) => void): void;
  peer: string;
  keyFingerprint: string;
}

export interface SshHandlers {
  /** A pty-req + shell session: the TUI. */
  shell?(req: ShellRequest): void;
  /** Named subsystems (tuios-link). */
  subsystems: Map<string, (channel: ServerChannel, info: { peer: string; keyFingerprint: string }) => void>;
}

let nextConn = 1_000_000;

export class SshServer {
  private server: InstanceType<typeof Server> | null = null;
  private readonly clients = new Set<Connection>();
  readonly handlers: SshHandlers = { subsystems: new Map() };
  address: { host: string; port: number } | null = null;

  constructor(
    private readonly svc: Services,
    private readonly cfg: () => SshConfig,
    private readonly hostKey: HostKey,
    private readonly log: Logger,
  ) {}

  private authorized(): AuthorizedKey[] {
    const out: AuthorizedKey[] = [];
    for (const f of this.cfg().authorizedKeys) {
      if (!existsSync(f)) continue;
      try {
        out.push(...parseAuthorizedKeys(readFileSync(f, 'utf8'), f).keys);
      } catch (e) {
        this.log.warn('authorized keys not read', { file: f, error: String(e) });
      }
    }
    return out;
  }

  listen(): Promise<{ host: string; port: number }> {
    const { host, port } = parseListen(this.cfg().listen);
    const srv = new Server({ hostKeys: [this.hostKey.private], ident: 'tuios' }, (client, info) => this.onClient(client, info.ip));
    srv.on('error', (e: Error) => this.log.error('ssh server error', { error: e.message }));
    this.server = srv;
    return new Promise((resolve, reject) => {
      srv.once('error', reject);
      srv.listen(port, host, () => {
        srv.off('error', reject);
        const a = srv.address() as { address: string; port: number };
        this.address = { host: a.address, port: a.port };
        resolve(this.address);
      });
    });
  }

  get sessionCount(): number {
    return this.clients.size;
  }

  private onClient(client: Connection, peer: string): void {
    const cfg = this.cfg();
    if (this.clients.size >= cfg.maxSessions) {
      this.log.warn('ssh connection refused: too many sessions', { peer, limit: cfg.maxSessions });
      client.end();
      return;
    }
    this.clients.add(client);
    let tries = 0;
    let keyFp = '';
    let idle: NodeJS.Timeout | null = null;
    const touch = () => {
      if (!cfg.idleTimeoutMs) return;
      if (idle) clearTimeout(idle);
      idle = setTimeout(() => client.end(), cfg.idleTimeoutMs);
      idle.unref();
    };
    touch();
    client.on('error', (e: Error) => this.log.debug('ssh client error', { peer, error: e.message }));
    client.on('close', () => {
      this.clients.delete(client);
      if (idle) clearTimeout(idle);
    });
    client.on('authentication', (ctx: AuthContext) => {
      safe(this.log, 'auth', () => {
        if (ctx.method === 'none') return ctx.reject(['publickey']);
        if (ctx.method !== 'publickey') {
          tries++;
          this.log.warn('ssh auth refused: only public keys', { peer, method: ctx.method, user: ctx.username });
          return tries >= cfg.maxAuthTries ? endAfterReject(client, ctx) : ctx.reject(['publickey']);
        }
        const pk = ctx as PublicKeyAuthContext;
        const fp = fingerprintOf(pk.key.data);
        const match = this.authorized().find((k) => k.type === pk.key.algo && k.blob.length === pk.key.data.length && timingSafeEqual(k.blob, pk.key.data));
        const refuse = (why: string) => {
          tries++;
          this.log.warn('ssh auth refused', { peer, key: fp, why });
          return tries >= cfg.maxAuthTries ? endAfterReject(client, ctx) : ctx.reject(['publickey']);
        };
        if (!match) return refuse('the key is not listed');
        if (match.forcedCommand) return refuse('the key has command=, which tuios does not run');
        if (match.from && !fromAllows(match.from, peer)) return refuse('from= does not allow this address');
        if (!pk.signature) return ctx.accept(); // the query phase: the key is acceptable
        const parsed = utils.parseKey(pk.key.data);
        const k = Array.isArray(parsed) ? parsed[0] : parsed;
        if (!k || k instanceof Error || k.verify(pk.blob!, pk.signature, pk.hashAlgo) !== true) return refuse('the signature does not verify');
        keyFp = fp;
        (client as Connection & { tuiosNoPty?: boolean }).tuiosNoPty = match.noPty;
        ctx.accept();
      });
    });
    client.on('ready', () => {
      this.log.info('ssh client authenticated', { peer, key: keyFp });
      client.on('session', (accept) => safe(this.log, 'session', () => this.onSession(accept(), client, peer, keyFp, touch)));
      client.on('tcpip', (_accept, reject) => {
        this.log.warn('ssh refused: port forwarding', { peer, key: keyFp });
        reject();
      });
      client.on('openssh.streamlocal', (_accept: unknown, reject: () => void) => reject());
      client.on('request', (accept, reject, name) => {
        this.log.warn('ssh refused: global request', { peer, request: name });
        reject?.();
        void accept;
      });
    });
  }

  private onSession(session: ssh2.Session, client: Connection, peer: string, keyFp: string, touch: () => void): void {
    let pty: { cols: number; rows: number; term: string } | null = null;
    const resizers: Array<(c: number, r: number) => void> = [];
    const noPty = !!(client as Connection & { tuiosNoPty?: boolean }).tuiosNoPty;
    session.on('pty', (accept, reject, info) => {
      if (noPty) return reject?.();
      pty = { cols: info.cols || 80, rows: info.rows || 24, term: info.term || 'xterm-256color' };
      accept?.();
    });
    session.on('window-change', (accept, _reject, info) => {
      accept?.();
      touch();
      for (const r of resizers) safe(this.log, 'resize', () => r(info.cols, info.rows));
    });
    for (const ev of ['env', 'x11', 'auth-agent', 'signal'] as const) {
      session.on(ev as 'env', (_accept: unknown, reject?: () => void) => {
        if (ev !== 'signal') this.log.debug('ssh refused', { peer, request: ev });
        reject?.();
      });
    }
    session.on('shell', (accept, reject) => {
      if (!pty || !this.handlers.shell) {
        reject?.();
        return;
      }
      const channel = accept();
      channel.on('data', () => touch());
      const p = pty;
      safe(this.log, 'shell', () => this.handlers.shell!({ channel, cols: p.cols, rows: p.rows, term: p.term, onResize: (fn) => resizers.push(fn), peer, keyFingerprint: keyFp }), () => channel.close());
    });
    session.on('exec', (accept, _reject, info) => {
      const channel = accept();
      const caller: Caller = { connId: nextConn++, channel: 'ssh-exec', pid: null, uid: null, readOnly: !this.cfg().execWrite, paneHint: null };
      runExec(this.svc, info.command, caller)
        .then((r) => {
          if (r.stdout) channel.write(r.stdout);
          if (r.stderr) channel.stderr.write(r.stderr);
          channel.exit(r.code);
          channel.end();
        })
        .catch((e) => {
          this.log.error('ssh exec failed', { error: String(e) });
          channel.stderr.write('tuios: internal error\n');
          channel.exit(1);
          channel.end();
        });
    });
    session.on('subsystem', (accept, reject, info) => {
      const h = this.handlers.subsystems.get(info.name);
      if (!h) {
        this.log.warn('ssh refused: subsystem', { peer, name: info.name });
        reject?.();
        return;
      }
      const channel = accept();
      safe(this.log, 'subsystem', () => h(channel, { peer, keyFingerprint: keyFp }), () => channel.close());
    });
  }

  close(): Promise<void> {
    for (const c of this.clients) c.end();
    return new Promise((resolve) => {
      if (!this.server) return resolve();
      this.server.close(() => resolve());
      this.server = null;
    });
  }
}

function endAfterReject(client: Connection, ctx: AuthContext): void {
  ctx.reject([], false);
  setImmediate(() => client.end());
}

/** An exception inside an ssh2 handler drops the connection with a cryptic error: catch it here. */
function safe(log: Logger, where: string, fn: () => void, onError?: () => void): void {
  try {
    fn();
  } catch (e) {
    log.error('ssh handler threw', { where, error: e instanceof Error ? e.stack : String(e) });
    try {
      onError?.();
    } catch {
      // closing a broken channel may throw too
    }
  }
}

export function parseListen(listen: string): { host: string; port: number } {
  const m = /^\[?([^\]]*?)\]?:(\d+)$/.exec(listen.trim());
  if (!m) throw new Error(`[ssh] listen must be HOST:PORT, not ${JSON.stringify(listen)}`);
  return { host: m[1] || '127.0.0.1', port: Number(m[2]) };
}
