// What herdr's methods share: the caller's context, a tuios verb called through the dispatcher
// with herdr's error words, and the View (tuios's sessions and windows read once per request as
// herdr's workspaces, tabs and panes). Each methods-*.ts file maps one area of herdr's table.
import { TuiosError } from '../core/errors.js';
import type { Services } from '../core/daemon/services.js';
import type { Caller } from '../core/rpc/caller.js';
import { herdrPaneId, herdrTabId, herdrWorkspaceId, parsePaneId, parseTabId, parseWorkspaceId } from './ids.js';
import { HerdrError, type Params } from './params.js';
import { enforce } from '../core/security/access.js';
import { workspaceTokens } from './workspace-tokens.js';

export interface MethodContext {
  svc: Services;
  caller: Caller;
  params: Params;
  /** Aborted when the client closes the connection: a wait ends with it. */
  signal?: AbortSignal;
}

export type Method = (ctx: MethodContext) => Promise<Record<string, unknown>> | Record<string, unknown>;

// ---- the verbs, through the dispatcher ----

/** A tuios error in herdr's words: what a herdr client looks for when an id finds nothing. */
export function herdrCode(code: string): string {
  if (code === 'session_not_found') return 'workspace_not_found';
  if (code === 'window_not_found') return 'pane_not_found';
  return code;
}

/** A check of the access layer (the verb's own rule for a method that runs none), in herdr's error words. */
export function check(ctx: MethodContext, o: Parameters<typeof enforce>[2]): void {
  try {
    enforce(ctx.svc, ctx.caller, o);
  } catch (e) {
    if (e instanceof TuiosError) throw new HerdrError(herdrCode(e.code), e.message);
    throw e;
  }
}

export async function call<T = Record<string, unknown>>(ctx: MethodContext, verb: string, params: Record<string, unknown>): Promise<T> {
  try {
    return (await ctx.svc.dispatcher.call(verb, params, ctx.caller, undefined, ctx.signal)) as T;
  } catch (e) {
    if (e instanceof TuiosError) throw new HerdrError(herdrCode(e.code), e.message);
    throw e;
  }
}

// ---- tuios's sessions and windows as herdr's workspaces, tabs and panes ----

export interface SessionRow {
  id: string;
  name: string;
  active_workspace: number;
  last_active_at: number;
  /** The workspaces that are tabs, with their own tab numbers and names (core/model/tabs.ts). */
  tabs: Array<{ workspace: number; number: number; name: string | null }>;
}

export interface WindowRow {
  id: string;
  name: string;
  session_id: string;
  workspace: number;
  focused: boolean;
  cwd: string | null;
  title: string;
  cols: number;
  rows: number;
  running: boolean;
  pid: number | null;
  foreground: { pid: number; comm: string; argv: string[] | null } | null;
  start_cwd: string | null;
  command: string[] | null;
  agent_state?: { state: string; harness_id?: string | null; agent_session_id?: string | null; meta?: Record<string, unknown> };
}

/** herdr's agent_status for a tuios state (spec: Agent state maps onto herdr's agent_status). */
export function herdrStatus(state: string | undefined): string {
  switch (state) {
    case 'working':
      return 'working';
    case 'needs_input':
      return 'blocked';
    case 'idle':
      return 'idle';
    case 'done':
    case 'errored':
      return 'done';
    default:
      return 'unknown';
  }
}

/** herdr's name for a harness: a few differ, every other is tuios's id. */
const HERDR_AGENT: Record<string, string> = { 'claude-code': 'claude', 'gemini-cli': 'gemini', 'cursor-agent': 'cursor', antigravity: 'agy', qoder: 'qodercli' };

export function herdrAgent(harness: string | null | undefined): string | null {
  return harness ? (HERDR_AGENT[harness] ?? harness) : null;
}

/** herdr's order of urgency: a tab and a workspace show their most urgent pane's status. */
const URGENCY = ['blocked', 'done', 'working', 'idle', 'unknown'];

export function mostUrgent(statuses: string[]): string {
  let best = 'unknown';
  for (const s of statuses) if (URGENCY.indexOf(s) < URGENCY.indexOf(best)) best = s;
  return best;
}

/** Everything the caller may read, once per request: list-sessions and list-windows. */
export class View {
  constructor(
    readonly sessions: SessionRow[],
    readonly windows: WindowRow[],
    /** A session's workspace.report_metadata tokens. */
    readonly tokensOf: (sessionId: string) => Record<string, string> = () => ({}),
    /** What only the live window knows: the bytes it printed and its scrollback rows. */
    readonly liveOf: (windowId: string) => { outputBytes: number; scrollbackRows: number } | null = () => null,
  ) {}

  static async read(ctx: MethodContext): Promise<View> {
    const s = await call<{ sessions: SessionRow[] }>(ctx, 'list-sessions', {});
    const w = await call<{ windows: WindowRow[] }>(ctx, 'list-windows', {});
    const liveOf = (id: string) => {
      const win = ctx.svc.model.windows.get(id);
      return win ? { outputBytes: win.outputBytes, scrollbackRows: Math.max(0, win.screen.bufferLength - win.screen.rows) } : null;
    };
    return new View(s.sessions, w.windows, (id) => workspaceTokens(ctx.svc).read(id), liveOf);
  }

  panesOf(sessionId: string, tab?: number): WindowRow[] {
    return this.windows.filter((w) => w.session_id === sessionId && (tab === undefined || w.workspace === tab));
  }

  /**
   * A session's tabs, as the workspace numbers they are on, in workspace order: the workspaces
   * that hold a window, have a name, or show. Each has a tab number of its own (tabNumber).
   */
  tabsOf(s: SessionRow): number[] {
    return s.tabs.map((t) => t.workspace).sort((a, b) => a - b);
  }

  /** The tab number of a session's workspace: its own, which the tab id carries. */
  tabNumber(s: SessionRow, workspace: number): number {
    return s.tabs.find((t) => t.workspace === workspace)?.number ?? workspace;
  }

  tabId(s: SessionRow | string, workspace: number): string {
    const row = typeof s === 'string' ? this.sessions.find((x) => x.id === s) : s;
    return herdrTabId(typeof s === 'string' ? s : s.id, row ? this.tabNumber(row, workspace) : workspace);
  }

  /** The session and workspace a herdr tab id names; tab_not_found when that tab is gone. */
  tab(tabId: string): { s: SessionRow; workspace: number } {
    const t = parseTabId(tabId);
    const s = t ? this.sessions.find((x) => x.id.startsWith(t.session)) : undefined;
    const ws = s ? s.tabs.find((x) => x.number === t!.tab)?.workspace : undefined;
    if (!s || ws === undefined) throw new HerdrError('tab_not_found', `tab ${tabId.slice(0, 64)} not found`);
    return { s, workspace: ws };
  }

  /** The session herdr's workspace id names; workspace_not_found when none the caller reads. */
  session(workspaceId: string): SessionRow {
    const prefix = parseWorkspaceId(workspaceId);
    const s = prefix ? this.sessions.find((x) => x.id.startsWith(prefix)) : undefined;
    if (!s) throw new HerdrError('workspace_not_found', `workspace ${workspaceId.slice(0, 64)} not found`);
    return s;
  }

  /** The window a pane id names; pane_not_found when none the caller reads. */
  pane(paneId: string): WindowRow {
    const prefix = parsePaneId(paneId);
    const found = prefix ? this.windows.filter((w) => w.id.startsWith(prefix)) : [];
    if (found.length !== 1) throw new HerdrError('pane_not_found', `pane ${paneId.slice(0, 64)} not found`);
    return found[0]!;
  }

  /** The panes that hold an agent: a harness tuios found, or a state reported or read. */
  agents(): WindowRow[] {
    return this.windows.filter((w) => !!w.agent_state?.harness_id || (w.agent_state?.state ?? 'none') !== 'none');
  }

  /** An agent by pane id, terminal id, or one agent's label or name; pane_not_found when none. */
  agent(target: string): WindowRow {
    const prefix = parsePaneId(target);
    const byId = prefix ? this.windows.filter((w) => w.id.startsWith(prefix)) : [];
    if (byId.length === 1) return byId[0]!;
    const byName = this.agents().filter((w) => w.name === target || herdrAgent(w.agent_state?.harness_id) === target);
    if (byName.length === 1) return byName[0]!;
    throw new HerdrError('pane_not_found', byName.length > 1 ? `${target.slice(0, 64)} names ${byName.length} agents; give a pane id` : `agent ${target.slice(0, 64)} not found`);
  }

  agentInfo(w: WindowRow): Record<string, unknown> {
    return { ...this.paneInfo(w), name: w.name };
  }

  /** The focused session: the one last active. */
  focusedSession(): SessionRow | undefined {
    return [...this.sessions].sort((a, b) => b.last_active_at - a.last_active_at)[0];
  }

  paneInfo(w: WindowRow): Record<string, unknown> {
    const a = w.agent_state;
    const sessionId = w.session_id;
    const s = this.sessions.find((x) => x.id === sessionId);
    // Agent metadata becomes herdr's tokens, its `title` token herdr's title (the terminal's own
    // title is terminal_title, as in herdr).
    const tokens: Record<string, string> = {};
    for (const [k, v] of Object.entries(a?.meta ?? {})) if (typeof v === 'string' && k !== 'title') tokens[k] = v;
    const titleToken = typeof a?.meta?.title === 'string' ? a.meta.title : null;
    const sid = a?.agent_session_id ?? null;
    const live = this.liveOf(w.id);
    return {
      pane_id: herdrPaneId(sessionId, w.id),
      workspace_id: herdrWorkspaceId(sessionId),
      tab_id: this.tabId(sessionId, w.workspace),
      focused: w.focused && s?.active_workspace === w.workspace,
      label: w.name,
      title: titleToken,
      terminal_title: w.title,
      cwd: w.cwd,
      agent: herdrAgent(a?.harness_id),
      agent_status: herdrStatus(a?.state),
      tokens,
      agent_session: sid ? { kind: sid.startsWith('/') ? 'path' : 'id', value: sid } : null,
      // tuios scrolls a pane in the client (copy mode), never for another program: the view is at
      // the bottom, and the scrollback rows are how far it could go.
      scroll: live ? { offset_from_bottom: 0, max_offset_from_bottom: live.scrollbackRows, viewport_rows: w.rows } : null,
      // herdr's revision changes when the pane's text changes: the bytes the pane printed.
      revision: live?.outputBytes ?? 0,
      // tuios's own id of the window, for a tool that also speaks tuios.
      terminal_id: w.id,
    };
  }

  tabInfo(s: SessionRow, tab: number): Record<string, unknown> {
    const panes = this.panesOf(s.id, tab);
    return {
      tab_id: this.tabId(s, tab),
      workspace_id: herdrWorkspaceId(s.id),
      number: this.tabNumber(s, tab),
      // An unnamed tab's label is its workspace number, which is what the dock shows.
      label: s.tabs.find((t) => t.workspace === tab)?.name ?? String(tab),
      focused: s.active_workspace === tab,
      pane_count: panes.length,
      agent_status: mostUrgent(panes.map((w) => herdrStatus(w.agent_state?.state))),
    };
  }

  workspaceInfo(s: SessionRow): Record<string, unknown> {
    const panes = this.panesOf(s.id);
    return {
      workspace_id: herdrWorkspaceId(s.id),
      number: this.sessions.indexOf(s) + 1,
      label: s.name,
      focused: this.focusedSession()?.id === s.id,
      pane_count: panes.length,
      tab_count: this.tabsOf(s).length,
      active_tab_id: this.tabId(s, s.active_workspace),
      agent_status: mostUrgent(panes.map((w) => herdrStatus(w.agent_state?.state))),
      tokens: this.tokensOf(s.id),
    };
  }
}

export const ok = (): Record<string, unknown> => ({ type: 'ok' });
