// The small native addon (native/fd, package tuios-fd): dup(2) for the PTY reader thread,
// tcgetpgrp(3) for the agent detector, malloc_trim(3) for the daemon's heap trimmer. Any may be
// null (a failed build, another C library): callers then do without (main-thread reads, procfs,
// memory the allocator keeps).
import { createRequire } from 'node:module';

export interface FdAddon {
  dupFd: ((fd: number) => number) | null;
  foregroundGroup: ((fd: number) => number) | null;
  trimHeap: (() => boolean) | null;
}

let addon: FdAddon | undefined;

export function fdAddon(): FdAddon {
  if (addon) return addon;
  try {
    const m = createRequire(import.meta.url)('tuios-fd') as Partial<FdAddon>;
    addon = { dupFd: m.dupFd ?? null, foregroundGroup: m.foregroundGroup ?? null, trimHeap: m.trimHeap ?? null };
  } catch {
    addon = { dupFd: null, foregroundGroup: null, trimHeap: null };
  }
  return addon;
}
