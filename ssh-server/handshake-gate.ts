// The TCP side of the SSH server: every accepted socket is counted from its accept until it logs
// in, and timed until its key exchange ends, then handed to ssh2 (Server.injectSocket). ssh2 tells
// the server about a connection only once the client's banner has arrived, so a socket that sends
// nothing would sit in it unseen for ever, holding a descriptor: here it is closed after
// HANDSHAKE_TIMEOUT_MS (a banner and no key exchange too), and no more than MAX_LOGGING_IN
// connections wait to log in at once. They never count against max_sessions, which counts
// logins, so a flood of silent connections does not keep a real client out.
import type { Socket } from 'node:net';
import type { Logger } from '../core/log.js';
import { HANDSHAKE_TIMEOUT_MS, MAX_LOGGING_IN } from './limits.js';

interface Waiting {
  socket: Socket;
  /** Until the key exchange ends; null after. */
  timer: NodeJS.Timeout | null;
}

export interface GateLimits {
  max: number;
  handshakeMs: number;
}

export class HandshakeGate {
  /** Sockets not logged in yet, by the peer's address and port. */
  private readonly waiting = new Map<string, Waiting>();
  /** Sockets closed for no handshake in time, or refused past the limit. */
  dropped = 0;

  constructor(
    private readonly log: Logger,
    private readonly inject: (socket: Socket) => void,
    private readonly limits: GateLimits = { max: MAX_LOGGING_IN, handshakeMs: HANDSHAKE_TIMEOUT_MS },
  ) {}

  /** A new TCP connection: counted and timed, then handed on; refused when too many wait. */
  accept(socket: Socket): void {
    const peer = socket.remoteAddress ?? '?';
    socket.on('error', () => undefined);
    if (this.waiting.size >= this.limits.max) {
      this.dropped++;
      this.log.warn('ssh connection refused: too many connections not logged in', { peer, limit: this.limits.max });
      socket.destroy();
      return;
    }
    const key = keyOf(peer, socket.remotePort);
    const w: Waiting = { socket, timer: null };
    w.timer = setTimeout(() => {
      w.timer = null;
      this.dropped++;
      this.log.warn('ssh connection closed: no handshake in time', { peer, seconds: this.limits.handshakeMs / 1000 });
      socket.destroy();
    }, this.limits.handshakeMs);
    w.timer.unref();
    this.waiting.set(key, w);
    socket.once('close', () => {
      if (this.waiting.get(key) === w) this.forget(key, w);
    });
    // Keystrokes and their echoes are small writes: Nagle would hold each back for the peer's
    // delayed ACK (sshd turns it off for interactive sessions; every session of ours is one).
    socket.setNoDelay(true);
    this.inject(socket);
  }

  /** The connection from `ip`:`port` finished its key exchange: its login grace runs from here. */
  handshaken(ip: string, port: number): void {
    const w = this.waiting.get(keyOf(ip, port));
    if (w?.timer) {
      clearTimeout(w.timer);
      w.timer = null;
    }
  }

  /** The connection from `ip`:`port` logged in: it counts against max_sessions from here. */
  loggedIn(ip: string, port: number): void {
    const key = keyOf(ip, port);
    const w = this.waiting.get(key);
    if (w) this.forget(key, w);
  }

  /** Connections not logged in yet. */
  get loggingIn(): number {
    return this.waiting.size;
  }

  /** Closes every socket still waiting (the server is closing). */
  close(): void {
    for (const [key, w] of this.waiting) {
      this.forget(key, w);
      w.socket.destroy();
    }
  }

  private forget(key: string, w: Waiting): void {
    if (w.timer) clearTimeout(w.timer);
    w.timer = null;
    this.waiting.delete(key);
  }
}

function keyOf(ip: string, port: number | undefined): string {
  return `${ip}|${port ?? 0}`;
}
