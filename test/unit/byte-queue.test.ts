// ByteQueue: bytes pushed in pieces come out in order in the sizes asked, as a view of the piece
// that holds them or a copy of those bytes alone, whatever the pieces' sizes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { ByteQueue } from '../../core/byte-queue.js';

test('takes of every size over pieces of every size give the bytes back in order', () => {
  const data = randomBytes(5000);
  for (const piece of [1, 3, 64, 999, 5000]) {
    for (const want of [1, 5, 17, 1000, 5000]) {
      const q = new ByteQueue();
      for (let i = 0; i < data.length; i += piece) q.push(data.subarray(i, i + piece));
      const out: Buffer[] = [];
      while (q.size) out.push(q.take(Math.min(want, q.size)));
      assert.ok(Buffer.concat(out).equals(data), `pieces of ${piece}, takes of ${want}`);
    }
  }
});

test('a take inside one piece is a view of it; one across pieces leaves the bytes after it as they came', () => {
  // Buffer.from of a short string may share Node's pool with any small copy; these do not.
  const a = Buffer.alloc(6);
  a.write('abcdef');
  const b = Buffer.alloc(4);
  b.write('ghij');
  const q = new ByteQueue();
  q.push(a);
  q.push(b);
  const view = q.take(2);
  a[0] = 0x41;
  assert.is(view.toString(), 'Ab', 'a view of the first piece');
  const across = q.take(6);
  assert.is(across.toString(), 'cdefgh');
  assert.is(q.size, 2);
  const rest = q.peek(2);
  b[3] = 0x4a;
  assert.is(rest.toString(), 'iJ', 'the rest is still a view of the last piece, not copied');
  assert.is(q.size, 2, 'a peek leaves the bytes held');
  assert.throws(() => q.take(3), /3 bytes asked of 2 held/);
  q.clear();
  assert.is(q.size, 0);
  assert.is(q.take(0).length, 0, 'nothing held, nothing asked');
  q.push(Buffer.alloc(0));
  assert.is(q.size, 0, 'an empty piece is nothing');
});

test('takeUpTo gives what the first piece holds, up to the limit, as a view', () => {
  const a = Buffer.alloc(5);
  a.write('abcde');
  const b = Buffer.alloc(3);
  b.write('fgh');
  const q = new ByteQueue();
  assert.is(q.takeUpTo(4).length, 0, 'nothing held');
  q.push(a);
  q.push(b);
  const first = q.takeUpTo(3);
  assert.is(first.toString(), 'abc');
  a[1] = 0x42;
  assert.is(first.toString(), 'aBc', 'a view, not a copy');
  assert.is(q.takeUpTo(100).toString(), 'de', 'never past its piece');
  assert.is(q.size, 3);
  assert.is(q.takeUpTo(0).length, 0);
  assert.is(q.takeUpTo(3).toString(), 'fgh');
  assert.is(q.size, 0);
});

test.run();
