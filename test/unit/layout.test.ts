// The tiling's pure functions (core/model/layout.ts): shares, the resize border rule
// (spec: pane.resize), edges, swaps and splits before the target.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tile, splitLeaf, removeLeaf, moveBorder, edges, swapLeaves, neighbour, leaves, type LayoutNode, type Rect } from '../../core/model/layout.js';
import { LAYOUT_MIN_TILE_CELLS } from '../../core/limits.js';

const AREA: Rect = { x: 0, y: 0, w: 100, h: 40 };
const pane = (id: string): LayoutNode => ({ kind: 'pane', id });
const row = (...ids: string[]): LayoutNode => ({ kind: 'split', dir: 'row', children: ids.map(pane) });

test('tile: children share a split evenly, or by their shares', () => {
  const t = tile(row('a', 'b'), AREA);
  assert.equal(t.get('a'), { x: 0, y: 0, w: 50, h: 40 });
  assert.equal(t.get('b'), { x: 50, y: 0, w: 50, h: 40 });
  const shared = tile({ kind: 'split', dir: 'row', children: [pane('a'), pane('b')], sizes: [0.3, 0.7] }, AREA);
  assert.equal(shared.get('a')!.w, 30);
  assert.equal(shared.get('b'), { x: 30, y: 0, w: 70, h: 40 });
});

test('moveBorder: right moves the pane\'s right border right by the cells given', () => {
  const next = moveBorder(row('a', 'b'), 'a', 'right', 5, AREA)!;
  const t = tile(next, AREA);
  assert.equal([t.get('a')!.w, t.get('b')!.x, t.get('b')!.w], [55, 55, 45]);
});

test('moveBorder: at the edge of the tab on that side, the other border moves', () => {
  // b is at the right edge: right moves its left border right, so b shrinks.
  const t = tile(moveBorder(row('a', 'b'), 'b', 'right', 5, AREA)!, AREA);
  assert.equal([t.get('a')!.w, t.get('b')!.w], [55, 45]);
  // a is at the left edge: left moves its right border left.
  const u = tile(moveBorder(row('a', 'b'), 'a', 'left', 5, AREA)!, AREA);
  assert.equal([u.get('a')!.w, u.get('b')!.w], [45, 55]);
  // b's own left border, moved left: b grows.
  const v = tile(moveBorder(row('a', 'b'), 'b', 'left', 10, AREA)!, AREA);
  assert.equal([v.get('a')!.w, v.get('b')!.w], [40, 60]);
});

test('moveBorder: the nearest border on that side, in a nested split; up and down in a column', () => {
  // a | (b over c): c's up border is between b and c; its right is the tab's edge, so right moves a|(b,c).
  const tree: LayoutNode = { kind: 'split', dir: 'row', children: [pane('a'), { kind: 'split', dir: 'column', children: [pane('b'), pane('c')] }] };
  const up = tile(moveBorder(tree, 'c', 'up', 4, AREA)!, AREA);
  assert.equal([up.get('b')!.h, up.get('c')!.y, up.get('c')!.h], [16, 16, 24]);
  assert.equal(up.get('a')!.w, 50);
  const right = tile(moveBorder(tree, 'c', 'right', 10, AREA)!, AREA);
  assert.equal([right.get('a')!.w, right.get('c')!.w, right.get('b')!.w], [60, 40, 40]);
});

test('moveBorder: no pane shrinks past its frame and a cell; nothing to move answers null', () => {
  const t = tile(moveBorder(row('a', 'b'), 'a', 'right', 1000, AREA)!, AREA);
  assert.equal(t.get('b')!.w, LAYOUT_MIN_TILE_CELLS);
  // Already held there: no change.
  assert.is(moveBorder(moveBorder(row('a', 'b'), 'a', 'right', 1000, AREA), 'a', 'right', 1, AREA), null);
  // One pane, or no border across that axis.
  assert.is(moveBorder(pane('a'), 'a', 'right', 5, AREA), null);
  assert.is(moveBorder(row('a', 'b'), 'a', 'up', 5, AREA), null);
  assert.is(moveBorder(row('a', 'b'), 'a', 'right', 0, AREA), null);
  assert.is(moveBorder(row('a', 'b'), 'zz', 'right', 5, AREA), null);
});

test('moveBorder: a child that is itself split keeps room for each of its panes', () => {
  const tree: LayoutNode = { kind: 'split', dir: 'row', children: [pane('a'), row('b', 'c')] };
  const t = tile(moveBorder(tree, 'a', 'right', 1000, AREA)!, AREA);
  assert.equal(t.get('b')!.w + t.get('c')!.w, 2 * LAYOUT_MIN_TILE_CELLS);
});

test('edges: a side with no neighbour is an edge', () => {
  const tree: LayoutNode = { kind: 'split', dir: 'row', children: [pane('a'), { kind: 'split', dir: 'column', children: [pane('b'), pane('c')] }] };
  const t = tile(tree, AREA);
  assert.equal(edges(t, 'a'), { left: true, right: false, up: true, down: true });
  assert.equal(edges(t, 'b'), { left: false, right: true, up: true, down: false });
  assert.equal(edges(t, 'c'), { left: false, right: true, up: false, down: true });
  // Panes that each fill the screen (no client) have no neighbour: every side is an edge.
  const full = new Map([['a', AREA], ['b', AREA]]);
  assert.equal(edges(full, 'a'), { left: true, right: true, up: true, down: true });
});

test('swapLeaves: two panes trade places and shares', () => {
  const tree: LayoutNode = { kind: 'split', dir: 'row', children: [pane('a'), pane('b')], sizes: [0.25, 0.75] };
  const t = tile(swapLeaves(tree, 'a', 'b'), AREA);
  assert.equal([t.get('b')!.x, t.get('b')!.w, t.get('a')!.x], [0, 25, 25]);
});

test('splitLeaf: left and up put the new pane before the target; a shared split halves the target\'s share', () => {
  const left = tile(splitLeaf(pane('a'), 'a', 'n', 'row', true), AREA);
  assert.is(neighbour(left, 'a', 'left'), 'n');
  const up = tile(splitLeaf(pane('a'), 'a', 'n', 'column', true), AREA);
  assert.is(neighbour(up, 'a', 'up'), 'n');
  const shared: LayoutNode = { kind: 'split', dir: 'row', children: [pane('a'), pane('b')], sizes: [0.6, 0.4] };
  const t = tile(splitLeaf(shared, 'a', 'n', 'row'), AREA);
  assert.equal([t.get('a')!.w, t.get('n')!.w, t.get('b')!.w], [30, 30, 40]);
});

test('removeLeaf: the others keep their shares, scaled to the whole', () => {
  const tree: LayoutNode = { kind: 'split', dir: 'row', children: [pane('a'), pane('b'), pane('c')], sizes: [0.5, 0.25, 0.25] };
  const next = removeLeaf(tree, 'b')!;
  assert.equal(leaves(next), ['a', 'c']);
  const t = tile(next, AREA);
  assert.equal([t.get('a')!.w, t.get('c')!.w], [66, 34]);
});

test.run();
