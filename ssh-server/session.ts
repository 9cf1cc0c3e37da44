// One SSH session channel: at most one of shell (with a pty: the TUI), exec (one verb) or a
// subsystem (tuios-link), and nothing else. X11, agent forwarding and env are refused, each
// refusal logged with the peer's address and key; every handler is guarded, so a failure closes
// this channel and never the connection's other channels or the daemon.
import type { ServerChannel, Session } from 'ssh2';
import type { Services } from '../core/daemon/services.js';
import type { Logger } from '../core/log.js';
import type { Caller } from '../core/rpc/caller.js';
import { MAX_COLS, MAX_ROWS, MIN_COLS, MIN_ROWS } from '../core/limits.js';
import type { PeerProcess } from './peer.js';
import { sshCaller } from './caller.js';
import { runExec } from './exec.js';
import type { SubsystemRegistry } from './subsystems.js';
import { MAX_EXEC_COMMAND, MAX_TERM_LENGTH } from './limits.js';

export interface ShellRequest {
  channel: ServerChannel;
  cols: number;
  rows: number;
  term: string;
  /** Resizes reach the shell through this. */
  onResize(fn: (cols: number, rows: number) => void): void;
  peer: string;
  keyFingerprint: string;
  /**
   * Who is on the other end, for the person's rules: a client on another machine is outside
   * every pane; one on this machine is placed by its process, as a socket caller is.
   */
  caller: Caller;
}

/** One authenticated connection, as its sessions see it. */
export interface Conn {
  peer: string;
  port: number;
  key: string;
  keyComment: string;
  /** The key's options said no-pty (or restrict): exec only. */
  noPty: boolean;
  /** The key's line is marked observe: the file it is in, else null (see keys.ts). */
  observe: string | null;
  /** Where the client runs, looked up once it authenticated. */
  where: Promise<PeerProcess>;
  /** Session channels open now on this connection. */
  channels: number;
  /** Input arrived: the idle timer starts again. */
  touch(): void;
}

export interface SessionDeps {
  svc: Services;
  log: Logger;
  execWrite: () => boolean;
  shell: ((req: ShellRequest) => void) | undefined;
  subsystems: SubsystemRegistry;
  /** Shell channels open now, for the status verb and the leak tests. */
  shells: Set<ServerChannel>;
  refused(): void;
}

/** A terminal size from a client, kept within what a pane takes. */
export function clampSize(cols: number, rows: number): { cols: number; rows: number } {
  const c = Number.isFinite(cols) && cols > 0 ? Math.floor(cols) : 80;
  const r = Number.isFinite(rows) && rows > 0 ? Math.floor(rows) : 24;
  return { cols: Math.min(MAX_COLS, Math.max(MIN_COLS, c)), rows: Math.min(MAX_ROWS, Math.max(MIN_ROWS, r)) };
}

/** TERM from a pty-req when it reads as a terminfo name, else xterm-256color. */
export function cleanTerm(term: string | undefined): string {
  return term && term.length <= MAX_TERM_LENGTH && /^[A-Za-z0-9][A-Za-z0-9._+-]*$/.test(term) ? term : 'xterm-256color';
}

export function serveSession(session: Session, conn: Conn, deps: SessionDeps): void {
  const { peer } = conn;
  const log = deps.log;
  conn.channels++;
  let counted = true;
  session.once('close', () => {
    if (counted) conn.channels--;
    counted = false;
  });
  session.on('error', (e: Error) => log.debug('ssh session error', { peer, error: e.message }));
  let pty: { cols: number; rows: number; term: string } | null = null;
  let used = false;
  const resizers: Array<(c: number, r: number) => void> = [];
  const refused = (what: string, extra: Record<string, unknown> = {}) => {
    deps.refused();
    log.warn(`ssh refused: ${what}`, { peer, key: conn.key, ...extra });
  };
  /** One of shell, exec or subsystem per session channel (RFC 4254 6.5). */
  const first = (what: string, reject?: () => void): boolean => {
    if (!used) return (used = true);
    refused(`a second ${what} on one session`);
    reject?.();
    return false;
  };

  session.on('pty', (accept, reject, info) => {
    if (conn.noPty) {
      refused('pty (the key has no-pty or restrict)');
      return reject?.();
    }
    pty = { ...clampSize(info.cols, info.rows), term: cleanTerm(info.term) };
    accept?.();
  });
  session.on('window-change', (accept, _reject, info) => {
    accept?.();
    conn.touch();
    const size = clampSize(info.cols, info.rows);
    if (pty) pty = { ...pty, ...size };
    for (const r of resizers) guard(log, 'resize', () => r(size.cols, size.rows));
  });
  session.on('env', (_accept, reject, info) => {
    // Clients send LANG and LC_* unasked: a note, not a warning. The value is never logged.
    deps.refused();
    log.info('ssh refused: env', { peer, key: conn.key, name: String(info?.key ?? '').slice(0, 64) });
    reject?.();
  });
  session.on('x11', (_accept, reject) => {
    refused('X11 forwarding');
    reject?.();
  });
  session.on('auth-agent', (_accept, reject) => {
    refused('agent forwarding');
    reject?.();
  });
  // A signal has nothing to reach: the TUI is not a process, a verb finishes on its own.
  session.on('signal', (_accept, reject) => reject?.());

  session.on('shell', (accept, reject) => {
    if (!first('shell', reject)) return;
    if (!pty) {
      refused('shell without a pty (use ssh -t, or name a verb to run)');
      return reject?.();
    }
    const shell = deps.shell;
    if (!shell) {
      refused('shell (this daemon runs without its TUI)');
      return reject?.();
    }
    const channel = accept();
    deps.shells.add(channel);
    channel.once('close', () => deps.shells.delete(channel));
    channel.on('error', (e: Error) => log.debug('ssh shell channel error', { peer, error: e.message }));
    channel.on('data', () => conn.touch());
    // Keys typed before the TUI is up wait in the channel until it reads them.
    channel.pause();
    conn.where
      .then((where) => {
        const p = pty!;
        const caller = sshCaller(peer, where, observeBy(conn));
        guard(
          log,
          'shell',
          () => {
            if (channel.destroyed) return;
            shell({ channel, cols: p.cols, rows: p.rows, term: p.term, onResize: (fn) => resizers.push(fn), peer, keyFingerprint: conn.key, caller });
            channel.resume();
          },
          () => closeChannel(channel, 'tuios: the session could not start; the daemon log says why\r\n'),
        );
      })
      .catch((e: unknown) => {
        log.error('ssh shell failed', { peer, key: conn.key, error: String(e) });
        closeChannel(channel, 'tuios: the session could not start\r\n');
      });
  });

  session.on('exec', (accept, reject, info) => {
    if (!first('exec', reject)) return;
    if (info.command.length > MAX_EXEC_COMMAND) {
      refused('exec (the command line is too long)', { bytes: info.command.length, limit: MAX_EXEC_COMMAND });
      return reject?.();
    }
    const channel = accept();
    channel.on('error', (e: Error) => log.debug('ssh exec channel error', { peer, error: e.message }));
    // Input to a verb is not read; draining it keeps a client that sends some from stalling.
    channel.resume();
    conn.where
      .then((where) => runExec(deps.svc, info.command, sshCaller(peer, where, observeBy(conn) ?? (deps.execWrite() ? null : EXEC_READ_ONLY))))
      .then((r) => {
        if (channel.destroyed) return;
        if (r.stdout) channel.write(r.stdout);
        if (r.stderr) channel.stderr.write(r.stderr);
        channel.exit(r.code);
        channel.end();
      })
      .catch((e: unknown) => {
        log.error('ssh exec failed', { peer, key: conn.key, error: e instanceof Error ? e.stack : String(e) });
        closeChannel(channel, 'tuios: internal error; the daemon log says why\n', 1);
      });
  });

  session.on('subsystem', (accept, reject, info) => {
    if (!first('subsystem', reject)) return;
    const name = String(info.name);
    const handler = deps.subsystems.get(name);
    if (!handler) {
      refused('subsystem', { name: name.slice(0, 64) });
      return reject?.();
    }
    const channel = accept();
    channel.on('error', (e: Error) => log.debug('ssh subsystem channel error', { peer, name, error: e.message }));
    log.info('ssh subsystem opened', { peer, key: conn.key, name });
    guard(log, `subsystem ${name}`, () => handler(channel, { address: peer, port: conn.port, keyFingerprint: conn.key, keyComment: conn.keyComment }), () => closeChannel(channel, `tuios: the ${name} subsystem failed; the daemon log says why\n`));
  });
}

/** Why an exec of a key not marked observe is read-only, and what allows a write. */
const EXEC_READ_ONLY = { why: '[ssh] exec_write is off', allow: '[ssh] exec_write = true' };

/** An observe key's connection is read-only in the TUI and over exec alike. */
function observeBy(conn: Conn): { why: string; allow: string } | null {
  if (!conn.observe) return null;
  return { why: 'its key is marked observe in authorized_keys', allow: `The key's line in ${conn.observe} without observe` };
}

export function closeChannel(channel: ServerChannel, text: string, code = 1): void {
  try {
    if (channel.destroyed) return;
    channel.stderr.write(text);
    channel.exit(code);
    channel.end();
  } catch {
    // The client went first: there is nobody left to tell.
  }
}

/** Runs a handler; a throw is logged and `onError` closes what it concerns, nothing more. */
export function guard(log: Logger, where: string, fn: () => void, onError?: () => void): void {
  try {
    fn();
  } catch (e) {
    log.error('ssh handler threw', { where, error: e instanceof Error ? e.stack : String(e) });
    try {
      onError?.();
    } catch (e2) {
      log.debug('ssh channel did not close cleanly', { where, error: String(e2) });
    }
  }
}
