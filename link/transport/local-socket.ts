// The link socket: where `tuios link-serve --stdio` (run by OpenSSH's sshd for a hub that dials
// this machine) hands its stdin and stdout to the daemon. It sits beside the verb socket in the
// 0700 runtime folder. The process that dials it is placed as every caller is: one inside a pane
// of this daemon is refused, since a link speaks for a whole machine, never for a pane.
import { createServer, type Server, type Socket } from 'node:net';
import { chmodSync, existsSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Services } from '../../core/daemon/services.js';
import { readPeer, type Caller } from '../../core/rpc/caller.js';

export function linkSocketPath(verbSocket: string): string {
  return join(dirname(verbSocket), 'link.sock');
}

let nextConn = 3_000_000;

export class LinkSocket {
  private server: Server | null = null;
  private readonly conns = new Set<Socket>();
  readonly path: string;

  constructor(
    private readonly svc: Services,
    private readonly onLink: (s: Socket, pid: number | null) => void,
  ) {
    this.path = linkSocketPath(svc.paths.socket);
  }

  listen(): Promise<void> {
    if (existsSync(this.path)) unlinkSync(this.path); // the daemon holds the lock: a leftover
    return new Promise((resolve, reject) => {
      const srv = createServer((sock) => this.accept(sock));
      srv.once('error', reject);
      srv.listen(this.path, () => {
        srv.off('error', reject);
        srv.on('error', (e) => this.svc.log.warn('link socket error', { error: e.message }));
        try {
          chmodSync(this.path, 0o600);
        } catch {
          // the folder is 0700 already
        }
        this.server = srv;
        resolve();
      });
    });
  }

  private accept(sock: Socket): void {
    sock.on('error', () => undefined);
    this.conns.add(sock);
    sock.once('close', () => this.conns.delete(sock));
    const peer = readPeer(sock);
    const caller: Caller = { connId: nextConn++, channel: 'socket', pid: peer.pid, uid: peer.uid, readOnly: false, paneHint: null };
    const p = this.svc.placement(caller);
    if (p.kind !== 'outside') {
      this.svc.log.warn('link socket refused a caller inside a pane', { pid: peer.pid, how: p.how });
      sock.destroy();
      return;
    }
    this.onLink(sock, peer.pid);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (!this.server) return resolve();
      this.server.close(() => resolve());
      for (const c of this.conns) c.destroy();
      this.server = null;
      try {
        unlinkSync(this.path);
      } catch {
        // gone
      }
    });
  }
}
