// Shared pieces of the benchmarks: timing, medians, process memory, tmux on a private socket, and
// a deterministic corpus of mixed text with SGR colours.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Each of `n` calls of `fn` timed in ms, after `warm` untimed ones (one after another). */
export async function timeCalls(fn: () => Promise<unknown>, n: number, warm = 30): Promise<number[]> {
  for (let i = 0; i < warm; i++) await fn();
  const xs: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    await fn();
    xs.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return xs;
}

export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

/** Resident memory of a process in bytes (VmRSS). */
export function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

export function hasTmux(): boolean {
  return spawnSync('tmux', ['-V']).status === 0;
}

/** A tmux on a private socket with no user config. */
export class Tmux {
  constructor(readonly socket: string) {}
  run(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
  }
  serverPid(): number {
    return Number(this.run('display-message', '-p', '#{pid}').trim());
  }
  kill(): void {
    spawnSync('tmux', ['-L', this.socket, 'kill-server']);
  }
}

/** Writes (once) a file of `mb` megabytes of mixed words and SGR-coloured words, in lines. */
export function sgrCorpus(path: string, mb: number): string {
  if (existsSync(path)) return path;
  const block = sgrCorpusBlock();
  const reps = Math.max(1, Math.round((mb * 1024 * 1024) / block.length));
  writeFileSync(path, block.repeat(reps));
  return path;
}

/** The corpus's repeated block: 4 MB of lines of words, a quarter of them SGR-coloured. */
export function sgrCorpusBlock(): string {
  const words = ['alpha', 'beta', 'gamma', 'delta', 'build', 'test', 'error', 'warning', 'ok', 'src/main.ts:42', 'function', 'return', 'const', '=>', '{', '}'];
  let seed = 1;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const parts: string[] = [];
  let size = 0;
  while (size < 4 * 1024 * 1024) {
    let l = '';
    const n = 4 + Math.floor(rnd() * 12);
    for (let i = 0; i < n; i++) {
      const w = words[Math.floor(rnd() * words.length)];
      const r = rnd();
      if (r < 0.2) l += `\x1b[3${1 + Math.floor(rnd() * 6)}m${w}\x1b[0m `;
      else if (r < 0.25) l += `\x1b[1;38;5;${Math.floor(rnd() * 255)}m${w}\x1b[0m `;
      else l += w + ' ';
    }
    l += '\n';
    parts.push(l);
    size += l.length;
  }
  return parts.join('');
}

export function fmt(n: number, digits = 1): string {
  return n.toFixed(digits);
}

export function mb(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1) + ' MB';
}

/** CPU time a process has used, user and system, in seconds (/proc/PID/stat; clock ticks of 10 ms). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The fields after the command name, which may hold spaces: utime and stime are the 12th and 13th.
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

/** The whole machine's CPU time so far, busy and all, in clock ticks (/proc/stat's first line). */
export function machineTicks(): { busy: number; all: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const all = f.slice(0, 8).reduce((a, b) => a + b, 0);
  // idle and iowait are the 4th and 5th: the rest is work, the guest fields already in user's.
  return { busy: all - f[3]! - f[4]!, all };
}

/** How busy the machine's CPUs were between two machineTicks(), as a percentage of all of them. */
export function machineBusy(a: { busy: number; all: number }, b: { busy: number; all: number }): number {
  return b.all > a.all ? ((b.busy - a.busy) / (b.all - a.all)) * 100 : 0;
}

/** A figure against its goal (at most `goal`), as the benches print it. */
export function against(value: number, goal: number): string {
  return value <= goal ? 'ok' : 'OVER';
}
