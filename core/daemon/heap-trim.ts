// Gives the C heap's free pages back to the kernel after a full collection.
//
// Node allocates Buffers (socket reads, half request lines, pane output) with malloc. When the
// collector frees a burst of them, glibc keeps the pages: free() returns memory only from the top
// of its heap, and one live allocation above the freed ones pins all of them. A long-running
// daemon that once held a few hundred connections' half lines would carry that RSS for good. So
// after each full (mark-compact) collection, which is when freed Buffers reach free(), the heap
// is trimmed, at most once per HEAP_TRIM_MIN_INTERVAL_MS: malloc_trim(0) walks the free lists and
// hands back every whole free page. A C library without it, or a failed native build, leaves
// the heap as it is.
import { PerformanceObserver, constants, type PerformanceEntry } from 'node:perf_hooks';
import { fdAddon } from '../pty/fd-addon.js';
import { HEAP_TRIM_MIN_INTERVAL_MS } from '../limits.js';

export interface HeapTrimmer {
  /** Trims now unless it did within the interval; true when pages went back to the kernel. */
  trim(): boolean;
  dispose(): void;
}

export function startHeapTrimmer(o: { minIntervalMs?: number; now?: () => number } = {}): HeapTrimmer {
  const trimHeap = fdAddon().trimHeap;
  const minInterval = o.minIntervalMs ?? HEAP_TRIM_MIN_INTERVAL_MS;
  const now = o.now ?? Date.now;
  let last = -Infinity;
  let pending: NodeJS.Timeout | null = null;

  const trim = (): boolean => {
    if (!trimHeap) return false;
    const t = now();
    if (t - last < minInterval) return false;
    last = t;
    return trimHeap();
  };
  // A collection inside the interval is not dropped: one trim follows when the interval ends, so
  // the last burst of a series is trimmed too.
  const afterCollection = (): void => {
    if (pending) return;
    const wait = Math.max(0, last + minInterval - now());
    pending = setTimeout(() => {
      pending = null;
      trim();
    }, wait);
    pending.unref();
  };

  let observer: PerformanceObserver | null = null;
  if (trimHeap) {
    observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        if ((e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) return afterCollection();
      }
    });
    observer.observe({ entryTypes: ['gc'] });
  }
  return {
    trim,
    dispose() {
      observer?.disconnect();
      if (pending) clearTimeout(pending);
      pending = null;
    },
  };
}
