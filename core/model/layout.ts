// The tiling of a workspace: a tree of splits whose leaves are windows. The tree is session state
// (every client of a session sees the same tiling, as in tmux), kept on Session.layouts, and
// follows the model: a window of the workspace that the tree lacks is added, a leaf whose window
// left is removed. A client lays the tree out in its own pane area; the shares of a split are
// fractions, so one tree fits every client's size. Everything here is pure but layoutOf.
import { LAYOUT_MIN_TILE_CELLS } from '../limits.js';

/** A rectangle in cells. */
export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

export type Dir = 'row' | 'column';
export type Direction = 'left' | 'right' | 'up' | 'down';

/**
 * `sizes`: each child's share of the split's length (summing to 1); absent, the children share it
 * evenly. A resize sets it.
 */
export type LayoutNode = { kind: 'pane'; id: string } | { kind: 'split'; dir: Dir; children: LayoutNode[]; sizes?: number[] };

export interface WorkspaceLayout {
  root: LayoutNode | null;
  /** The zoomed window: it takes the whole pane area. */
  zoomed: string | null;
}

/** The layout of a session's workspace, made on first use. */
export function layoutOf(s: { readonly layouts: Map<number, WorkspaceLayout> }, workspace: number): WorkspaceLayout {
  let l = s.layouts.get(workspace);
  if (!l) {
    l = { root: null, zoomed: null };
    s.layouts.set(workspace, l);
  }
  return l;
}

export function leaves(n: LayoutNode | null, out: string[] = []): string[] {
  if (!n) return out;
  if (n.kind === 'pane') out.push(n.id);
  else for (const c of n.children) leaves(c, out);
  return out;
}

function sharesOf(n: Extract<LayoutNode, { kind: 'split' }>): number[] {
  const k = n.children.length;
  return n.sizes && n.sizes.length === k ? n.sizes : n.children.map(() => 1 / k);
}

/** Shares scaled back to a sum of 1 (after a child left or came). */
function normal(sizes: number[]): number[] {
  const sum = sizes.reduce((a, b) => a + b, 0);
  return sum > 0 ? sizes.map((s) => s / sum) : sizes.map(() => 1 / sizes.length);
}

/** Removes a window's leaf; a split left with one child becomes that child. */
export function removeLeaf(n: LayoutNode | null, id: string): LayoutNode | null {
  if (!n) return null;
  if (n.kind === 'pane') return n.id === id ? null : n;
  const shares = sharesOf(n);
  const kept: Array<[LayoutNode, number]> = [];
  n.children.forEach((c, i) => {
    const r = removeLeaf(c, id);
    if (r) kept.push([r, shares[i]!]);
  });
  if (kept.length === 0) return null;
  if (kept.length === 1) return kept[0]![0];
  const out: LayoutNode = { kind: 'split', dir: n.dir, children: kept.map((k) => k[0]) };
  if (n.sizes) out.sizes = normal(kept.map((k) => k[1]));
  return out;
}

/**
 * Puts `newId` beside `targetId`: `row` side by side, `column` one above the other; after the
 * target (right, below), or before it with `before` (left, above). The two halve the target's place.
 */
export function splitLeaf(n: LayoutNode | null, targetId: string, newId: string, dir: Dir, before = false): LayoutNode {
  const leaf: LayoutNode = { kind: 'pane', id: newId };
  if (!n) return leaf;
  if (!leaves(n).includes(targetId)) return appendLeaf(n, newId);
  const walk = (node: LayoutNode): LayoutNode => {
    if (node.kind === 'pane') {
      if (node.id !== targetId) return node;
      return { kind: 'split', dir, children: before ? [leaf, node] : [node, leaf] };
    }
    const i = node.children.findIndex((c) => c.kind === 'pane' && c.id === targetId);
    if (i >= 0 && node.dir === dir) {
      const children = node.children.slice();
      const at = before ? i : i + 1;
      children.splice(at, 0, leaf);
      const out: LayoutNode = { ...node, children };
      if (node.sizes) {
        const sizes = sharesOf(node).slice();
        const half = sizes[i]! / 2;
        sizes[i] = half;
        sizes.splice(at, 0, half);
        out.sizes = sizes;
      }
      return out;
    }
    return { ...node, children: node.children.map(walk) };
  };
  return walk(n);
}

/** A window with no place yet: beside the rest, side by side at the top level. */
export function appendLeaf(n: LayoutNode | null, id: string): LayoutNode {
  const leaf: LayoutNode = { kind: 'pane', id };
  if (!n) return leaf;
  if (n.kind === 'split' && n.dir === 'row') {
    const out: LayoutNode = { ...n, children: [...n.children, leaf] };
    if (n.sizes) out.sizes = normal([...n.sizes, 1 / n.children.length]);
    return out;
  }
  return { kind: 'split', dir: 'row', children: [n, leaf] };
}

/**
 * A window with no place yet, in a layout drawn in `area`: it halves the largest tile along
 * that tile's longer side (a cell is about twice as tall as wide), so windows opened from the
 * command line tile into a grid rather than a row of slivers.
 */
export function placeLeaf(n: LayoutNode | null, id: string, area: Rect): LayoutNode {
  if (!n) return { kind: 'pane', id };
  let best: [string, Rect] | null = null;
  for (const [leafId, r] of tile(n, area)) if (!best || r.w * r.h > best[1].w * best[1].h) best = [leafId, r];
  if (!best) return appendLeaf(n, id);
  return splitLeaf(n, best[0], id, best[1].w >= best[1].h * 2 ? 'row' : 'column');
}

/** Makes the tree hold exactly `ids` (in model order for the ones it adds). */
export function reconcile(l: WorkspaceLayout, ids: string[], area: Rect): boolean {
  const want = new Set(ids);
  const have = leaves(l.root);
  let changed = false;
  for (const id of have) {
    if (!want.has(id)) {
      l.root = removeLeaf(l.root, id);
      changed = true;
    }
  }
  const now = new Set(leaves(l.root));
  for (const id of ids) {
    if (!now.has(id)) {
      l.root = placeLeaf(l.root, id, area);
      changed = true;
    }
  }
  if (l.zoomed && !want.has(l.zoomed)) {
    l.zoomed = null;
    changed = true;
  }
  return changed;
}

/** Where each child of a split starts along its axis, and where the last ends: k+1 cells. */
function bounds(n: Extract<LayoutNode, { kind: 'split' }>, total: number): number[] {
  const shares = sharesOf(n);
  const out = [0];
  let cum = 0;
  for (let i = 0; i < shares.length - 1; i++) {
    cum += shares[i]!;
    // The small bias keeps a share set from whole cells on its cell despite float error.
    out.push(Math.min(total, Math.max(out[i]!, Math.floor(total * cum + 1e-9))));
  }
  out.push(total);
  return out;
}

function childRect(n: Extract<LayoutNode, { kind: 'split' }>, r: Rect, b: number[], i: number): Rect {
  const at = b[i]!;
  const len = b[i + 1]! - at;
  return n.dir === 'row' ? { x: r.x + at, y: r.y, w: len, h: r.h } : { x: r.x, y: r.y + at, w: r.w, h: len };
}

/** The rectangle of every leaf inside `r`; children share a split's length by their shares. */
export function tile(n: LayoutNode | null, r: Rect, out = new Map<string, Rect>()): Map<string, Rect> {
  if (!n) return out;
  if (n.kind === 'pane') {
    out.set(n.id, r);
    return out;
  }
  const b = bounds(n, n.dir === 'row' ? r.w : r.h);
  n.children.forEach((c, i) => tile(c, childRect(n, r, b, i), out));
  return out;
}

/** The tile next to `from` in a direction: the nearest one that overlaps it across that axis. */
export function neighbour(tiles: Map<string, Rect>, from: string, d: Direction): string | null {
  const a = tiles.get(from);
  if (!a) return null;
  let best: string | null = null;
  let bestDist = Infinity;
  for (const [id, b] of tiles) {
    if (id === from) continue;
    const overlapY = b.y < a.y + a.h && a.y < b.y + b.h;
    const overlapX = b.x < a.x + a.w && a.x < b.x + b.w;
    let dist = Infinity;
    if (d === 'left' && overlapY && b.x + b.w <= a.x) dist = a.x - (b.x + b.w);
    if (d === 'right' && overlapY && b.x >= a.x + a.w) dist = b.x - (a.x + a.w);
    if (d === 'up' && overlapX && b.y + b.h <= a.y) dist = a.y - (b.y + b.h);
    if (d === 'down' && overlapX && b.y >= a.y + a.h) dist = b.y - (a.y + a.h);
    if (dist < bestDist) {
      bestDist = dist;
      best = id;
    }
  }
  return best;
}

/** Where a pane is at the edge of its tab: the sides with no neighbour. */
export function edges(tiles: Map<string, Rect>, id: string): Record<Direction, boolean> {
  return {
    left: neighbour(tiles, id, 'left') === null,
    right: neighbour(tiles, id, 'right') === null,
    up: neighbour(tiles, id, 'up') === null,
    down: neighbour(tiles, id, 'down') === null,
  };
}

/** The tree with two windows' places exchanged (each keeps the other's share). */
export function swapLeaves(n: LayoutNode | null, a: string, b: string): LayoutNode | null {
  if (!n) return null;
  if (n.kind === 'pane') return n.id === a ? { kind: 'pane', id: b } : n.id === b ? { kind: 'pane', id: a } : n;
  return { ...n, children: n.children.map((c) => swapLeaves(c, a, b)!) };
}

/** The fewest cells a subtree takes along an axis: each tile keeps its frame and a cell inside. */
function minSpan(n: LayoutNode, dir: Dir): number {
  if (n.kind === 'pane') return LAYOUT_MIN_TILE_CELLS;
  const spans = n.children.map((c) => minSpan(c, dir));
  return n.dir === dir ? spans.reduce((a, b) => a + b, 0) : Math.max(...spans);
}

/**
 * Moves one border of a pane by `cells` (spec: pane.resize): `right`/`down` move a border right or
 * down, `left`/`up` left or up. The border is the one on that side of the pane, or the other one
 * when the pane is at the edge of the tab there. No side shrinks past its panes' least size. The
 * new tree, or null when nothing moves (no border on that axis, or the border is held).
 */
export function moveBorder(root: LayoutNode | null, id: string, d: Direction, cells: number, area: Rect): LayoutNode | null {
  if (!root || cells < 1) return null;
  const dir: Dir = d === 'left' || d === 'right' ? 'row' : 'column';
  const forward = d === 'right' || d === 'down';
  // The splits on the way down to the leaf, each with its rectangle and the child taken.
  const path: Array<{ node: Extract<LayoutNode, { kind: 'split' }>; rect: Rect; index: number }> = [];
  const find = (n: LayoutNode, r: Rect): boolean => {
    if (n.kind === 'pane') return n.id === id;
    const b = bounds(n, n.dir === 'row' ? r.w : r.h);
    for (let i = 0; i < n.children.length; i++) {
      path.push({ node: n, rect: r, index: i });
      if (find(n.children[i]!, childRect(n, r, b, i))) return true;
      path.pop();
    }
    return false;
  };
  if (!find(root, area)) return null;
  const along = path.filter((p) => p.node.dir === dir);
  // The border on the named side: the nearest split with a child beyond the pane there.
  const sideAfter = forward;
  const pick = (after: boolean) => [...along].reverse().find((p) => (after ? p.index < p.node.children.length - 1 : p.index > 0));
  const at = pick(sideAfter) ?? pick(!sideAfter);
  if (!at) return null;
  const after = at === pick(sideAfter) ? sideAfter : !sideAfter;
  // The border between children j and j+1 of that split.
  const j = after ? at.index : at.index - 1;
  const total = dir === 'row' ? at.rect.w : at.rect.h;
  const b = bounds(at.node, total);
  const lo = b[j]! + minSpan(at.node.children[j]!, dir);
  const hi = b[j + 2]! - minSpan(at.node.children[j + 1]!, dir);
  const want = b[j + 1]! + (forward ? cells : -cells);
  const moved = Math.min(hi, Math.max(lo, want));
  if (moved === b[j + 1] || lo > hi) return null;
  const nb = b.slice();
  nb[j + 1] = moved;
  const sizes = at.node.children.map((_, i) => (nb[i + 1]! - nb[i]!) / total);
  const target = at.node;
  const rebuild = (n: LayoutNode): LayoutNode => {
    if (n === target) return { ...target, sizes };
    if (n.kind === 'pane') return n;
    return { ...n, children: n.children.map(rebuild) };
  };
  return rebuild(root);
}
