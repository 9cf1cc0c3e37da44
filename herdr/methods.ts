// herdr's socket methods, each run through the tuios verb that does the same work (spec: herdr
// compatibility, Methods), by the dispatcher with the caller's own identity: the verb's access
// checks, grants and limits apply as on the verb socket, and there is no second implementation of
// any of them here. This file turns herdr's params into a verb's and the verb's answer into herdr's.
// Each area of herdr's table may live in a methods-*.ts file of its own; methodFor reads them all.
import { basename } from 'node:path';
import { herdrPaneId, herdrWorkspaceId } from './ids.js';
import { paneOf } from '../core/security/access.js';
import { HERDR_PROTOCOL, HERDR_READ_DEFAULT_LINES, HERDR_READ_MAX_LINES, HERDR_VERSION } from './limits.js';
import { HerdrError, field, reqString, optString, optInt, waitTimeout, optBool, optEnv } from './params.js';
import { UNSUPPORTED, HERDR_METHODS } from './method-names.js';
import { layoutMethods, layoutSnapshot } from './methods-layout.js';
import { View, call, check, ok, herdrStatus, herdrAgent, type Method } from './view.js';
import { tabMethods } from './methods-tabs.js';
import { agentMethods } from './methods-agents.js';
import { worktreeMethods } from './methods-worktree.js';
import { workspaceMetaMethods } from './methods-workspace-meta.js';

export { HerdrError, type Params } from './params.js';
export { herdrStatus, herdrAgent, mostUrgent, type MethodContext, type Method } from './view.js';

// ---- the methods, in the order of the spec's table ----

const baseMethods: Record<string, Method> = {
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
      layouts: await Promise.all(v.sessions.flatMap((s) => v.tabsOf(s).map((t) => layoutSnapshot(ctx, v, s, t)))),
    };
  },

  async 'tab.get'(ctx) {
    const id = reqString(ctx.params, 'tab_id');
    const v = await View.read(ctx);
    const t = v.tab(id);
    return { type: 'tab_info', tab: v.tabInfo(t.s, t.workspace) };
  },

  async 'pane.current'(ctx) {
    // The caller's own pane, as the kernel places it (never what it says).
    const { window } = paneOf(ctx.svc, ctx.caller);
    if (!window) throw new HerdrError('pane_not_found', 'the caller is not in a pane');
    const v = await View.read(ctx);
    return { type: 'pane_info', pane: v.paneInfo(v.pane(window.id)) };
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

/** Every method tuios runs: this file's, and each area's file (one spread line each). */
export const methods: Record<string, Method> = {
  ...baseMethods,
  ...layoutMethods,
  ...tabMethods,
  ...agentMethods,
  ...worktreeMethods,
  ...workspaceMetaMethods,
};

/** herdr's statuses an agent.wait ends on, as tuios's states. */
const STATUS_STATES: Record<string, string[]> = { working: ['working'], blocked: ['needs_input'], idle: ['idle'], done: ['done', 'errored'] };

/** pane.focus and agent.focus: select-window, which needs admin here as every focus does. */
function focusPane(param: 'pane_id' | 'target'): Method {
  return async (ctx) => {
    const id = reqString(ctx.params, param);
    const v = await View.read(ctx);
    const w = param === 'pane_id' ? v.pane(id) : v.agent(id);
    check(ctx, { verb: param === 'pane_id' ? 'pane.focus' : 'agent.focus', access: 'admin', target: ctx.svc.model.windows.get(w.id) ?? null });
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
