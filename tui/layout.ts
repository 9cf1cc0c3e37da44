// The tiling of a workspace: a tree of splits whose leaves are windows. The tree lives on the
// session (every client of a session sees the same tiling, as in tmux) and follows the model:
// a window of the workspace that the tree lacks is added, a leaf whose window left is removed.
import type { Session } from '../core/model/model.js';
import type { Rect } from './pane-draw.js';

export type Dir = 'row' | 'column';

export type LayoutNode = { kind: 'pane'; id: string } | { kind: 'split'; dir: Dir; children: LayoutNode[] };

export interface WorkspaceLayout {
  root: LayoutNode | null;
  /** The zoomed window: it takes the whole pane area. */
  zoomed: string | null;
}

const ATTR = 'tui.layouts';

/** The layout of a session's workspace, made on first use. */
export function layoutOf(s: Session, workspace: number): WorkspaceLayout {
  let all = s.attrs.get(ATTR) as Map<number, WorkspaceLayout> | undefined;
  if (!all) {
    all = new Map();
    s.attrs.set(ATTR, all);
  }
  let l = all.get(workspace);
  if (!l) {
    l = { root: null, zoomed: null };
    all.set(workspace, l);
  }
  return l;
}

export function leaves(n: LayoutNode | null, out: string[] = []): string[] {
  if (!n) return out;
  if (n.kind === 'pane') out.push(n.id);
  else for (const c of n.children) leaves(c, out);
  return out;
}

/** Removes a window's leaf; a split left with one child becomes that child. */
export function removeLeaf(n: LayoutNode | null, id: string): LayoutNode | null {
  if (!n) return null;
  if (n.kind === 'pane') return n.id === id ? null : n;
  const children = n.children.map((c) => removeLeaf(c, id)).filter((c): c is LayoutNode => c !== null);
  if (children.length === 0) return null;
  if (children.length === 1) return children[0]!;
  return { ...n, children };
}

/** Puts `newId` beside `targetId`: `row` side by side, `column` one above the other. */
export function splitLeaf(n: LayoutNode | null, targetId: string, newId: string, dir: Dir): LayoutNode {
  const leaf: LayoutNode = { kind: 'pane', id: newId };
  if (!n) return leaf;
  if (!leaves(n).includes(targetId)) return appendLeaf(n, newId);
  const walk = (node: LayoutNode): LayoutNode => {
    if (node.kind === 'pane') return node.id === targetId ? { kind: 'split', dir, children: [node, leaf] } : node;
    const i = node.children.findIndex((c) => c.kind === 'pane' && c.id === targetId);
    if (i >= 0 && node.dir === dir) {
      const children = node.children.slice();
      children.splice(i + 1, 0, leaf);
      return { ...node, children };
    }
    return { ...node, children: node.children.map(walk) };
  };
  return walk(n);
}

/** A window with no place yet: beside the rest, side by side at the top level. */
export function appendLeaf(n: LayoutNode | null, id: string): LayoutNode {
  const leaf: LayoutNode = { kind: 'pane', id };
  if (!n) return leaf;
  if (n.kind === 'split' && n.dir === 'row') return { ...n, children: [...n.children, leaf] };
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

/** The rectangle of every leaf inside `r`; children share a split's length evenly. */
export function tile(n: LayoutNode | null, r: Rect, out = new Map<string, Rect>()): Map<string, Rect> {
  if (!n) return out;
  if (n.kind === 'pane') {
    out.set(n.id, r);
    return out;
  }
  const k = n.children.length;
  const total = n.dir === 'row' ? r.w : r.h;
  let at = 0;
  n.children.forEach((c, i) => {
    const len = Math.floor((total * (i + 1)) / k) - Math.floor((total * i) / k);
    const sub = n.dir === 'row' ? { x: r.x + at, y: r.y, w: len, h: r.h } : { x: r.x, y: r.y + at, w: r.w, h: len };
    at += len;
    tile(c, sub, out);
  });
  return out;
}

export type Direction = 'left' | 'right' | 'up' | 'down';

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
