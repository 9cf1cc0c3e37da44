// core/rpc/framing.ts PartialBudget: half lines across connections share one bound; a splitter
// past it drops what it held and says so once; a finished line or a closed connection gives back.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LineSplitter, PartialBudget } from '../../core/rpc/framing.js';

test('half lines share the budget; the one that does not fit is told, the others go on', () => {
  const pool = new PartialBudget(100);
  let exhausted = 0;
  const lines: string[] = [];
  const mk = () => new LineSplitter(1000, (l) => lines.push(l), () => assert.unreachable(), { pool, onExhausted: () => exhausted++ });
  const a = mk();
  const b = mk();
  a.push(Buffer.from('x'.repeat(60)));
  assert.is(pool.bytes, 60);
  b.push(Buffer.from('y'.repeat(60)));
  assert.is(exhausted, 1, 'b does not fit');
  assert.is(pool.bytes, 60, 'b holds nothing');
  b.push(Buffer.from('more\n'));
  assert.equal(lines, [], 'b reads nothing after');
  a.push(Buffer.from('x\n'));
  assert.equal(lines, ['x'.repeat(61)]);
  assert.is(pool.bytes, 0, 'a finished line gives back');
});

test('a closed connection gives back what its half line held', () => {
  const pool = new PartialBudget(100);
  const s = new LineSplitter(1000, () => {}, () => {}, { pool, onExhausted: () => assert.unreachable() });
  s.push(Buffer.from('z'.repeat(80)));
  assert.is(pool.bytes, 80);
  s.dispose();
  assert.is(pool.bytes, 0);
});

test.run();
