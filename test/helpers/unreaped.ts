// A process whose parent never calls wait(): when it dies it stays a zombie, as a daemon does
// under a container's first process that does not reap. The parent is `sh`, which starts the
// child in the background and then execs `sleep`, a program that never waits for anything.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface Unreaped {
  /** The child's pid (its parent is `sleep`). */
  pid: number;
  /** Ends the non-waiting parent; the child, if a zombie, then goes to init to be reaped. */
  dispose(): void;
}

export function spawnUnreaped(argv: string[], o: { env: Record<string, string>; cwd: string; logFile: string }): Promise<Unreaped> {
  return new Promise((resolve, reject) => {
    const script = '"$@" >>"$TUIOS_UNREAPED_LOG" 2>&1 </dev/null & echo $!; exec sleep 3600';
    const parent: ChildProcess = spawn('/bin/sh', ['-c', script, 'sh', ...argv], {
      env: { ...o.env, TUIOS_UNREAPED_LOG: o.logFile },
      cwd: o.cwd,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    parent.stdout!.on('data', (d) => {
      out += d;
      const m = /^(\d+)\n/.exec(out);
      if (m) {
        parent.stdout!.destroy();
        resolve({
          pid: Number(m[1]),
          dispose: () => {
            try {
              parent.kill('SIGKILL');
            } catch {
              // gone
            }
          },
        });
      }
    });
    parent.once('error', reject);
    parent.once('exit', (code) => reject(new Error(`the non-waiting parent exited (${code}) before starting its child`)));
  });
}

/** The state letter of a process in /proc (R, S, Z, ...), or null once it is gone (reaped). */
export function procState(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // pid (comm) STATE ...: comm may hold spaces and parentheses, so read after the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) || null;
  } catch {
    return null;
  }
}
