// The compact scrollback behind the Emulator (core/screen/scrollback.ts). The oracle is a plain
// xterm Terminal given the same output and the whole scrollback: every line the Emulator shows,
// as text and as SGR, must be the one xterm alone shows at the same index.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import xtermHeadless from '@xterm/headless';
import type { Terminal as XTerminal } from '@xterm/headless';
import { Emulator } from '../../core/screen/emulator.js';
import { lineToSgr } from '../../core/screen/sgr.js';
import { Scrollback, type CoreLine } from '../../core/screen/scrollback.js';
import { SCROLLBACK_HOT_LINES } from '../../core/limits.js';

const { Terminal } = xtermHeadless;

interface Pair {
  emu: Emulator;
  ref: XTerminal;
  scrollback: number;
}

function pair(cols: number, rows: number, scrollback: number): Pair {
  return {
    emu: new Emulator({ cols, rows, scrollback }),
    ref: new Terminal({ cols, rows, scrollback, allowProposedApi: true, convertEol: false }),
    scrollback,
  };
}

function feed(p: Pair, data: string): Promise<void> {
  p.emu.write(data);
  return new Promise((resolve) => p.ref.write(data, resolve));
}

function resize(p: Pair, cols: number, rows: number): void {
  p.emu.resize(cols, rows);
  p.ref.resize(cols, rows);
}

function refText(p: Pair, i: number): string {
  return p.ref.buffer.active.getLine(i)?.translateToString(true) ?? '';
}

function refSgr(p: Pair, i: number): string {
  const line = p.ref.buffer.active.getLine(i);
  return line ? lineToSgr(line, p.ref.buffer.active.getNullCell()) : '';
}

/** Every index, text and SGR, equal to the oracle's. */
function sameAsXterm(p: Pair, what: string): void {
  const b = p.ref.buffer.active;
  assert.is(p.emu.bufferLength, b.length, `${what}: bufferLength`);
  assert.is(p.emu.viewportTop, b.baseY, `${what}: viewportTop`);
  for (let i = 0; i < b.length; i++) {
    if (p.emu.lineText(i) !== refText(p, i)) assert.is(p.emu.lineText(i), refText(p, i), `${what}: text of line ${i}`);
    if (p.emu.lineSgr(i) !== refSgr(p, i)) assert.is(p.emu.lineSgr(i), refSgr(p, i), `${what}: SGR of line ${i}`);
  }
  assert.equal(p.emu.screenLines(), Array.from({ length: p.ref.rows }, (_, y) => refText(p, b.baseY + y)), `${what}: screen`);
}

/** Checks against the oracle twice: with lines still as xterm's objects, then packed. */
function sameBothWays(p: Pair, what: string): void {
  sameAsXterm(p, `${what} (unpacked)`);
  p.emu.packScrollback();
  sameAsXterm(p, `${what} (packed)`);
}

function numbered(from: number, to: number): string {
  let s = '';
  for (let i = from; i < to; i++) s += `line ${i}\r\n`;
  return s;
}

/** Mixed output: colours of each kind, every flag, extended underlines, links, wide and combining characters, gaps, BCE blanks. */
function rich(lines: number): string {
  const parts = [
    (i: number) => `\x1b[3${i % 8}mfg ${i}\x1b[0m plain \x1b[4${(i + 3) % 8}mbg\x1b[0m`,
    (i: number) => `\x1b[9${i % 8};10${(i + 1) % 8}mbright\x1b[0m \x1b[38;5;${i % 256};48;5;${(i * 7) % 256}m256\x1b[0m`,
    (i: number) => `\x1b[38;2;${i % 256};10;200;48;2;1;${i % 256};3mrgb\x1b[0m`,
    () => `\x1b[1mb\x1b[22;2md\x1b[22;3mi\x1b[23;4mu\x1b[24;5mk\x1b[25;7mr\x1b[27;8mh\x1b[28;9ms\x1b[0m`,
    () => `\x1b[4:3mcurly\x1b[0m \x1b[4:2;58:2::255:0:0mdouble red\x1b[0m \x1b[58;5;33;4munder\x1b[59;24m`,
    (i: number) => `\x1b]8;;https://example.com/${i}\x07link ${i}\x1b]8;;\x07 after`,
    () => `wide 漢字 and emoji 😀 end`,
    () => `e\u0301 combining, n\u0303, flag 🇫🇷, zwj 👩‍💻`,
    () => `latin-1 é ÿ · ¼ and beyond € ∑`,
    () => `gap\x1b[10Cafter\ttab\tstops`,
    (i: number) => `\x1b[4${i % 8}m\x1b[K\x1b[0m`, // a blank line painted by background-colour erase
    () => ``,
    (i: number) => `x`.repeat(70 + (i % 30)), // some wrap at 80 columns
  ];
  let s = '';
  for (let i = 0; i < lines; i++) s += parts[i % parts.length]!(i) + '\r\n';
  return s;
}

test('a few lines, under the hot zone, read exactly as xterm', async () => {
  const p = pair(80, 24, 5000);
  await feed(p, numbered(0, 150));
  sameBothWays(p, '150 lines');
});

test('N lines round trip exactly, across the hot zone and the store, up to the limit', async () => {
  for (const n of [SCROLLBACK_HOT_LINES + 24, SCROLLBACK_HOT_LINES + 25, 1000, 5024, 5025, 12_000]) {
    const p = pair(80, 24, 5000);
    await feed(p, numbered(0, n));
    sameBothWays(p, `${n} lines`);
  }
});

test('50,000 lines in one write: every line kept once and in order, up to the limit', async () => {
  const p = pair(80, 24, 5000);
  await feed(p, numbered(0, 50_000));
  const e = p.emu;
  assert.is(e.bufferLength, 5000 + 24);
  // 50,000 lines then an empty cursor line: the last 5023 numbered lines are kept.
  for (let i = 0; i < e.bufferLength - 1; i++) {
    if (e.lineText(i) !== `line ${50_000 - 5023 + i}`) assert.is(e.lineText(i), `line ${50_000 - 5023 + i}`, `line ${i}`);
  }
  sameBothWays(p, '50,000 lines');
});

test('many writes, packed between them, keep every line in order', async () => {
  const p = pair(80, 24, 3000);
  for (let k = 0; k < 40; k++) {
    await feed(p, numbered(k * 250, (k + 1) * 250));
    if (k % 3 === 0) p.emu.packScrollback();
  }
  sameBothWays(p, '40 writes of 250 lines');
});

test('small writes (packed as they come) and floods (taken whole, packed later) keep one order', async () => {
  const p = pair(80, 24, 3000);
  let next = 0;
  const out = (n: number) => feed(p, numbered(next, (next += n)));
  await out(2000); // fills the hot zone, then packs line by line
  await out(3000); // a flood: lines are taken whole
  for (let k = 0; k < 30; k++) await out(7); // small writes while flood lines wait to be packed
  sameAsXterm(p, 'flood then small writes');
  p.emu.packScrollback();
  for (let k = 0; k < 30; k++) await out(7); // small writes, nothing waiting: packed at once
  await out(400);
  sameBothWays(p, 'and again');
});

test('slow output (packed line by line) then a flood then slow output again keep one order', async () => {
  // A fake clock: the store tells a flood from slow output by lines per SCROLLBACK_PACK_DELAY_MS.
  let clock = performance.now();
  performance.now = () => clock;
  try {
    const p = pair(80, 24, 3000);
    let next = 0;
    const out = async (n: number, ms: number) => {
      clock += ms;
      await feed(p, rich(n).replace(/^/gm, `${next++} `));
    };
    for (let k = 0; k < 40; k++) await out(150, 1000); // 150 lines a second: under the flood mark
    sameAsXterm(p, 'slow output');
    for (let k = 0; k < 10; k++) await out(500, 10); // a flood
    for (let k = 0; k < 5; k++) await out(20, 10); // slow again while flood lines wait
    sameAsXterm(p, 'after the flood');
    p.emu.packScrollback();
    for (let k = 0; k < 10; k++) await out(100, 1000);
    sameBothWays(p, 'slow again');
  } finally {
    delete (performance as { now?: unknown }).now; // the prototype's again
  }
});

test('colours, attributes, wide and combining characters come back as xterm gives them', async () => {
  const p = pair(80, 24, 5000);
  await feed(p, rich(3000));
  sameBothWays(p, 'rich output');
  // And the store's records rebuild every cell, extended attributes and combining text included.
  const t = new Terminal({ cols: 80, rows: 24, scrollback: 4000, allowProposedApi: true });
  await new Promise<void>((resolve) => t.write(rich(600), resolve));
  const lines = (t as unknown as { _core: { buffers: { normal: { lines: { length: number; get(i: number): CoreLine } } } } })._core.buffers.normal.lines;
  const store = new Scrollback(1000);
  for (let i = 0; i < 600; i++) store.add(lines.get(i));
  store.pack();
  for (let i = 0; i < 600; i++) {
    const a = lines.get(i);
    const b = store.line(i)!;
    assert.is(b.length, a.length);
    assert.is(b.isWrapped, a.isWrapped, `wrapped ${i}`);
    for (let x = 0; x < a.length; x++) {
      const [ac, af, ab] = [a._data[x * 3]!, a._data[x * 3 + 1]!, a._data[x * 3 + 2]!];
      const [bc, bf, bb] = [b._data[x * 3]!, b._data[x * 3 + 1]!, b._data[x * 3 + 2]!];
      // Empty default cells past the kept ones come back as null cells (text and width aside, identical).
      if ((ac & 0x3fffff) === 0 && af === 0 && ab === 0 && x >= lastKept(a)) continue;
      assert.equal([bc, bf, bb], [ac, af, ab], `line ${i} cell ${x}`);
      if (ac & 0x200000) assert.is(b._combined[x], a._combined[x], `combined ${i}:${x}`);
      if (ab & 0x10000000) {
        const ea = a._extendedAttrs[x] as unknown as { _ext: number; _urlId: number };
        const eb = b._extendedAttrs[x] as unknown as { _ext: number; _urlId: number };
        assert.equal([eb._ext, eb._urlId], [ea._ext, ea._urlId], `extended ${i}:${x}`);
      }
    }
  }
  t.dispose();
});

test('a flood of rich output (lines taken whole, packed later) comes back as xterm gives it', async () => {
  // 4000 lines in one write to a store of 800: a flood, so the store takes xterm's lines whole.
  const p = pair(80, 24, 1000);
  await feed(p, rich(4000));
  sameBothWays(p, 'rich flood');
  // Then slow output packs the flood's lines first, in order.
  for (let k = 0; k < 5; k++) await feed(p, rich(3));
  sameBothWays(p, 'rich flood, then slow output');
});

function lastKept(l: CoreLine): number {
  for (let x = l.length - 1; x >= 0; x--) {
    if ((l._data[x * 3]! & 0x3fffff) !== 0 || l._data[x * 3 + 1] !== 0 || l._data[x * 3 + 2] !== 0) return x + 1;
  }
  return 0;
}

test('a scroll above a bottom margin (a status line below) moves lines out as well', async () => {
  const p = pair(80, 24, 2000);
  // Margins 1-23, cursor on row 23, row 24 a status line: scrolling splices the list.
  await feed(p, '\x1b[1;23r\x1b[24;1Hstatus\x1b[23;1H' + numbered(0, 3000));
  sameBothWays(p, 'bottom margin');
});

test('ED 3 and DECSED 3 clear the store with xterm\'s scrollback', async () => {
  for (const ed of ['\x1b[3J', '\x1b[?3J']) {
    const p = pair(80, 24, 5000);
    await feed(p, numbered(0, 3000));
    p.emu.packScrollback();
    await feed(p, numbered(3000, 3300));
    const mark = p.emu.markCursorLine()!;
    await feed(p, numbered(3300, 3600) + ed);
    sameAsXterm(p, 'after clearing');
    assert.is(p.emu.bufferLength, 24);
    assert.is(mark.line, -1, 'a marker in the cleared scrollback is gone');
    await feed(p, numbered(3600, 4000));
    sameBothWays(p, 'after clearing and more output');
  }
});

test('RIS resets the store, and lines that follow are kept again', async () => {
  const p = pair(80, 24, 5000);
  await feed(p, rich(1000));
  const early = p.emu.markCursorLine()!;
  p.emu.packScrollback();
  await feed(p, numbered(0, 500));
  const mark = p.emu.markCursorLine()!;
  assert.ok(early.line >= 0 && early.line < p.emu.bufferLength - 24 - 200, 'the early marker is in the store');
  await feed(p, '\x1bc');
  sameAsXterm(p, 'after RIS');
  assert.is(p.emu.bufferLength, 24);
  assert.is(mark.line, -1);
  assert.is(early.line, -1);
  await feed(p, numbered(0, 2000));
  sameBothWays(p, 'after RIS and more output');
});

test('the alternate screen adds nothing to the scrollback', async () => {
  const p = pair(80, 24, 5000);
  await feed(p, numbered(0, 1000));
  const before = p.emu.bufferLength;
  await feed(p, '\x1b[?1049h' + numbered(0, 3000));
  assert.is(p.emu.bufferLength, 24, 'the alternate screen has no scrollback');
  assert.is(p.emu.viewportTop, 0);
  sameAsXterm(p, 'in the alternate screen');
  await feed(p, '\x1b[?1049l');
  assert.is(p.emu.bufferLength, before);
  sameBothWays(p, 'back on the normal screen');
  // A resize while the alternate screen shows reflows the normal buffer underneath.
  await feed(p, '\x1b[?1049h' + numbered(0, 100));
  resize(p, 50, 30);
  sameAsXterm(p, 'resized in the alternate screen');
  await feed(p, '\x1b[?1049l');
  sameBothWays(p, 'back after the resize');
});

test('resizing rows and columns never shows a line twice or drops one', async () => {
  const p = pair(80, 24, 3000);
  let next = 0;
  // Logical lines of 100 characters: they wrap at 80 columns and more at 40.
  const out = (n: number) => {
    let s = '';
    for (let i = 0; i < n; i++, next++) s += `#${next}#`.padEnd(100, '.') + '\r\n';
    return s;
  };
  const check = (what: string) => {
    const e = p.emu;
    let all = '';
    for (let i = 0; i < e.bufferLength; i++) all += e.lineText(i);
    const ids = [...all.matchAll(/#(\d+)#/g)].map((m) => Number(m[1]));
    assert.ok(ids.length > 100, `${what}: lines kept`);
    for (let k = 1; k < ids.length; k++) if (ids[k] !== ids[k - 1]! + 1) assert.is(ids[k], ids[k - 1]! + 1, `${what}: after #${ids[k - 1]}`);
    assert.is(ids.at(-1), next - 1, `${what}: the newest line`);
  };
  await feed(p, out(1500));
  check('start');
  const sizes: Array<[number, number]> = [[40, 24], [40, 60], [120, 10], [80, 24], [30, 5], [200, 100], [80, 1], [80, 24]];
  for (const [c, r] of sizes) {
    resize(p, c, r);
    check(`${c}x${r}`);
    await feed(p, out(300));
    check(`${c}x${r} and output`);
    p.emu.packScrollback();
    check(`${c}x${r} packed`);
  }
});

test('resizing with short lines matches xterm exactly', async () => {
  const p = pair(80, 24, 3000);
  await feed(p, numbered(0, 4000));
  for (const [c, r] of [[60, 24], [60, 40], [100, 12], [100, 150], [20, 3], [80, 24]] as Array<[number, number]>) {
    resize(p, c, r);
    sameAsXterm(p, `${c}x${r}`);
    await feed(p, numbered(0, 700));
    sameBothWays(p, `${c}x${r} and output`);
  }
});

test('a cursor-line marker follows its line from xterm into the store, and is gone past the limit', async () => {
  const p = pair(80, 24, 2000);
  await feed(p, numbered(0, 100) + 'marked');
  const mark = p.emu.markCursorLine()!;
  const at = () => p.emu.lineText(mark.line);
  assert.is(at(), 'marked');
  await feed(p, '\r\n' + numbered(0, 150));
  assert.is(at(), 'marked', 'in the hot zone');
  await feed(p, numbered(0, 400));
  assert.is(at(), 'marked', 'in the store, unpacked');
  p.emu.packScrollback();
  assert.is(at(), 'marked', 'in the store, packed');
  resize(p, 50, 30);
  assert.is(at(), 'marked', 'after a resize');
  await feed(p, numbered(0, 1300));
  assert.is(at(), 'marked', 'near the limit');
  await feed(p, numbered(0, 500));
  assert.is(mark.line, -1, 'trimmed past the limit');
  mark.dispose();
});

test('a scrollback no bigger than the hot zone is plain xterm', async () => {
  const p = pair(80, 24, 100);
  await feed(p, rich(1000));
  sameBothWays(p, 'small scrollback');
});

test('serialize with scrollback includes the store, oldest line first', async () => {
  const p = pair(80, 24, 2000);
  await feed(p, numbered(0, 1500));
  p.emu.packScrollback();
  const snap = p.emu.serialize(1000);
  const t = new Terminal({ cols: 80, rows: 24, scrollback: 5000, allowProposedApi: true });
  await new Promise<void>((resolve) => t.write(snap, resolve));
  const b = t.buffer.active;
  const got: string[] = [];
  for (let i = 0; i < b.length; i++) got.push(b.getLine(i)!.translateToString(true));
  const want = p.emu.rangeLines(p.emu.bufferLength - 1024, p.emu.bufferLength);
  assert.equal(got.slice(-1024), want);
  t.dispose();
});

test('the store holds 5000 lines of text in well under a megabyte', () => {
  const t = new Terminal({ cols: 80, rows: 24, scrollback: 10, allowProposedApi: true });
  const store = new Scrollback(5000);
  const lines = (t as unknown as { _core: { buffers: { normal: { lines: { get(i: number): CoreLine } } } } })._core.buffers.normal.lines;
  (t as unknown as { _core: { _writeBuffer: { writeSync(d: string): void } } })._core._writeBuffer.writeSync('line 1 of the scrollback, with \x1b[31msome\x1b[0m ordinary text to fill a row');
  for (let i = 0; i < 6000; i++) {
    store.add(cloneLine(lines.get(0)!));
    store.pack();
  }
  assert.is(store.count, 5000);
  assert.ok(store.bytes < 1024 * 1024, `${store.bytes} bytes`);
  assert.is(store.text(4999), 'line 1 of the scrollback, with some ordinary text to fill a row');
  t.dispose();
});

function cloneLine(l: CoreLine): CoreLine {
  return (l as unknown as { clone(): CoreLine }).clone();
}

test.run();
