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

const key = (name: string) => ({ t: 'key' as const, name, raw: name });
const press = (x: number, y: number) => ({ t: 'mouse' as const, raw: '', button: 0, x, y, release: false });

test('sort clicks and keys, row clicks, and the keyboard', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rail-control-'));
  const svc = { paths: { stateDir: dir }, log: nullLogger } as unknown as Services;
  const went: string[] = [];
  try {
    assert.is(readRailOrder(svc), 'you', 'a rail that never picked an order is on you');
    const r = new RailControl(svc, { goTo: (id) => went.push(id), redraw: () => {} });
    r.width = 24;
    r.hits = { sort: { x: 8, y: 5, w: 3 }, rows: [{ y: 6, h: 2, windowId: 'lead' }, { y: 8, h: 2, windowId: 'lead' }] };
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
    assert.is(new RailControl(svc, { goTo: () => {}, redraw: () => {} }).order, 'rec', 'a saved order is kept');
    assert.ok(r.key(key('Esc')));
    assert.not.ok(r.focused);
    r.click(press(3, 20));
    assert.not.ok(r.key(key('x')), 'any other key lets go and still reaches the pane');
    assert.not.ok(r.focused);
    r.click(press(3, 20));
    assert.not.ok(r.click(press(40, 3)), 'a press in a pane is the pane\'s');
    assert.not.ok(r.focused, 'and the rail lets go');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
