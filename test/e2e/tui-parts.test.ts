// The TUI's pieces in-process: terminal-kit over a stream leaves no process listeners behind,
// a frame sends only what changed, keys keep their bytes, the layout tiles and follows the
// model, the marks are the Indicator table's.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openStreamTerminal } from '../../tui/terminal.js';
import { Canvas, PLAIN, attr } from '../../tui/canvas.js';
import { KeyReader, type Token } from '../../tui/keys.js';
import { reconcile, splitLeaf, tile, neighbour, leaves, type WorkspaceLayout } from '../../core/model/layout.js';
import { stateMark } from '../../tui/marks.js';
import { GroupSettler } from '../../tui/settle.js';
import { summarize } from '../../tui/alerts.js';
import { Editor } from '../../tui/editor.js';
import { textWidth, fit } from '../../tui/text.js';
import { SETTLE_MS } from '../../tui/limits.js';

const EVENTS = ['exit', 'asyncExit', 'beforeExit', 'SIGWINCH'] as const;
const count = () => EVENTS.map((e) => process.listeners(e as 'exit').length).join(',');

test('a stream terminal removes the process listeners terminal-kit adds', () => {
  const before = count();
  for (let i = 0; i < 20; i++) openStreamTerminal(80, 24, () => {}).dispose();
  assert.is(count(), before);
});

test('a frame sends only the cells that changed', () => {
  let bytes = '';
  const t = openStreamTerminal(160, 48, (s) => (bytes += s));
  const cv = new Canvas(t.term, 160, 48);
  cv.fill(0, 0, 160, 48);
  cv.text(0, 0, 'hello', PLAIN);
  cv.draw();
  const first = bytes.length;
  assert.ok(first >= 160 * 48, 'the first frame paints the screen');
  bytes = '';
  cv.draw();
  assert.is(bytes.length, 0, 'an unchanged frame sends nothing');
  cv.text(10, 20, 'x', attr(1));
  cv.draw();
  assert.ok(bytes.length > 0 && bytes.length < 40, `one changed cell costs a move and a cell (${bytes.length} bytes)`);
  assert.match(bytes, /x/);
  t.dispose();
});

test('wide characters take two cells', () => {
  let bytes = '';
  const t = openStreamTerminal(20, 2, (s) => (bytes += s));
  const cv = new Canvas(t.term, 20, 2);
  const end = cv.text(0, 0, '日本x', PLAIN);
  assert.is(end, 5);
  cv.draw();
  assert.match(bytes, /日本x/);
  assert.is(textWidth('日本x'), 5);
  assert.is(fit('日本語テキスト', 6), '日本…');
  t.dispose();
});

function names(ts: Token[]): string[] {
  return ts.map((t) => (t.t === 'key' ? t.name : t.t === 'paste' ? `paste:${t.text}` : `mouse:${t.button}@${t.x},${t.y}${t.release ? 'r' : ''}`));
}

test('keys keep their bytes; a sequence cut across reads is joined', () => {
  const k = new KeyReader();
  const all = [...k.push(Buffer.from('a\x02\x1b[1;3A\x1b[')), ...k.push(Buffer.from('B\x1bOA\x1bx\r\x7fé'))];
  assert.equal(names(all), ['a', 'C-b', 'M-Up', 'Down', 'Up', 'M-x', 'Enter', 'BSpace', 'é']);
  assert.equal(all.map((t) => t.raw).join(''), 'a\x02\x1b[1;3A\x1b[B\x1bOA\x1bx\r\x7fé');
  // A UTF-8 character split between two reads.
  const e = Buffer.from('ü');
  assert.equal(names([...k.push(e.subarray(0, 1)), ...k.push(e.subarray(1))]), ['ü']);
  assert.equal(names(k.push(Buffer.from('\x1b[200~two\nlines\x1b[201~\x1b[<0;5;7M\x1b[<0;5;7m\x1b'))), ['paste:two\nlines', 'mouse:0@4,6', 'mouse:0@4,6r', 'Esc']);
});

test('the reader says when it holds nothing: the TUI then sends a printable byte to the pane unread', () => {
  const k = new KeyReader();
  k.push(Buffer.from('a'));
  assert.ok(k.idle, 'a whole key');
  k.push(Buffer.from('\x1b['));
  assert.not.ok(k.idle, 'half an escape sequence is held');
  assert.equal(names(k.push(Buffer.from('A'))), ['Up'], 'and the byte after it is read with it');
  assert.ok(k.idle);
  for (const ch of ['é', '€', '😀']) {
    const b = Buffer.from(ch);
    for (let cut = 1; cut < b.length; cut++) {
      k.push(b.subarray(0, cut));
      assert.not.ok(k.idle, `${cut} of the ${b.length} bytes of ${ch} are held`);
      assert.equal(names(k.push(b.subarray(cut))), [ch]);
      assert.ok(k.idle);
    }
  }
  k.push(Buffer.from('x\x1b[200~pasted'));
  assert.not.ok(k.idle, 'an unfinished paste is held');
});

test('the layout splits, tiles, finds neighbours and follows the model', () => {
  const l: WorkspaceLayout = { root: null, zoomed: null };
  const area = { x: 0, y: 0, w: 100, h: 40 };
  reconcile(l, ['a'], area);
  l.root = splitLeaf(l.root, 'a', 'b', 'row');
  l.root = splitLeaf(l.root, 'b', 'c', 'column');
  const t = tile(l.root, area);
  assert.equal(t.get('a'), { x: 0, y: 0, w: 50, h: 40 });
  assert.equal(t.get('b'), { x: 50, y: 0, w: 50, h: 20 });
  assert.equal(t.get('c'), { x: 50, y: 20, w: 50, h: 20 });
  assert.is(neighbour(t, 'a', 'right'), 'b');
  assert.is(neighbour(t, 'b', 'down'), 'c');
  assert.is(neighbour(t, 'c', 'left'), 'a');
  assert.is(neighbour(t, 'a', 'left'), null);
  // A window that left goes; one the layout lacks is placed in the largest tile.
  reconcile(l, ['a', 'c', 'd'], area);
  assert.equal(leaves(l.root).sort(), ['a', 'c', 'd']);
  const t2 = tile(l.root, area);
  assert.is([...t2.values()].reduce((s, r) => s + r.w * r.h, 0), 100 * 40, 'the tiles cover the area');
});

test('the marks are the Indicator table, one cell each, and the ASCII forms', () => {
  const cases: Array<[string, boolean, string, string]> = [
    ['working', false, '●', '*'],
    ['needs_input', false, '▲', '!'],
    ['done', true, '■', '#'],
    ['done', false, '○', 'o'],
    ['idle', false, '○', 'o'],
    ['errored', false, '×', 'x'],
    ['unknown', false, '□', '?'],
    ['a-state-from-the-future', false, '□', '?'],
  ];
  for (const [s, unread, glyph, ascii] of cases) {
    assert.is(stateMark(s, unread, false)!.glyph, glyph, s);
    assert.is(stateMark(s, unread, true)!.glyph, ascii, s);
    assert.is(textWidth(glyph), 1);
  }
  assert.is(stateMark('none', false, false), null);
});

test('a row moves group only once the new state has held for 0.4 s', () => {
  const s = new GroupSettler<'working' | 'needs'>();
  const wakes: number[] = [];
  assert.is(s.group('a', 'working', 0, (ms) => wakes.push(ms)), 'working');
  assert.is(s.group('a', 'needs', 100, (ms) => wakes.push(ms)), 'working', 'not yet');
  assert.ok(wakes[0]! >= SETTLE_MS, 'asks to look again when it is due');
  assert.is(s.group('a', 'working', 200, () => {}), 'working', 'a flip back cancels the move');
  assert.is(s.group('a', 'needs', 300, () => {}), 'working');
  assert.is(s.group('a', 'needs', 300 + SETTLE_MS, () => {}), 'needs');
});

test('a burst of alerts is one message that names the sessions', () => {
  const a = (session: string) => ({ windowId: null, session, who: 'claude', state: 'approval', what: '', needsYou: true });
  assert.is(summarize([{ ...a('fan-3'), what: 'approve Bash: go test' }]), 'fan-3: claude needs approval · approve Bash: go test');
  assert.is(summarize(['fan-1', 'fan-2', 'fan-3', 'fan-4', 'fan-5'].map(a)), '5 agents need you in fan-1, fan-2, fan-3 and 2 more');
});

test('the reply editor keeps lines, edits words, undoes, and holds a long paste as one block', () => {
  const e = new Editor();
  const key = (name: string, raw = name) => e.key({ t: 'key', name, raw });
  for (const ch of 'make it') key(ch);
  key('C-j');
  for (const ch of 'so') key(ch);
  key('C-w');
  for (const ch of 'now') key(ch);
  assert.is(e.value(), 'make it\nnow');
  key('C-z');
  assert.is(e.value(), 'make it\nno');
  e.key({ t: 'paste', raw: '', text: 'a\nb\nc\nd' });
  assert.match(e.view().lines.join('\n'), /\[Pasted text #1 · 4 lines\]/);
  assert.is(e.value(), 'make it\nnoa\nb\nc\nd');
  key('BSpace');
  assert.is(e.value(), 'make it\nno', 'backspace removes the whole block');
  assert.is(key('Enter', '\r'), 'send');
});

test.run();
