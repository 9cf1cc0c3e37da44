// The layout from the command lines: herdr's (pane split, neighbor, edges, focus --direction,
// swap, zoom, resize, terminal title) through the herdr link to tuios, and tuios's own verbs
// (get-layout, split-window, zoom-window, swap-window, resize-tile, set-client-title) with --json
// and without, against a real daemon with and without an attached client.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { TestDaemon, BIN } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { Terminal } from '../helpers/terminal.js';
import { herdrPaneIdOf, herdrWin, herdrCli, herdrCliJson } from '../helpers/herdr-client.js';
import type { z } from 'zod';
import type { layoutResultSchema } from '../../core/verbs/layout.js';

let d: TestDaemon;
let term: Terminal | null = null;

type Layout = z.infer<typeof layoutResultSchema>;
const tileOf = (l: Layout, id: string) => l.panes.find((p) => p.window_id === id)!;

test.before(async () => {
  d = await TestDaemon.start();
  await d.ok(['new-session', 'cli', '-n', 'a', 'cat', '-v']);
  await d.ok(['new-window', '-s', 'cli', 'b', 'cat', '-v']);
});

test.after(async () => {
  term?.kill();
  await d.stop();
});

test('tuios verbs without a client: get-layout fills the screen; swap-window and resize-tile fail with no_client; set-client-title changes nothing', async () => {
  const l = await d.json<Layout>(['get-layout', '-s', 'cli']);
  assert.equal([l.client_id, l.area, l.workspace], [null, null, 1]);
  assert.equal(l.panes.map((p) => [p.x, p.y, p.w, p.h]), [[0, 0, 80, 24], [0, 0, 80, 24]]);
  for (const args of [['swap-window', '-w', 'a', '--direction', 'right'], ['resize-tile', '-w', 'a', '--direction', 'right']]) {
    const r = await d.cli(args);
    assert.is(r.code, 1, args.join(' '));
    assert.match(r.stderr, /no_client|No tuios client is attached/);
  }
  const t = await d.json<{ changed: boolean; reason: string }>(['set-client-title', 'hello']);
  assert.equal([t.changed, t.reason], [false, 'no_foreground_client']);
  // Bad input: a share past 0.5, neither or both of --direction and --with, a title and --clear.
  for (const args of [['resize-tile', '-w', 'a', '--direction', 'right', '--amount', '0.6'], ['swap-window', '-w', 'a'], ['swap-window', '-w', 'a', '--direction', 'up', '--with', 'b'], ['set-client-title', 'x', '--clear'], ['set-client-title']]) {
    const r = await d.cli([...args, '--json']);
    assert.is(r.code, 1, args.join(' '));
    assert.match(r.stderr, /invalid_params/, args.join(' '));
  }
});

test('tuios verbs: zoom-window (toggle, on, off and its reasons) and split-window, printed and as JSON', async () => {
  assert.is((await d.ok(['zoom-window', '-w', 'b'])).trim(), 'zoomed');
  assert.is((await d.ok(['zoom-window', '-w', 'b', '--mode', 'on'])).trim(), 'unchanged: already_zoomed');
  const off = await d.json<{ zoomed: boolean; changed: boolean }>(['zoom-window', '-w', 'b', '--mode', 'off']);
  assert.equal([off.zoomed, off.changed], [false, true]);
  // No client: the new pane goes beside the workspace's focused pane (b, which the zoom focused).
  const b = await herdrWin(d, 'b');
  // --json goes before the command, which takes every word after it.
  const s = JSON.parse(await d.ok(['split-window', '--json', '-w', 'a', '--direction', 'down', '--name', 'under', 'cat', '-v'])) as { window: { id: string; workspace: number }; from: string; direction: string };
  assert.equal([s.from, s.direction, s.window.workspace], [b.id, 'down', 1]);
  assert.is((await herdrWin(d, 'under')).id, s.window.id);
  const printed = (await d.ok(['split-window', '-w', 'a', '--name', 'beside', 'cat', '-v'])).trim();
  assert.is(printed, (await herdrWin(d, 'beside')).id);
  for (const n of ['under', 'beside']) await d.ok(['close-window', '-w', n]);
  const l = await d.ok(['get-layout', '-s', 'cli']);
  assert.is(l.trim().split('\n').length, 2);
});

test('with a client: tuios get-layout, swap-window, resize-tile and set-client-title', async () => {
  term = new Terminal(d.env, `${process.execPath} ${BIN} attach -s cli`, 160, 48);
  await term.wait(/┌─ a /, 'the tile of a');
  const l = await waitFor(async () => {
    const x = await d.json<Layout>(['get-layout', '-s', 'cli']);
    return x.client_id !== null ? x : null;
  }, { what: 'the client in get-layout' });
  const a = await herdrWin(d, 'a');
  const b = await herdrWin(d, 'b');
  assert.equal([l.area!.y, l.area!.h, l.area!.x + l.area!.w], [0, 47, 160]);
  const [left, right] = tileOf(l, a.id).x < tileOf(l, b.id).x ? [a, b] : [b, a];
  const sw = await d.json<{ changed: boolean; with: string }>(['swap-window', '-w', left.id, '--with', right.id]);
  assert.equal([sw.changed, sw.with], [true, right.id]);
  const after = await d.json<Layout>(['get-layout', '-s', 'cli']);
  assert.is(tileOf(after, left.id).x, tileOf(l, right.id).x);
  const w0 = tileOf(after, left.id).w;
  // left is now at the tab's right edge: right moves its other border, so it shrinks by 0.1 of the tab.
  const r = await d.json<{ changed: boolean }>(['resize-tile', '-w', left.id, '--direction', 'right', '--amount', '0.1']);
  assert.ok(r.changed);
  assert.is(tileOf(await d.json<Layout>(['get-layout', '-s', 'cli']), left.id).w, w0 - Math.round(0.1 * l.area!.w));
  assert.is((await d.ok(['set-client-title', 'from tuios'])).trim(), 'set');
  await waitFor(() => (term!.tmux(['display', '-p', '-t', 't', '#{pane_title}']).trim() === 'from tuios' ? true : null), { what: 'the title' });
  assert.is((await d.ok(['set-client-title', '--clear'])).trim(), 'cleared');
});

test('herdr\'s command line: pane split, neighbor, edges, focus --direction, swap, zoom, resize, terminal title', async () => {
  const a = herdrPaneIdOf(await herdrWin(d, 'a'));
  const b = herdrPaneIdOf(await herdrWin(d, 'b'));
  const split = await herdrCliJson<{ pane: { pane_id: string } }>(d, ['pane', 'split', '--pane', a, '--direction', 'down', '--focus']);
  const n = await herdrCliJson<{ neighbor: { neighbor_pane_id?: string } }>(d, ['pane', 'neighbor', '--pane', a, '--direction', 'down']);
  assert.is(n.neighbor.neighbor_pane_id, split.pane.pane_id);
  const e = await herdrCliJson<{ edges: Record<string, boolean> }>(d, ['pane', 'edges', '--pane', split.pane.pane_id]);
  assert.equal([e.edges.up, e.edges.down], [false, true]);
  const f = await herdrCliJson<{ focus: { changed: boolean; focused_pane_id: string } }>(d, ['pane', 'focus', '--direction', 'up', '--pane', split.pane.pane_id]);
  assert.equal([f.focus.changed, f.focus.focused_pane_id], [true, a]);
  const s = await herdrCliJson<{ swap: { changed: boolean; target_pane_id: string } }>(d, ['pane', 'swap', '--source-pane', a, '--target-pane', b]);
  assert.equal([s.swap.changed, s.swap.target_pane_id], [true, b]);
  const z = await herdrCliJson<{ zoom: { zoomed: boolean } }>(d, ['pane', 'zoom', a, '--on']);
  assert.ok(z.zoom.zoomed);
  assert.not.ok((await herdrCliJson<{ zoom: { zoomed: boolean } }>(d, ['pane', 'zoom', '--pane', a, '--off'])).zoom.zoomed);
  const r = await herdrCliJson<{ resize: { changed: boolean } }>(d, ['pane', 'resize', '--pane', split.pane.pane_id, '--direction', 'up', '--amount', '0.1']);
  assert.ok(r.resize.changed);
  const t = await herdrCli(d, ['terminal', 'title', 'set', 'from herdr']);
  assert.is(t.code, 0);
  assert.equal(JSON.parse(t.stdout).result, { type: 'client_window_title', changed: true, reason: 'set' });
  await waitFor(() => (term!.tmux(['display', '-p', '-t', 't', '#{pane_title}']).trim() === 'from herdr' ? true : null), { what: 'the title' });
  assert.is((await herdrCliJson<{ reason: string }>(d, ['terminal', 'title', 'clear'])).reason, 'cleared');
  // The focus by pane id still works; a wrong command prints the usage, exit 2.
  assert.is((await herdrCli(d, ['pane', 'focus', b])).code, 0);
  for (const args of [['pane', 'split', '--pane', a], ['pane', 'neighbor', '--direction', 'sideways'], ['pane', 'resize', '--direction', 'up', '--amount', 'lots'], ['pane', 'zoom', '--on', '--off'], ['terminal', 'title']]) {
    const bad = await herdrCli(d, args);
    assert.is(bad.code, 2, args.join(' '));
  }
  await herdrCliJson(d, ['pane', 'close', split.pane.pane_id]);
});

test.run();
