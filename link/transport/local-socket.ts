// The link socket: where `tuios link-serve --stdio` (run by OpenSSH's sshd for a hub that dials
// this machine) hands its stdin and stdout to the daemon. It sits beside the verb socket in the
// 0700 runtime folder. The process that dials it is placed as every caller is: one inside a pane
// of this daemon is refused, since a link speaks for a whole machine, never for a pane.
import type { Server, Socket } from 'node:net';
import { closePrivate, listenPrivate } from '../../core/rpc/listen.js';
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

  async listen(): Promise<void> {
    this.server = await listenPrivate(this.path, (sock) => this.accept(sock), { replaceStale: true, onError: (e) => this.svc.log.warn('link socket error', { error: e.message }) });
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
    const srv = this.server;
    this.server = null;
    return closePrivate(srv, this.conns, this.path);
  }
}
