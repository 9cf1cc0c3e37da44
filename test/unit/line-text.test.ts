// A line's text read straight from its cells must be xterm's translateToString(true) exactly:
// random screens of every kind of cell (ASCII, Latin-1, C1-range codepoints, wide, combining,
// emoji, erased cells with colour, cells after a cursor jump) and every line compared.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import xtermHeadless from '@xterm/headless';
import { lineString } from '../../core/screen/line-text.js';
import { Emulator } from '../../core/screen/emulator.js';
import { isCoreLine } from '../../core/screen/scrollback.js';

const { Terminal } = xtermHeadless;

const PIECES = ['word ', 'x', ' ', 'é', 'ÿ', '\u00a0', '\u0085', '漢字', 'e\u0301', '👍🏽', '\x1b[44m \x1b[0m', '\x1b[K', '\x1b[5G', '\x1b[3C', '\x1b[2X', '\r\n', '\x1b[1@', '\x1b[2P', '\t'];

function rng(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
}

test('every line reads as translateToString(true)', () => {
  for (let seed = 1; seed <= 30; seed++) {
    const r = rng(seed);
    const cols = 10 + Math.floor(r() * 100);
    const t = new Terminal({ cols, rows: 12, scrollback: 100, allowProposedApi: true });
    let s = '';
    for (let k = 0; k < 400; k++) s += PIECES[Math.floor(r() * PIECES.length)];
    (t as unknown as { _core: { _writeBuffer: { writeSync(d: string): void } } })._core._writeBuffer.writeSync(s);
    const lines = (t as unknown as { _core: { buffer: { lines: { length: number; get(i: number): unknown } } } })._core.buffer.lines;
    for (let i = 0; i < lines.length; i++) {
      const line = lines.get(i);
      assert.ok(isCoreLine(line), 'an xterm line');
      assert.is(lineString(line), line.translateToString(true), `seed ${seed} line ${i}`);
    }
    t.dispose();
  }
});

test('an emulator reads its scrollback and screen the same as through xterm', () => {
  const e = new Emulator({ cols: 40, rows: 10, scrollback: 1000 });
  const r = rng(3);
  let s = '';
  for (let k = 0; k < 20000; k++) s += PIECES[Math.floor(r() * PIECES.length)];
  e.write(s);
  const b = e.term.buffer.active;
  const off = e.bufferLength - b.length;
  for (let i = off; i < e.bufferLength; i++) assert.is(e.lineText(i), b.getLine(i - off)!.translateToString(true), `line ${i}`);
  assert.equal(e.screenLines(), Array.from({ length: 10 }, (_, y) => b.getLine(b.baseY + y)!.translateToString(true)));
  e.dispose();
});

test.run();
