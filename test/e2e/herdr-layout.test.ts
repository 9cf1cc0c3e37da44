// herdr's pane layout methods against a real daemon (spec: herdr compatibility, Methods; Where
// tuios differs from herdr): first with no client attached (each pane fills the screen, no
// neighbours, no_client for a swap or a resize, no_foreground_client for a title), then with a
// real `tuios attach` in a terminal (tmux, 160x48), whose pane area the rectangles are in.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TestDaemon, BIN } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { Terminal } from '../helpers/terminal.js';
import { herdrErr, herdrOk, herdrFromPane, herdrSocketOf, herdrWsId, herdrPaneIdOf, herdrWin, herdrPaneOf, type HerdrWin } from '../helpers/herdr-client.js';

let d: TestDaemon;
let sock: string;
let term: Terminal | null = null;

interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}
interface Layout {
  workspace_id: string;
  tab_id: string;
  zoomed: boolean;
  area: Rect;
  focused_pane_id: string;
  panes: Array<{ pane_id: string; focused: boolean; rect: Rect }>;
  splits: unknown[];
}

async function layoutOf(name: string): Promise<Layout> {
  return (await herdrOk<{ layout: Layout }>(sock, 'pane.layout', { pane_id: await herdrPaneOf(d, name) })).layout;
}
function rectOf(l: Layout, id: string): Rect {
  const p = l.panes.find((x) => x.pane_id === id);
  if (!p) throw new Error(`${id} is not in the layout`);
  return p.rect;
}

test.before(async () => {
  d = await TestDaemon.start();
  sock = herdrSocketOf(d);
  await d.ok(['new-session', 'lay', '-n', 'a', 'cat', '-v']);
});

test.after(async () => {
  term?.kill();
  await d.stop();
});

// ---- no client attached ----

test('no client: each pane fills the screen, splits is empty, no neighbour, every side an edge', async () => {
  await d.ok(['new-window', '-s', 'lay', 'b', 'cat', '-v']);
  const a = await herdrPaneOf(d, 'a');
  const l = await layoutOf('a');
  assert.is(l.panes.length, 2);
  assert.equal(l.splits, []);
  for (const p of l.panes) assert.equal(p.rect, { x: 0, y: 0, width: 80, height: 24 });
  assert.equal(l.area, { x: 0, y: 0, width: 80, height: 24 });
  const n = await herdrOk<{ type: string; neighbor: { pane_id: string; direction: string; neighbor_pane_id?: string } }>(sock, 'pane.neighbor', { pane_id: a, direction: 'right' });
  assert.is(n.type, 'pane_neighbor');
  assert.equal([n.neighbor.pane_id, n.neighbor.direction, n.neighbor.neighbor_pane_id], [a, 'right', undefined]);
  const e = await herdrOk<{ type: string; edges: Record<string, unknown> }>(sock, 'pane.edges', { pane_id: a });
  assert.is(e.type, 'pane_edges');
  assert.equal([e.edges.left, e.edges.right, e.edges.up, e.edges.down], [true, true, true, true]);
  const f = await herdrOk<{ focus: { changed: boolean; reason: string } }>(sock, 'pane.focus_direction', { pane_id: a, direction: 'right' });
  assert.equal([f.focus.changed, f.focus.reason], [false, 'no_neighbor']);
  // The snapshot gives the same rectangles.
  const s = await herdrOk<{ layouts: Layout[] }>(sock, 'session.snapshot');
  assert.equal(s.layouts.find((x) => x.tab_id === l.tab_id)!.panes.map((p) => p.rect.width), [80, 80]);
});

test('no client: pane.swap and pane.resize fail with no_client; a title changes nothing', async () => {
  const a = await herdrPaneOf(d, 'a');
  assert.is((await herdrErr(sock, 'pane.swap', { pane_id: a, direction: 'right' })).code, 'no_client');
  assert.is((await herdrErr(sock, 'pane.swap', { source_pane_id: a, target_pane_id: await herdrPaneOf(d, 'b') })).code, 'no_client');
  assert.is((await herdrErr(sock, 'pane.resize', { pane_id: a, direction: 'right' })).code, 'no_client');
  const t = await herdrOk<{ type: string; changed: boolean; reason: string }>(sock, 'client.window_title.set', { title: 'build' });
  assert.equal(t, { type: 'client_window_title', changed: false, reason: 'no_foreground_client' });
  const c = await herdrOk<{ changed: boolean; reason: string }>(sock, 'client.window_title.clear');
  assert.equal([c.changed, c.reason], [false, 'no_foreground_client']);
});

test('no client: pane.split opens a window on the target pane\'s workspace; env TUIOS_* and TMUX are refused', async () => {
  const a = await herdrWin(d, 'a');
  const r = await herdrOk<{ type: string; pane: { pane_id: string; tab_id: string } }>(sock, 'pane.split', { target_pane_id: herdrPaneIdOf(a), direction: 'right', env: { LAYOUT_SPLIT: 'one' } });
  assert.is(r.type, 'pane_info');
  assert.is(r.pane.tab_id, `${herdrWsId(a.session_id)}:t1`);
  const made = (await d.json<{ windows: HerdrWin[] }>(['list-windows'])).windows.find((w) => herdrPaneIdOf(w) === r.pane.pane_id)!;
  assert.is(made.workspace, a.workspace);
  assert.is((await layoutOf('a')).panes.length, 3);
  for (const env of [{ TUIOS_WINDOW_ID: 'x' }, { TMUX: 'x' }, { TMUX_PANE: '%1' }]) {
    assert.is((await herdrErr(sock, 'pane.split', { target_pane_id: herdrPaneIdOf(a), direction: 'right', env })).code, 'invalid_params');
  }
  assert.is((await herdrErr(sock, 'pane.split', { target_pane_id: herdrPaneIdOf(a) })).code, 'invalid_request');
  assert.is((await herdrErr(sock, 'pane.split', { target_pane_id: herdrPaneIdOf(a), direction: 'sideways' })).code, 'invalid_request');
  assert.is((await herdrErr(sock, 'pane.split', { target_pane_id: 'w000000000000:p000000000000', direction: 'down' })).code, 'pane_not_found');
  assert.is((await layoutOf('a')).panes.length, 3);
  await d.ok(['close-window', '-w', made.id]);
});

test('pane.zoom: focuses the pane first; on, off, toggle; single_pane, already_zoomed, already_unzoomed', async () => {
  const a = await herdrPaneOf(d, 'a');
  const b = await herdrPaneOf(d, 'b');
  type Z = { type: string; zoom: { changed: boolean; zoom_changed: boolean; focus_changed: boolean; reason?: string; pane_id: string; focused_pane_id: string; zoomed: boolean; layout: Layout } };
  const on = await herdrOk<Z>(sock, 'pane.zoom', { pane_id: b, mode: 'on' });
  assert.is(on.type, 'pane_zoom');
  assert.equal([on.zoom.changed, on.zoom.zoom_changed, on.zoom.zoomed, on.zoom.reason, on.zoom.focused_pane_id], [true, true, true, undefined, b]);
  assert.ok(on.zoom.layout.zoomed);
  assert.ok((await herdrWin(d, 'b')).focused);
  assert.is((await herdrOk<Z>(sock, 'pane.zoom', { pane_id: b, mode: 'on' })).zoom.reason, 'already_zoomed');
  // A zoom on a focuses it, and b's zoom ends: one zoomed pane per workspace.
  const other = await herdrOk<Z>(sock, 'pane.zoom', { pane_id: a });
  assert.equal([other.zoom.zoomed, other.zoom.focus_changed, other.zoom.zoom_changed], [true, true, true]);
  assert.ok((await herdrWin(d, 'a')).focused);
  const off = await herdrOk<Z>(sock, 'pane.zoom', { pane_id: a, mode: 'off' });
  assert.equal([off.zoom.zoomed, off.zoom.changed], [false, true]);
  const again = await herdrOk<Z>(sock, 'pane.zoom', { pane_id: a, mode: 'off' });
  assert.equal([again.zoom.changed, again.zoom.reason], [false, 'already_unzoomed']);
  assert.is((await herdrErr(sock, 'pane.zoom', { pane_id: a, mode: 'sometimes' })).code, 'invalid_request');
  // A workspace of one pane.
  await d.ok(['new-window', '-s', 'lay', '--workspace', '3', 'solo', 'cat', '-v']);
  const solo = await herdrOk<Z>(sock, 'pane.zoom', { pane_id: await herdrPaneOf(d, 'solo') });
  assert.equal([solo.zoom.zoomed, solo.zoom.reason], [false, 'single_pane']);
  await d.ok(['close-window', '-w', 'solo']);
  await d.ok(['select-window', '-w', 'a']);
});

/** A pane holding read and write but not admin, on workspace 2 (out of workspace 1's layout). */
let writer = '';

test('grants: a pane holding write but not admin may not split, zoom, swap, resize or set the title', async () => {
  writer = (await d.call<{ id: string }>('new-window', { session: 'lay', name: 'writer', argv: ['sh'], grants: ['read', 'write'], workspace: 2 })).id;
  await d.waitScreen(writer, /[$#] ?$/m);
  await d.ok(['select-window', '-w', 'a']);
  const a = await herdrPaneOf(d, 'a');
  const before = (await d.json<{ windows: HerdrWin[] }>(['list-windows'])).windows.length;
  for (const [method, params] of [
    ['pane.split', { target_pane_id: a, direction: 'right' }],
    ['pane.zoom', { pane_id: a, mode: 'on' }],
    ['pane.swap', { pane_id: a, direction: 'right' }],
    ['pane.resize', { pane_id: a, direction: 'right' }],
    ['client.window_title.set', { title: 'x' }],
  ] as Array<[string, Record<string, unknown>]>) {
    const r = await herdrFromPane(d, writer, method, params);
    assert.is(r.error?.code, 'forbidden', `${method}: ${JSON.stringify(r)}`);
  }
  assert.is((await d.json<{ windows: HerdrWin[] }>(['list-windows'])).windows.length, before);
  assert.not.ok((await layoutOf('a')).zoomed);
  // A read of the layout needs read only.
  const read = await herdrFromPane(d, writer, 'pane.edges', { pane_id: a });
  assert.is((read.result as { type: string }).type, 'pane_edges');
});

// ---- a client attached ----

test('with a client: the rectangles are the client\'s pane area; the snapshot gives them too', async () => {
  term = new Terminal(d.env, `${process.execPath} ${BIN} attach -s lay`, 160, 48);
  await term.wait(/┌─ a /, 'the tile of a');
  const l = await waitFor(async () => {
    const x = await layoutOf('a');
    return x.area.width < 160 && x.area.width > 80 ? x : null;
  }, { what: 'the client\'s area in the layout' });
  // Right of the rail, above the status line.
  assert.equal([l.area.y, l.area.height, l.area.x + l.area.width], [0, 47, 160]);
  const ra = rectOf(l, await herdrPaneOf(d, 'a'));
  const rb = rectOf(l, await herdrPaneOf(d, 'b'));
  assert.ok(ra.x + ra.width <= rb.x || rb.x + rb.width <= ra.x || ra.y + ra.height <= rb.y || rb.y + rb.height <= ra.y, 'the tiles do not overlap');
  assert.is(ra.width * ra.height + rb.width * rb.height, l.area.width * l.area.height);
  const s = await herdrOk<{ layouts: Layout[] }>(sock, 'session.snapshot');
  assert.equal(s.layouts.find((x) => x.tab_id === l.tab_id)!.area, l.area);
});

test('with a client: pane.split puts the new pane beside the pane it was cut from, at once; left and up go before it', async () => {
  const a = await herdrPaneOf(d, 'a');
  const r = await herdrOk<{ pane: { pane_id: string } }>(sock, 'pane.split', { target_pane_id: a, direction: 'right', focus: true });
  // No wait: the answer comes when the layout shows it.
  const n = await herdrOk<{ neighbor: { neighbor_pane_id?: string } }>(sock, 'pane.neighbor', { pane_id: a, direction: 'right' });
  assert.is(n.neighbor.neighbor_pane_id, r.pane.pane_id);
  const l = await layoutOf('a');
  assert.is(l.focused_pane_id, r.pane.pane_id);
  assert.equal(rectOf(l, a).y, rectOf(l, r.pane.pane_id).y);
  const up = await herdrOk<{ pane: { pane_id: string } }>(sock, 'pane.split', { target_pane_id: a, direction: 'up' });
  const above = await herdrOk<{ neighbor: { neighbor_pane_id?: string } }>(sock, 'pane.neighbor', { pane_id: a, direction: 'up' });
  assert.is(above.neighbor.neighbor_pane_id, up.pane.pane_id);
  // Without focus the focus stays where it was.
  assert.is((await layoutOf('a')).focused_pane_id, r.pane.pane_id);
  await term!.wait(/┌─ sh /, 'the new tiles');
  for (const id of [r.pane.pane_id, up.pane.pane_id]) await herdrOk(sock, 'pane.close', { pane_id: id });
});

test('with a client: pane.split with cwd opens the pane beside the workspace\'s focused pane', async () => {
  const a = await herdrPaneOf(d, 'a');
  const b = await herdrPaneOf(d, 'b');
  await herdrOk(sock, 'pane.focus', { pane_id: b });
  const r = await herdrOk<{ pane: { pane_id: string } }>(sock, 'pane.split', { target_pane_id: a, direction: 'down', cwd: d.home });
  const under = await herdrOk<{ neighbor: { neighbor_pane_id?: string } }>(sock, 'pane.neighbor', { pane_id: b, direction: 'down' });
  assert.is(under.neighbor.neighbor_pane_id, r.pane.pane_id);
  await herdrOk(sock, 'pane.close', { pane_id: r.pane.pane_id });
  await herdrOk(sock, 'pane.focus', { pane_id: a });
});

test('with a client: a pane without admin may not focus a neighbour, swap or resize; nothing moves', async () => {
  const a = await herdrPaneOf(d, 'a');
  const before = await layoutOf('a');
  const dir = rectOf(before, a).x === before.area.x ? 'right' : 'left';
  for (const [method, params] of [
    ['pane.focus_direction', { pane_id: a, direction: dir }],
    ['pane.swap', { pane_id: a, direction: dir }],
    ['pane.resize', { pane_id: a, direction: 'right' }],
  ] as Array<[string, Record<string, unknown>]>) {
    const r = await herdrFromPane(d, writer, method, params);
    assert.is(r.error?.code, 'forbidden', `${method}: ${JSON.stringify(r)}`);
  }
  assert.equal(await layoutOf('a'), before);
  await d.ok(['close-window', '-w', writer]);
});

test('with a client: pane.neighbor, pane.edges and pane.focus_direction read the tiles', async () => {
  const a = await herdrPaneOf(d, 'a');
  const b = await herdrPaneOf(d, 'b');
  const l = await layoutOf('a');
  const leftOne = rectOf(l, a).x < rectOf(l, b).x ? a : b;
  const rightOne = leftOne === a ? b : a;
  const n = await herdrOk<{ neighbor: { neighbor_pane_id?: string; layout: Layout } }>(sock, 'pane.neighbor', { pane_id: leftOne, direction: 'right' });
  assert.is(n.neighbor.neighbor_pane_id, rightOne);
  const e = await herdrOk<{ edges: Record<string, boolean> }>(sock, 'pane.edges', { pane_id: leftOne });
  assert.equal([e.edges.left, e.edges.right, e.edges.up, e.edges.down], [true, false, true, true]);
  const f = await herdrOk<{ type: string; focus: { changed: boolean; source_pane_id: string; focused_pane_id: string } }>(sock, 'pane.focus_direction', { pane_id: leftOne, direction: 'right' });
  assert.is(f.type, 'pane_focus_direction');
  assert.equal([f.focus.changed, f.focus.source_pane_id, f.focus.focused_pane_id], [true, leftOne, rightOne]);
  assert.is((await layoutOf('a')).focused_pane_id, rightOne);
  const none = await herdrOk<{ focus: { changed: boolean; reason: string } }>(sock, 'pane.focus_direction', { pane_id: rightOne, direction: 'right' });
  assert.equal([none.focus.changed, none.focus.reason], [false, 'no_neighbor']);
});

test('with a client: pane.swap by direction and by ids; the source keeps the focus; each reason', async () => {
  const a = await herdrPaneOf(d, 'a');
  const b = await herdrPaneOf(d, 'b');
  const before = await layoutOf('a');
  const dir = rectOf(before, a).x < rectOf(before, b).x ? 'right' : 'left';
  type S = { type: string; swap: { changed: boolean; reason?: string; source_pane_id: string; target_pane_id?: string; focused_pane_id: string; layout: Layout } };
  const s = await herdrOk<S>(sock, 'pane.swap', { pane_id: a, direction: dir });
  assert.is(s.type, 'pane_swap');
  assert.equal([s.swap.changed, s.swap.source_pane_id, s.swap.target_pane_id, s.swap.focused_pane_id], [true, a, b, a]);
  assert.equal(rectOf(s.swap.layout, a), rectOf(before, b));
  assert.equal(rectOf(s.swap.layout, b), rectOf(before, a));
  const back = await herdrOk<S>(sock, 'pane.swap', { source_pane_id: a, target_pane_id: b });
  assert.equal(rectOf(back.swap.layout, a), rectOf(before, a));
  assert.equal((await herdrOk<S>(sock, 'pane.swap', { pane_id: a, direction: 'up' })).swap.reason, 'no_neighbor');
  assert.equal((await herdrOk<S>(sock, 'pane.swap', { source_pane_id: a, target_pane_id: a })).swap.reason, 'same_pane');
  assert.equal((await herdrOk<S>(sock, 'pane.swap', { source_pane_id: a, target_pane_id: 'w000000000000:p000000000000' })).swap.reason, 'not_found');
  await d.ok(['new-window', '-s', 'lay', '--workspace', '2', 'far', 'cat', '-v']);
  const cross = await herdrOk<S>(sock, 'pane.swap', { source_pane_id: a, target_pane_id: await herdrPaneOf(d, 'far') });
  assert.equal([cross.swap.changed, cross.swap.reason], [false, 'cross_tab']);
  await d.ok(['close-window', '-w', 'far']);
  assert.is((await herdrErr(sock, 'pane.swap', { pane_id: a })).code, 'invalid_pane_swap');
  assert.is((await herdrErr(sock, 'pane.swap', { pane_id: a, direction: 'right', target_pane_id: b })).code, 'invalid_pane_swap');
  assert.equal(rectOf(await layoutOf('a'), a), rectOf(before, a));
});

test('with a client: pane.resize moves one border by a share of the tab (0.05, 0.5 at most, a cell at least); unchanged when nothing moves', async () => {
  const a = await herdrPaneOf(d, 'a');
  const b = await herdrPaneOf(d, 'b');
  const l0 = await layoutOf('a');
  const [left, right] = rectOf(l0, a).x < rectOf(l0, b).x ? [a, b] : [b, a];
  const W = l0.area.width;
  type R = { type: string; resize: { changed: boolean; reason?: string; pane_id: string; layout: Layout } };
  const w0 = rectOf(l0, left).width;
  // The default share: 0.05 of the tab's width.
  const r1 = await herdrOk<R>(sock, 'pane.resize', { pane_id: left, direction: 'right' });
  assert.is(r1.type, 'pane_resize');
  assert.ok(r1.resize.changed);
  assert.is(rectOf(r1.resize.layout, left).width, w0 + Math.round(0.05 * W));
  // At the tab's right edge, right moves the pane's other border: the right pane shrinks.
  const r2 = await herdrOk<R>(sock, 'pane.resize', { pane_id: right, direction: 'right', amount: 0.1 });
  assert.is(rectOf(r2.resize.layout, left).width, w0 + Math.round(0.05 * W) + Math.round(0.1 * W));
  // Back to the start: left on the left pane moves its right border left.
  const r3 = await herdrOk<R>(sock, 'pane.resize', { pane_id: left, direction: 'left', amount: 0.15 });
  assert.is(rectOf(r3.resize.layout, left).width, w0 + Math.round(0.05 * W) + Math.round(0.1 * W) - Math.round(0.15 * W));
  // A tiny amount moves one cell; a large one is cut to 0.5 of the tab, and no pane shrinks past its frame.
  const w3 = rectOf(r3.resize.layout, left).width;
  const r4 = await herdrOk<R>(sock, 'pane.resize', { pane_id: left, direction: 'right', amount: 0.0001 });
  assert.is(rectOf(r4.resize.layout, left).width, w3 + 1);
  const r5 = await herdrOk<R>(sock, 'pane.resize', { pane_id: left, direction: 'left', amount: 0.9 });
  assert.is(rectOf(r5.resize.layout, left).width, Math.max(3, w3 + 1 - Math.round(0.5 * W)));
  // No border across the tab's height: unchanged.
  const r6 = await herdrOk<R>(sock, 'pane.resize', { pane_id: left, direction: 'up' });
  assert.equal([r6.resize.changed, r6.resize.reason], [false, 'unchanged']);
  // A zoomed tab moves no border.
  await herdrOk(sock, 'pane.zoom', { pane_id: left, mode: 'on' });
  const r7 = await herdrOk<R>(sock, 'pane.resize', { pane_id: left, direction: 'right' });
  assert.equal([r7.resize.changed, r7.resize.reason], [false, 'unchanged']);
  await herdrOk(sock, 'pane.zoom', { pane_id: left, mode: 'off' });
  assert.is((await herdrErr(sock, 'pane.resize', { pane_id: left, direction: 'right', amount: 'lots' })).code, 'invalid_request');
  // The client draws the new widths: the right tile's frame starts where the left one's ends.
  const wl = rectOf(await layoutOf('a'), left).width;
  await waitFor(() => {
    const body = Array.from(term!.screen().split('\n')[0]!).slice(160 - W);
    return body[0] === '┌' && body[wl] === '┌' && body[wl - 1] === '┐' ? true : null;
  }, { what: `the left tile drawn ${wl} wide` });
});

test('with a client: client.window_title.set and .clear reach the client\'s terminal; control characters out, cut to 256', async () => {
  const t = await herdrOk<{ type: string; changed: boolean; reason: string }>(sock, 'client.window_title.set', { title: 'build\x07 done\x1b]2;evil' });
  assert.equal(t, { type: 'client_window_title', changed: true, reason: 'set' });
  await waitFor(() => (term!.tmux(['display', '-p', '-t', 't', '#{pane_title}']).trim() === 'build done]2;evil' ? true : null), { what: 'the terminal title' });
  await herdrOk(sock, 'client.window_title.set', { title: 'x'.repeat(300) });
  await waitFor(() => (term!.tmux(['display', '-p', '-t', 't', '#{pane_title}']).trim() === 'x'.repeat(256) ? true : null), { what: 'the title cut to 256' });
  const c = await herdrOk<{ changed: boolean; reason: string }>(sock, 'client.window_title.clear');
  assert.equal([c.changed, c.reason], [true, 'cleared']);
  assert.is((await herdrErr(sock, 'client.window_title.set', {})).code, 'invalid_request');
});

test('the methods answer, none unsupported any more', async () => {
  for (const m of ['pane.split', 'pane.neighbor', 'pane.edges', 'pane.focus_direction', 'pane.swap', 'pane.zoom', 'pane.resize', 'client.window_title.set', 'client.window_title.clear']) {
    const e = await herdrErr(sock, m, { pane_id: 'w000000000000:p000000000000', direction: 'up', source_pane_id: 'w000000000000:p000000000000', target_pane_id: 'w000000000000:p000000000000', target: 'x' }).catch(() => ({ code: 'ok' }));
    assert.is.not(e.code, 'unsupported', m);
  }
});

test.run();
