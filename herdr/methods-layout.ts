// herdr's pane layout methods (spec: herdr compatibility, Methods; Where tuios differs from herdr),
// each through the tuios verb that does the work: split-window, get-layout, select-window,
// zoom-window, swap-window, resize-tile and set-client-title. The layout is the session's; its
// rectangles are the attached client's, so with no client each pane fills the screen and none
// has a neighbour. `splits` is always empty: tuios exports no split tree.
import { paneOf } from '../core/security/access.js';
import { neighbour } from '../core/model/layout.js';
import { herdrPaneId, herdrWorkspaceId } from './ids.js';
import { HerdrError, field, optString, optBool, optEnv, type Params } from './params.js';
import { View, call, check, type Method, type MethodContext, type SessionRow, type WindowRow } from './view.js';
import { HERDR_ID_MAX } from './limits.js';
import { LAYOUT_RESIZE_DEFAULT_SHARE, LAYOUT_RESIZE_MAX_SHARE } from '../core/limits.js';
import type { z } from 'zod';
import type { layoutResultSchema } from '../core/verbs/layout.js';

const DIRECTIONS = ['left', 'right', 'up', 'down'] as const;
type Direction = (typeof DIRECTIONS)[number];

/** get-layout's answer, as its record's result schema says. */
type LayoutRow = z.infer<typeof layoutResultSchema>;

const rect = (r: { x: number; y: number; w: number; h: number }) => ({ x: r.x, y: r.y, width: r.w, height: r.h });

/** herdr's PaneLayoutSnapshot of a tab, from get-layout. */
export async function layoutSnapshot(ctx: MethodContext, v: View, s: SessionRow, workspace: number): Promise<Record<string, unknown>> {
  const r = await call<LayoutRow>(ctx, 'get-layout', { session: s.id, workspace });
  // No client: each pane fills the screen, which is the area.
  const area = r.area ?? (r.panes[0] ? { x: 0, y: 0, w: r.panes[0].w, h: r.panes[0].h } : { x: 0, y: 0, w: 0, h: 0 });
  const focused = r.focused ?? r.panes[0]?.window_id ?? null;
  return {
    workspace_id: herdrWorkspaceId(s.id),
    tab_id: v.tabInfo(s, workspace).tab_id,
    zoomed: r.zoomed !== null,
    area: rect(area),
    focused_pane_id: focused ? herdrPaneId(s.id, focused) : null,
    panes: r.panes.map((p) => ({ pane_id: herdrPaneId(s.id, p.window_id), focused: p.window_id === focused, rect: rect(p) })),
    splits: [],
  };
}

/** The layout of a pane's tab. */
export async function paneLayout(ctx: MethodContext, v: View, w: WindowRow): Promise<Record<string, unknown>> {
  const s = v.sessions.find((x) => x.id === w.session_id);
  if (!s) throw new HerdrError('pane_not_found', 'the pane\'s workspace closed');
  return layoutSnapshot(ctx, v, s, w.workspace);
}

function direction(p: Params, name = 'direction', allowed: readonly string[] = DIRECTIONS): Direction {
  const d = field(p, name);
  if (d === undefined || d === null) throw new HerdrError('invalid_request', `missing field \`${name}\``);
  if (typeof d !== 'string' || !allowed.includes(d)) {
    throw new HerdrError('invalid_request', `unknown variant \`${String(d).slice(0, 32)}\`, expected one of ${allowed.map((a) => `\`${a}\``).join(', ')}`);
  }
  return d as Direction;
}

/**
 * The pane a method names, else (herdr's default) the focused pane: the caller's own pane, or the
 * focused pane of the session last active.
 */
function paneOrFocused(ctx: MethodContext, v: View, name = 'pane_id'): WindowRow {
  const id = optString(ctx.params, name);
  if (id !== undefined) return v.pane(id);
  const own = paneOf(ctx.svc, ctx.caller).window;
  const mine = own ? v.windows.find((w) => w.id === own.id) : undefined;
  if (mine) return mine;
  const s = v.focusedSession();
  const w = s ? v.windows.find((x) => x.session_id === s.id && x.workspace === s.active_workspace && x.focused) ?? v.panesOf(s.id, s.active_workspace)[0] : undefined;
  if (!w) throw new HerdrError('pane_not_found', 'pane not found');
  return w;
}

const paneIdOf = (w: WindowRow) => herdrPaneId(w.session_id, w.id);

export const layoutMethods: Record<string, Method> = {
  async 'pane.split'(ctx) {
    // herdr splits right or down; tuios also takes left and up (terminal-browser's --split).
    const d = direction(ctx.params);
    const cwd = optString(ctx.params, 'cwd', 4096);
    const env = optEnv(ctx.params);
    const focus = optBool(ctx.params, 'focus') ?? false;
    const ratio = field(ctx.params, 'ratio');
    if (ratio !== undefined && ratio !== null && typeof ratio !== 'number') throw new HerdrError('invalid_request', 'invalid type for `ratio`: expected f32');
    const v = await View.read(ctx);
    let from: WindowRow;
    const ws = optString(ctx.params, 'workspace_id');
    if (optString(ctx.params, 'target_pane_id') !== undefined || ws === undefined) from = paneOrFocused(ctx, v, 'target_pane_id');
    else {
      const s = v.session(ws);
      const w = v.panesOf(s.id, s.active_workspace).find((x) => x.focused) ?? v.panesOf(s.id)[0];
      if (!w) throw new HerdrError('pane_not_found', 'pane not found');
      from = w;
    }
    // An even split: tuios halves the pane's place, and `ratio` is not followed.
    const r = await call<{ window: { id: string } }>(ctx, 'split-window', {
      window: from.id,
      direction: d,
      ...(focus ? { focus: true } : {}),
      ...(cwd ? { cwd } : {}),
      ...(env && Object.keys(env).length > 0 ? { env } : {}),
    });
    const after = await View.read(ctx);
    return { type: 'pane_info', pane: after.paneInfo(after.pane(r.window.id)) };
  },

  async 'pane.layout'(ctx) {
    const v = await View.read(ctx);
    return { type: 'pane_layout', layout: await paneLayout(ctx, v, paneOrFocused(ctx, v)) };
  },

  async 'pane.neighbor'(ctx) {
    const d = direction(ctx.params);
    const v = await View.read(ctx);
    const w = paneOrFocused(ctx, v);
    const layout = await paneLayout(ctx, v, w);
    const next = neighbourIn(layout, paneIdOf(w), d);
    return { type: 'pane_neighbor', neighbor: { pane_id: paneIdOf(w), direction: d, ...(next ? { neighbor_pane_id: next } : {}), layout } };
  },

  async 'pane.edges'(ctx) {
    const v = await View.read(ctx);
    const w = paneOrFocused(ctx, v);
    const layout = await paneLayout(ctx, v, w);
    const id = paneIdOf(w);
    // A pane is at an edge where it has no neighbour.
    const at = (d: Direction) => neighbourIn(layout, id, d) === null;
    return { type: 'pane_edges', edges: { pane_id: id, left: at('left'), right: at('right'), up: at('up'), down: at('down'), layout } };
  },

  async 'pane.focus_direction'(ctx) {
    const d = direction(ctx.params);
    const v = await View.read(ctx);
    const w = paneOrFocused(ctx, v);
    const layout = await paneLayout(ctx, v, w);
    const next = neighbourIn(layout, paneIdOf(w), d);
    const target = next ? v.pane(next) : null;
    if (!target) return { type: 'pane_focus_direction', focus: { changed: false, reason: 'no_neighbor', source_pane_id: paneIdOf(w), layout } };
    // A focus needs admin (select-window alone takes write), as for pane.focus.
    check(ctx, { verb: 'pane.focus_direction', access: 'admin', target: ctx.svc.model.windows.get(target.id) ?? null });
    await call(ctx, 'select-window', { window: target.id });
    return { type: 'pane_focus_direction', focus: { changed: true, source_pane_id: paneIdOf(w), focused_pane_id: paneIdOf(target), layout: await paneLayout(ctx, v, target) } };
  },

  async 'pane.swap'(ctx) {
    const hasDir = field(ctx.params, 'direction') !== undefined && field(ctx.params, 'direction') !== null;
    const explicit = optString(ctx.params, 'source_pane_id') !== undefined || optString(ctx.params, 'target_pane_id') !== undefined;
    if (hasDir === explicit) throw new HerdrError('invalid_pane_swap', 'provide either direction with optional pane_id, or source_pane_id and target_pane_id');
    const v = await View.read(ctx);
    const src = hasDir ? paneOrFocused(ctx, v) : paneOrFocused(ctx, v, 'source_pane_id');
    let withId: string | undefined;
    let missing = false;
    if (!hasDir) {
      const t = optString(ctx.params, 'target_pane_id');
      if (t === undefined) throw new HerdrError('invalid_request', 'missing field `target_pane_id`');
      // A pane the caller cannot read is not found, as herdr says of one that is gone.
      try {
        withId = v.pane(t).id;
      } catch {
        missing = true;
      }
    }
    // A target the caller cannot read is answered here as swap-window answers one that is gone:
    // after its checks (admin, an attached client), not_found, and nothing moves.
    const r = missing
      ? await notFound(ctx, src)
      : await call<{ changed: boolean; reason?: string; with: string | null; focused: string | null }>(ctx, 'swap-window', {
          window: src.id,
          ...(hasDir ? { direction: direction(ctx.params) } : { with: withId }),
        });
    const other = r.with ? v.windows.find((x) => x.id === r.with) : undefined;
    return {
      type: 'pane_swap',
      swap: {
        changed: r.changed,
        ...(r.reason ? { reason: r.reason } : {}),
        source_pane_id: paneIdOf(src),
        ...(other ? { target_pane_id: paneIdOf(other) } : {}),
        focused_pane_id: herdrPaneId(src.session_id, r.focused ?? src.id),
        layout: await paneLayout(ctx, v, src),
      },
    };
  },

  async 'pane.zoom'(ctx) {
    const mode = optString(ctx.params, 'mode', 16) ?? 'toggle';
    if (!['toggle', 'on', 'off'].includes(mode)) throw new HerdrError('invalid_request', `unknown variant \`${mode}\`, expected one of \`toggle\`, \`on\`, \`off\``);
    const v = await View.read(ctx);
    const w = paneOrFocused(ctx, v);
    const r = await call<{ zoomed: boolean; changed: boolean; zoom_changed: boolean; focus_changed: boolean; reason?: string }>(ctx, 'zoom-window', { window: w.id, mode });
    return {
      type: 'pane_zoom',
      zoom: {
        changed: r.changed,
        zoom_changed: r.zoom_changed,
        focus_changed: r.focus_changed,
        ...(r.reason ? { reason: r.reason } : {}),
        pane_id: paneIdOf(w),
        focused_pane_id: paneIdOf(w),
        zoomed: r.zoomed,
        layout: await paneLayout(ctx, v, w),
      },
    };
  },

  async 'pane.resize'(ctx) {
    const d = direction(ctx.params);
    const raw = field(ctx.params, 'amount');
    if (raw !== undefined && raw !== null && typeof raw !== 'number') throw new HerdrError('invalid_request', 'invalid type for `amount`: expected f32');
    // As herdr reads it: a share of the tab, its size taken, at most LAYOUT_RESIZE_MAX_SHARE; the
    // verb moves one cell at least.
    const given = typeof raw === 'number' && Number.isFinite(raw) ? Math.abs(raw) : LAYOUT_RESIZE_DEFAULT_SHARE;
    const amount = Math.max(Number.MIN_VALUE, Math.min(LAYOUT_RESIZE_MAX_SHARE, given));
    const v = await View.read(ctx);
    const w = paneOrFocused(ctx, v);
    const r = await call<{ changed: boolean; reason?: string; focused: string | null }>(ctx, 'resize-tile', { window: w.id, direction: d, amount });
    return {
      type: 'pane_resize',
      resize: {
        changed: r.changed,
        ...(r.reason ? { reason: r.reason } : {}),
        pane_id: paneIdOf(w),
        focused_pane_id: herdrPaneId(w.session_id, r.focused ?? w.id),
        layout: await paneLayout(ctx, v, w),
      },
    };
  },

  async 'client.window_title.set'(ctx) {
    const title = field(ctx.params, 'title');
    if (title === undefined || title === null) throw new HerdrError('invalid_request', 'missing field `title`');
    if (typeof title !== 'string') throw new HerdrError('invalid_request', 'invalid type for `title`: expected a string');
    // The verb cleans and cuts it; an absurd length is bad input before that.
    if (title.length > HERDR_ID_MAX * 64) throw new HerdrError('invalid_request', 'title is too long');
    const r = await call<{ changed: boolean; reason: string }>(ctx, 'set-client-title', { title });
    return { type: 'client_window_title', changed: r.changed, reason: r.reason };
  },

  async 'client.window_title.clear'(ctx) {
    const r = await call<{ changed: boolean; reason: string }>(ctx, 'set-client-title', { clear: true });
    return { type: 'client_window_title', changed: r.changed, reason: r.reason };
  },
};

/** pane.swap with a target the caller cannot read: swap-window's checks, then not_found. */
async function notFound(ctx: MethodContext, src: WindowRow): Promise<{ changed: boolean; reason: string; with: null; focused: string | null }> {
  check(ctx, { verb: 'pane.swap', access: 'admin', target: ctx.svc.model.windows.get(src.id) ?? null });
  const l = await call<LayoutRow>(ctx, 'get-layout', { session: src.session_id, workspace: src.workspace });
  if (l.client_id === null) throw new HerdrError('no_client', 'No tuios client is attached, so there is no layout to swap in.');
  return { changed: false, reason: 'not_found', with: null, focused: l.focused };
}

/** The pane tuios's directional focus moves to, in a herdr layout snapshot (its rectangles). */
function neighbourIn(layout: Record<string, unknown>, paneId: string, d: Direction): string | null {
  const panes = layout.panes as Array<{ pane_id: string; rect: { x: number; y: number; width: number; height: number } }>;
  const tiles = new Map(panes.map((p) => [p.pane_id, { x: p.rect.x, y: p.rect.y, w: p.rect.width, h: p.rect.height }]));
  return neighbour(tiles, paneId, d);
}
