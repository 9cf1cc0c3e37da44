// What tuios_events resumes from: the bus keeps the last EVENTS_REPLAY_KEPT events (core/bus.ts),
// answers those after a sequence, and says when some after it are no longer kept.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Bus } from '../../core/bus.js';
import { EVENTS_REPLAY_KEPT } from '../../core/limits.js';

test('the events after a sequence, in order; none after the last one', () => {
  const bus = new Bus();
  for (let i = 0; i < 5; i++) bus.publish('window-created' as never, { window_id: `w${i}`, session_id: 's', name: `n${i}` } as never);
  const r = bus.since(2);
  assert.equal(r.events.map((e) => e.seq), [3, 4, 5]);
  assert.ok(r.complete);
  assert.equal(bus.since(5), { events: [], complete: true });
  assert.equal(bus.since(0).events.length, 5);
  assert.ok(bus.since(0).complete);
});

test('only EVENTS_REPLAY_KEPT are kept; a resume from before them says some are lost', () => {
  const bus = new Bus();
  const n = EVENTS_REPLAY_KEPT + 25;
  for (let i = 0; i < n; i++) bus.publish('window-created' as never, { window_id: `w${i}`, session_id: 's', name: 'x' } as never);
  const all = bus.since(0);
  assert.is(all.events.length, EVENTS_REPLAY_KEPT);
  assert.is(all.events[0]!.seq, n - EVENTS_REPLAY_KEPT + 1);
  assert.not.ok(all.complete);
  // From just before the oldest kept: nothing is missing.
  assert.ok(bus.since(n - EVENTS_REPLAY_KEPT).complete);
  assert.not.ok(bus.since(n - EVENTS_REPLAY_KEPT - 1).complete);
});

test.run();
