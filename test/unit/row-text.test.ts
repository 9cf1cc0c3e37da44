// The row-text cache must never serve a row the program has since changed: random programs of
// every kind of screen change (prints, wraps, erases, insert/delete lines and chars, scroll
// regions, the alternate screen, a reset, resizes) and after each one every cached row is
// compared with the row translated afresh.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Emulator } from '../../core/screen/emulator.js';

const OPS: Array<(r: () => number) => string> = [
  (r) => `word${Math.floor(r() * 1000)} `,
  (r) => 'x'.repeat(Math.floor(r() * 90)),
  () => '\r\n',
  () => '\n',
  () => '漢字のテスト',
  (r) => `\x1b[${1 + Math.floor(r() * 12)};${1 + Math.floor(r() * 40)}H`,
  (r) => `\x1b[${Math.floor(r() * 3)}J`,
  (r) => `\x1b[${Math.floor(r() * 3)}K`,
  (r) => `\x1b[${1 + Math.floor(r() * 3)}L`,
  (r) => `\x1b[${1 + Math.floor(r() * 3)}M`,
  (r) => `\x1b[${1 + Math.floor(r() * 5)}P`,
  (r) => `\x1b[${1 + Math.floor(r() * 5)}@`,
  (r) => `\x1b[${1 + Math.floor(r() * 5)}X`,
  (r) => `\x1b[${1 + Math.floor(r() * 4)};${6 + Math.floor(r() * 6)}r`,
  () => '\x1b[r',
  (r) => `\x1b[${1 + Math.floor(r() * 3)}S`,
  (r) => `\x1b[${1 + Math.floor(r() * 3)}T`,
  () => '\x1bM',
  () => '\x1bD',
  () => '\x1b[?1049h',
  () => '\x1b[?1049l',
  () => '\x1b[31;1mred\x1b[0m',
  () => '\x1b[4h inserted \x1b[4l',
  () => '\x1b#8',
  () => '\x1bc',
  () => '\x1b[3J',
];

function fresh(e: Emulator): string[] {
  const b = (e as unknown as { term: { buffer: { active: { baseY: number; getLine(i: number): { translateToString(t: boolean): string } | undefined } } } }).term.buffer.active;
  const out: string[] = [];
  for (let y = 0; y < e.rows; y++) out.push(b.getLine(b.baseY + y)?.translateToString(true) ?? '');
  return out;
}

const write = (e: Emulator, s: string) => new Promise<void>((res) => e.write(s, res));

test('cached screen rows always equal the rows translated afresh', async () => {
  let seed = 7;
  const r = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const e = new Emulator({ cols: 40, rows: 12, scrollback: 1000 });
  for (let step = 0; step < 6000; step++) {
    if (r() < 0.01) e.resize(20 + Math.floor(r() * 40), 6 + Math.floor(r() * 12));
    else {
      let chunk = '';
      const n = 1 + Math.floor(r() * 4);
      for (let i = 0; i < n; i++) chunk += OPS[Math.floor(r() * OPS.length)]!(r);
      await write(e, chunk);
    }
    // Read only sometimes, so rows stay cached across several changes.
    if (r() < 0.3) assert.equal(e.screenLines(), fresh(e), `step ${step}`);
  }
});

test('a row read twice with no output between is served from the cache and stays right', async () => {
  const e = new Emulator({ cols: 20, rows: 4, scrollback: 100 });
  await write(e, 'one\r\ntwo');
  assert.equal(e.screenLines(), ['one', 'two', '', '']);
  await write(e, '\x1b[1;1Hzzz');
  assert.equal(e.screenLines(), ['zzz', 'two', '', '']);
  await write(e, '\r\n\r\n\r\n\r\nfive');
  assert.equal(e.screenLines(), fresh(e));
});

test.run();
