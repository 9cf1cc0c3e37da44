// Dialing a linked host: an ssh2 client to its SSH server, the host key judged against the known
// hosts before anything is sent, the user's keys for authentication (the identity file named in
// [hosts], else ssh-agent through SSH_AUTH_SOCK, else ~/.ssh/id_*), then the tuios-link subsystem
// of tuios's own server. A server that refuses the subsystem is OpenSSH's sshd: the link runs over
// exec of `tuios link-serve --stdio` there instead. Every failure is a DialError with a reason
// `hosts ls` shows.
import ssh2 from 'ssh2';
import type { Duplex } from 'node:stream';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { keyFingerprint, type KnownHosts, type KeyVerdict } from './known-hosts.js';
import { LINK_CONNECT_TIMEOUT_MS } from '../../core/limits.js';

const { Client } = ssh2;

export const LINK_SUBSYSTEM = 'tuios-link';
/** `tuios link-serve` exits with it when no daemon answers there (127 is the shell's command not found). */
export { EXIT_NO_DAEMON } from '../../core/cli/link-serve.js';

export type DialReason = 'unreachable' | 'host key unknown' | 'host key changed' | 'auth' | 'no tuios' | 'no daemon' | 'refused';

export class DialError extends Error {
  constructor(
    readonly reason: DialReason,
    message: string,
    /** The host key it showed, for `hosts add` to offer. */
    readonly fingerprint?: string,
    readonly hostKey?: Buffer,
  ) {
    super(message);
    this.name = 'DialError';
  }
}

export interface DialOptions {
  address: string;
  port: number;
  user: string;
  identity: string | null;
  agentSock: string | null;
  home: string;
  command: string;
  known: KnownHosts;
}

export interface Dialed {
  stream: Duplex;
  via: 'subsystem' | 'exec';
  fingerprint: string;
  /** The exec's exit code once it is known (null over the subsystem, or before). */
  exitCode(): number | null;
  /** What the exec wrote on stderr, cut (a refusal says why there). */
  stderr(): string;
  close(): void;
}

function privateKeyFor(o: DialOptions): { privateKey?: Buffer; agent?: string; what: string } {
  if (o.identity) {
    try {
      return { privateKey: readFileSync(o.identity), what: `the identity file ${o.identity}` };
    } catch (e) {
      throw new DialError('auth', `the identity file ${o.identity} cannot be read: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
    }
  }
  if (o.agentSock && existsSync(o.agentSock)) return { agent: o.agentSock, what: 'ssh-agent' };
  for (const n of ['id_ed25519', 'id_ecdsa', 'id_rsa']) {
    const f = join(o.home, '.ssh', n);
    if (existsSync(f)) {
      try {
        return { privateKey: readFileSync(f), what: f };
      } catch {
        // unreadable: try the next
      }
    }
  }
  throw new DialError('auth', 'no key to authenticate with: no identity in [hosts], no ssh-agent (SSH_AUTH_SOCK), no ~/.ssh/id_ed25519, id_ecdsa or id_rsa');
}

function verdictError(v: KeyVerdict, address: string, port: number, fp: string, blob: Buffer): DialError {
  if (v.kind === 'changed') return new DialError('host key changed', `THE HOST KEY OF ${address}:${port} HAS CHANGED: it shows ${fp}, and ${v.source} line ${v.line} records another key. Someone may be intercepting the link, or the host was reinstalled. The link is refused; if the change is expected, run tuios hosts rm and tuios hosts add again.`, fp, blob);
  if (v.kind === 'revoked') return new DialError('host key changed', `The host key ${fp} of ${address}:${port} is revoked in ${v.source} line ${v.line}; the link is refused.`, fp, blob);
  return new DialError('host key unknown', `The host key of ${address}:${port} (${fp}) is not recorded; accept it with: tuios hosts add`, fp, blob);
}

/** Connects, checks the host key, authenticates and opens the link stream. */
export function dialLink(o: DialOptions, signal?: AbortSignal): Promise<Dialed> {
  return new Promise((resolve, reject) => {
    let auth: ReturnType<typeof privateKeyFor>;
    try {
      auth = privateKeyFor(o);
    } catch (e) {
      return reject(e);
    }
    const c = new Client();
    let failure: DialError | null = null;
    let fingerprint = '';
    let settled = false;
    const fail = (e: DialError) => {
      if (settled) return;
      settled = true;
      c.end();
      reject(e);
    };
    const onAbort = () => fail(new DialError('unreachable', 'the dial was cancelled'));
    signal?.addEventListener('abort', onAbort, { once: true });
    c.on('error', (e: Error & { level?: string }) => {
      if (failure) return fail(failure);
      if (e.level === 'client-authentication') return fail(new DialError('auth', `${o.user}@${o.address} did not accept ${auth.what}`));
      if (/passphrase/i.test(e.message)) return fail(new DialError('auth', `${auth.what} needs a passphrase: load it into ssh-agent`));
      fail(new DialError('unreachable', `${o.address}:${o.port}: ${e.message}`));
    });
    c.on('close', () => fail(failure ?? new DialError('unreachable', `${o.address}:${o.port} closed the connection`)));
    c.on('ready', () => {
      const done = (stream: Duplex, via: Dialed['via'], exit: () => number | null, err: () => string) => {
        if (settled) return void c.end();
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        stream.once('close', () => c.end());
        resolve({ stream, via, fingerprint, exitCode: exit, stderr: err, close: () => c.end() });
      };
      c.subsys(LINK_SUBSYSTEM, (err, ch) => {
        if (!err) return done(ch, 'subsystem', () => null, () => '');
        // OpenSSH's sshd has no tuios-link: run the stdio server there instead.
        c.exec(o.command, (err2, ex) => {
          if (err2) return fail(new DialError('refused', `${o.address} refused the tuios-link subsystem and exec: ${err2.message}`));
          let code: number | null = null;
          let stderr = '';
          ex.on('exit', (n: number | null) => (code = typeof n === 'number' ? n : null));
          ex.stderr.on('data', (d: Buffer) => {
            if (stderr.length < 1024) stderr += d.toString('utf8');
          });
          done(ex, 'exec', () => code, () => stderr.slice(0, 1024));
        });
      });
    });
    try {
      c.connect({
        host: o.address,
        port: o.port,
        username: o.user,
        ...(auth.privateKey ? { privateKey: auth.privateKey } : {}),
        ...(auth.agent ? { agent: auth.agent } : {}),
        readyTimeout: LINK_CONNECT_TIMEOUT_MS,
        hostVerifier: (key: Buffer) => {
          fingerprint = keyFingerprint(key);
          const v = o.known.judge(o.address, o.port, key);
          if (v.kind === 'known') return true;
          failure = verdictError(v, o.address, o.port, fingerprint, key);
          return false;
        },
      });
    } catch (e) {
      fail(new DialError(/passphrase/i.test(String(e)) ? 'auth' : 'unreachable', e instanceof Error ? e.message : String(e)));
    }
  });
}

/** The host key a server shows, without authenticating (what `hosts add` asks the person about). */
export function probeHostKey(address: string, port: number): Promise<{ fingerprint: string; blob: Buffer }> {
  return new Promise((resolve, reject) => {
    const c = new Client();
    let got: { fingerprint: string; blob: Buffer } | null = null;
    const finish = () => {
      c.end();
      if (got) resolve(got);
      else reject(new DialError('unreachable', `${address}:${port} showed no host key`));
    };
    c.on('error', (e: Error) => (got ? finish() : reject(new DialError('unreachable', `${address}:${port}: ${e.message}`))));
    c.on('close', finish);
    c.connect({
      host: address,
      port,
      username: 'tuios-probe',
      readyTimeout: LINK_CONNECT_TIMEOUT_MS,
      hostVerifier: (key: Buffer) => {
        got = { fingerprint: keyFingerprint(key), blob: Buffer.from(key) };
        return false;
      },
    });
  });
}
