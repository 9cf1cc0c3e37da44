// The layout verbs: read a workspace's tiling as the attached client lays it out (get-layout),
// and change it (zoom-window, swap-window, resize-tile). The tree is session state
// (core/model/layout.ts); the rectangles are the attached client's (core/daemon/clients.ts), so a
// session that no client shows has none: each pane fills the screen, and none has a neighbour.
// A change asks the clients that show the session for a frame. Swap and resize need a client (the
// spec's `set-layout` grant, then the attached client): without one they fail with no_client.
// Every change needs admin, as every create, focus, swap, zoom and resize from a pane does.
import { z } from 'zod';
import { defineVerb } from '../rpc/verb.js';
import { TuiosError } from '../errors.js';
import { enforce } from '../security/access.js';
import { layoutOf, reconcile, tile, neighbour, swapLeaves, moveBorder, type Rect, type WorkspaceLayout, type Direction } from '../model/layout.js';
import type { Services } from '../daemon/services.js';
import type { Session } from '../model/model.js';
import type { Window } from '../model/window.js';
import type { RegisteredClient } from '../daemon/clients.js';
import { LAYOUT_RESIZE_DEFAULT_SHARE, LAYOUT_RESIZE_MAX_SHARE } from '../limits.js';

export const DIRECTIONS = ['left', 'right', 'up', 'down'] as const;
const directionParam = z.enum(DIRECTIONS);

/** One workspace's panes as the attached client lays them out (or each filling the screen). */
export interface TabTiles {
  client: RegisteredClient | null;
  /** The client's pane area; null without a client. */
  area: Rect | null;
  layout: WorkspaceLayout;
  windows: Window[];
  tiles: Map<string, Rect>;
}

export function tabTiles(svc: Services, s: Session, workspace: number): TabTiles {
  const windows = svc.model.windowsOf(s).filter((w) => w.workspace === workspace);
  const layout = layoutOf(s, workspace);
  const client = svc.clients.attachedFor(s.id);
  if (!client) {
    // No client draws the session: it has no layout, so each pane fills the screen.
    return { client: null, area: null, layout, windows, tiles: new Map(windows.map((w) => [w.id, { x: 0, y: 0, w: w.cols, h: w.rows }])) };
  }
  const area = client.area();
  // The tree follows the model as the client's next frame would make it follow.
  if (reconcile(layout, windows.map((w) => w.id), area)) svc.clients.changed(s.id);
  return { client, area, layout, windows, tiles: tile(layout.root, area) };
}

/** The attached client a change of the layout needs, or no_client. */
function needClient(t: TabTiles, what: string): RegisteredClient {
  if (!t.client) throw new TuiosError('no_client', `No tuios client is attached, so there is no layout to ${what}.`, 'Attach a client (tuios attach) to the session first.');
  return t.client;
}

const rectSchema = z.object({ x: z.number().int(), y: z.number().int(), w: z.number().int(), h: z.number().int() });

export const layoutResultSchema = z.object({
  session_id: z.string(),
  workspace: z.number().int(),
  /** The attached client whose area the rectangles are in; null: no client, each pane fills the screen. */
  client_id: z.number().int().nullable(),
  area: rectSchema.nullable(),
  zoomed: z.string().nullable(),
  focused: z.string().nullable(),
  panes: z.array(rectSchema.extend({ window_id: z.string(), name: z.string(), focused: z.boolean() })),
});

export function layoutResult(svc: Services, s: Session, workspace: number): z.infer<typeof layoutResultSchema> {
  const t = tabTiles(svc, s, workspace);
  const focused = s.focused.get(workspace) ?? null;
  return {
    session_id: s.id,
    workspace,
    client_id: t.client?.id ?? null,
    area: t.area,
    zoomed: t.layout.zoomed,
    focused,
    panes: t.windows.map((w) => ({ window_id: w.id, name: w.name, focused: w.id === focused, ...(t.tiles.get(w.id) ?? { x: 0, y: 0, w: w.cols, h: w.rows }) })),
  };
}

export const getLayout = defineVerb({
  name: 'get-layout',
  summary: 'Show where each pane of a workspace is, as the attached client lays it out',
  help: 'The rectangles (columns and rows of the client\'s screen) are those of the client that shows the session, else the one you used last. With no client attached each pane fills the screen.',
  target: 'session',
  mutates: false,
  cli: { usage: 'get-layout [-s SESSION] [--workspace N]' },
  params: z.object({
    workspace: z.number().int().min(1).max(9).optional().describe('The workspace (1-9); default the one that shows'),
  }),
  result: layoutResultSchema,
  print: (r) => r.panes.map((p) => `${p.window_id.slice(0, 12)} ${p.x},${p.y} ${p.w}x${p.h}${p.focused ? ' focused' : ''}${r.zoomed === p.window_id ? ' zoomed' : ''}`).join('\n'),
  run: ({ session, params, svc }) => layoutResult(svc, session!, params.workspace ?? session!.activeWorkspace),
});

/** Focuses a window on its workspace, as the TUI does: a zoom on another pane there ends. True when the focus moved. */
export function focusInLayout(svc: Services, w: Window): boolean {
  const s = svc.model.sessionOf(w);
  const moved = s.activeWorkspace !== w.workspace || s.focused.get(w.workspace) !== w.id;
  svc.model.switchWorkspace(s, w.workspace);
  svc.model.focusWindow(w);
  const l = layoutOf(s, w.workspace);
  if (l.zoomed && l.zoomed !== w.id) l.zoomed = null;
  return moved;
}

export const zoomWindow = defineVerb({
  name: 'zoom-window',
  summary: 'Zoom a pane to fill its workspace, or end the zoom (toggle, on, off)',
  help: 'The pane is focused first, and a zoom on another pane of its workspace ends: tuios zooms one pane per workspace. Nothing more changes when the workspace has one pane (single_pane) or the zoom is as asked (already_zoomed, already_unzoomed). It stands for the spec\'s run-command ToggleZoom, which tuios does not have yet.',
  target: 'window',
  mutates: true,
  access: 'admin',
  cli: { usage: 'zoom-window -w WINDOW [--mode toggle|on|off]' },
  params: z.object({
    mode: z.enum(['toggle', 'on', 'off']).default('toggle').describe('toggle, on or off'),
  }),
  result: z.object({
    window_id: z.string(),
    zoomed: z.boolean(),
    changed: z.boolean(),
    zoom_changed: z.boolean(),
    focus_changed: z.boolean(),
    reason: z.enum(['single_pane', 'already_zoomed', 'already_unzoomed']).optional(),
  }),
  print: (r) => (r.reason ? `unchanged: ${r.reason}` : r.zoomed ? 'zoomed' : 'unzoomed'),
  run({ window, params, svc }) {
    const w = window!;
    const s = svc.model.sessionOf(w);
    const l = layoutOf(s, w.workspace);
    const before = l.zoomed;
    const focusChanged = focusInLayout(svc, w);
    const panes = svc.model.windowsOf(s).filter((o) => o.workspace === w.workspace).length;
    const want = params.mode === 'toggle' ? l.zoomed !== w.id : params.mode === 'on';
    let reason: 'single_pane' | 'already_zoomed' | 'already_unzoomed' | undefined;
    if (panes <= 1) reason = 'single_pane';
    else if (want && l.zoomed === w.id) reason = 'already_zoomed';
    else if (!want && l.zoomed !== w.id) reason = 'already_unzoomed';
    else l.zoomed = want ? w.id : null;
    const zoomChanged = l.zoomed !== before;
    if (zoomChanged || focusChanged) svc.clients.changed(s.id);
    return { window_id: w.id, zoomed: l.zoomed === w.id, changed: zoomChanged || focusChanged, zoom_changed: zoomChanged, focus_changed: focusChanged, ...(reason ? { reason } : {}) };
  },
});

export const swapWindow = defineVerb({
  name: 'swap-window',
  summary: 'Swap a pane\'s place in the layout with its neighbour, or with another pane',
  help: 'By --direction (the pane tuios\'s own directional focus moves to) or --with another pane of the same workspace. The pane keeps the focus. A swap that cannot happen changes nothing and says why: no_neighbor, same_pane, not_found or cross_tab. The layout is the attached client\'s: without one it fails with no_client.',
  target: 'window',
  mutates: true,
  access: 'admin',
  cli: { usage: 'swap-window -w WINDOW (--direction left|right|up|down | --with WINDOW)' },
  params: z.object({
    direction: directionParam.optional().describe('Swap with the neighbour on this side'),
    with: z.string().min(1).max(128).optional().describe('Swap with this window (id, id prefix or name)'),
  }),
  result: z.object({
    changed: z.boolean(),
    reason: z.enum(['no_neighbor', 'same_pane', 'not_found', 'cross_tab']).optional(),
    window_id: z.string(),
    with: z.string().nullable(),
    focused: z.string().nullable(),
  }),
  print: (r) => (r.changed ? `swapped with ${r.with}` : `unchanged: ${r.reason}`),
  run({ window, params, svc, caller }) {
    const src = window!;
    if ((params.direction === undefined) === (params.with === undefined)) {
      throw new TuiosError('invalid_params', 'Give --direction or --with, one of them.', undefined, { field: 'direction' });
    }
    const s = svc.model.sessionOf(src);
    const t = tabTiles(svc, s, src.workspace);
    needClient(t, 'swap in');
    const answer = (reason: 'no_neighbor' | 'same_pane' | 'not_found' | 'cross_tab' | null, other: string | null) => ({
      changed: reason === null,
      ...(reason ? { reason } : {}),
      window_id: src.id,
      with: other,
      focused: s.focused.get(src.workspace) ?? null,
    });
    let other: Window | null = null;
    if (params.direction) {
      const id = neighbour(t.tiles, src.id, params.direction);
      other = id ? (svc.model.windows.get(id) ?? null) : null;
      if (!other) return answer('no_neighbor', null);
    } else {
      try {
        other = svc.model.findWindow(params.with!);
      } catch (e) {
        if (e instanceof TuiosError && (e.code === 'window_not_found' || e.code === 'session_not_found')) return answer('not_found', null);
        throw e;
      }
      if (other.id === src.id) return answer('same_pane', other.id);
      if (other.sessionId !== src.sessionId || other.workspace !== src.workspace) return answer('cross_tab', other.id);
    }
    // The other pane moves too: the caller needs admin there as well.
    enforce(svc, caller, { verb: 'swap-window', access: 'admin', target: other });
    t.layout.root = swapLeaves(t.layout.root, src.id, other.id);
    focusInLayout(svc, src);
    svc.clients.changed(s.id);
    return answer(null, other.id);
  },
});

export const resizeTile = defineVerb({
  name: 'resize-tile',
  summary: 'Move one border of a pane in the layout by a share of the workspace',
  help: 'right and down move a border right or down, left and up move it left or up. The border is the one on that side of the pane, or the other one when the pane is at the edge there. --amount is a share of the workspace\'s width or height (0.05 when not given, 0.5 at most, one cell at least); no pane shrinks past its frame and one cell. changed is false with reason unchanged when nothing moves (a zoomed workspace, no border on that axis). The layout is the attached client\'s: without one it fails with no_client.',
  target: 'window',
  mutates: true,
  access: 'admin',
  cli: { usage: 'resize-tile -w WINDOW --direction left|right|up|down [--amount SHARE]' },
  params: z.object({
    direction: directionParam.describe('The way the border moves'),
    amount: z.number().gt(0).max(LAYOUT_RESIZE_MAX_SHARE).default(LAYOUT_RESIZE_DEFAULT_SHARE).describe(`A share of the workspace (default ${LAYOUT_RESIZE_DEFAULT_SHARE}, at most ${LAYOUT_RESIZE_MAX_SHARE})`),
  }),
  result: z.object({ changed: z.boolean(), reason: z.literal('unchanged').optional(), window_id: z.string(), focused: z.string().nullable() }),
  print: (r) => (r.changed ? 'resized' : 'unchanged'),
  run({ window, params, svc }) {
    const w = window!;
    const s = svc.model.sessionOf(w);
    const t = tabTiles(svc, s, w.workspace);
    needClient(t, 'resize');
    const area = t.area!;
    const d: Direction = params.direction;
    const length = d === 'left' || d === 'right' ? area.w : area.h;
    const cells = Math.max(1, Math.round(params.amount * length));
    const next = t.layout.zoomed ? null : moveBorder(t.layout.root, w.id, d, cells, area);
    if (next) {
      t.layout.root = next;
      svc.clients.changed(s.id);
    }
    return { changed: next !== null, ...(next ? {} : { reason: 'unchanged' as const }), window_id: w.id, focused: s.focused.get(w.workspace) ?? null };
  },
});
