// The reply editor's keys on a paste block and its check before sending (spec: Replying to an
// agent, Large pastes): the block right before the cursor is selected, ctrl+o reads it (the
// arrows and page keys scroll, esc goes back), ctrl+e puts its text in the draft, backspace
// removes it, undo brings it back; invisible characters are removed with the spec's words.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Editor, editorHint } from '../../tui/editor.js';
import { invisibleNotice, removeInvisible } from '../../tui/invisible.js';
import { MAX_DRAFT_CHARS } from '../../tui/limits.js';

const key = (name: string) => ({ t: 'key' as const, raw: name, name });
const paste = (text: string) => ({ t: 'paste' as const, raw: `\x1b[200~${text}\x1b[201~`, text });
const type = (e: Editor, s: string) => [...s].forEach((ch) => e.key(key(ch)));
const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n');

test('the block right before the cursor is selected, and the key line shows its keys', () => {
  const e = new Editor();
  type(e, 'see ');
  assert.is(e.keyState().block, false);
  e.key(paste(lines(20)));
  assert.equal(e.keyState(), { block: true, reading: false, searching: false });
  const v = e.view();
  assert.is(v.lines[0], 'see [Pasted text #1 · 20 lines]');
  assert.is(v.selectedCols, '[Pasted text #1 · 20 lines]'.length);
  assert.is(editorHint(true, e.keyState()), 'ctrl+o read it  ctrl+e edit it  backspace remove it  enter send  ctrl+j new line  ctrl+z undo  esc close');
  e.key(key('Left'));
  assert.is(e.keyState().block, false, 'one step over the block, and it is not selected');
  assert.is(e.view().cursor.x, 4);
  assert.is(editorHint(true, e.keyState()), 'enter send  ctrl+j new line  ctrl+z undo  esc close');
});

test('ctrl+o reads the block: the arrows and page keys scroll, other keys type nothing, esc goes back', () => {
  const e = new Editor();
  e.key(paste(lines(30)));
  assert.is(e.key(key('C-o')), 'handled');
  assert.equal(e.view(8).lines, lines(8).split('\n'));
  e.key(key('Down'));
  assert.is(e.view(8).lines[0], 'line 2');
  e.key(key('PgDn'));
  assert.is(e.view(8).lines[0], 'line 9');
  e.key(key('x'));
  e.key(paste('typed while reading'));
  assert.is(e.key(key('Enter')), 'handled', 'enter does not send while reading');
  for (let i = 0; i < 10; i++) e.key(key('PgDn'));
  assert.is(e.view(8).lines.at(-1), 'line 30', 'scrolls no further than the end');
  assert.is(editorHint(true, e.keyState()), 'up/down scroll  esc back to the draft');
  assert.is(e.key(key('Esc')), 'handled', 'esc goes back, it does not close the editor');
  assert.is(e.view().lines[0], '[Pasted text #1 · 30 lines]');
  assert.is(e.value(), lines(30), 'nothing typed into the draft while reading');
});

test('ctrl+e puts the block\'s text in the draft; undo brings the block back; backspace removes it whole', () => {
  const e = new Editor();
  type(e, 'a ');
  e.key(paste(lines(4)));
  e.key(key('C-e'));
  assert.is(e.view(8).lines.length, 4);
  assert.is(e.value(), `a ${lines(4)}`);
  assert.is(e.keyState().block, false);
  e.key(key('C-z'));
  assert.is(e.view().lines[0], 'a [Pasted text #1 · 4 lines]');
  e.key(key('BSpace'));
  assert.is(e.value(), 'a ');
  e.key(key('C-z'));
  assert.is(e.value(), `a ${lines(4)}`, 'undo brings a removed block back');
  assert.ok(e.keyState().block);
  // With no block selected, ctrl+e is the line's end.
  e.key(key('Home'));
  e.key(key('C-e'));
  assert.ok(e.keyState().block);
});

test('a block too large for the draft is not expanded, and the key line says why', () => {
  const e = new Editor();
  const big = 'x'.repeat(MAX_DRAFT_CHARS + 1);
  e.key(paste(big));
  e.key(key('C-e'));
  assert.ok(e.keyState().block, 'still a block');
  assert.match(e.notice, /too large to edit/);
  e.key(key('Left'));
  assert.is(e.notice, '', 'gone at the next key');
});

test('invisible characters: tags, bidi controls and zero-width, removed from the words and the blocks, once', () => {
  const hidden = 'ok\u202Eevil\u2066\u200Bx\u{E0041}\u{E0042}';
  assert.equal(removeInvisible(hidden), { text: 'okevilx', removed: 5 });
  assert.equal(removeInvisible('plain é 中文 \u{1F600}'), { text: 'plain é 中文 \u{1F600}', removed: 0 });
  const e = new Editor();
  type(e, 'run \u200Bthis ');
  e.key(paste(`${lines(5)}\u202E`));
  assert.is(e.scrub(), 2);
  assert.is(e.value(), `run this ${lines(5)}`);
  assert.is(e.scrub(), 0, 'stopped once: the next enter sends');
  assert.is(invisibleNotice(3), 'Removed 3 invisible characters. Read the message and press enter to send.');
  e.key(key('C-z'));
  assert.is(e.value(), `run \u200Bthis ${lines(5)}\u202E`.replace(`${lines(5)}\u202E`, lines(5)), 'undo brings the words back as they were');
});

test.run();
