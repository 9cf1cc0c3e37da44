// How long the daemon's event loop kept work waiting: every socket call, link frame, pane read
// and frame to a client waits behind whatever runs, so this is the figure that says whether a
// slow answer was the daemon's own doing or the machine's. A libuv timer samples it in C++
// (perf_hooks.monitorEventLoopDelay), entering no JavaScript, so it costs nothing measurable
// while the daemon idles. server-info reads it, and `reset_loop` starts it anew, so a bench can
// read one phase of its run.
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

/** Sampling period: finer costs wake-ups for nothing, since a delay under it is no one's problem. */
const RESOLUTION_MS = 10;

export interface LoopDelay {
  /** Since when the figures run (ms since the epoch). */
  since: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
}

let histogram: IntervalHistogram | null = null;
let since = 0;

export function startLoopDelay(): { dispose(): void } {
  histogram ??= monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  since = Date.now();
  return {
    dispose() {
      histogram?.disable();
      histogram = null;
    },
  };
}

/** The delays since the last reset, ms (the timer's own period taken off); null when not started. */
export function readLoopDelay(reset: boolean): LoopDelay | null {
  if (!histogram) return null;
  // The histogram records each sample's whole interval in ns: a loop that waited for nothing
  // reads as the resolution itself.
  const ms = (ns: number) => Math.max(0, Math.round((ns / 1e6 - RESOLUTION_MS) * 100) / 100);
  const out = histogram.count === 0 ? { since, p50_ms: 0, p99_ms: 0, max_ms: 0 } : { since, p50_ms: ms(histogram.percentile(50)), p99_ms: ms(histogram.percentile(99)), max_ms: ms(histogram.max) };
  if (reset) {
    histogram.reset();
    since = Date.now();
  }
  return out;
}
