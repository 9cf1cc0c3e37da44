// herdr's events.subscribe (spec: herdr compatibility, Events): tuios's subscribe verb, run by the
// dispatcher for the caller, with each bus event it streams told in herdr's words. The answer is
// `{"id","result":{"type":"subscription_started"}}`, then one event a line until the client
// closes the connection; a reader too slow for the stream gets error events_lost and the close.
import type { MethodContext } from './methods.js';
import { HerdrError, herdrAgent, herdrStatus } from './methods.js';
import { herdrPaneId, herdrTabId, herdrWorkspaceId, parsePaneId } from './ids.js';

/** A method's answer that goes on as a stream: the first result, then lines until it ends. */
export class HerdrStream {
  constructor(
    readonly first: Record<string, unknown>,
    /** Starts the stream; `send` writes a line, `end` closes (with an error line when given). */
    readonly start: (send: (msg: object) => void, end: (error?: { code: string; message: string }) => void, pending: () => number, signal: AbortSignal) => void,
  ) {}
}

const GLOBAL = new Set([
  'workspace_created',
  'workspace_renamed',
  'workspace_closed',
  'pane_created',
  'tab_created',
  'pane_closed',
  'tab_closed',
  'pane_exited',
  'pane_updated',
  'pane_focused',
  'pane_moved',
  'tab_focused',
  'pane_agent_detected',
]);
const PANE = new Set(['pane.agent_status_changed']);
const UNSUPPORTED = new Set(['pane.scroll_changed', 'pane.output_matched']);

/** The bus events each herdr event comes from. */
const SOURCES = ['session-created', 'session-renamed', 'session-closed', 'window-created', 'window-closed', 'window-exit', 'window-retitled', 'window-focused', 'window-moved', 'workspace-switched', 'agent-state'];

interface Sub {
  type: string;
  pane?: string;
}

function parseSubs(ctx: MethodContext): Sub[] {
  const v = ctx.params.subscriptions;
  if (v === undefined || v === null) throw new HerdrError('invalid_request', 'missing field `subscriptions`');
  if (!Array.isArray(v) || v.length > 64) throw new HerdrError('invalid_request', 'invalid type for `subscriptions`: expected a sequence of at most 64');
  return v.map((s) => {
    const o = (typeof s === 'string' ? { type: s } : s) as { type?: unknown; pane_id?: unknown };
    if (typeof o !== 'object' || o === null || typeof o.type !== 'string') throw new HerdrError('invalid_request', 'missing field `type`');
    if (UNSUPPORTED.has(o.type)) throw new HerdrError('unsupported', `tuios does not send ${o.type}: use pane.wait_for_output`);
    if (GLOBAL.has(o.type)) return { type: o.type };
    if (PANE.has(o.type)) {
      if (typeof o.pane_id !== 'string') throw new HerdrError('invalid_request', 'missing field `pane_id`');
      const p = parsePaneId(o.pane_id);
      if (!p) throw new HerdrError('pane_not_found', `pane ${o.pane_id.slice(0, 64)} not found`);
      return { type: o.type, pane: p };
    }
    throw new HerdrError('invalid_request', `unknown variant \`${o.type.slice(0, 64)}\``);
  });
}

type Ev = { type: string; window_id?: string; session_id?: string; from_session_id?: string; workspace?: number; name?: string; old_name?: string; title?: string; exit_code?: number | null; state?: string; old_state?: string; harness?: string | null };

export function eventsSubscribe(ctx: MethodContext): HerdrStream {
  const subs = parseSubs(ctx);
  const global = new Set(subs.filter((s) => !s.pane).map((s) => s.type));
  const panes = subs.filter((s) => s.pane).map((s) => s.pane!);
  const model = ctx.svc.model;
  const wsOf = (sid: string | undefined) => (sid ? herdrWorkspaceId(sid) : null);
  /** A workspace's tab id: its own tab number (core/model/tabs.ts), which a reorder keeps. */
  const tabIdOf = (sid: string, ws: number) => herdrTabId(sid, model.sessions.get(sid)?.tabs.numberOf(ws) ?? ws);
  /** The tab a window is on, from the model (the window may be gone: its event says the session). */
  const paneData = (e: Ev) => {
    const w = e.window_id ? model.windows.get(e.window_id) : undefined;
    const sid = w?.sessionId ?? e.session_id!;
    return { pane_id: herdrPaneId(sid, e.window_id!), workspace_id: herdrWorkspaceId(sid), ...(w ? { tab_id: tabIdOf(sid, w.workspace) } : {}) };
  };
  const panesOn = (sid: string, ws: number) => [...model.windows.values()].filter((w) => w.sessionId === sid && w.workspace === ws).length;
  /** Whether a pane of the session is still on the tab with this id. */
  const tabHeld = (sid: string, tabId: string) => [...model.windows.values()].some((w) => w.sessionId === sid && tabIdOf(sid, w.workspace) === tabId);
  // The tab a window is on, kept for when it closes or moves (the event comes after the change).
  const tabOf = new Map<string, string>();
  for (const w of model.windows.values()) tabOf.set(w.id, tabIdOf(w.sessionId, w.workspace));

  function translate(e: Ev): Array<{ event: string; data: Record<string, unknown> }> {
    const out: Array<{ event: string; data: Record<string, unknown> }> = [];
    const g = (type: string, data: Record<string, unknown>) => {
      if (global.has(type)) out.push({ event: type, data: { type, ...data } });
    };
    switch (e.type) {
      case 'session-created':
        g('workspace_created', { workspace_id: wsOf(e.session_id), label: e.name });
        break;
      case 'session-renamed':
        g('workspace_renamed', { workspace_id: wsOf(e.session_id), label: e.name });
        break;
      case 'session-closed':
        g('workspace_closed', { workspace_id: wsOf(e.session_id) });
        break;
      case 'window-created': {
        const w = model.windows.get(e.window_id!);
        if (w) tabOf.set(w.id, tabIdOf(w.sessionId, w.workspace));
        g('pane_created', paneData(e));
        if (w && panesOn(w.sessionId, w.workspace) === 1) g('tab_created', { tab_id: tabIdOf(w.sessionId, w.workspace), workspace_id: herdrWorkspaceId(w.sessionId) });
        break;
      }
      case 'window-closed': {
        const tab = tabOf.get(e.window_id!);
        tabOf.delete(e.window_id!);
        g('pane_closed', { pane_id: herdrPaneId(e.session_id!, e.window_id!), workspace_id: wsOf(e.session_id) });
        if (tab !== undefined && !tabHeld(e.session_id!, tab)) g('tab_closed', { tab_id: tab, workspace_id: wsOf(e.session_id) });
        break;
      }
      case 'window-exit':
        g('pane_exited', { ...paneData(e), exit_code: e.exit_code ?? null });
        break;
      case 'window-retitled':
        g('pane_updated', { ...paneData(e), title: e.title });
        break;
      case 'window-focused':
        g('pane_focused', paneData(e));
        break;
      case 'window-moved': {
        const w = model.windows.get(e.window_id!);
        const left = tabOf.get(e.window_id!);
        if (w) tabOf.set(w.id, tabIdOf(w.sessionId, w.workspace));
        g('pane_moved', paneData(e));
        if (left !== undefined && e.from_session_id && !tabHeld(e.from_session_id, left)) g('tab_closed', { tab_id: left, workspace_id: wsOf(e.from_session_id) });
        if (w && panesOn(w.sessionId, w.workspace) === 1) g('tab_created', { tab_id: tabIdOf(w.sessionId, w.workspace), workspace_id: herdrWorkspaceId(w.sessionId) });
        break;
      }
      case 'workspace-switched':
        g('tab_focused', { tab_id: tabIdOf(e.session_id!, e.workspace!), workspace_id: wsOf(e.session_id) });
        break;
      case 'agent-state': {
        const data = { ...paneData(e), agent: herdrAgent(e.harness), agent_status: herdrStatus(e.state) };
        // An agent that comes or goes is detected; a status that changes is told to its pane's subscribers.
        if (e.old_state === 'none' || e.state === 'none') g('pane_agent_detected', data);
        if (herdrStatus(e.old_state) !== herdrStatus(e.state) && panes.some((p) => e.window_id!.startsWith(p))) {
          out.push({ event: 'pane.agent_status_changed', data });
        }
        break;
      }
    }
    return out;
  }

  return new HerdrStream({ type: 'subscription_started' }, (send, end, pending, signal) => {
    let stopped = false;
    void ctx.svc.dispatcher
      .call(
        'subscribe',
        { types: SOURCES },
        ctx.caller,
        {
          send: (m: { event?: Ev; error?: { code: string; message: string } }) => {
            if (stopped) return;
            if (m.error) {
              stopped = true;
              end({ code: m.error.code, message: m.error.message });
              return;
            }
            if (m.event) for (const line of translate(m.event)) send(line);
          },
          pendingBytes: pending,
          close: () => {
            if (!stopped) end();
            stopped = true;
          },
          signal,
        },
        signal,
      )
      .catch((e: unknown) => {
        if (!stopped) end({ code: (e as { code?: string }).code ?? 'internal', message: e instanceof Error ? e.message : String(e) });
        stopped = true;
      });
  });
}
