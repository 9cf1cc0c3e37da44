// The daemon's heap trimmer (core/daemon/heap-trim.ts): after a full collection frees a burst of
// Buffers, the pages glibc would keep go back to the kernel, without anyone calling trim().
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startHeapTrimmer } from '../../core/daemon/heap-trim.js';
import { fdAddon } from '../../core/pty/fd-addon.js';
import { waitFor } from '../helpers/wait.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

test('a full collection after a burst of freed Buffers gives their pages back', async () => {
  assert.ok(fdAddon().trimHeap, 'the native addon has trimHeap (native/fd built)');
  const trimmer = startHeapTrimmer({ minIntervalMs: 0 });
  try {
    // 64 MB in 48 kB Buffers (under glibc's mmap threshold, so they live in its heap), one small
    // allocation kept after each so that free() alone cannot return them from the heap's top.
    let burst: Buffer[] = [];
    const pins: Buffer[] = [];
    for (let i = 0; i < 1365; i++) {
      burst.push(Buffer.alloc(48 * 1024, 1));
      pins.push(Buffer.alloc(8 * 1024, 2));
    }
    gc();
    const held = process.memoryUsage().rss;
    burst = [];
    gc();
    let now = held;
    await waitFor(() => (now = process.memoryUsage().rss) < held - 40 * 1024 * 1024, { timeout: 20_000, interval: 50, what: 'RSS down by 40 MB of the 64 MB freed' }).catch(() => undefined);
    assert.ok(now < held - 40 * 1024 * 1024, `RSS ${Math.round(held / 1024)} kB with the burst, ${Math.round(now / 1024)} kB after it was collected`);
    assert.is(pins.length, 1365);
  } finally {
    trimmer.dispose();
  }
});

test('trim() runs at most once per interval', () => {
  let t = 1_000_000;
  const trimmer = startHeapTrimmer({ minIntervalMs: 5_000, now: () => t });
  try {
    trimmer.trim();
    assert.is(trimmer.trim(), false, 'a second trim inside the interval does nothing');
    t += 5_000;
    // past the interval it runs again; whether pages went back depends on the heap, so only that it ran without throwing
    assert.type(trimmer.trim(), 'boolean');
  } finally {
    trimmer.dispose();
  }
});

test.run();
