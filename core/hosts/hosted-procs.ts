// The processes of a pane on another machine, for identifying what runs in it. The machine that
// runs the pane reads its tree from /proc (the pane's process and what it started, bounded) and
// sends it when it changes; the machine holding the window reads that snapshot through the same
// ProcReader the detector uses for a local pane, so one identification serves both. Pids in it
// are the other machine's: they are compared, never read here.
import type { ProcInfo, ProcReader } from '../detection/identify.js';
import { procReader } from '../detection/proc-reader.js';
import { readStat } from '../pty/procfs.js';
import { HOSTED_PROC_ARG_MAX_CHARS, HOSTED_PROC_ARGV_MAX, HOSTED_PROC_PATH_MAX_CHARS, HOSTED_PROCS_MAX } from '../limits.js';

export interface ProcSnapshot {
  /** The pane's own process. */
  pid: number;
  /** The foreground process group of its terminal; 0 when unknown. */
  tpgid: number;
  /** The start time of that group's leader, which names it for its life with the pid. */
  leaderStart: number | null;
  procs: Array<ProcInfo & { agent: string | null; resolved: Record<string, string> }>;
}

/** The pane's tree now, read from /proc here; null when its process is gone. */
export function readPaneProcs(pid: number, reader: ProcReader = procReader): ProcSnapshot | null {
  const st = readStat(pid);
  if (!st) return null;
  const tpgid = st.tpgid > 0 ? st.tpgid : 0;
  const procs: ProcSnapshot['procs'] = [];
  const queue = [pid];
  const seen = new Set<number>();
  while (queue.length && procs.length < HOSTED_PROCS_MAX) {
    const p = queue.shift()!;
    if (seen.has(p)) continue;
    seen.add(p);
    const info = reader.info(p);
    if (!info) continue;
    const argv = info.argv ? info.argv.slice(0, HOSTED_PROC_ARGV_MAX).map((a) => a.slice(0, HOSTED_PROC_ARG_MAX_CHARS)) : null;
    // Script paths as the interpreter sees them, for the tokens identification resolves.
    const resolved: Record<string, string> = {};
    for (const a of (argv ?? []).slice(1, 6)) {
      if (!a || a.startsWith('-')) continue;
      const r = reader.realpath(a, info.cwd);
      if (r) resolved[a] = r.slice(0, HOSTED_PROC_PATH_MAX_CHARS);
    }
    const agent = reader.env(p, 'TUIOS_AGENT');
    procs.push({ pid: info.pid, ppid: info.ppid, pgrp: info.pgrp, comm: info.comm, argv, exe: info.exe?.slice(0, HOSTED_PROC_PATH_MAX_CHARS) ?? null, cwd: info.cwd?.slice(0, HOSTED_PROC_PATH_MAX_CHARS) ?? null, agent: typeof agent === 'string' ? agent.slice(0, 64) : null, resolved });
    queue.push(...reader.children(p));
  }
  // The foreground leader may have left the tree (setsid, a double fork); it is read too.
  if (tpgid && !seen.has(tpgid) && procs.length < HOSTED_PROCS_MAX) {
    const info = reader.info(tpgid);
    if (info) procs.push({ ...info, argv: info.argv?.slice(0, HOSTED_PROC_ARGV_MAX) ?? null, agent: null, resolved: {} });
  }
  return { pid, tpgid, leaderStart: tpgid ? (readStat(tpgid)?.startTime ?? null) : null, procs };
}

const int = (v: unknown): number | null => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : null);
const strOrNull = (v: unknown, max: number): string | null => (typeof v === 'string' ? v.slice(0, max) : null);

/** A snapshot from another machine, checked field by field: anything malformed is left out. */
export function checkSnapshot(v: unknown): ProcSnapshot | null {
  if (!v || typeof v !== 'object') return null;
  const o = v as Record<string, unknown>;
  const pid = int(o.pid);
  if (pid === null || !Array.isArray(o.procs)) return null;
  const procs: ProcSnapshot['procs'] = [];
  for (const x of o.procs.slice(0, HOSTED_PROCS_MAX)) {
    if (!x || typeof x !== 'object') continue;
    const p = x as Record<string, unknown>;
    const ppid = int(p.ppid);
    const pgrp = int(p.pgrp);
    const id = int(p.pid);
    if (id === null || ppid === null || pgrp === null) continue;
    const argv = Array.isArray(p.argv) ? p.argv.slice(0, HOSTED_PROC_ARGV_MAX).filter((a): a is string => typeof a === 'string').map((a) => a.slice(0, HOSTED_PROC_ARG_MAX_CHARS)) : null;
    const resolved: Record<string, string> = {};
    if (p.resolved && typeof p.resolved === 'object' && !Array.isArray(p.resolved)) {
      for (const [k, r] of Object.entries(p.resolved as Record<string, unknown>).slice(0, 8)) if (typeof r === 'string') resolved[k.slice(0, HOSTED_PROC_ARG_MAX_CHARS)] = r.slice(0, HOSTED_PROC_PATH_MAX_CHARS);
    }
    procs.push({ pid: id, ppid, pgrp, comm: strOrNull(p.comm, 64), argv, exe: strOrNull(p.exe, HOSTED_PROC_PATH_MAX_CHARS), cwd: strOrNull(p.cwd, HOSTED_PROC_PATH_MAX_CHARS), agent: strOrNull(p.agent, 64), resolved });
  }
  return { pid, tpgid: int(o.tpgid) ?? 0, leaderStart: int(o.leaderStart), procs };
}

/** Reads a snapshot the way the detector reads /proc. */
export function snapshotReader(s: ProcSnapshot): ProcReader {
  const byPid = new Map(s.procs.map((p) => [p.pid, p]));
  return {
    info(pid) {
      const p = byPid.get(pid);
      if (!p) return null;
      return { pid: p.pid, ppid: p.ppid, pgrp: p.pgrp, comm: p.comm, argv: p.argv ? [...p.argv] : null, exe: p.exe, cwd: p.cwd };
    },
    children(pid) {
      return s.procs.filter((p) => p.ppid === pid && p.pid !== pid).map((p) => p.pid);
    },
    env(pid, name) {
      const p = byPid.get(pid);
      if (!p) return undefined;
      return name === 'TUIOS_AGENT' ? p.agent : undefined;
    },
    realpath(path) {
      for (const p of s.procs) if (p.resolved[path]) return p.resolved[path]!;
      return null;
    },
  };
}
