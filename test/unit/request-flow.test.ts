// core/rpc/request-flow.ts: a connection's lines start only under its limits; past them reading
// pauses, and it resumes once the client drains or requests finish. Nothing is dropped.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RequestFlow, type FlowLimits } from '../../core/rpc/request-flow.js';

const LIM: FlowLimits = { maxPendingBytes: 1000, maxInFlight: 3, maxInFlightBytes: 100, perTurn: 2 };

function rig(lim = LIM) {
  const io = { pending: 0, paused: false, started: [] as string[], finish: new Map<string, () => void>() };
  const flow = new RequestFlow(
    {
      pendingBytes: () => io.pending,
      pause: () => (io.paused = true),
      resume: () => (io.paused = false),
      run: (line) => {
        io.started.push(line);
        return new Promise<void>((r) => io.finish.set(line, r));
      },
    },
    lim,
  );
  return { io, flow };
}
const turn = () => new Promise((r) => setImmediate(r));

test('past the in-flight count reading pauses; a finished request lets the next start', async () => {
  const { io, flow } = rig({ ...LIM, perTurn: 10 });
  for (const l of ['a', 'b', 'c', 'd']) flow.push(l);
  assert.equal(io.started, ['a', 'b', 'c']);
  assert.ok(io.paused);
  io.finish.get('a')!();
  await turn();
  assert.equal(io.started, ['a', 'b', 'c', 'd']);
  io.finish.get('b')!();
  await turn();
  assert.is(io.paused, false, 'reading resumes once nothing waits and there is room');
});

test('unread replies past the limit pause reading until the client drains', async () => {
  const { io, flow } = rig({ ...LIM, perTurn: 10 });
  io.pending = 5000;
  flow.push('a');
  assert.equal(io.started, [], 'nothing starts while the client has not read');
  assert.ok(io.paused);
  io.pending = 0;
  flow.drained();
  assert.equal(io.started, ['a']);
});

test('one request always runs, whatever its size; more wait under the byte limit', () => {
  const { io, flow } = rig({ ...LIM, perTurn: 10 });
  const big = 'x'.repeat(500);
  flow.push(big);
  flow.push('small');
  assert.equal(io.started, [big]);
  assert.is(flow.state.waiting, 1);
});

test('at most perTurn lines start in one go; the rest start the next turn, in order', async () => {
  const { io, flow } = rig({ ...LIM, maxInFlight: 100, maxInFlightBytes: 10_000 });
  io.pending = 5000;
  for (const l of ['a', 'b', 'c', 'd', 'e']) flow.push(l);
  assert.equal(io.started, []);
  io.pending = 0;
  flow.drained();
  assert.equal(io.started, ['a', 'b'], 'perTurn (2) start at once');
  await turn();
  assert.equal(io.started, ['a', 'b', 'c', 'd']);
  await turn();
  assert.equal(io.started, ['a', 'b', 'c', 'd', 'e']);
});

test('a closed connection starts nothing more', () => {
  const { io, flow } = rig({ ...LIM, perTurn: 10 });
  for (const l of ['a', 'b', 'c', 'd']) flow.push(l);
  flow.close();
  io.finish.get('a')!();
  flow.push('e');
  assert.equal(io.started, ['a', 'b', 'c']);
});

test.run();
