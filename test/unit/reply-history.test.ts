// The reply history (spec: Replying to an agent): kept by the daemon under the agent's harness and
// folder, newest first, at most 256 KB of pastes a message (a larger block left out and counted);
// in the editor, up on the first row brings back what was sent before, down on the last row goes
// the other way and back to the draft, and a draft ctrl+c cleared is kept too.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ReplyHistory } from '../../core/delivery/reply-history.js';
import { Editor } from '../../tui/editor.js';
import { REPLY_HISTORY_AGENTS, REPLY_HISTORY_PASTE_BYTES, REPLY_HISTORY_PER_AGENT } from '../../core/limits.js';

const key = (name: string) => ({ t: 'key' as const, raw: name, name });
const type = (e: Editor, s: string) => [...s].forEach((ch) => e.key(key(ch)));

test('kept per harness and folder, newest first, bounded', () => {
  const h = new ReplyHistory();
  h.add('claude-code', '/src/api', [{ text: 'one' }]);
  h.add('claude-code', '/src/api', [{ text: 'two' }]);
  h.add('claude-code', '/src/api', [{ text: 'two' }]);
  h.add('codex', '/src/api', [{ text: 'other harness' }]);
  h.add('claude-code', '/src/web', [{ text: 'other folder' }]);
  assert.equal(h.list('claude-code', '/src/api').map((m) => m.parts), [[{ text: 'two' }], [{ text: 'one' }]]);
  for (let i = 0; i < REPLY_HISTORY_PER_AGENT + 5; i++) h.add('pi', '/x', [{ text: `m${i}` }]);
  assert.is(h.list('pi', '/x').length, REPLY_HISTORY_PER_AGENT);
  assert.equal(h.list('pi', '/x')[0]!.parts, [{ text: `m${REPLY_HISTORY_PER_AGENT + 4}` }]);
  for (let i = 0; i < REPLY_HISTORY_AGENTS; i++) h.add('h', `/f${i}`, [{ text: 'x' }]);
  assert.is(h.list('claude-code', '/src/api').length, 0, 'the least recently used pair went');
});

test('a message keeps at most 256 KB of pastes; a larger block is left out and counted', () => {
  const h = new ReplyHistory();
  const small = 's'.repeat(1000);
  const big = 'b'.repeat(REPLY_HISTORY_PASTE_BYTES);
  const m = h.add('claude-code', '/a', [{ text: 'see ' }, { paste: small, n: 1 }, { text: ' and ' }, { paste: big, n: 2 }]);
  assert.equal(m.parts, [{ text: 'see ' }, { paste: small, n: 1 }, { text: ' and ' }]);
  assert.is(m.dropped, 1);
});

test('the editor: up on the first row brings back what was sent, newest first; down goes back to the draft', () => {
  const h = new ReplyHistory();
  h.add('claude-code', '/a', [{ text: 'first' }]);
  h.add('claude-code', '/a', [{ text: 'second ' }, { paste: 'l1\nl2\nl3\nl4', n: 1 }]);
  const e = new Editor();
  e.history = () => h.list('claude-code', '/a');
  type(e, 'draft');
  e.key(key('Up'));
  assert.is(e.view().lines[0], 'second [Pasted text #1 · 4 lines]');
  e.key(key('Up'));
  assert.is(e.value(), 'first');
  e.key(key('Up'));
  assert.is(e.value(), 'first', 'no older message');
  e.key(key('Down'));
  assert.is(e.value(), 'second l1\nl2\nl3\nl4');
  e.key(key('Down'));
  assert.is(e.value(), 'draft', 'back to the draft you had');
});

test('a message that lost a block says so when it comes back; ctrl+c keeps the cleared draft', () => {
  const h = new ReplyHistory();
  h.add('pi', '/b', [{ text: 'log: ' }, { paste: 'b'.repeat(REPLY_HISTORY_PASTE_BYTES + 1) }]);
  const e = new Editor();
  e.history = () => h.list('pi', '/b');
  e.remember = (parts) => h.add('pi', '/b', parts);
  e.key(key('Up'));
  assert.is(e.value(), 'log: ');
  assert.match(e.notice, /A paste of this message passed 256 KB and was not kept/);
  e.key(key('C-c'));
  type(e, 'gone soon');
  e.key(key('C-c'));
  assert.is(e.value(), '');
  assert.equal(h.list('pi', '/b')[0]!.parts, [{ text: 'gone soon' }]);
});

test('ctrl+r searches what was sent: typing narrows, the arrows choose, enter loads, esc goes back', () => {
  const h = new ReplyHistory();
  h.add('claude-code', '/a', [{ text: 'make the backoff configurable' }]);
  h.add('claude-code', '/a', [{ text: 'add a test for the retry' }]);
  h.add('claude-code', '/a', [{ text: 'fix the retry loop ' }, { paste: 'x\ny\nz\nw', n: 1 }]);
  const e = new Editor();
  e.history = () => h.list('claude-code', '/a');
  type(e, 'draft');
  e.key(key('C-r'));
  assert.equal(e.keyState().searching, true);
  type(e, 'retry');
  assert.equal(e.view().lines, ['search: retry', '▸ fix the retry loop [Pasted text #1 · 4 lines]', '  add a test for the retry']);
  e.key(key('Down'));
  assert.is(e.view().lines[2], '▸ add a test for the retry');
  e.key(key('Enter'));
  assert.is(e.value(), 'add a test for the retry');
  assert.equal(e.keyState().searching, false);
  e.key(key('C-z'));
  assert.is(e.value(), 'draft', 'undo brings the draft back');
  e.key(key('C-r'));
  type(e, 'nothing like it');
  assert.is(e.view().lines[1], '  (nothing matches)');
  e.key(key('Esc'));
  assert.is(e.value(), 'draft');
  const empty = new Editor();
  empty.history = () => [];
  empty.key(key('C-r'));
  assert.match(empty.notice, /Nothing sent/);
});

test.run();
