// The delivery queue's 32 MiB a pane (spec: Queued messages). Typed text alone cannot reach it: a
// pane holds at most `[agents.queue] max` messages, which the config keeps at 64 or fewer, of at
// most 16 KiB each, so 1 MiB. (Messages in parts, up to 8 MiB each, reach it: reply-parts.test.ts.)
// Here it is tested on the queue itself with typed text, given a count only a hand-built config
// can hold. (The 128 MiB in all is reachable and is tested end to
// end in test/e2e/queue-limits.test.ts.)
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Bus } from '../../core/bus.js';
import { TuiosError } from '../../core/errors.js';
import { parseConfig } from '../../core/config/config.js';
import { DeliveryQueue } from '../../core/delivery/queue.js';
import { QUEUE_MESSAGE_MAX_BYTES as MESSAGE_MAX_BYTES, QUEUE_PANE_TOTAL_BYTES as PANE_TOTAL_BYTES, QUEUE_ALL_TOTAL_BYTES as ALL_TOTAL_BYTES } from '../../core/limits.js';

const log = { debug() {}, info() {}, warn() {}, error() {} };

/** The parts of the daemon's services the queue reads while it only takes messages. */
function queueWith(max: number) {
  const windows = new Map<string, unknown>();
  const svc = {
    bus: new Bus(log as never),
    log,
    config: { current: { agents: { queue: { max }, mail: { wake: false } } } },
    model: { windows, sessions: new Map() },
    // On a prompt, with no harness the queue knows: it holds everything and types nothing.
    agents: { stateOf: () => 'needs_input', harnessOf: () => null, recordOf: () => null },
    manifests: { byId: new Map() },
    pastes: { write: () => '/nowhere' },
  };
  const pane = (id: string) => {
    const w = { id, name: id, sessionId: 's1', shortId: id, lastOutputAt: 0, closed: false };
    windows.set(id, w);
    return w as never;
  };
  return { q: new DeliveryQueue(svc as never), pane };
}

const text = (i: number, bytes = MESSAGE_MAX_BYTES) => {
  const head = `m${i}:`;
  return head + 'x'.repeat(bytes - head.length);
};

function refused(f: () => unknown): TuiosError {
  try {
    f();
  } catch (e) {
    if (e instanceof TuiosError) return e;
    throw e;
  }
  throw new Error('it was not refused');
}

test('the pane total cannot be reached through the config: 64 messages of 16 KiB is 1 MiB', () => {
  assert.is(MESSAGE_MAX_BYTES, 16 * 1024);
  assert.is(PANE_TOTAL_BYTES, 32 * 1024 * 1024);
  assert.is(ALL_TOTAL_BYTES, 128 * 1024 * 1024);
  assert.is(parseConfig('[agents.queue]\nmax = 64\n').config?.agents.queue.max, 64);
  assert.is(parseConfig('[agents.queue]\nmax = 65\n').config, null, 'a max above 64 is refused');
  assert.ok(64 * MESSAGE_MAX_BYTES < PANE_TOTAL_BYTES);
});

test('past 32 MiB in one pane the next message is queue_full, and the pane keeps what it held', () => {
  const per = PANE_TOTAL_BYTES / MESSAGE_MAX_BYTES; // 2048
  const { q, pane } = queueWith(per + 10);
  const a = pane('a');
  const b = pane('b');
  try {
    // 32 MiB less one byte, then one byte: exactly 32 MiB is still held.
    for (let i = 0; i < per - 1; i++) q.add(a, text(i), 'shell', null);
    q.add(a, text(per - 1, MESSAGE_MAX_BYTES - 1), 'shell', null);
    q.add(a, 'y', 'shell', null);
    const e = refused(() => q.add(a, 'z', 'shell', null));
    assert.is(e.code, 'queue_full');
    assert.is(e.message, 'The delivery queues are full.');
    const e2 = refused(() => q.add(a, text(per), 'human', null));
    assert.is(e2.code, 'queue_full');
    assert.is(e2.message, 'The delivery queues are full.');

    const held = q.list(a);
    assert.is(held.length, per + 1);
    assert.is(q.count(a), per + 1);
    held.forEach((m, i) => {
      const want = i < per - 1 ? text(i) : i === per - 1 ? text(per - 1, MESSAGE_MAX_BYTES - 1) : 'y';
      if (m.text !== want) assert.unreachable(`message ${i} changed`);
      assert.is(m.status, 'waiting');
    });
    assert.is(held.reduce((n, m) => n + Buffer.byteLength(m.text), 0), PANE_TOTAL_BYTES);

    // It is the pane's total, not the total of all: another pane still takes a full message.
    q.add(b, text(0), 'shell', null);
    assert.is(q.count(b), 1);
    // And it is counted as it is now: drop one and a full-sized message fits the pane again.
    q.cancel(held[0]!.id, () => true);
    q.add(a, text(per), 'shell', null);
    assert.is(refused(() => q.add(a, 'z', 'shell', null)).message, 'The delivery queues are full.');
    assert.is(q.count(a), per + 1);
  } finally {
    q.dispose();
  }
});

test.run();
