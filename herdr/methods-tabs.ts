// herdr's tab methods, workspace.focus and pane.move (spec: herdr compatibility, Methods): a herdr
// tab is a tuios workspace with a tab number of its own (core/model/tabs.ts), so a rename, a move
// or a pane moving in keeps every tab id. Each runs the tuios verb that does the same work.
import { paneOf } from '../core/security/access.js';
import { WORKSPACES } from '../core/limits.js';
import { herdrPaneId, herdrWorkspaceId } from './ids.js';
import { HerdrError, field, reqString, optString, optBool, optEnv } from './params.js';
import { View, call, check, ok, type Method, type MethodContext, type SessionRow } from './view.js';
import { layoutSnapshot } from './methods-layout.js';

/** A create, close, rename, focus or move needs admin (spec: Who may call what). */
function requireAdmin(ctx: MethodContext, verb: string, sessionId: string): void {
  check(ctx, { verb, access: 'admin', target: null, sessionId });
}

/** The session a method acts on when no workspace_id is given: the caller's, else the focused one. */
function defaultSession(ctx: MethodContext, v: View): SessionRow {
  const own = paneOf(ctx.svc, ctx.caller).window;
  const s = (own && v.sessions.find((x) => x.id === own.sessionId)) ?? v.focusedSession();
  if (!s) throw new HerdrError('workspace_not_found', 'no active workspace');
  return s;
}

/** The first workspace that is not a tab, for a new tab; tab_create_failed when all nine are. */
function freeWorkspace(v: View, s: SessionRow): number {
  const tabs = new Set(v.tabsOf(s));
  for (let ws = 1; ws <= WORKSPACES; ws++) if (!tabs.has(ws)) return ws;
  throw new HerdrError('tab_create_failed', `all ${WORKSPACES} workspaces of ${s.name.slice(0, 64)} are tabs`);
}

/** Whether a session's workspace has a zoomed pane (the layout every client of it shares). */
function zoomed(ctx: MethodContext, sessionId: string, workspace: number): boolean {
  return !!ctx.svc.model.sessions.get(sessionId)?.layouts.get(workspace)?.zoomed;
}

export const tabMethods: Record<string, Method> = {
  async 'tab.create'(ctx) {
    const wsId = optString(ctx.params, 'workspace_id');
    const cwd = optString(ctx.params, 'cwd', 4096);
    const label = optString(ctx.params, 'label', 128);
    const env = optEnv(ctx.params);
    const focus = optBool(ctx.params, 'focus') ?? false;
    const v = await View.read(ctx);
    const s = wsId ? v.session(wsId) : defaultSession(ctx, v);
    requireAdmin(ctx, 'tab.create', s.id);
    const workspace = freeWorkspace(v, s);
    const made = await call<{ id: string }>(ctx, 'new-window', { session: s.id, workspace, ...(cwd ? { cwd } : {}), ...(env ? { env } : {}) });
    if (label) await call(ctx, 'set-workspace-name', { session: s.id, workspace, name: label });
    if (focus) await call(ctx, 'select-workspace', { session: s.id, workspace });
    const after = await View.read(ctx);
    const s2 = after.sessions.find((x) => x.id === s.id);
    const w = after.windows.find((x) => x.id === made.id);
    if (!s2 || !w) throw new HerdrError('tab_create_failed', 'the new tab closed before it could be read');
    return { type: 'tab_created', tab: after.tabInfo(s2, w.workspace), root_pane: after.paneInfo(w) };
  },

  async 'tab.rename'(ctx) {
    const id = reqString(ctx.params, 'tab_id');
    const label = reqString(ctx.params, 'label', 128);
    const v = await View.read(ctx);
    const t = v.tab(id);
    await call(ctx, 'set-workspace-name', { session: t.s.id, workspace: t.workspace, name: label });
    const after = await View.read(ctx);
    const t2 = after.tab(id);
    return { type: 'tab_info', tab: after.tabInfo(t2.s, t2.workspace) };
  },

  async 'tab.focus'(ctx) {
    const id = reqString(ctx.params, 'tab_id');
    const v = await View.read(ctx);
    const t = v.tab(id);
    await call(ctx, 'select-workspace', { session: t.s.id, workspace: t.workspace });
    const after = await View.read(ctx);
    const t2 = after.tab(id);
    return { type: 'tab_info', tab: after.tabInfo(t2.s, t2.workspace) };
  },

  async 'tab.move'(ctx) {
    const id = reqString(ctx.params, 'tab_id');
    const index = field(ctx.params, 'insert_index');
    if (index === undefined || index === null) throw new HerdrError('invalid_request', 'missing field `insert_index`');
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0) throw new HerdrError('invalid_request', 'invalid type for `insert_index`: expected a non-negative integer');
    const v = await View.read(ctx);
    const t = v.tab(id);
    // A move that changes nothing is refused as one that does: set-workspace-order's grant.
    requireAdmin(ctx, 'tab.move', t.s.id);
    const order = v.tabsOf(t.s).map((ws) => v.tabNumber(t.s, ws));
    if (index > order.length) throw new HerdrError('tab_move_failed', `insert_index ${index} is out of bounds`);
    // herdr's insert index is a gap in the list before the tab is taken out of it.
    const from = order.indexOf(v.tabNumber(t.s, t.workspace));
    const to = Math.min(from < index ? index - 1 : index, order.length - 1);
    if (from !== to) {
      const [n] = order.splice(from, 1);
      order.splice(to, 0, n!);
      await call(ctx, 'set-workspace-order', { session: t.s.id, order });
    }
    const after = await View.read(ctx);
    const s = after.session(herdrWorkspaceId(t.s.id));
    return { type: 'tab_list', tabs: after.tabsOf(s).map((ws) => after.tabInfo(s, ws)) };
  },

  async 'tab.close'(ctx) {
    const id = reqString(ctx.params, 'tab_id');
    const v = await View.read(ctx);
    const t = v.tab(id);
    requireAdmin(ctx, 'tab.close', t.s.id);
    const shown = t.s.active_workspace === t.workspace;
    for (const w of v.panesOf(t.s.id, t.workspace)) await call(ctx, 'close-window', { window: w.id });
    const after = await View.read(ctx);
    const s = after.sessions.find((x) => x.id === t.s.id);
    // The last tab's last pane took the session with it.
    if (!s) return ok();
    // A tab with no pane left (a named one, or the one that showed) loses its name.
    if (after.tabsOf(s).includes(t.workspace) && s.tabs.find((x) => x.workspace === t.workspace)?.name) {
      await call(ctx, 'set-workspace-name', { session: s.id, workspace: t.workspace, name: '' });
    }
    if (shown) {
      // The nearest tab that holds a pane shows; on a tie, the one before.
      const held = [...new Set(after.panesOf(s.id).map((w) => w.workspace))];
      held.sort((a, b) => Math.abs(a - t.workspace) - Math.abs(b - t.workspace) || a - b);
      if (held[0] !== undefined) await call(ctx, 'select-workspace', { session: s.id, workspace: held[0] });
    }
    return ok();
  },

  async 'workspace.focus'(ctx) {
    const id = reqString(ctx.params, 'workspace_id');
    const v = await View.read(ctx);
    const s = v.session(id);
    // select-workspace's grant (admin), then the attached client shows the session, as the
    // session switcher does: the client that shows the caller's session, else the foreground one.
    requireAdmin(ctx, 'workspace.focus', s.id);
    const own = paneOf(ctx.svc, ctx.caller).window;
    const client = ctx.svc.clients.attachedFor(own?.sessionId ?? null);
    if (!client || !client.acts.showSession(s.id)) throw new HerdrError('no_client', 'no tuios client is attached to show the workspace');
    const after = await View.read(ctx);
    return { type: 'workspace_info', workspace: after.workspaceInfo(after.session(id)) };
  },

  async 'pane.move'(ctx) {
    const paneId = reqString(ctx.params, 'pane_id');
    const dest = field(ctx.params, 'destination');
    if (dest === undefined || dest === null) throw new HerdrError('invalid_request', 'missing field `destination`');
    if (typeof dest !== 'object' || Array.isArray(dest)) throw new HerdrError('invalid_request', 'invalid type for `destination`: expected a map');
    const d = dest as Record<string, unknown>;
    const kind = field(d, 'type');
    if (kind === undefined || kind === null) throw new HerdrError('invalid_request', 'missing field `type`');
    if (kind !== 'tab' && kind !== 'new_tab' && kind !== 'new_workspace') {
      throw new HerdrError('invalid_request', `unknown variant \`${String(kind).slice(0, 32)}\`, expected one of \`tab\`, \`new_tab\`, \`new_workspace\``);
    }
    const focus = optBool(ctx.params, 'focus') ?? false;
    const v = await View.read(ctx);
    const w = v.pane(paneId);
    const from = v.sessions.find((x) => x.id === w.session_id)!;
    // move-window's grant, also for a move that changes nothing (same_tab, zoomed_tab).
    requireAdmin(ctx, 'pane.move', from.id);
    const before = { pane_id: herdrPaneId(from.id, w.id), workspace_id: herdrWorkspaceId(from.id), tab_id: v.tabId(from, w.workspace) };
    const sourceLayout = await layoutSnapshot(ctx, v, from, w.workspace);
    const unchanged = (reason: string, target: Record<string, unknown>) => ({
      type: 'pane_move',
      move_result: { changed: false, reason, previous_pane_id: before.pane_id, previous_workspace_id: before.workspace_id, previous_tab_id: before.tab_id, pane: v.paneInfo(w), source_layout: sourceLayout, target_layout: target, focused_pane_id: before.pane_id, created_tab: null, created_workspace: null, closed_tab_id: null, closed_workspace_id: null },
    });
    // tuios makes no session for a pane: a new workspace is not a destination.
    if (kind === 'new_workspace') throw new HerdrError('unsupported', 'tuios does not make a workspace for a moved pane; move it to a tab of a workspace');
    if (zoomed(ctx, from.id, w.workspace)) return unchanged('zoomed_tab', sourceLayout);
    let to: SessionRow;
    let workspace: number;
    let label: string | undefined;
    if (kind === 'tab') {
      // tuios places the pane in the tab's layout itself: target_pane_id, split and ratio are not followed.
      const t = v.tab(reqString(d, 'tab_id'));
      to = t.s;
      workspace = t.workspace;
      if (to.id === from.id && workspace === w.workspace) return unchanged('same_tab', sourceLayout);
      if (zoomed(ctx, to.id, workspace)) return unchanged('zoomed_tab', await layoutSnapshot(ctx, v, to, workspace));
    } else {
      const wsId = optString(d, 'workspace_id');
      label = optString(d, 'label', 128);
      to = wsId ? v.session(wsId) : from;
      workspace = freeWorkspace(v, to);
    }
    await call(ctx, 'move-window', { window: w.id, workspace, ...(to.id !== from.id ? { to_session: to.id } : {}) });
    if (label) await call(ctx, 'set-workspace-name', { session: to.id, workspace, name: label });
    if (focus) await call(ctx, 'select-window', { window: w.id });
    const after = await View.read(ctx);
    const moved = after.pane(w.id);
    const s = after.sessions.find((x) => x.id === moved.session_id)!;
    const fromAfter = after.sessions.find((x) => x.id === from.id);
    // The tab the pane left went when it was the tab's last pane (its id names no tab now).
    const closedTab = !fromAfter || !fromAfter.tabs.some((t) => after.tabId(fromAfter, t.workspace) === before.tab_id);
    return {
      type: 'pane_move',
      move_result: {
        changed: true,
        reason: null,
        previous_pane_id: before.pane_id,
        previous_workspace_id: before.workspace_id,
        previous_tab_id: before.tab_id,
        pane: after.paneInfo(moved),
        source_layout: fromAfter ? await layoutSnapshot(ctx, after, fromAfter, w.workspace) : null,
        target_layout: await layoutSnapshot(ctx, after, s, moved.workspace),
        focused_pane_id: herdrPaneId(s.id, moved.id),
        created_tab: kind === 'new_tab' ? after.tabInfo(s, moved.workspace) : null,
        created_workspace: null,
        closed_tab_id: closedTab ? before.tab_id : null,
        closed_workspace_id: fromAfter ? null : before.workspace_id,
      },
    };
  },
};
