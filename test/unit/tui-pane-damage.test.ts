// A frame for a pane's output reads only the rows xterm says changed, and sends only the cells
// that differ (cell-delta.ts), yet what the client's terminal shows is the pane, cell for cell:
// each step below draws a frame into a second emulator standing for the client and compares.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import xterm from '@xterm/headless';
import { Canvas } from '../../tui/canvas.js';
import { openStreamTerminal } from '../../tui/terminal.js';
import { drawSource, RowMemo } from '../../tui/pane-draw.js';
import { LocalSource, type CellSink } from '../../tui/source.js';
import { Emulator } from '../../core/screen/emulator.js';
import type { Window } from '../../core/model/window.js';

const { Terminal } = xterm as unknown as { Terminal: typeof import('@xterm/headless').Terminal };
const COLS = 30;
const ROWS = 8;

function rig() {
  const pane = new Emulator({ cols: COLS, rows: ROWS, scrollback: 100 });
  const client = new Terminal({ cols: COLS, rows: ROWS, allowProposedApi: true });
  let out = '';
  const t = openStreamTerminal(COLS, ROWS, (s) => (out += s));
  const cv = new Canvas(t.term, COLS, ROWS);
  const src = new LocalSource({ screen: pane } as unknown as Window);
  const reads: number[] = [];
  const readRow = src.readRow.bind(src);
  src.readRow = (y: number, sink: CellSink, from?: number, to?: number) => {
    reads.push(y);
    readRow(y, sink, from, to);
  };
  const memo = new RowMemo();
  const rect = { x: 0, y: 0, w: COLS, h: ROWS };
  /** Feeds the pane, draws a frame, and returns the rows it read once the client has the bytes. */
  const step = async (bytes: string): Promise<number[]> => {
    await new Promise<void>((r) => pane.write(bytes, r));
    reads.length = 0;
    drawSource(cv, src, rect, memo);
    cv.draw();
    const sent = out;
    out = '';
    await new Promise<void>((r) => client.write(sent, r));
    for (let y = 0; y < ROWS; y++) {
      const want = pane.term.buffer.active.getLine(pane.term.buffer.active.baseY + y)!.translateToString(true).trimEnd();
      const got = client.buffer.active.getLine(client.buffer.active.baseY + y)!.translateToString(true).trimEnd();
      assert.is(got, want, `row ${y} after ${JSON.stringify(bytes)}`);
    }
    return reads.slice();
  };
  const cellAt = (x: number, y: number) => client.buffer.active.getLine(y)!.getCell(x)!;
  return { step, cellAt, dispose: () => (src.dispose(), t.dispose(), client.dispose()) };
}

test('a typed character reads one row of the pane, and the client shows the pane', async () => {
  const { step, dispose } = rig();
  try {
    await step('$ ');
    const read = await step('x');
    assert.equal(read, [0], 'only the row the echo is on');
    assert.equal(await step(''), [], 'no output: no row read');
    await step('yz\r\n$ ');
  } finally {
    dispose();
  }
});

test('scrolling, colours, wide characters, overwrites and the alternate screen reach the client', async () => {
  const { step, cellAt, dispose } = rig();
  try {
    for (let i = 0; i < 20; i++) await step(`line ${i}\r\n`);
    await step('\x1b[31mred\x1b[0m \x1b[1;44mbold on blue\x1b[0m');
    assert.is(cellAt(0, ROWS - 1).getFgColor(), 1, 'the red reached the client');
    await step('\r\n漢字 and ascii');
    await step('\x1b[3;5Hover\x1b[5;1H\x1b[2K');
    await step('\x1b[?1049h\x1b[H\x1b[2Jalt screen\x1b[4;3Hhere');
    await step('\x1b[2;1H漢');
    await step('\x1b[?1049l');
    await step('\x1b[H\x1b[2Jcleared');
  } finally {
    dispose();
  }
});

test.run();
