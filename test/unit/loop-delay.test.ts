// The daemon's event loop figures (core/daemon/loop-delay.ts): a loop held busy shows as its
// delay, a reset starts the figures anew, and nothing is read before it starts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readLoopDelay, startLoopDelay } from '../../core/daemon/loop-delay.js';
import { waitFor } from '../helpers/wait.js';

const hold = (ms: number) => {
  const t = Date.now();
  while (Date.now() - t < ms);
};
const turn = () => new Promise((r) => setTimeout(r, 30));

test('not started: null', () => {
  assert.is(readLoopDelay(false), null);
});

test('a loop held 150 ms reads as a delay of about that; a reset forgets it', async () => {
  const run = startLoopDelay();
  try {
    await turn();
    hold(150);
    // The timer that measures it runs once the loop is free again.
    await waitFor(() => (readLoopDelay(false)?.max_ms ?? 0) >= 100, { timeout: 10_000, interval: 20, what: 'the held loop counted' });
    const before = readLoopDelay(true)!;
    assert.ok(before.max_ms >= 100 && before.max_ms < 5_000, `max ${before.max_ms}`);
    assert.ok(before.p50_ms <= before.p99_ms && before.p99_ms <= before.max_ms);
    await turn();
    await turn();
    const after = readLoopDelay(false)!;
    assert.ok(after.max_ms < before.max_ms, `after the reset max ${after.max_ms}, before ${before.max_ms}`);
    assert.ok(after.since >= before.since);
  } finally {
    run.dispose();
  }
  assert.is(readLoopDelay(false), null);
});

test.run();
