// herdr's agent.start, events.wait and notification.show (spec: herdr compatibility, Methods, and
// herdr's pane state protocol), each through the tuios verbs and checks that do the same work.
import { TuiosError } from '../core/errors.js';
import { paneOf } from '../core/security/access.js';
import { findHarness } from '../core/detection/manifest.js';
import { isShellName } from '../core/detection/identify.js';
import { resolveHarness } from '../core/git/fleet.js';
import type { Window } from '../core/model/window.js';
import { herdrPaneId } from './ids.js';
import { HerdrError, field, reqString, waitTimeout, optString } from './params.js';
import { View, call, check, herdrAgent, herdrStatus, type Method, type MethodContext } from './view.js';
import { harnessFor, takeRate } from './reports.js';
import { commandLine, shellName } from './shell-quote.js';
import {
  HERDR_AGENT_ARGS_MAX,
  HERDR_AGENT_ARG_MAX,
  HERDR_AGENT_START_MAX_MS,
  HERDR_AGENT_START_MIN_MS,
  HERDR_NOTIFY_BODY_MAX,
  HERDR_NOTIFY_TITLE_MAX,
} from './limits.js';

/** herdr's statuses as tuios's states: what a wait on a status ends on. */
export const STATUS_STATES: Record<string, string[]> = { working: ['working'], blocked: ['needs_input'], idle: ['idle'], done: ['done', 'errored'], unknown: ['unknown', 'none'] };

/** agent.start's `args`: strings, bounded. */
function argsOf(ctx: MethodContext): string[] {
  const v = field(ctx.params, 'args');
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((a) => typeof a !== 'string')) throw new HerdrError('invalid_request', 'invalid type for `args`: expected a sequence of strings');
  if (v.length > HERDR_AGENT_ARGS_MAX) throw new HerdrError('invalid_params', `\`args\` holds at most ${HERDR_AGENT_ARGS_MAX} arguments`);
  if ((v as string[]).some((a) => a.length > HERDR_AGENT_ARG_MAX)) throw new HerdrError('invalid_params', `an argument is at most ${HERDR_AGENT_ARG_MAX} characters`);
  return v as string[];
}

/** The pane's shell when the pane is at its shell prompt (its own process a shell in the foreground); else null. */
function shellAtPrompt(w: Window): string | null {
  if (!w.running || w.pid === null) return null;
  const fg = w.foreground();
  if (!fg || fg.pid !== w.pid || !isShellName(fg.comm)) return null;
  return shellName(fg.comm);
}

/** Text a program gave for a notification: control characters and runs of whitespace made one space, trimmed, cut. */
function notificationText(s: string, max: number): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\x00-\x1f\x7f-\x9f]+/g, ' ').replace(/\s+/g, ' ').trim().slice(0, max);
}

export const agentMethods: Record<string, Method> = {
  /**
   * Types a known harness's command at the shell prompt of a pane with no agent, quoted for the
   * pane's shell, and names the pane after the agent. The answer comes once it is typed; tuios
   * then finds the agent by its process, as for one a person starts.
   */
  async 'agent.start'(ctx) {
    const name = reqString(ctx.params, 'name', 128);
    const kind = reqString(ctx.params, 'kind', 64);
    const paneId = reqString(ctx.params, 'pane_id');
    const args = argsOf(ctx);
    const t = field(ctx.params, 'timeout_ms');
    if (t !== undefined && t !== null && (typeof t !== 'number' || !Number.isInteger(t) || t <= HERDR_AGENT_START_MIN_MS || t > HERDR_AGENT_START_MAX_MS)) {
      throw new HerdrError('invalid_agent_timeout', `agent start timeout must be greater than ${HERDR_AGENT_START_MIN_MS}ms and at most ${HERDR_AGENT_START_MAX_MS}ms`);
    }
    if (!name.trim()) throw new HerdrError('invalid_agent_name', 'an agent name has visible text');
    const manifest = findHarness(ctx.svc.manifests, harnessFor(ctx.svc.manifests, kind));
    if (!manifest) throw new HerdrError('unsupported_agent_kind', `unsupported interactive agent kind ${kind.slice(0, 64)}`);
    const v = await View.read(ctx);
    const row = v.pane(paneId);
    const w = ctx.svc.model.windows.get(row.id);
    if (!w) throw new HerdrError('pane_not_found', `pane ${paneId.slice(0, 64)} not found`);
    // What start-agent needs (fan on the session), and write for the typing, before anything is typed.
    check(ctx, { verb: 'agent.start', access: 'fan', target: null, sessionId: w.sessionId });
    check(ctx, { verb: 'agent.start', access: 'write', target: w, types: true });
    const shell = shellAtPrompt(w);
    if (!shell || ctx.svc.agents.holdsAgent(w) || ctx.svc.agents.stateOf(w) !== 'none') {
      throw new HerdrError('agent_pane_busy', `agent target pane ${paneId.slice(0, 64)} is not an available shell`);
    }
    let program: string;
    try {
      program = (await resolveHarness(ctx.svc, manifest.id)).program;
    } catch (e) {
      if (e instanceof TuiosError) throw new HerdrError('unsupported_agent_kind', e.message);
      throw e;
    }
    const argv = [program, ...args];
    const line = commandLine(argv, shell);
    if (line === null) throw new HerdrError('invalid_agent_argument', `agent arguments cannot be encoded safely for the target shell (${shell.slice(0, 32)})`);
    await call(ctx, 'set-window', { window: w.id, name });
    await call(ctx, 'send-text', { window: w.id, text: line });
    await call(ctx, 'send-keys', { window: w.id, keys: ['Enter'] });
    const after = await View.read(ctx);
    return { type: 'agent_started', agent: after.agentInfo(after.pane(w.id)), argv };
  },

  /** wait-for agent-state on one pane: only a pane_agent_status_changed match, as herdr answers. */
  async 'events.wait'(ctx) {
    const m = field(ctx.params, 'match_event');
    if (m === undefined || m === null) throw new HerdrError('invalid_request', 'missing field `match_event`');
    if (typeof m !== 'object' || Array.isArray(m)) throw new HerdrError('invalid_request', 'invalid type for `match_event`: expected a map');
    const match = m as Record<string, unknown>;
    const event = reqString(match, 'event', 64);
    if (event !== 'pane_agent_status_changed') throw new HerdrError('unsupported', `tuios answers events.wait only for pane_agent_status_changed, not ${event}`);
    const paneId = reqString(match, 'pane_id');
    const status = reqString(match, 'agent_status', 32);
    const states = STATUS_STATES[status];
    if (!states) throw new HerdrError('invalid_request', `unknown variant \`${status}\`, expected one of \`working\`, \`blocked\`, \`idle\`, \`done\`, \`unknown\``);
    const timeout = waitTimeout(ctx.params);
    const v = await View.read(ctx);
    const w = v.pane(paneId);
    const r = await call<{ state: string }>(ctx, 'wait-for', { condition: 'agent-state', window: w.id, until: states, ...(timeout !== undefined ? { timeout } : {}) });
    const after = await View.read(ctx);
    const now = after.windows.find((x) => x.id === w.id) ?? w;
    const data = { pane_id: herdrPaneId(now.session_id, now.id), workspace_id: after.paneInfo(now).workspace_id, tab_id: after.paneInfo(now).tab_id, agent: herdrAgent(now.agent_state?.harness_id), agent_status: herdrStatus(r.state) };
    return { type: 'wait_matched', event: { event: 'pane_agent_status_changed', data } };
  },

  /**
   * A notification event from the caller's pane, matched against its harness's notify rules as one
   * read from OSC 9, 777 or 99 is. It names no pane, so it needs a caller in a pane; a pane sends
   * these and pane.report_metadata in a burst of 20, then 5 a second.
   */
  'notification.show'(ctx) {
    const title = notificationText(reqString(ctx.params, 'title', 64 * 1024), HERDR_NOTIFY_TITLE_MAX);
    const body = notificationText(optString(ctx.params, 'body', 64 * 1024) ?? '', HERDR_NOTIFY_BODY_MAX);
    const sound = optString(ctx.params, 'sound', 32);
    if (sound !== undefined && !['none', 'done', 'request'].includes(sound)) throw new HerdrError('invalid_request', `unknown variant \`${sound}\`, expected one of \`none\`, \`done\`, \`request\``);
    if (!title) throw new HerdrError('invalid_params', 'the notification title has no visible text');
    const { window: w } = paneOf(ctx.svc, ctx.caller);
    if (!w) throw new HerdrError('forbidden', 'notification.show names no pane: it needs a caller in a pane');
    if (!takeRate(w)) throw new HerdrError('rate_limited', 'a pane sends at most 20 metadata reports and notifications at once, then 5 a second');
    w.raiseNotification({ osc: 0, title, body });
    return { type: 'notification_show', shown: true, reason: 'shown' };
  },
};
