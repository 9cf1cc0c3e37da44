// A typed key costs a row, not the screen: the canvas sends only the cells that differ from the
// last frame (in runs of changed rows), and a pane row whose cell words are as they were is not
// read again, unless a cell points outside its words or the place it was drawn in changed.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Canvas, PLAIN, attr } from '../../tui/canvas.js';
import { openStreamTerminal } from '../../tui/terminal.js';
import { drawSource, RowMemo } from '../../tui/pane-draw.js';
import { WORD_COMBINED, type ScreenSource, type SourceModes, type CellSink } from '../../tui/source.js';

function canvas(cols: number, rows: number) {
  let out = '';
  const t = openStreamTerminal(cols, rows, (s) => (out += s));
  const cv = new Canvas(t.term, cols, rows);
  return { cv, take: () => ((s) => ((out = ''), s))(out), dispose: () => t.dispose() };
}

test('the canvas sends the changed cells of separate rows, and nothing for a rewrite of the same', () => {
  const { cv, take, dispose } = canvas(40, 12);
  try {
    for (let y = 0; y < 12; y++) cv.text(0, y, `row ${y} `.padEnd(40, '.'), PLAIN);
    cv.draw();
    take();
    // Everything written again, two cells changed on rows far apart.
    for (let y = 0; y < 12; y++) cv.text(0, y, `row ${y} `.padEnd(40, '.'), PLAIN);
    cv.set(20, 2, 'X', PLAIN);
    cv.set(5, 9, 'Y', attr(1));
    assert.is(cv.draw(), 2);
    const sent = take();
    assert.match(sent, /X/);
    assert.match(sent, /Y/);
    assert.not.match(sent, /row/, 'unchanged text is not sent again');
    // The same frame written again, cell for cell.
    for (let y = 0; y < 12; y++) cv.text(0, y, `row ${y} `.padEnd(40, '.'), PLAIN);
    cv.set(20, 2, 'X', PLAIN);
    cv.set(5, 9, 'Y', attr(1));
    assert.is(cv.draw(), 0, 'the same frame again sends no cell');
  } finally {
    dispose();
  }
});

/** A screen of plain text rows whose words are one per cell's char, counting the rows it reads. */
class FakeSource implements ScreenSource {
  reads: number[] = [];
  flags = new Map<number, number>();
  constructor(
    public lines: string[],
    readonly cols = 20,
  ) {}
  get rows() {
    return this.lines.length;
  }
  generation() {
    return 0;
  }
  cursor() {
    return { x: 0, y: 0 };
  }
  modes(): SourceModes {
    return { bracketedPaste: false, applicationCursorKeys: false, applicationKeypad: false, mouse: 'none', mouseSgr: false, cursorHidden: false };
  }
  readRow(y: number, sink: CellSink) {
    this.reads.push(y);
    [...this.lines[y]!.padEnd(this.cols)].forEach((ch, x) => sink(x, ch, 1, -1, -1, 0));
  }
  rowWords(y: number) {
    const w = new Uint32Array(this.cols * 3);
    [...this.lines[y]!.padEnd(this.cols)].forEach((ch, x) => (w[x * 3] = ch.charCodeAt(0) | (this.flags.get(y) ?? 0)));
    return w;
  }
}

test('a pane row as it was is not read again; a changed, combined or moved row is', () => {
  const { cv, dispose } = canvas(40, 10);
  try {
    const src = new FakeSource(['$ ls', 'a b c', '$ ', '', '']);
    const memo = new RowMemo();
    const at = { x: 2, y: 1, w: 20, h: 5 };
    drawSource(cv, src, at, memo);
    assert.equal(src.reads, [0, 1, 2, 3, 4]);
    src.reads = [];
    src.lines[2] = '$ e';
    drawSource(cv, src, at, memo);
    assert.equal(src.reads, [2], 'only the typed row');
    cv.draw();
    src.reads = [];
    src.flags.set(1, WORD_COMBINED);
    drawSource(cv, src, at, memo);
    drawSource(cv, src, at, memo);
    assert.equal(src.reads, [1, 1], 'a row with a combined character is always drawn');
    src.reads = [];
    drawSource(cv, src, { ...at, x: 3 }, memo);
    assert.equal(src.reads, [0, 1, 2, 3, 4], 'a new place draws every row');
    src.reads = [];
    drawSource(cv, src, { ...at, x: 3 });
    assert.equal(src.reads, [0, 1, 2, 3, 4], 'without a memo every row is drawn');
  } finally {
    dispose();
  }
});

test.run();
