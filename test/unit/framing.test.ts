import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LineSplitter } from '../../core/rpc/framing.js';

test('lines split across chunks are joined, CRLF trimmed, empty lines skipped', () => {
  const got: string[] = [];
  const s = new LineSplitter(100, (l) => got.push(l), () => assert.unreachable());
  s.push(Buffer.from('ab'));
  s.push(Buffer.from('c\r\n\nde'));
  s.push(Buffer.from('f\n'));
  assert.equal(got, ['abc', 'def']);
});

test('a multibyte character split across chunks survives', () => {
  const got: string[] = [];
  const s = new LineSplitter(100, (l) => got.push(l), () => {});
  const b = Buffer.from('é\n');
  s.push(b.subarray(0, 1));
  s.push(b.subarray(1));
  assert.equal(got, ['é']);
});

test('a line over the cap overflows once and nothing more is read', () => {
  const got: string[] = [];
  let over = 0;
  const s = new LineSplitter(8, (l) => got.push(l), () => over++);
  s.push(Buffer.from('ok\n123456789'));
  s.push(Buffer.from('\nafter\n'));
  assert.equal(got, ['ok']);
  assert.is(over, 1);
});

test.run();
