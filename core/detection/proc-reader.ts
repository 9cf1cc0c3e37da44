// The live process reader for identification: Linux procfs. Elsewhere every read is null and
// detection has no opinion (reports still work).
import { realpathSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { readStat, readArgv, readExe, readCwd, readChildren, readEnviron } from '../pty/procfs.js';
import type { ProcInfo, ProcReader } from './identify.js';

export const procReader: ProcReader = {
  info(pid: number): ProcInfo | null {
    const st = readStat(pid);
    if (!st) return null;
    return { pid, ppid: st.ppid, pgrp: st.pgrp, comm: st.comm, argv: readArgv(pid), exe: readExe(pid), cwd: readCwd(pid) };
  },
  children: readChildren,
  env(pid: number, name: string): string | null | undefined {
    const env = readEnviron(pid);
    if (!env) return undefined;
    return env.get(name) ?? null;
  },
  realpath(path: string, cwd: string | null): string | null {
    try {
      return realpathSync(isAbsolute(path) ? path : resolve(cwd ?? '/', path));
    } catch {
      return null;
    }
  },
};
