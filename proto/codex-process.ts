// Starting and stopping `codex app-server` for agent-proto. The app-server is started in a
// session of its own (setsid: no controlling terminal, so it cannot write to the pane or read
// its keys), with pipes for stdin, stdout and stderr and nothing else.
//
// Codex 0.171's TUI starts `codex app-server --managed-daemon` processes that outlive it
// (shared/notes/agent-clis.md). `codex app-server` on stdio was measured to start none: its
// processes are the launcher and the native binary, both in the session started here. Stopping
// ends that session's process group, then anything still in the session, each by its pid.
import type { ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { readStat } from '../core/pty/procfs.js';
import { CODEX_CLOSE_GRACE_MS, CODEX_STDERR_TAIL_BYTES } from './codex-limits.js';
import { spawnAgent, type AdapterOptions } from './spawn.js';

/** A running app-server as the adapter sees it: two streams, how it ended, and a way to stop it. */
export interface AppServerIo {
  /** The process's pid, which is also its session's and its group's; null for a stand-in. */
  pid: number | null;
  stdin: Writable;
  stdout: Readable;
  /** Resolves once the process has exited, with why in words ("exited with status 1: ..."). */
  exited: Promise<string>;
  /** Ends it (and whatever it left in its session); resolves once it has exited. */
  stop(): Promise<void>;
}

/** The processes of session `sid`, other than those already gone. */
export function sessionMembers(sid: number): number[] {
  const out: number[] = [];
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return out;
  }
  for (const n of names) {
    const pid = Number(n);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    const st = readStat(pid);
    if (st && st.session === sid && st.state !== 'Z') out.push(pid);
  }
  return out;
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

/**
 * Starts `COMMAND... app-server` on stdio as every adapter starts its agent (proto/spawn.ts:
 * detached into a session of its own, pipes only, its stderr to agent-proto's log). Rejects when
 * it cannot be spawned.
 */
export function launchAppServer(o: AdapterOptions): Promise<AppServerIo> {
  let child: ChildProcess;
  try {
    child = spawnAgent({ ...o, command: [...o.command, 'app-server'] });
  } catch (e) {
    return Promise.reject(e instanceof Error ? e : new Error(String(e)));
  }
  let tail = '';
  child.stderr!.on('data', (d: Buffer) => {
    tail = (tail + d.toString('utf8')).slice(-CODEX_STDERR_TAIL_BYTES);
  });
  const exited = new Promise<string>((resolve) => {
    let spawnError: Error | null = null;
    child.once('error', (e) => {
      spawnError = e;
      // 'exit' does not follow a failed spawn.
      if (child.pid === undefined) resolve(`did not start: ${e.message}`);
    });
    child.once('exit', (code, sig) => {
      // stderr may still hold its last lines: read them once it closes, within a bound.
      const say = () => {
        const last = lastLine(tail);
        const how = spawnError ? `did not start: ${spawnError.message}` : sig ? `was killed by ${sig}` : `exited with status ${code}`;
        resolve(last ? `${how}: ${last}` : how);
      };
      if (child.stderr!.readableEnded) say();
      else {
        const t = setTimeout(say, 200);
        child.stderr!.once('close', () => {
          clearTimeout(t);
          say();
        });
      }
    });
  });
  return new Promise<AppServerIo>((resolve, reject) => {
    child.once('spawn', () => {
      const pid = child.pid!;
      let stopping: Promise<void> | null = null;
      resolve({
        pid,
        stdin: child.stdin!,
        stdout: child.stdout!,
        exited,
        stop: () =>
          (stopping ??= (async () => {
            child.stdin!.end();
            signal(-pid, 'SIGTERM');
            const t = setTimeout(() => signal(-pid, 'SIGKILL'), CODEX_CLOSE_GRACE_MS);
            await exited;
            clearTimeout(t);
            // Anything the app-server left in its session (a helper in a group of its own).
            for (const p of sessionMembers(pid)) signal(p, 'SIGKILL');
          })()),
      });
    });
    child.once('error', (e) => {
      if (child.pid === undefined) reject(e);
    });
  });
}

/**
 * What stderr says of why: its last `error: ...` line (a refused option, a config it cannot read),
 * else its last line; without escape sequences (Codex's log lines are colored).
 */
export function lastLine(s: string): string {
  const lines = s.replace(/\x1b\[[0-9;?]*[ -/]*[@-~]/g, '').split('\n').map((l) => l.trim()).filter(Boolean);
  const errors = lines.filter((l) => /^error\b/i.test(l));
  return errors[errors.length - 1] ?? lines[lines.length - 1] ?? '';
}
