// herdr's socket methods, each run through the tuios verb that does the same work (spec: herdr
// compatibility, Methods), by the dispatcher with the caller's own identity: the verb's access
// checks, grants and limits apply as on the verb socket, and there is no second implementation of
// any of them here. This file turns herdr's params into a verb's and the verb's answer into herdr's.
import { basename } from 'node:path';
import { TuiosError } from '../core/errors.js';
import type { Services } from '../core/daemon/services.js';
import type { Caller } from '../core/rpc/caller.js';
import { herdrPaneId, herdrTabId, herdrWorkspaceId, parsePaneId, parseTabId, parseWorkspaceId } from './ids.js';
import { enforce, paneOf } from '../core/security/access.js';
import { HERDR_PROTOCOL, HERDR_READ_DEFAULT_LINES, HERDR_READ_MAX_LINES, HERDR_VERSION } from './limits.js';
import { HerdrError, field, reqString, optString, optInt, waitTimeout, optBool, optEnv, type Params } from './params.js';
import { UNSUPPORTED, HERDR_METHODS } from './method-names.js';

export { HerdrError, type Params } from './params.js';

export interface MethodContext {
  svc: Services;
  caller: Caller;
  params: Params;
  /** Aborted when the client closes the connection: a wait ends with it. */
  signal?: AbortSignal;
}

type Method = (ctx: MethodContext) => Promise<Record<string, unknown>> | Record<string, unknown>;

// ---- the verbs, through the dispatcher ----

/** A tuios error in herdr's words: what a herdr client looks for when an id finds nothing. */
function herdrCode(code: string): string {
  if (code === 'session_not_found') return 'workspace_not_found';
  if (code === 'window_not_found') return 'pane_not_found';
  return code;
}

async function call<T = Record<string, unknown>>(ctx: MethodContext, verb: string, params: Record<string, unknown>): Promise<T> {
  try {
    return (await ctx.svc.dispatcher.call(verb, params, ctx.caller, undefined, ctx.signal)) as T;
  } catch (e) {
    if (e instanceof TuiosError) throw new HerdrError(herdrCode(e.code), e.message);
    throw e;
  }
}

// ---- tuios's sessions and windows as herdr's workspaces, tabs and panes ----

interface SessionRow {
  id: string;
  name: string;
  active_workspace: number;
  last_active_at: number;
}

interface WindowRow {
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
class View {
  constructor(
    readonly sessions: SessionRow[],
    readonly windows: WindowRow[],
  ) {}

  static async read(ctx: MethodContext): Promise<View> {
    const s = await call<{ sessions: SessionRow[] }>(ctx, 'list-sessions', {});
    const w = await call<{ windows: WindowRow[] }>(ctx, 'list-windows', {});
    return new View(s.sessions, w.windows);
  }

  panesOf(sessionId: string, tab?: number): WindowRow[] {
    return this.windows.filter((w) => w.session_id === sessionId && (tab === undefined || w.workspace === tab));
  }

  /**
   * A session's tabs: the workspaces that hold a window, and the one that shows. The tab number is
   * the workspace number (tuios has no workspace moves yet, so the two never part).
   */
  tabsOf(s: SessionRow): number[] {
    const set = new Set(this.panesOf(s.id).map((w) => w.workspace));
    set.add(s.active_workspace);
    return [...set].sort((a, b) => a - b);
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
    const p = this.paneInfo(w);
    const sid = w.agent_state?.agent_session_id ?? null;
    return {
      ...p,
      name: w.name,
      agent_session: sid ? { kind: sid.startsWith('/') ? 'path' : 'id', value: sid } : null,
    };
  }

  /** The focused session: the one last active. */
  focusedSession(): SessionRow | undefined {
    return [...this.sessions].sort((a, b) => b.last_active_at - a.last_active_at)[0];
  }

  paneInfo(w: WindowRow): Record<string, unknown> {
    const a = w.agent_state;
    const sessionId = w.session_id;
    const s = this.sessions.find((x) => x.id === sessionId);
    return {
      pane_id: herdrPaneId(sessionId, w.id),
      workspace_id: herdrWorkspaceId(sessionId),
      tab_id: herdrTabId(sessionId, w.workspace),
      focused: w.focused && s?.active_workspace === w.workspace,
      label: w.name,
      title: w.title,
      cwd: w.cwd,
      agent: herdrAgent(a?.harness_id),
      agent_status: herdrStatus(a?.state),
      // tuios's own id of the window, for a tool that also speaks tuios.
      terminal_id: w.id,
    };
  }

  tabInfo(s: SessionRow, tab: number): Record<string, unknown> {
    const panes = this.panesOf(s.id, tab);
    return {
      tab_id: herdrTabId(s.id, tab),
      workspace_id: herdrWorkspaceId(s.id),
      number: tab,
      // An unnamed tab's label is its workspace number, which is what the dock shows.
      label: String(tab),
      focused: s.active_workspace === tab,
      pane_count: panes.length,
      agent_status: mostUrgent(panes.map((w) => herdrStatus(w.agent_state?.state))),
    };
  }

  /**
   * A tab's layout: tuios keeps no split tree, so `splits` is empty; the daemon has no client's
   * layout either, so each pane fills the tab (spec: Where tuios differs from herdr).
   */
  layoutOf(s: SessionRow, tab: number): Record<string, unknown> {
    return {
      tab_id: herdrTabId(s.id, tab),
      panes: this.panesOf(s.id, tab).map((w) => ({ pane_id: herdrPaneId(s.id, w.id), x: 0, y: 0, width: w.cols, height: w.rows })),
      splits: [],
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
      active_tab_id: herdrTabId(s.id, s.active_workspace),
      agent_status: mostUrgent(panes.map((w) => herdrStatus(w.agent_state?.state))),
    };
  }
}

const ok = (): Record<string, unknown> => ({ type: 'ok' });

// ---- the methods, in the order of the spec's table ----

export const methods: Record<string, Method> = {
  ping: () => ({ type: 'pong', version: HERDR_VERSION, protocol: HERDR_PROTOCOL, server: 'tuios' }),

  async 'workspace.list'(ctx) {
    const v = await View.read(ctx);
    return { type: 'workspace_list', workspaces: v.sessions.map((s) => v.workspaceInfo(s)) };
  },

  async 'workspace.get'(ctx) {
    const id = reqString(ctx.params, 'workspace_id');
    const v = await View.read(ctx);
    return { type: 'workspace_info', workspace: v.workspaceInfo(v.session(id)) };
  },

  async 'workspace.create'(ctx) {
    // `label` is the display name; `focus` does nothing (no client is moved by a tool).
    const label = optString(ctx.params, 'label', 128);
    const cwd = optString(ctx.params, 'cwd', 4096);
    const env = optEnv(ctx.params);
    optBool(ctx.params, 'focus');
    const made = await call<{ session: { id: string }; window: { id: string } }>(ctx, 'new-session', {
      ...(label ? { name: label } : {}),
      ...(cwd ? { cwd } : {}),
      ...(env ? { env } : {}),
    });
    const v = await View.read(ctx);
    const s = v.sessions.find((x) => x.id === made.session.id);
    const w = v.windows.find((x) => x.id === made.window.id);
    if (!s || !w) throw new HerdrError('workspace_not_found', 'the new workspace closed before it could be read');
    return { type: 'workspace_created', workspace: v.workspaceInfo(s), tab: v.tabInfo(s, w.workspace), root_pane: v.paneInfo(w) };
  },

  async 'workspace.rename'(ctx) {
    const id = reqString(ctx.params, 'workspace_id');
    const label = reqString(ctx.params, 'label', 128);
    const v = await View.read(ctx);
    const s = v.session(id);
    await call(ctx, 'set-session-name', { session: s.id, name: label });
    const after = await View.read(ctx);
    return { type: 'workspace_info', workspace: after.workspaceInfo(after.session(id)) };
  },

  async 'workspace.close'(ctx) {
    const id = reqString(ctx.params, 'workspace_id');
    const v = await View.read(ctx);
    await call(ctx, 'kill-session', { session: v.session(id).id });
    return ok();
  },

  async 'tab.list'(ctx) {
    const only = optString(ctx.params, 'workspace_id');
    const v = await View.read(ctx);
    const sessions = only ? [v.session(only)] : v.sessions;
    return { type: 'tab_list', tabs: sessions.flatMap((s) => v.tabsOf(s).map((t) => v.tabInfo(s, t))) };
  },

  async 'pane.list'(ctx) {
    const ws = optString(ctx.params, 'workspace_id');
    const v = await View.read(ctx);
    const only = ws ? v.session(ws).id : null;
    return { type: 'pane_list', panes: v.windows.filter((w) => !only || w.session_id === only).map((w) => v.paneInfo(w)) };
  },

  async 'pane.get'(ctx) {
    const id = reqString(ctx.params, 'pane_id');
    const v = await View.read(ctx);
    return { type: 'pane_info', pane: v.paneInfo(v.pane(id)) };
  },

  async 'pane.read'(ctx) {
    const id = reqString(ctx.params, 'pane_id');
    const source = optString(ctx.params, 'source', 32) ?? 'visible';
    if (!['visible', 'recent', 'recent_unwrapped', 'detection'].includes(source)) throw new HerdrError('invalid_request', `unknown variant \`${source.slice(0, 32)}\`, expected one of \`visible\`, \`recent\`, \`recent_unwrapped\`, \`detection\``);
    const lines = optInt(ctx.params, 'lines', 1, HERDR_READ_MAX_LINES);
    const v = await View.read(ctx);
    const w = v.pane(id);
    // `recent` reads into the scrollback; `recent_unwrapped` reads as `recent` (tuios does not
    // join wrapped rows), and `detection` as `visible`.
    const recent = source === 'recent' || source === 'recent_unwrapped';
    const r = await call<{ lines: string[] }>(ctx, 'capture-pane', { window: w.id, ...(recent ? { lines: lines ?? HERDR_READ_DEFAULT_LINES } : {}) });
    return { type: 'pane_read', read: { pane_id: herdrPaneId(w.session_id, w.id), source, text: r.lines.join('\n') } };
  },

  async 'pane.send_text'(ctx) {
    const id = reqString(ctx.params, 'pane_id');
    const text = reqString(ctx.params, 'text', Number.MAX_SAFE_INTEGER);
    const v = await View.read(ctx);
    // A paste (spec: Where tuios differs from herdr): send-text removes control characters and
    // brackets it when the program wants that. A tool's own bracketed paste markers come off
    // first, so the paste puts on its own.
    await call(ctx, 'send-text', { window: v.pane(id).id, text: stripPasteMarkers(text) });
    return ok();
  },

  async 'pane.send_keys'(ctx) {
    const id = reqString(ctx.params, 'pane_id');
    const keys = field(ctx.params, 'keys');
    if (keys === undefined || keys === null) throw new HerdrError('invalid_request', 'missing field `keys`');
    if (!Array.isArray(keys) || keys.some((k) => typeof k !== 'string')) throw new HerdrError('invalid_request', 'invalid type for `keys`: expected a sequence of strings');
    for (const k of keys as string[]) {
      if (/^(cmd|super|hyper)[-+]/i.test(k)) throw new HerdrError('invalid_key', `tuios cannot send ${k.slice(0, 32)}: cmd, super and hyper are not keys a terminal carries`);
    }
    const v = await View.read(ctx);
    await call(ctx, 'send-keys', { window: v.pane(id).id, keys });
    return ok();
  },

  async 'pane.rename'(ctx) {
    const id = reqString(ctx.params, 'pane_id');
    if (!Object.prototype.hasOwnProperty.call(ctx.params, 'label')) throw new HerdrError('invalid_request', 'missing field `label`');
    const label = optString(ctx.params, 'label', 128);
    const v = await View.read(ctx);
    const w = v.pane(id);
    // `label: null` clears the name: the window takes its program's name back, as at its start.
    const program = basename(w.command?.[0] ?? '') || 'shell';
    await call(ctx, 'set-window', { window: w.id, name: label || program });
    const after = await View.read(ctx);
    return { type: 'pane_info', pane: after.paneInfo(after.pane(w.id)) };
  },

  async 'pane.close'(ctx) {
    const id = reqString(ctx.params, 'pane_id');
    const v = await View.read(ctx);
    await call(ctx, 'close-window', { window: v.pane(id).id });
    return ok();
  },

  async 'session.snapshot'(ctx) {
    const v = await View.read(ctx);
    const focused = v.focusedSession();
    return {
      type: 'session_snapshot',
      version: HERDR_VERSION,
      protocol: HERDR_PROTOCOL,
      server: 'tuios',
      focused_workspace_id: focused ? herdrWorkspaceId(focused.id) : null,
      workspaces: v.sessions.map((s) => v.workspaceInfo(s)),
      tabs: v.sessions.flatMap((s) => v.tabsOf(s).map((t) => v.tabInfo(s, t))),
      panes: v.windows.map((w) => v.paneInfo(w)),
      layouts: v.sessions.flatMap((s) => v.tabsOf(s).map((t) => v.layoutOf(s, t))),
    };
  },

  async 'tab.get'(ctx) {
    const id = reqString(ctx.params, 'tab_id');
    const t = parseTabId(id);
    const v = await View.read(ctx);
    const s = t ? v.sessions.find((x) => x.id.startsWith(t.session)) : undefined;
    if (!s || !t || !v.tabsOf(s).includes(t.tab)) throw new HerdrError('tab_not_found', `tab ${id.slice(0, 64)} not found`);
    return { type: 'tab_info', tab: v.tabInfo(s, t.tab) };
  },

  async 'pane.current'(ctx) {
    // The caller's own pane, as the kernel places it (never what it says).
    const { window } = paneOf(ctx.svc, ctx.caller);
    if (!window) throw new HerdrError('pane_not_found', 'the caller is not in a pane');
    const v = await View.read(ctx);
    return { type: 'pane_info', pane: v.paneInfo(v.pane(window.id)) };
  },

  async 'pane.layout'(ctx) {
    const id = reqString(ctx.params, 'pane_id');
    const v = await View.read(ctx);
    const w = v.pane(id);
    const s = v.sessions.find((x) => x.id === w.session_id)!;
    return { type: 'pane_layout', layout: v.layoutOf(s, w.workspace) };
  },

  async 'pane.send_input'(ctx) {
    const id = reqString(ctx.params, 'pane_id');
    const text = optString(ctx.params, 'text', Number.MAX_SAFE_INTEGER);
    const keys = field(ctx.params, 'keys');
    if (keys !== undefined && keys !== null && (!Array.isArray(keys) || keys.some((k) => typeof k !== 'string'))) throw new HerdrError('invalid_request', 'invalid type for `keys`: expected a sequence of strings');
    const v = await View.read(ctx);
    const w = v.pane(id);
    // The text is a paste, as for pane.send_text; then the keys.
    if (text) await call(ctx, 'send-text', { window: w.id, text: stripPasteMarkers(text) });
    if (Array.isArray(keys) && keys.length > 0) await call(ctx, 'send-keys', { window: w.id, keys });
    return ok();
  },

  'pane.focus': focusPane('pane_id'),
  'agent.focus': focusPane('target'),

  async 'pane.wait_for_output'(ctx) {
    const id = reqString(ctx.params, 'pane_id');
    const pattern = reqString(ctx.params, 'pattern', 4096);
    const timeout = waitTimeout(ctx.params);
    const v = await View.read(ctx);
    const w = v.pane(id);
    const r = await call<{ line: string; waited_ms: number }>(ctx, 'wait-for', { condition: 'window-output', window: w.id, pattern, ...(timeout !== undefined ? { timeout } : {}) });
    return { type: 'output_matched', pane_id: herdrPaneId(w.session_id, w.id), line: r.line, waited_ms: r.waited_ms };
  },

  async 'agent.list'(ctx) {
    const v = await View.read(ctx);
    return { type: 'agent_list', agents: v.agents().map((w) => v.agentInfo(w)) };
  },

  async 'agent.get'(ctx) {
    const target = reqString(ctx.params, 'target');
    const v = await View.read(ctx);
    return { type: 'agent_info', agent: v.agentInfo(v.agent(target)) };
  },

  async 'agent.read'(ctx) {
    const target = reqString(ctx.params, 'target');
    const v = await View.read(ctx);
    const w = v.agent(target);
    return methods['pane.read']!({ ...ctx, params: { ...ctx.params, pane_id: w.id } });
  },

  async 'agent.send_keys'(ctx) {
    const target = reqString(ctx.params, 'target');
    const v = await View.read(ctx);
    const w = v.agent(target);
    return methods['pane.send_keys']!({ ...ctx, params: { ...ctx.params, pane_id: w.id } });
  },

  async 'agent.wait'(ctx) {
    const target = reqString(ctx.params, 'target');
    const timeout = waitTimeout(ctx.params);
    const until = field(ctx.params, 'until');
    if (until !== undefined && until !== null && (!Array.isArray(until) || until.some((u) => typeof u !== 'string' || !(u in STATUS_STATES)))) {
      throw new HerdrError('invalid_request', 'invalid `until`: expected statuses of working, blocked, idle, done');
    }
    const v = await View.read(ctx);
    const w = v.agent(target);
    const states = Array.isArray(until) ? [...new Set((until as string[]).flatMap((u) => STATUS_STATES[u]!))] : undefined;
    const r = await call<{ state: string; waited_ms: number }>(ctx, 'wait-for', { condition: 'agent-state', window: w.id, ...(states ? { until: states } : {}), ...(timeout !== undefined ? { timeout } : {}) });
    return { type: 'agent_status', pane_id: herdrPaneId(w.session_id, w.id), agent_status: herdrStatus(r.state), waited_ms: r.waited_ms };
  },

  async 'agent.prompt'(ctx) {
    const target = reqString(ctx.params, 'target');
    // herdr's field is the prompt; `text` is taken too.
    const prompt = optString(ctx.params, 'prompt', Number.MAX_SAFE_INTEGER) ?? optString(ctx.params, 'text', Number.MAX_SAFE_INTEGER);
    if (prompt === undefined) throw new HerdrError('invalid_request', 'missing field `prompt`');
    const wait = optBool(ctx.params, 'wait');
    const timeout = waitTimeout(ctx.params);
    const v = await View.read(ctx);
    const w = v.agent(target);
    // An agent waiting on a prompt would take the text as its answer: nothing is typed. A working
    // agent gets it, and its harness queues it for the next turn, as in herdr.
    if (w.agent_state?.state === 'needs_input') throw new HerdrError('agent_blocked', `${w.name.slice(0, 64)} waits on a prompt; answer it first`);
    await call(ctx, 'send-text', { window: w.id, text: stripPasteMarkers(prompt), submit: true });
    if (!wait) return { type: 'ok' };
    const r = await call<{ state: string; waited_ms: number }>(ctx, 'wait-for', { condition: 'agent-state', window: w.id, ...(timeout !== undefined ? { timeout } : {}) });
    return { type: 'agent_status', pane_id: herdrPaneId(w.session_id, w.id), agent_status: herdrStatus(r.state), waited_ms: r.waited_ms };
  },

  async 'agent.rename'(ctx) {
    const target = reqString(ctx.params, 'target');
    const name = optString(ctx.params, 'name', 128);
    const v = await View.read(ctx);
    const w = v.agent(target);
    // No name clears it: the pane takes its program's name back.
    await call(ctx, 'set-window', { window: w.id, name: name || basename(w.command?.[0] ?? '') || 'shell' });
    const after = await View.read(ctx);
    return { type: 'agent_info', agent: after.agentInfo(after.pane(w.id)) };
  },

  async 'agent.explain'(ctx) {
    const target = reqString(ctx.params, 'target');
    const v = await View.read(ctx);
    const w = v.agent(target);
    // tuios's detector's report for the pane, not herdr's.
    const explain = await call(ctx, 'explain-agent-detect', { window: w.id });
    return { type: 'agent_explain', pane_id: herdrPaneId(w.session_id, w.id), explain };
  },

  async 'pane.process_info'(ctx) {
    const id = reqString(ctx.params, 'pane_id');
    const v = await View.read(ctx);
    const w = v.pane(id);
    // Arguments can carry secrets that never show on the screen: they go to you (outside every
    // pane), to the pane itself, and to a pane holding write or admin; read gets pid and name.
    const { window: own, inside } = paneOf(ctx.svc, ctx.caller);
    let full = !inside || own?.id === w.id;
    if (!full) {
      const g = await call<{ grants: string[] }>(ctx, 'pane-grants', {});
      full = g.grants.includes('write') || g.grants.includes('admin');
    }
    const shellName = basename(w.command?.[0] ?? '');
    const shell: Record<string, unknown> = { pid: w.pid, name: shellName };
    if (full) Object.assign(shell, { argv: w.command, cwd: w.start_cwd });
    const fg = w.foreground;
    const processes = fg
      ? [{ pid: fg.pid, name: fg.comm, ...(full ? { argv: fg.argv, command_line: fg.argv ? fg.argv.join(' ') : null, cwd: w.cwd } : {}) }]
      : [];
    return { type: 'process_info', pane_id: herdrPaneId(w.session_id, w.id), shell, foreground: processes };
  },

  // The agents tuios knows, under herdr's names. No manifest is fetched from the network, so the
  // remote fields are left out.
  'server.agent_manifests': (ctx) => ({
    type: 'agent_manifests',
    manifests: ctx.svc.manifests.list.map((m) => ({
      agent: herdrAgent(m.id),
      name: m.name,
      ...(m.origin === 'bundled' ? { source: 'bundled' } : { source: m.origin, source_kind: 'local override' }),
    })),
  }),

  // tuios reads no herdr config.toml and reads its own when the file changes: nothing to reload.
  'server.reload_config': () => ({
    type: 'config_reload',
    status: 'applied',
    diagnostics: ['tuios does not read herdr\'s config.toml; its own config is read again when the file changes'],
  }),

  // tuios shows none of herdr's release notes or announcements, so none is current.
  'release_notes.dismiss': () => {
    throw new HerdrError('stale_release_notes', 'no release notes are current');
  },
  'product_announcement.dismiss': () => {
    throw new HerdrError('stale_announcement', 'no announcement is current');
  },
};

/** herdr's statuses an agent.wait ends on, as tuios's states. */
const STATUS_STATES: Record<string, string[]> = { working: ['working'], blocked: ['needs_input'], idle: ['idle'], done: ['done', 'errored'] };

/** pane.focus and agent.focus: select-window, which needs admin here as every focus does. */
function focusPane(param: 'pane_id' | 'target'): Method {
  return async (ctx) => {
    const id = reqString(ctx.params, param);
    const v = await View.read(ctx);
    const w = param === 'pane_id' ? v.pane(id) : v.agent(id);
    try {
      enforce(ctx.svc, ctx.caller, { verb: param === 'pane_id' ? 'pane.focus' : 'agent.focus', access: 'admin', target: ctx.svc.model.windows.get(w.id) ?? null });
    } catch (e) {
      if (e instanceof TuiosError) throw new HerdrError(herdrCode(e.code), e.message);
      throw e;
    }
    await call(ctx, 'select-window', { window: w.id });
    const after = await View.read(ctx);
    return { type: 'pane_info', pane: after.paneInfo(after.pane(w.id)) };
  };
}

/** The bracketed paste markers a tool put around its own text. */
export function stripPasteMarkers(text: string): string {
  return text.replaceAll('\x1b[200~', '').replaceAll('\x1b[201~', '');
}

/** The method a name calls, or the error herdr's client gets for it. */
export function methodFor(name: string): Method {
  const m = Object.prototype.hasOwnProperty.call(methods, name) ? methods[name] : undefined;
  if (m) return m;
  if (name.startsWith('pane.graphics.')) throw new HerdrError('unknown_method', `unknown method ${name}`);
  if (UNSUPPORTED.has(name) || HERDR_METHODS.has(name) || name.startsWith('plugin.')) {
    throw new HerdrError('unsupported', `tuios does not answer ${name}`);
  }
  throw new HerdrError('invalid_request', `unknown variant \`${name.slice(0, 64)}\``);
}
