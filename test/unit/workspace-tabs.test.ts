// The tab numbers of a session's workspaces (core/model/tabs.ts; spec: How tuios maps onto herdr):
// a tab's number is its own, never used twice, and equal to its workspace number in a session that
// was never reordered and never lost a tab.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WorkspaceTabs, renumber } from '../../core/model/tabs.js';
import { TuiosError } from '../../core/errors.js';
import { MAX_TAB_NUMBER, WORKSPACES } from '../../core/limits.js';
import { herdrTabId, parseTabId } from '../../herdr/ids.js';

const numbers = (t: WorkspaceTabs) => t.list().map((x) => [x.workspace, x.number]);

test('a workspace is a tab when it holds a window, has a name, or shows; untouched, tab = workspace', () => {
  const t = new WorkspaceTabs();
  t.sync([1], 1);
  assert.equal(numbers(t), [[1, 1]]);
  t.sync([1, 4], 1);
  assert.equal(numbers(t), [[1, 1], [4, 4]]);
  // The one that shows, with no window.
  t.sync([1, 4], 6);
  assert.equal(numbers(t), [[1, 1], [4, 4], [6, 6]]);
  // A name makes an empty workspace a tab too.
  t.setName(8, 'notes');
  t.sync([1, 4], 6);
  assert.equal(t.list(), [
    { workspace: 1, number: 1, name: null },
    { workspace: 4, number: 4, name: null },
    { workspace: 6, number: 6, name: null },
    { workspace: 8, number: 8, name: 'notes' },
  ]);
});

test('a number given up is never given again: the workspace gets a new one past the nine', () => {
  const t = new WorkspaceTabs();
  t.sync([1], 3);
  assert.equal(numbers(t), [[1, 1], [3, 3]]);
  // Workspace 3 stops showing while empty: it stops being a tab, its number goes.
  t.sync([1], 1);
  assert.equal(numbers(t), [[1, 1]]);
  assert.is(t.workspaceOf(3), undefined);
  t.sync([1, 3], 1);
  assert.equal(numbers(t), [[1, 1], [3, WORKSPACES + 1]]);
  // A workspace whose number was never used still takes its own.
  t.sync([1, 3, 5], 1);
  assert.equal(numbers(t), [[1, 1], [3, WORKSPACES + 1], [5, 5]]);
  t.emptied(5);
  t.sync([1, 3], 1);
  t.sync([1, 3, 5], 1);
  assert.equal(numbers(t), [[1, 1], [3, WORKSPACES + 1], [5, WORKSPACES + 2]]);
});

test('a tab whose last pane closes goes and loses its name, even while it shows', () => {
  const t = new WorkspaceTabs();
  t.sync([1, 2], 2);
  t.setName(2, 'build');
  t.emptied(2);
  t.sync([1], 2);
  assert.equal(t.list(), [
    { workspace: 1, number: 1, name: null },
    { workspace: 2, number: WORKSPACES + 1, name: null },
  ]);
});

test('reorder: the tabs take the workspace numbers they hold between them; numbers and names stay', () => {
  const t = new WorkspaceTabs();
  t.sync([1, 3, 4], 1);
  t.setName(4, 'logs');
  // Tab 4 first, then 1, then 3: on workspaces 1, 3 and 4.
  const moves = t.reorder([4, 1, 3]);
  assert.equal([...moves].sort(), [[1, 3], [3, 4], [4, 1]]);
  assert.equal(t.list(), [
    { workspace: 1, number: 4, name: 'logs' },
    { workspace: 3, number: 1, name: null },
    { workspace: 4, number: 3, name: null },
  ]);
  assert.is(t.workspaceOf(4), 1);
  // The same order again moves nothing.
  assert.is(t.reorder([4, 1, 3]).size, 0);
  // A reordered session's new tab on a workspace whose number was given: past the nine.
  t.sync([1, 3, 4, 2], 1);
  assert.is(t.numberOf(2), 2);
});

test('reorder refuses an order that does not name every tab once, and changes nothing', () => {
  const t = new WorkspaceTabs();
  t.sync([1, 2, 3], 1);
  for (const bad of [[1, 2], [1, 2, 2], [1, 2, 3, 4], [3, 2, 7]]) {
    try {
      t.reorder(bad);
      assert.unreachable(`accepted ${bad}`);
    } catch (e) {
      assert.instance(e, TuiosError);
      assert.is((e as TuiosError).code, 'invalid_params');
    }
  }
  assert.equal(numbers(t), [[1, 1], [2, 2], [3, 3]]);
});

test('held while a snapshot restores: no tab is given up until released', () => {
  const t = new WorkspaceTabs();
  t.load({ tabs: [{ workspace: 1, number: 12, name: 'api' }, { workspace: 2, number: 2, name: null }], used: [1, 2], next: 13 });
  t.held = true;
  t.sync([1], 1);
  assert.equal(numbers(t), [[1, 12], [2, 2]]);
  t.sync([1, 2], 1);
  t.held = false;
  t.sync([1, 2], 1);
  assert.equal(t.list(), [
    { workspace: 1, number: 12, name: 'api' },
    { workspace: 2, number: 2, name: null },
  ]);
  // Numbers already given (1, and up to 12) are not given again.
  t.sync([1, 2, 3], 1);
  assert.is(t.numberOf(3), 3);
  t.emptied(1);
  t.sync([1, 2, 3], 1);
  assert.is(t.numberOf(1), 13);
  assert.equal(t.toRecord().next, 14);
});

test('a saved record of the wrong shape is ignored, and its bad entries are dropped', () => {
  for (const bad of [null, 'x', { tabs: 'a', used: [], next: 10 }, { tabs: [], used: [], next: 3 }, { tabs: [], used: [], next: MAX_TAB_NUMBER + 5 }]) {
    const t = new WorkspaceTabs();
    t.load(bad);
    assert.equal(t.toRecord(), { tabs: [], used: [], next: WORKSPACES + 1 });
  }
  const t = new WorkspaceTabs();
  t.load({ tabs: [{ workspace: 0, number: 1 }, { workspace: 2, number: 50 }, { workspace: 3, number: 11, name: 'x'.repeat(200) }, { workspace: 4, number: 11 }], used: [1, 99], next: 20 });
  assert.equal(t.toRecord(), { tabs: [{ workspace: 3, number: 11, name: null }], used: [1], next: 20 });
});

test('renumber moves a map\'s entries all at once (a swap does not lose one)', () => {
  const m = new Map([[1, 'a'], [2, 'b'], [5, 'c']]);
  renumber(m, new Map([[1, 2], [2, 1]]));
  assert.equal([...m].sort(), [[1, 'b'], [2, 'a'], [5, 'c']]);
});

test('a tab id carries a tab number past the nine workspaces, up to MAX_TAB_NUMBER', () => {
  const sid = '0123456789abcdef0123456789abcdef';
  for (const n of [1, 10, 12345, MAX_TAB_NUMBER]) assert.equal(parseTabId(herdrTabId(sid, n)), { session: sid.slice(0, 12), tab: n });
  assert.is(parseTabId(herdrTabId(sid, MAX_TAB_NUMBER * 10)), null);
  assert.is(parseTabId('w0123456789ab:t0'), null);
});

test.run();
