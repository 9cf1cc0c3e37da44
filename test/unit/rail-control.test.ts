// The rail's sort control and keyboard (tui/rail-control.ts, spec: The rail's agents section): a
// click on the control or `o` while the rail holds the keyboard steps you → pri → rec, kept in
// sidebar.json so the next client starts there; a click on a row goes to its pane; a click
// elsewhere on the rail gives it the keyboard, esc or a click outside gives it back.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Services } from '../../core/daemon/services.js';
import { nullLogger } from '../../core/log.js';
import { RailControl } from '../../tui/rail-control.js';
import { readRailOrder } from '../../tui/rail-state.js';
import type { RailActs } from '../../tui/rail-control.js';
import type { QueuedMessage } from '../../core/delivery/queue.js';

/** RailActs that record what they were asked. */
function fakeActs(over: Partial<RailActs> = {}): RailActs & { said: string[]; calls: Array<[string, Record<string, unknown>]>; opened: string[] } {
  const said: string[] = [];
  const calls: Array<[string, Record<string, unknown>]> = [];
  const opened: string[] = [];
  return {
    said,
    calls,
    opened,
    goTo: () => {},
    redraw: () => {},
    say: (t) => said.push(t),
    nameOf: (id) => id,
    inFront: () => null,
    queueOf: () => [],
    callAsPerson: async (verb, params) => (calls.push([verb, params]), { ok: true, value: {} }),
    forgetSeen: () => {},
    openInbox: (id, then) => opened.push(`${then}:${id}`),
    review: (id) => opened.push(`review:${id}`),
    track: () => {},
    later: () => {},
    ...over,
  };
}

const key = (name: string) => ({ t: 'key' as const, name, raw: name });
const press = (x: number, y: number) => ({ t: 'mouse' as const, raw: '', button: 0, x, y, release: false });

test('sort clicks and keys, row clicks, and the keyboard', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rail-control-'));
  const svc = { paths: { stateDir: dir }, log: nullLogger } as unknown as Services;
  const went: string[] = [];
  try {
    assert.is(readRailOrder(svc), 'you', 'a rail that never picked an order is on you');
    const r = new RailControl(svc, fakeActs({ goTo: (id) => void went.push(id) }));
    r.width = 24;
    r.hits = { sort: { x: 8, y: 5, w: 3 }, rows: [{ y: 6, h: 2, windowId: 'lead' }, { y: 8, h: 2, windowId: 'lead', sub: true }], agents: ['lead'] };
    assert.ok(r.click(press(9, 5)));
    assert.is(r.order, 'pri');
    assert.is(JSON.parse(readFileSync(join(dir, 'sidebar.json'), 'utf8')).agent_sort, 'pri');
    assert.ok(r.click(press(5, 9)), 'a subagent row');
    assert.equal(went, ['lead'], 'goes to its pane');
    assert.not.ok(r.key(key('o')), 'the rail does not hold the keyboard yet');
    assert.ok(r.click(press(3, 20)));
    assert.ok(r.focused);
    assert.ok(r.key(key('o')));
    assert.is(r.order, 'rec');
    assert.is(new RailControl(svc, fakeActs()).order, 'rec', 'a saved order is kept');
    assert.ok(r.key(key('Esc')));
    assert.not.ok(r.focused);
    r.click(press(3, 20));
    assert.not.ok(r.key(key('q')), 'any other key lets go and still reaches the pane');
    assert.not.ok(r.focused);
    r.click(press(3, 20));
    assert.not.ok(r.click(press(40, 3)), 'a press in a pane is the pane\'s');
    assert.not.ok(r.focused, 'and the rail lets go');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the keyboard cursor: it steps over subagent rows, and its keys act on the row under it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rail-control-'));
  const svc = { paths: { stateDir: dir }, log: nullLogger } as unknown as Services;
  try {
    const went: string[] = [];
    const queue: QueuedMessage[] = [
      { id: 'q1', window_id: 'b', text: 'first', by: 'human', at: 1, status: 'waiting', typed_at: null, caller: null },
      { id: 'q2', window_id: 'b', text: 'second', by: 'human', at: 2, status: 'waiting', typed_at: null, caller: null },
    ];
    const acts = fakeActs({ goTo: (id) => void went.push(id), inFront: () => 'a', queueOf: (id) => (id === 'b' ? queue : []), track: (w) => void w });
    const r = new RailControl(svc, acts);
    r.width = 24;
    r.hits = { sort: null, rows: [{ y: 6, h: 2, windowId: 'a' }, { y: 8, h: 1, windowId: 'a', sub: true }, { y: 9, h: 2, windowId: 'b' }, { y: 11, h: 2, windowId: 'c' }], agents: ['a', 'b', 'c'] };
    r.click(press(3, 20));
    assert.is(r.cursor, 'a', 'the keyboard starts on the pane in front of you');
    assert.ok(r.key(key('j')));
    assert.is(r.cursor, 'b', 'j steps over the subagent row');
    r.key(key('G'));
    assert.is(r.cursor, 'c');
    r.key(key('Down'));
    assert.is(r.cursor, 'c', 'the last row stays');
    r.key(key('g'));
    r.key(key('u'));
    assert.match(acts.said.at(-1)!, /in front of you/, 'the pane in front of you cannot be marked');
    assert.equal(acts.calls, []);
    r.key(key('j'));
    r.key(key('u'));
    assert.equal(acts.calls.at(-1), ['mark-attention', { action: 'unread', window: 'b' }]);
    r.key(key('x'));
    await new Promise((res) => setImmediate(res));
    assert.equal(acts.calls.at(-1), ['cancel-queued', { id: 'q2' }], 'x drops the newest message still waiting');
    assert.is(acts.said.at(-1), 'Dropped 1 queued message to b. u undoes.');
    assert.ok(r.keyState().undoDrop);
    r.key(key('u'));
    assert.equal(acts.calls.at(-1), ['queue-prompt', { window: 'b', text: 'second' }], 'u puts it back');
    r.key(key('z'));
    r.key(key('r'));
    r.key(key('v'));
    assert.equal(acts.opened, ['snooze:b', 'reply:b', 'review:b']);
    assert.ok(r.focused);
    assert.ok(r.key(key('Enter')));
    assert.equal(went, ['b'], 'enter goes to the pane');
    assert.not.ok(r.focused, 'and gives the keyboard back');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
