// The event bus delivers in seq order to every listener, also when a listener publishes while an
// event is being delivered (the Inbox opening an item on an agent-state), and one listener that
// throws stops neither the others nor the publisher.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Bus, type BusEvent } from '../../core/bus.js';

declare module '../../core/bus.js' {
  interface EventMap {
    'test-outer': { n: number };
    'test-inner': { n: number };
  }
}

test('an event published by a listener reaches every listener after the one being delivered', () => {
  const bus = new Bus();
  const first: Array<[string, number]> = [];
  const last: Array<[string, number]> = [];
  bus.subscribe((ev) => first.push([ev.type, ev.seq]));
  // Publishes in turn, the way the Inbox answers an agent-state with an attention event.
  bus.on('test-outer', (ev) => bus.publish('test-inner', { n: ev.n }));
  bus.subscribe((ev) => last.push([ev.type, ev.seq]));
  const out = bus.publish('test-outer', { n: 1 });
  assert.is(out.seq, 1);
  const want: Array<[string, number]> = [
    ['test-outer', 1],
    ['test-inner', 2],
  ];
  assert.equal(first, want);
  assert.equal(last, want, 'the listener after the publishing one sees seq 1 before seq 2');
});

test('every event is delivered before the outermost publish returns, in seq order, at any depth', () => {
  const bus = new Bus();
  const seen: number[] = [];
  bus.on('test-outer', (ev) => {
    if (ev.n < 4) bus.publish('test-outer', { n: ev.n + 1 });
    bus.publish('test-inner', { n: ev.n });
  });
  bus.subscribe((ev: BusEvent) => seen.push(ev.seq));
  bus.publish('test-outer', { n: 1 });
  assert.is(seen.length, 8);
  assert.equal(seen, [...seen].sort((a, b) => a - b));
  assert.is(bus.lastSeq, 8);
});

test('a listener that throws stops neither the others nor the publisher', () => {
  const bus = new Bus();
  const seen: string[] = [];
  bus.subscribe(() => {
    throw new Error('broken subscriber');
  });
  bus.on('test-outer', () => bus.publish('test-inner', { n: 0 }));
  bus.subscribe((ev) => seen.push(ev.type));
  bus.publish('test-outer', { n: 0 });
  bus.publish('test-outer', { n: 0 });
  assert.equal(seen, ['test-outer', 'test-inner', 'test-outer', 'test-inner']);
});

test.run();
