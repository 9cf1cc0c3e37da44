// The delivery queue's limit across every pane (spec: Queued messages, "the queues hold at most
// 32 MiB a pane and 128 MiB in all"), reached the way a caller reaches it: through queue-prompt,
// on a real daemon. With `[agents.queue] max = 64` (the most the config takes) and 16 KiB a
// message, a pane holds 1 MiB, so 128 full panes hold exactly 128 MiB and a 129th pane's first
// byte is past it. The panes run `sleep`, which no rule reads as an agent, so nothing queued is
// ever typed and the queues only grow. (The 32 MiB a pane cannot be reached this way: 64 x 16 KiB
// is 1 MiB. test/unit/queue-totals.test.ts holds that one.)
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TestDaemon } from '../helpers/daemon.js';
import type { RpcClient } from '../../core/rpc/client.js';
import { refusal } from '../helpers/refusal.js';
import type { Queued } from '../../core/verbs/typing.js';

const MSG = 16 * 1024;
const PER_PANE = 64;
const FULL_PANES = 128;
const ALL = 128 * 1024 * 1024;

let d: TestDaemon;
let c: RpcClient;

/** A message of exactly `bytes` bytes that names its pane and its place, so a lost or changed one shows. */
const text = (pane: number, i: number, bytes = MSG) => {
  const head = `p${pane}m${i}:`;
  return head + 'x'.repeat(bytes - head.length);
};

test.before(async () => {
  d = await TestDaemon.start({ config: '[agents.queue]\nmax = 64\n' });
  c = await d.client();
});

test.after(async () => {
  c?.close();
  await d?.stop();
});

test('past 128 MiB queued in all, the next message is refused with queue_full and nothing queued is lost', async () => {
  await d.ok(['new-session', 'full', 'sleep', '3600']);
  const panes: string[] = [];
  for (let p = 0; p <= FULL_PANES; p++) panes.push((await c.call<{ id: string }>('new-window', { session: 'full', name: `p${p}`, argv: ['sleep', '3600'], cols: 80, rows: 24 })).id);

  // 128 panes of 64 messages; the very last is a byte short, so the queues hold 128 MiB - 1.
  for (let p = 0; p < FULL_PANES; p++) {
    await Promise.all(
      Array.from({ length: PER_PANE }, (_, i) => {
        const last = p === FULL_PANES - 1 && i === PER_PANE - 1;
        return c.call('queue-prompt', { window: panes[p], text: text(p, i, last ? MSG - 1 : MSG) });
      }),
    );
  }
  const spare = panes[FULL_PANES]!;
  // One byte more is exactly 128 MiB: still held.
  await c.call('queue-prompt', { window: spare, text: 'y' });
  // One byte past it, into a pane holding one message and 1 byte: refused by the total alone.
  const past = await refusal(c.call('queue-prompt', { window: spare, text: 'z' }));
  assert.is(past.code, 'queue_full');
  assert.is(past.message, 'The delivery queues are full.');
  // A full-sized message into the pane is refused the same way.
  const pastBig = await refusal(c.call('queue-prompt', { window: spare, text: text(FULL_PANES, 1) }));
  assert.is(pastBig.code, 'queue_full');
  assert.is(pastBig.message, 'The delivery queues are full.');

  // Nothing queued was lost or changed, and the refused ones were not kept.
  let total = 0;
  for (let p = 0; p < FULL_PANES; p++) {
    const q = (await c.call<{ queued: Queued[] }>('list-queued', { window: panes[p] })).queued;
    assert.is(q.length, PER_PANE, `pane ${p} keeps its ${PER_PANE}`);
    q.forEach((m, i) => {
      const last = p === FULL_PANES - 1 && i === PER_PANE - 1;
      if (m.text !== text(p, i, last ? MSG - 1 : MSG)) assert.unreachable(`pane ${p} message ${i} changed: ${m.text.slice(0, 20)}`);
      assert.is(m.status, 'waiting');
      total += Buffer.byteLength(m.text);
    });
  }
  const spareQ = (await c.call<{ queued: Queued[] }>('list-queued', { window: spare })).queued;
  assert.equal(spareQ.map((m) => m.text), ['y']);
  total += 1;
  assert.is(total, ALL);

  // The total is counted as it is now: drop one message and the full-sized one refused above fits.
  const drop = (await c.call<{ queued: Queued[] }>('list-queued', { window: panes[5] })).queued[0]!;
  await c.call('cancel-queued', { id: drop.id });
  await c.call('queue-prompt', { window: spare, text: text(FULL_PANES, 1) });
  const again = await refusal(c.call('queue-prompt', { window: spare, text: 'z' }));
  assert.is(again.code, 'queue_full');
  assert.is(again.message, 'The delivery queues are full.');
  const rows = (await c.call<{ queued: Queued[] }>('list-queued', { window: spare })).queued.map((m) => m.text);
  assert.equal(rows, ['y', text(FULL_PANES, 1)]);
});

test.run();
