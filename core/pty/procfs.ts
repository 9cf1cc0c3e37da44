// Reading processes from Linux procfs. Every read may fail (the process exited, another user's
// process, not Linux): each returns null then, and callers treat null as "no evidence".
import { readFileSync, readlinkSync, readdirSync } from 'node:fs';

export interface ProcStat {
  pid: number;
  comm: string;
  state: string;
  ppid: number;
  pgrp: number;
  session: number;
  ttyNr: number;
  tpgid: number;
  /** Start time in clock ticks since boot: with the pid it names one process for its life. */
  startTime: number;
}

/** One process as identification reads it (core/detection/identify.ts). */
export interface ProcInfo {
  pid: number;
  ppid: number;
  pgrp: number;
  comm: string | null;
  argv: string[] | null;
  exe: string | null;
  cwd: string | null;
  /** The eligible token resolved to a real path (set by identify before matching). */
  argvResolved?: string | null;
}

/** Where identification reads processes from: this machine's /proc, or a linked host's snapshot. */
export interface ProcReader {
  info(pid: number): ProcInfo | null;
  children(pid: number): number[];
  /** One env var of a process: null when unset, undefined when the environment cannot be read. */
  env(pid: number, name: string): string | null | undefined;
  /** Resolves a script path the way the interpreter did (symlinks, relative to its folder). */
  realpath(path: string, cwd: string | null): string | null;
}

export const hasProcfs = process.platform === 'linux';

export function readStat(pid: number): ProcStat | null {
  if (!hasProcfs) return null;
  let raw: string;
  try {
    raw = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // comm may hold spaces and parentheses: it runs from the first '(' to the last ')'.
  const open = raw.indexOf('(');
  const close = raw.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  // The fields after comm are read in place, through field 22: the daemon reads this file for
  // every pane every tick, and splitting it made some fifty strings a read for the collector.
  const nums: number[] = [];
  let at = close + 2;
  let state = '?';
  for (let field = 3; field <= 22 && at < raw.length; field++) {
    let end = raw.indexOf(' ', at);
    if (end < 0) end = raw.length;
    if (field === 3) state = raw.slice(at, end);
    else if (field <= 8 || field === 22) nums[field] = intAt(raw, at, end);
    at = end + 1;
  }
  return {
    pid,
    comm: raw.slice(open + 1, close),
    state,
    ppid: nums[4] ?? NaN,
    pgrp: nums[5] ?? NaN,
    session: nums[6] ?? NaN,
    ttyNr: nums[7] ?? NaN,
    tpgid: nums[8] ?? NaN,
    startTime: nums[22] ?? NaN,
  };
}

/** The decimal integer in s[from, to) (a leading '-' allowed); NaN when there is none. */
function intAt(s: string, from: number, to: number): number {
  let i = from;
  const neg = s.charCodeAt(i) === 45;
  if (neg) i++;
  if (i >= to) return NaN;
  let n = 0;
  for (; i < to; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return NaN;
    n = n * 10 + c;
  }
  return neg ? -n : n;
}

export function readComm(pid: number): string | null {
  if (!hasProcfs) return null;
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').replace(/\n$/, '');
  } catch {
    return null;
  }
}

export function readArgv(pid: number): string[] | null {
  if (!hasProcfs) return null;
  try {
    const raw = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (raw === '') return [];
    const parts = raw.split('\0');
    // A process that set its title (pi) leaves its argv padded with NULs: drop the empty tail.
    while (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
    return parts;
  } catch {
    return null;
  }
}

export function readExe(pid: number): string | null {
  if (!hasProcfs) return null;
  try {
    return readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return null;
  }
}

export function readCwd(pid: number): string | null {
  if (!hasProcfs) return null;
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return null;
  }
}

/** One variable from a process's environment, or null when it is unset or unreadable. */
export function readEnvVar(pid: number, name: string): string | null {
  const env = readEnviron(pid);
  return env ? (env.get(name) ?? null) : null;
}

export function readEnviron(pid: number): Map<string, string> | null {
  if (!hasProcfs) return null;
  let raw: string;
  try {
    raw = readFileSync(`/proc/${pid}/environ`, 'utf8');
  } catch {
    return null;
  }
  const out = new Map<string, string>();
  for (const kv of raw.split('\0')) {
    const eq = kv.indexOf('=');
    if (eq > 0) out.set(kv.slice(0, eq), kv.slice(eq + 1));
  }
  return out;
}

/** Direct children of a process, from every thread's children list. */
export function readChildren(pid: number): number[] {
  if (!hasProcfs) return [];
  const out: number[] = [];
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const t of tasks) {
    try {
      const raw = readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').trim();
      if (!raw) continue;
      for (const s of raw.split(' ')) {
        const n = Number.parseInt(s, 10);
        if (Number.isFinite(n)) out.push(n);
      }
    } catch {
      // a thread that exited between readdir and read
    }
  }
  return out;
}

/** The foreground process group of the terminal a process (the pane's shell) is on. */
export function foregroundPgid(shellPid: number): number | null {
  const st = readStat(shellPid);
  if (!st || !(st.tpgid > 0)) return null;
  return st.tpgid;
}
