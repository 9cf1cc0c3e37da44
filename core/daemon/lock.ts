// One daemon per socket. Ownership is a listening socket the daemon holds, never a pid in a file:
// the kernel closes every descriptor of a process when it dies, before its parent reaps it, so a
// killed daemon left a zombie (its parent never calls wait(), as a container's first process may
// not) holds nothing, while `kill(pid, 0)` on that zombie still succeeds. A pid lock took such a
// zombie for a live owner and the next daemon refused to start (issue 26).
//
// Linux: an abstract-namespace Unix socket, `\0tuios-lock/UID/HASH` with HASH from the socket's
// path. It has no file: bind fails with EADDRINUSE while a process holds it, and it is gone the
// moment that process exits. Nothing is left to clean up and no two starters can both win.
// Abstract names are shared across users of a network namespace and have no permissions, so
// another user could squat the name and keep this daemon from starting; another user is out of
// the threat model (agents-guide "Who can act as the person"), and the uid in the name keeps two
// users' daemons apart.
//
// Elsewhere (macOS, the BSDs: no abstract namespace) the lock is a Unix socket file beside the
// socket, `SOCKET.lock`, in the same 0700 folder. bind(2) creates it atomically, so one starter
// wins; a file left by a dead owner refuses connections (its listener closed with the process,
// zombie or not) and is taken over by renaming it away. Two starters taking over the same stale
// file at once is settled by checking that what was renamed away still refused; a third starter
// landing in that moment is the one race left, and costs a second daemon that fails to listen.
import { createHash } from 'node:crypto';
import { linkSync, realpathSync, renameSync, unlinkSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { DAEMON_LOCK_WAIT_MS } from '../limits.js';

export type LockResult = { ok: true; how: 'abstract' | 'file'; release(): Promise<void> } | { ok: false; holder: string };

export interface LockOptions {
  /** Use the abstract namespace (default: on Linux). Tests turn it off to run the fallback here. */
  abstract?: boolean;
  /** How long a held lock is looked at again before giving up (default DAEMON_LOCK_WAIT_MS). */
  waitMs?: number;
}

/** The abstract name for a socket path: one per user and per socket, whatever path reaches it. */
export function abstractLockName(socketPath: string): string {
  let dir = dirname(socketPath);
  try {
    dir = realpathSync(dir);
  } catch {
    // the folder is made before the lock is taken; a path that cannot be resolved hashes as given
  }
  const hash = createHash('sha256').update(join(dir, basename(socketPath))).digest('hex').slice(0, 40);
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  return `\0tuios-lock/${uid}/${hash}`;
}

/** Takes the lock for `socketPath`, or says who holds it. */
export async function acquireLock(socketPath: string, o: LockOptions = {}): Promise<LockResult> {
  const abstract = o.abstract ?? process.platform === 'linux';
  // A killed process shows as a zombie as soon as its first thread is gone, but its descriptors
  // close only when the last of its threads has exited, tens of ms later on a busy machine
  // (measured: 30-80 ms for a Node process). A start right after a kill -9 lands in that moment,
  // so a held lock is tried again for a short while before it is reported held.
  const deadline = Date.now() + (o.waitMs ?? DAEMON_LOCK_WAIT_MS);
  for (;;) {
    const r = abstract ? await acquireAbstract(socketPath) : await acquireFileLock(`${socketPath}.lock`);
    if (r.ok || Date.now() >= deadline) return r;
    await new Promise((res) => setTimeout(res, 25));
  }
}

async function acquireAbstract(socketPath: string): Promise<LockResult> {
  const srv = await bind(abstractLockName(socketPath));
  if (srv === 'in_use') return { ok: false, holder: 'a live process holds its lock' };
  return { ok: true, how: 'abstract', release: () => closeServer(srv) };
}

async function acquireFileLock(lockPath: string): Promise<LockResult> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const srv = await bind(lockPath);
    if (srv !== 'in_use') return { ok: true, how: 'file', release: () => closeServer(srv) };
    if (await socketAnswers(lockPath, 1000)) return { ok: false, holder: `a live process listens on ${lockPath}` };
    // Nobody listens: its owner is dead. Rename it away (one starter's rename gets it), then make
    // sure what was renamed was the dead one and not a lock another starter just made.
    const away = `${lockPath}.stale.${process.pid}.${attempt}`;
    try {
      renameSync(lockPath, away);
    } catch {
      continue; // another starter moved it first; look again
    }
    if (await socketAnswers(away, 1000)) {
      try {
        linkSync(away, lockPath); // a live lock: put it back
      } catch {
        // someone else already took the path; they hold it now
      }
      unlinkQuiet(away);
      return { ok: false, holder: `a live process listens on ${lockPath}` };
    }
    unlinkQuiet(away);
  }
  return { ok: false, holder: `${lockPath} kept changing while it was taken over` };
}

/** Listens on `path` (a file or `\0name`), or says the address is in use. */
function bind(path: string): Promise<Server | 'in_use'> {
  return new Promise((resolve, reject) => {
    // A connection to the lock is only ever a liveness check: close it at once.
    const srv = createServer((s) => s.destroy());
    srv.once('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EADDRINUSE') resolve('in_use');
      else reject(e);
    });
    srv.listen(path, () => {
      srv.removeAllListeners('error');
      srv.on('error', () => {});
      // The lock must never keep a stopping daemon alive.
      srv.unref();
      resolve(srv);
    });
  });
}

function closeServer(srv: Server): Promise<void> {
  // libuv removes a socket file when its listener closes; an abstract name simply goes.
  return new Promise((resolve) => srv.close(() => resolve()));
}

function unlinkQuiet(p: string): void {
  try {
    unlinkSync(p);
  } catch {
    // gone
  }
}

/** True when something answers on the socket. */
export function socketAnswers(path: string, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(path);
    const t = setTimeout(() => {
      s.destroy();
      resolve(false);
    }, timeoutMs);
    s.once('connect', () => {
      clearTimeout(t);
      s.destroy();
      resolve(true);
    });
    s.once('error', () => {
      clearTimeout(t);
      resolve(false);
    });
  });
}
