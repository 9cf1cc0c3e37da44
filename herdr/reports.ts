// herdr's pane state protocol (spec: herdr's pane state protocol): pane.report_agent,
// pane.report_agent_session and pane.release_agent, each through set-agent-state or
// set-agent-session with source report, so a report has a hook's rank, guards and alerts. What is
// herdr's own lives here: the seq marks per pane and source, which process may report for which
// pane, and the harness an `agent` name is.
import { findHarness } from '../core/detection/manifest.js';
import { paneOf } from '../core/security/access.js';
import type { Services } from '../core/daemon/services.js';
import type { Window } from '../core/model/window.js';
import { HerdrError } from './params.js';
import type { MethodContext } from './view.js';
import { parsePaneId } from './ids.js';
import { HERDR_ID_MAX, HERDR_MAX_SOURCES_PER_PANE, HERDR_MESSAGE_MAX, HERDR_NOTIFY_BURST, HERDR_NOTIFY_PER_SECOND } from './limits.js';
import { checkMetaCall } from '../core/agent-state/meta.js';
import { reporters } from './reporters.js';
import { META_KEYS_PER_CALL } from '../core/limits.js';

/** herdr's names that are not tuios's ids. */
const FROM_HERDR: Record<string, string> = { claude: 'claude-code', gemini: 'gemini-cli', cursor: 'cursor-agent', agy: 'antigravity', qodercli: 'qoder' };

/**
 * The harness an `agent` name is: tuios's id when tuios knows the agent (by herdr's name, an id,
 * an alias or the manifest's name), else the name in lower case, spaces made hyphens, and every
 * character other than a letter, a digit, - or _ removed.
 */
export function harnessFor(manifests: Services['manifests'] | null, agent: string): string {
  const plain = agent.toLowerCase().replace(/\s+/g, '-').replace(/[^a-z0-9_-]/g, '').slice(0, 64);
  if (manifests) {
    for (const c of [FROM_HERDR[plain], plain, agent]) {
      if (!c) continue;
      const m = findHarness(manifests, c);
      if (m) return m.id;
    }
    const byName = manifests.list.find((m) => m.name.toLowerCase() === agent.toLowerCase());
    if (byName) return byName.id;
  }
  return FROM_HERDR[plain] ?? plain;
}

/** The last seq per pane and source. Kept after a release, so a late report does not bring the agent back. */
const marks = new WeakMap<Window, Map<string, number>>();

/** True when the report is newer than the last from its source for the pane; records it. */
export function takeSeq(w: Window, source: string, seq: number): boolean {
  let m = marks.get(w);
  if (!m) marks.set(w, (m = new Map()));
  const last = m.get(source);
  if (last !== undefined && seq <= last) return false;
  m.delete(source);
  m.set(source, seq);
  // Bounded: the oldest source goes first.
  while (m.size > HERDR_MAX_SOURCES_PER_PANE) m.delete(m.keys().next().value!);
  return true;
}

/** The last seq a source's state report or release carried, for pane.report_metadata's check. */
function lastSeq(w: Window, source: string): number | undefined {
  return marks.get(w)?.get(source);
}

/** A pane's burst of 20 metadata reports and notifications, then 5 a second. */
const buckets = new WeakMap<Window, { tokens: number; at: number }>();

export function takeRate(w: Window, now = Date.now()): boolean {
  const b = buckets.get(w) ?? { tokens: HERDR_NOTIFY_BURST, at: now };
  b.tokens = Math.min(HERDR_NOTIFY_BURST, b.tokens + ((now - b.at) / 1000) * HERDR_NOTIFY_PER_SECOND);
  b.at = now;
  buckets.set(w, b);
  if (b.tokens < 1) return false;
  b.tokens -= 1;
  return true;
}

function str(ctx: MethodContext, name: string, required: boolean, max = HERDR_ID_MAX): string | undefined {
  const v = ctx.params[name];
  if (v === undefined || v === null) {
    if (required) throw new HerdrError('invalid_request', `missing field \`${name}\``);
    return undefined;
  }
  if (typeof v !== 'string') throw new HerdrError('invalid_request', `invalid type for \`${name}\`: expected a string`);
  if (v.length > max) throw new HerdrError('invalid_params', `\`${name}\` is longer than ${max} characters`);
  return v;
}

function seqOf(ctx: MethodContext): number {
  const v = ctx.params.seq;
  if (v === undefined || v === null) throw new HerdrError('invalid_request', 'missing field `seq`');
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || !Number.isSafeInteger(v)) throw new HerdrError('invalid_request', 'invalid type for `seq`: expected a non-negative integer');
  return v;
}

/**
 * The pane a report names. A process in a pane reports only for its own pane (forbidden for any
 * other); a process outside every pane may name any pane, and set-agent-state's checks apply.
 */
function reportTarget(ctx: MethodContext): Window {
  const id = str(ctx, 'pane_id', true)!;
  const prefix = parsePaneId(id);
  const found = prefix ? [...ctx.svc.model.windows.values()].filter((w) => w.id.startsWith(prefix)) : [];
  const { window: own, inside } = paneOf(ctx.svc, ctx.caller);
  if (inside && (found.length !== 1 || found[0] !== own)) {
    throw new HerdrError('forbidden', 'a process in a pane reports only for its own pane');
  }
  if (found.length !== 1) throw new HerdrError('pane_not_found', `pane ${id.slice(0, 64)} not found`);
  return found[0]!;
}

async function call(ctx: MethodContext, verb: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  try {
    return (await ctx.svc.dispatcher.call(verb, params, ctx.caller, undefined, ctx.signal)) as Record<string, unknown>;
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (typeof code === 'string') throw new HerdrError(code === 'window_not_found' ? 'pane_not_found' : code, (e as Error).message);
    throw e;
  }
}

const STATES = ['working', 'blocked', 'idle', 'unknown'];

export const reportMethods = {
  async 'pane.report_agent'(ctx: MethodContext): Promise<Record<string, unknown>> {
    const source = str(ctx, 'source', true)!;
    const agent = str(ctx, 'agent', true, 64)!;
    const state = str(ctx, 'state', true, 32)!;
    if (!STATES.includes(state)) throw new HerdrError('invalid_request', `unknown variant \`${state.slice(0, 32)}\`, expected one of \`working\`, \`blocked\`, \`idle\`, \`unknown\``);
    const message = str(ctx, 'message', false, 64 * 1024);
    const seq = seqOf(ctx);
    const w = reportTarget(ctx);
    const harness = harnessFor(ctx.svc.manifests, agent);
    if (!harness) throw new HerdrError('invalid_params', '`agent` has no letter or digit');
    // Dropped without an error, as herdr does: a seq not above the last from this source.
    if (!takeSeq(w, source, seq)) return { type: 'ok' };
    if (state === 'unknown') return { type: 'ok' };
    // herdr's own hook script gives way to tuios's integration for the same harness.
    if (source.startsWith('herdr:') && reporters(ctx.svc).integrationHolds(w, harness)) return { type: 'ok' };
    const base = { window: w.id, source: 'report', harness };
    if (state === 'working') await call(ctx, 'set-agent-state', { ...base, state: 'working' });
    else if (state === 'blocked') {
      const msg = message?.slice(0, HERDR_MESSAGE_MAX);
      // Crush's permission dialog is an approval; its other blocks (a question, a login) are questions.
      const kind = harness === 'crush' ? (!msg || msg.startsWith('Permission') ? 'approval' : 'question') : undefined;
      await call(ctx, 'set-agent-state', { ...base, state: 'needs_input', ...(msg ? { message: msg } : {}), ...(kind ? { kind } : {}) });
    } else {
      // idle: a turn that ends is done; a pane that was not in a turn is idle.
      const r = await call(ctx, 'set-agent-state', { ...base, state: 'done', if_state: ['working', 'needs_input'] });
      if (!r.applied && r.state !== 'done') await call(ctx, 'set-agent-state', { ...base, state: 'idle' });
    }
    reporters(ctx.svc).wrote(w, ctx.caller.pid);
    return { type: 'ok' };
  },

  async 'pane.report_agent_session'(ctx: MethodContext): Promise<Record<string, unknown>> {
    const source = str(ctx, 'source', true)!;
    const agent = str(ctx, 'agent', false, 64);
    const sessionId = str(ctx, 'agent_session_id', true, 256)!;
    if (!/^[\x21-\x7e]{1,256}$/.test(sessionId)) throw new HerdrError('invalid_params', '`agent_session_id` is 1 to 256 printable characters without spaces');
    const w = reportTarget(ctx);
    void source;
    await call(ctx, 'set-agent-session', { window: w.id, session_id: sessionId, ...(agent ? { harness: harnessFor(ctx.svc.manifests, agent) } : {}) });
    return { type: 'ok' };
  },

  async 'pane.report_metadata'(ctx: MethodContext): Promise<Record<string, unknown>> {
    const source = str(ctx, 'source', true)!;
    const seq = seqOf(ctx);
    const title = ctx.params.title;
    const tokens = ctx.params.tokens;
    if (title !== undefined && title !== null && typeof title !== 'string') throw new HerdrError('invalid_request', 'invalid type for `title`: expected a string');
    if (tokens !== undefined && tokens !== null && (typeof tokens !== 'object' || Array.isArray(tokens))) throw new HerdrError('invalid_request', 'invalid type for `tokens`: expected a map');
    const w = reportTarget(ctx);
    if (!takeRate(w)) throw new HerdrError('rate_limited', 'a pane sends at most 20 metadata reports and notifications at once, then 5 a second');
    // Its own mark, and never at or below the source's last state report or release, so what an
    // agent queued before its release does not come back after it.
    const state = lastSeq(w, source);
    if (state !== undefined && seq <= state) return { type: 'ok' };
    if (!takeSeq(w, `meta\0${source}`, seq)) return { type: 'ok' };
    const values: Record<string, string> = {};
    if (typeof title === 'string') values.title = title;
    for (const [k, v] of Object.entries((tokens ?? {}) as Record<string, unknown>)) {
      // A name tuios cannot hold is skipped; a null token clears the key.
      if (!checkMetaCall({ [k]: null }).ok) continue;
      if (v === null) values[k] = '';
      else if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') values[k] = String(v);
    }
    const n = Object.keys(values).length;
    if (n === 0) return { type: 'ok' };
    if (n > META_KEYS_PER_CALL) throw new HerdrError('invalid_params', `at most ${META_KEYS_PER_CALL} tokens in one report`);
    await call(ctx, 'set-agent-meta', { window: w.id, values, source: `herdr:${source}`.slice(0, 64) });
    return { type: 'ok' };
  },

  async 'pane.clear_agent_authority'(ctx: MethodContext): Promise<Record<string, unknown>> {
    // A pane may clear only itself. A state a report holds clears, and detection reads the pane
    // again; a state the detector holds stays.
    const w = reportTarget(ctx);
    const now = await call(ctx, 'get-agent-state', { window: w.id });
    if (now.source !== 'report') return { type: 'ok' };
    await call(ctx, 'set-agent-state', { window: w.id, source: 'report', state: 'none' });
    return { type: 'ok' };
  },

  async 'pane.release_agent'(ctx: MethodContext): Promise<Record<string, unknown>> {
    const source = str(ctx, 'source', true)!;
    const seq = ctx.params.seq === undefined || ctx.params.seq === null ? null : seqOf(ctx);
    const agent = str(ctx, 'agent', false, 64);
    const w = reportTarget(ctx);
    if (seq !== null && !takeSeq(w, source, seq)) return { type: 'ok' };
    // herdr's own hook script does not release what tuios's integration holds.
    if (source.startsWith('herdr:') && reporters(ctx.svc).integrationHolds(w, agent ? harnessFor(ctx.svc.manifests, agent) : null)) return { type: 'ok' };
    await call(ctx, 'set-agent-state', { window: w.id, source: 'report', state: 'none' });
    return { type: 'ok' };
  },
};
