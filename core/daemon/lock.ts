// One daemon per socket. The lock is a file beside the socket holding the owner's pid, made with
// link(2) so exactly one starter wins; a lock whose pid is dead is taken over by renaming it
// away first (only one starter's rename succeeds).
import { writeFileSync, linkSync, unlinkSync, readFileSync, renameSync } from 'node:fs';
import { connect } from 'node:net';

export type LockResult = { ok: true; release(): void } | { ok: false; pid: number | null };

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function acquireLock(lockPath: string): LockResult {
  const tmp = `${lockPath}.${process.pid}`;
  writeFileSync(tmp, String(process.pid), { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        linkSync(tmp, lockPath);
        return {
          ok: true,
          release: () => {
            try {
              if (readFileSync(lockPath, 'utf8') === String(process.pid)) unlinkSync(lockPath);
            } catch {
              // already gone
            }
          },
        };
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      let owner: number | null = null;
      try {
        owner = Number.parseInt(readFileSync(lockPath, 'utf8'), 10);
      } catch {
        continue; // vanished between link and read: try again
      }
      if (Number.isFinite(owner) && owner > 0 && alive(owner)) return { ok: false, pid: owner };
      try {
        renameSync(lockPath, `${lockPath}.stale.${process.pid}`);
        unlinkSync(`${lockPath}.stale.${process.pid}`);
      } catch {
        // another starter took it over first; loop and see who holds it now
      }
    }
    return { ok: false, pid: null };
  } finally {
    try {
      unlinkSync(tmp);
    } catch {
      // nothing to clean
    }
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
