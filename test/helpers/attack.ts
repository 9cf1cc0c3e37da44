// What the attack suite (test/fuzz, test/soak) reads of a daemon from outside: its resident
// memory and open descriptors from /proc, raw connections that send whatever bytes a test wants
// and read (or do not read) what comes back, and a plain call from another process, timed.
import { connect, type Socket } from 'node:net';
import { readFileSync, readdirSync } from 'node:fs';
import type { TestDaemon } from './daemon.js';
import { waitFor } from './wait.js';

/** VmRSS of a process in kB (from /proc/PID/status). */
export function rssKb(pid: number): number {
  const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]);
}

/** Open descriptors of a process (entries of /proc/PID/fd). */
export function fdCount(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** The daemon's pid, asked over the socket. */
export async function daemonPid(d: TestDaemon): Promise<number> {
  return (await d.call<{ pid: number }>('server-info')).pid;
}

/**
 * The daemon's RSS after a collection (the daemon runs with NODE_OPTIONS=--expose-gc, see
 * ATTACK_ENV), the lowest of a few reads: what it holds, not garbage it has yet to collect.
 */
export async function settledRssKb(d: TestDaemon, pid: number): Promise<number> {
  let low = Infinity;
  for (let i = 0; i < 3; i++) {
    await d.call('server-info', { gc: true });
    low = Math.min(low, rssKb(pid));
    await new Promise((r) => setTimeout(r, 100));
  }
  return low;
}

/** What a daemon under attack runs with: a collector the test can call. */
export const ATTACK_ENV = { NODE_OPTIONS: '--expose-gc' };

/** Waits until the daemon's settled RSS is within `ratio` of `baseKb` (memory can return slowly). */
export async function rssReturns(d: TestDaemon, pid: number, baseKb: number, ratio = 0.1, timeout = 30_000): Promise<number> {
  let last = 0;
  try {
    await waitFor(async () => {
      last = await settledRssKb(d, pid);
      return last <= baseKb * (1 + ratio);
    }, { timeout, interval: 250, what: `RSS back within ${ratio * 100}% of ${baseKb} kB` });
  } catch {
    // the caller asserts on the figure, so the message has the numbers
  }
  return last;
}

export interface RawConnection {
  sock: Socket;
  /** Everything read so far (when reading). */
  received(): string;
  /** The connection has closed (either side). */
  closed(): boolean;
  /** Resolves once a line matching `re` was read, or the connection closed. */
  waitLine(re: RegExp, timeout?: number): Promise<string | null>;
}

/** A connection that sends raw bytes; `read: false` never reads what comes back. */
export function rawConnect(socket: string, o: { read?: boolean } = {}): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const sock = connect(socket);
    let text = '';
    let isClosed = false;
    sock.on('error', () => {});
    sock.on('close', () => (isClosed = true));
    sock.once('connect', () => {
      if (o.read === false) sock.pause();
      else sock.on('data', (b) => (text = (text + b.toString('utf8')).slice(-1024 * 1024)));
      resolve({
        sock,
        received: () => text,
        closed: () => isClosed,
        waitLine: async (re, timeout = 20_000) => {
          try {
            return await waitFor(() => text.split('\n').find((l) => re.test(l)) ?? (isClosed ? '' : null), { timeout, interval: 20, what: `a line matching ${re}` }) || null;
          } catch {
            return null;
          }
        },
      });
    });
    sock.once('error', reject);
  });
}

/** A plain call from another process (the CLI), timed: what a user runs while the attack goes on. */
export async function plainCallMs(d: TestDaemon, timeoutMs = 20_000): Promise<number> {
  const t0 = Date.now();
  const r = await d.cli(['list-sessions', '--json'], { timeoutMs });
  if (r.code !== 0) throw new Error(`tuios list-sessions failed during the attack: ${r.stderr}`);
  return Date.now() - t0;
}
