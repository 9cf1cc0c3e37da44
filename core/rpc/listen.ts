// A socket for this user alone: a Unix socket in the daemon's 0700 folder, made 0600 too (belt
// and braces). The verb socket, the link's local socket and the herdr socket all listen so.
import { createServer, type Server, type Socket } from 'node:net';
import { chmodSync, existsSync, unlinkSync } from 'node:fs';

export interface ListenOptions {
  /** Remove a file left at `path` first: the daemon holds the lock on its socket, so one is a dead daemon's. */
  replaceStale?: boolean;
  /** An error after listening began (it is logged; the server goes on). */
  onError(e: Error): void;
}

export function listenPrivate(path: string, onConnection: (sock: Socket) => void, o: ListenOptions): Promise<Server> {
  if (o.replaceStale && existsSync(path)) unlinkSync(path);
  return new Promise((resolve, reject) => {
    const srv = createServer(onConnection);
    srv.once('error', reject);
    srv.listen(path, () => {
      srv.off('error', reject);
      srv.on('error', o.onError);
      try {
        chmodSync(path, 0o600);
      } catch {
        // the folder is 0700 already
      }
      resolve(srv);
    });
  });
}

/** Stops listening: its open connections are ended and its socket file removed. */
export function closePrivate(server: Server | null, conns: Iterable<Socket>, path: string): Promise<void> {
  return new Promise((resolve) => {
    if (!server) return resolve();
    server.close(() => resolve());
    for (const c of conns) c.destroy();
    try {
      unlinkSync(path);
    } catch {
      // gone
    }
  });
}
