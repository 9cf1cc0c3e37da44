// The fast print path must leave exactly the buffer xterm's own print leaves: random programs of
// text of every kind (ASCII runs short and past the margin, wide, combining, emoji, a G0 charset,
// insert mode, OSC 8 links, extended underlines, autowrap off, cursor moves onto wide
// characters, resizes, the alternate screen) go to one terminal with it and one without, and
// after each step every cell, wrap flag, combined string, extended attribute and the cursor agree.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import xtermHeadless from '@xterm/headless';
import type { Terminal as XTerminal } from '@xterm/headless';
import { installFastPrint } from '../../core/screen/fast-print.js';
import { sgrCorpusBlock } from '../bench/helpers.js';

const { Terminal } = xtermHeadless;

interface Line {
  _data: Uint32Array;
  _combined: Record<number, string>;
  _extendedAttrs: Record<number, { _ext: number; _urlId: number } | undefined>;
  length: number;
  isWrapped: boolean;
}
interface Core {
  _writeBuffer: { writeSync(d: string | Uint8Array): void };
  buffers: { normal: Buf; alt: Buf };
}
interface Buf {
  x: number;
  y: number;
  ybase: number;
  lines: { length: number; get(i: number): Line | undefined };
}

const core = (t: XTerminal) => (t as unknown as { _core: Core })._core;

function make(fast: boolean, cols: number, rows: number): XTerminal {
  const t = new Terminal({ cols, rows, scrollback: 50, allowProposedApi: true });
  if (fast) assert.ok(installFastPrint(t), 'the fast path installs on this xterm');
  return t;
}

function same(a: XTerminal, b: XTerminal, what: string): void {
  for (const which of ['normal', 'alt'] as const) {
    const x = core(a).buffers[which];
    const y = core(b).buffers[which];
    assert.is(x.lines.length, y.lines.length, `${what}: ${which} line count`);
    assert.is(x.x, y.x, `${what}: ${which} cursor x`);
    assert.is(x.y, y.y, `${what}: ${which} cursor y`);
    assert.is(x.ybase, y.ybase, `${what}: ${which} ybase`);
    for (let i = 0; i < x.lines.length; i++) {
      const p = x.lines.get(i)!;
      const q = y.lines.get(i)!;
      assert.is(p.length, q.length, `${what}: ${which} line ${i} length`);
      assert.is(p.isWrapped, q.isWrapped, `${what}: ${which} line ${i} wrapped`);
      for (let c = 0; c < p.length * 3; c++) {
        if (p._data[c] !== q._data[c]) assert.unreachable(`${what}: ${which} line ${i} cell ${Math.floor(c / 3)} word ${c % 3}: ${p._data[c]} vs ${q._data[c]}`);
      }
      for (let c = 0; c < p.length; c++) {
        if (p._data[c * 3 + 2]! & 0x10000000) {
          assert.is(p._extendedAttrs[c]?._ext, q._extendedAttrs[c]?._ext, `${what}: ${which} line ${i} cell ${c} extended`);
          assert.is(p._extendedAttrs[c]?._urlId, q._extendedAttrs[c]?._urlId, `${what}: ${which} line ${i} cell ${c} link`);
        }
        if (p._data[c * 3]! & 0x200000) assert.is(p._combined[c], q._combined[c], `${what}: ${which} line ${i} cell ${c} combined`);
      }
    }
  }
}

const OPS: Array<(r: () => number) => string> = [
  (r) => `word${Math.floor(r() * 1000)} `,
  (r) => 'x'.repeat(Math.floor(r() * 120)),
  (r) => 'abcdefghij'.repeat(1 + Math.floor(r() * 9)).slice(0, 30 + Math.floor(r() * 60)),
  () => '\r\n',
  () => '\n',
  () => '\r',
  () => '\t',
  () => '\b\b',
  () => '漢字のテスト',
  () => 'a漢b',
  () => 'e\u0301 cafe\u0301',
  () => '👍🏽 ok',
  () => 'é à ü ß',
  () => '\x1b(0lqqk\x1b(B',
  () => '\x1b(0',
  () => '\x1b(B',
  () => '\x1b[4h ins \x1b[4l',
  () => '\x1b]8;;https://example.com\x07link\x1b]8;;\x07',
  () => '\x1b[4:3m\x1b[58;5;200mcurly\x1b[0m',
  () => '\x1b[4:3mstill-curly ',
  () => '\x1b[0m',
  () => '\x1b[?7l',
  () => '\x1b[?7h',
  (r) => `\x1b[${1 + Math.floor(r() * 10)};${1 + Math.floor(r() * 40)}H`,
  (r) => `\x1b[${1 + Math.floor(r() * 5)}D`,
  (r) => `\x1b[${1 + Math.floor(r() * 5)}C`,
  (r) => `\x1b[31;1mred\x1b[0m \x1b[38;2;${Math.floor(r() * 255)};10;20mrgb\x1b[0m`,
  () => '\x1b[44mblue-bg\x1b[K\x1b[0m',
  (r) => `\x1b[${1 + Math.floor(r() * 3)};${6 + Math.floor(r() * 6)}r`,
  () => '\x1b[r',
  () => '\x1b[?1049h',
  () => '\x1b[?1049l',
  () => '\x1b[2J',
  () => '\x1bc',
];

function rng(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
}

test('random programs leave the same buffer with and without the fast path', () => {
  for (let seed = 1; seed <= 40; seed++) {
    const r = rng(seed);
    const cols = 20 + Math.floor(r() * 70);
    const rows = 5 + Math.floor(r() * 20);
    const a = make(false, cols, rows);
    const b = make(true, cols, rows);
    for (let step = 0; step < 300; step++) {
      let s = '';
      for (let k = 0; k < 1 + Math.floor(r() * 6); k++) s += OPS[Math.floor(r() * OPS.length)]!(r);
      if (r() < 0.02) {
        const c2 = 20 + Math.floor(r() * 70);
        const r2 = 5 + Math.floor(r() * 20);
        a.resize(c2, r2);
        b.resize(c2, r2);
      }
      core(a)._writeBuffer.writeSync(s);
      core(b)._writeBuffer.writeSync(s);
      same(a, b, `seed ${seed} step ${step} after ${JSON.stringify(s)}`);
    }
    a.dispose();
    b.dispose();
  }
});

test('the benchmark corpus leaves the same buffer, fed as bytes in odd-sized chunks', () => {
  const data = Buffer.from(sgrCorpusBlock(), 'latin1').subarray(0, 1 << 20);
  const a = make(false, 80, 24);
  const b = make(true, 80, 24);
  const r = rng(7);
  for (let i = 0; i < data.length; ) {
    const n = 1 + Math.floor(r() * 8192);
    const chunk = data.subarray(i, i + n);
    core(a)._writeBuffer.writeSync(chunk);
    core(b)._writeBuffer.writeSync(chunk);
    i += n;
    if (r() < 0.05) same(a, b, `corpus at ${i}`);
  }
  same(a, b, 'corpus end');
});

test.run();
