// The small native addon (native/fd, package tuios-fd): dup(2) for the PTY reader thread and
// tcgetpgrp(3) for the agent detector. Either may be null (a failed build): callers then do
// without (main-thread reads, procfs).
import { createRequire } from 'node:module';

export interface FdAddon {
  dupFd: ((fd: number) => number) | null;
  foregroundGroup: ((fd: number) => number) | null;
}

let addon: FdAddon | undefined;

export function fdAddon(): FdAddon {
  if (addon) return addon;
  try {
    const m = createRequire(import.meta.url)('tuios-fd') as Partial<FdAddon>;
    addon = { dupFd: m.dupFd ?? null, foregroundGroup: m.foregroundGroup ?? null };
  } catch {
    addon = { dupFd: null, foregroundGroup: null };
  }
  return addon;
}
