// Agent state verbs: set-agent-state, get-agent-state, list-agents, set-agent-meta,
// set-agent-session.
import { z } from 'zod';
import { defineVerb } from '../rpc/verb.js';
import { TuiosError } from '../errors.js';
import { STATES, KINDS, SOURCES, type AgentState } from '../agent-state/state.js';
import { checkMetaCall } from '../agent-state/meta.js';
import { foreignPaneReason } from '../integrations/foreign-pane.js';
import { findHarness } from '../detection/manifest.js';
import { cleanMessage as cleanHookText } from '../integrations/hooks/text.js';
import { PROMPT_SESSION_EVENTS, PROMPT_START_EVENTS } from '../integrations/hooks/plan.js';
import { parseSelector, matches, confirmToken, type SelectorRow } from '../agent-state/selector.js';
import { readStat } from '../pty/procfs.js';
import type { Services } from '../daemon/services.js';
import type { Window } from '../model/window.js';
import type { Caller } from '../rpc/caller.js';
import { readableSessions, readsEverySession } from '../security/access.js';
import { remoteAgentJson, remoteAgentSelectorRow } from '../hosts/rows.js';
import { VERSION_HELP } from './detect.js';
import { table, str } from '../rpc/print-helpers.js';

const HARNESS_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/;
/** A conversation id as a hook reports it: printable, no spaces, bounded. */
const SESSION_ID_RE = /^[\x21-\x7e]{1,256}$/;

/**
 * The hook's claim about its harness process, believed only when it is the caller or one of its
 * ancestors; otherwise the caller stands in for it. Null where nothing can be read.
 */
function checkedHarnessPid(caller: Caller, claimed: number | undefined): number | null {
  if (claimed === undefined) return null;
  return isCallerOrAncestor(caller, claimed) ? claimed : caller.pid;
}

/**
 * The guards a hook report passes before it lands (spec: Nested and foreign events): a background
 * session on another terminal (foreign_pane), another conversation (foreign_session). A refusal
 * makes no Inbox item and no notification; it is logged at debug level only.
 */
function admitReport(svc: Services, w: Window, caller: Caller, p: { agent_session_id?: string; harness?: string; session_start?: string }, harnessPid: number | null): void {
  if (harnessPid !== null && caller.channel === 'socket') {
    const why = foreignPaneReason(harnessPid, w);
    if (why) {
      svc.log.debug('report refused', { code: 'foreign_pane', window: w.id });
      throw new TuiosError('foreign_pane', `The report comes from another terminal: ${why}.`, 'A background session reports into no pane; run it in a pane of its own.');
    }
  }
  const g = svc.agents.guardOf(w);
  const harness = svc.agents.harnessOf(w);
  const shared = !!(p.harness ?? harness) && !!findHarness(svc.manifests, (p.harness ?? harness)!)?.shared_server;
  const a = g.guard.admit(
    { sessionId: p.agent_session_id, harness: p.harness, harnessPid: harnessPid ?? undefined, sessionStart: p.session_start },
    { sessionId: g.sessionId, harness, reportedState: g.reportedState, harnessPid: g.harnessPid, sharedServer: shared },
  );
  if (!a.ok) {
    svc.log.debug('report refused', { code: a.code, window: w.id });
    throw new TuiosError(a.code, `The report is refused: ${a.why}.`, 'To point the pane at a conversation, run tuios set-agent-session -w PANE ID.');
  }
}

/** True when `pid` is the caller or one of its ancestors: a hook runs under its harness. */
function isCallerOrAncestor(caller: Caller, pid: number): boolean {
  let cur = caller.pid;
  for (let i = 0; cur !== null && cur > 1 && i < 64; i++) {
    if (cur === pid) return true;
    cur = readStat(cur)?.ppid ?? null;
  }
  return false;
}

const blockKindSchema = z.enum(['', ...KINDS]);

/** Events that start a turn with a prompt (Claude Code, Codex, Qwen, Kimi; Gemini's BeforeAgent). */
const PROMPT_EVENTS = new Set(['UserPromptSubmit', 'BeforeAgent']);
/** Events after which nothing runs: a failed tool, the turn's end. */
const NOW_ENDS = new Set(['PostToolUseFailure', 'Stop', 'AfterAgent']);
/** A tool's result: `now` keeps naming the call until the next one (the result is the ring's). */
const RESULT_EVENTS = new Set(['PostToolUse', 'AfterTool']);

/** What a hook report writes of tuios's own keys: `prompt` and `now`; null writes nothing. */
export function activityMeta(event: string | undefined, text: string): Record<string, string | null> | null {
  if (event && PROMPT_EVENTS.has(event)) return text ? { prompt: text, now: null } : { now: null };
  if (event && NOW_ENDS.has(event)) return { now: null };
  if (event && RESULT_EVENTS.has(event)) return null;
  return text ? { now: text } : null;
}

/**
 * A pane's agent on the wire (get-agent-state, list-agents): the store's info with the fields the
 * daemon's parts add to it (queued from the delivery queue, the release from the detector,
 * prompt_status from the fleet for a pane started with a first prompt).
 */
export const agentInfoSchema = z.object({
  window_id: z.string(),
  short_id: z.string(),
  name: z.string(),
  session_id: z.string(),
  session: z.string().nullable(),
  workspace: z.number().int(),
  state: z.enum(STATES),
  kind: blockKindSchema,
  blocked_by: blockKindSchema,
  message: z.string(),
  source: z.enum(SOURCES).nullable(),
  harness_id: z.string().nullable(),
  identity: z.enum(['report', 'manifest', 'list', 'hint', '']),
  confidence: z.enum(['certain', 'strong', 'none']),
  needs_you: z.boolean(),
  ready: z.boolean(),
  evidence_age_ms: z.number().nullable(),
  state_since: z.number().nullable(),
  completion_seq: z.number().int(),
  finished_unread: z.boolean(),
  meta: z.record(z.string(), z.string()),
  progress: z.number().nullable(),
  agent_session_id: z.string().nullable(),
  agent_session_harness: z.string().nullable(),
  harness_pid: z.number().int().nullable(),
  queued: z.number().int(),
  subagents: z.number().int(),
  // Each subagent, in start order (spec: Each subagent); times in ns since the epoch.
  subagent_list: z.array(
    z.object({
      id: z.string(),
      type: z.string(),
      description: z.string(),
      state: z.enum(['running', 'done', 'failed', 'stopped']),
      started_at: z.number(),
      ended_at: z.number().optional(),
      now: z.string().optional(),
      last: z.string().optional(),
      tools: z.number().int(),
      result: z.string().optional(),
    }),
  ),
  harness_version: z.string().nullable(),
  version_covered: z.boolean().nullable(),
  prompt_status: z.enum(['waiting', 'typing', 'taken', 'stalled', 'not_ready', 'failed']).optional(),
  /** The protocol tuios speaks to the agent over (start-agent --protocol). */
  protocol: z.enum(['acp', 'codex']).optional(),
});
export type AgentInfo = z.infer<typeof agentInfoSchema>;

/**
 * A pane's agent as agentInfoSchema says. The store answers Record<string, unknown> because the
 * daemon's parts add their fields to it (AgentStore.addInfo); this is the one place that says
 * which, as present.ts's windowInfo does for windows.
 */
export function agentInfo(svc: Services, w: Window): AgentInfo {
  return svc.agents.info(w) as AgentInfo;
}

/** A linked host's agent row in list-agents --all-hosts (core/hosts/rows.ts remoteAgentJson). */
export const remoteAgentSchema = z.object({
  host: z.string(),
  window_id: z.string(),
  short_id: z.string(),
  name: z.string(),
  session: z.string(),
  session_id: z.string(),
  harness: z.string().nullable(),
  state: z.string(),
  kind: z.string(),
  message: z.string(),
  needs_you: z.boolean(),
  state_since: z.number(),
  finished_unread: z.boolean(),
  group: z.string().nullable(),
  cwd: z.string().nullable(),
  down: z.boolean(),
  seen_at: z.number(),
  target: z.string(),
  seen_ms: z.number(),
  counted: z.boolean(),
});

export const setAgentState = defineVerb({
  name: 'set-agent-state',
  mcp: { tool: 'tuios_report_state' },
  hosted: 'report',
  access: 'self',
  summary: 'Report a pane\'s agent state (from inside a pane: your own pane)',
  help: 'States: none, working, needs_input, idle, done, errored, unknown. A source writes over claims ranked at or below its own; a loser is answered with applied: false and the state that stands.',
  target: 'window',
  mutates: true,
  cli: { positionals: ['state'], short: { m: 'message' }, comma: ['if_state'], usage: 'set-agent-state STATE [-m MSG] [--kind K] [--source S] [--harness H] [--if-state S,...] [--harness-pid N]' },
  params: z.object({
    state: z.enum(STATES).describe('The state'),
    message: z.string().max(4096).optional().describe('What it is doing or asking'),
    kind: z.enum(KINDS).optional().describe('For needs_input: approval, question or auth'),
    source: z.enum(['report', 'program', 'transcript', 'osc', 'screen', 'detect', 'stall']).optional().describe('Where the state came from (default report)'),
    harness: z.string().max(64).optional().describe('The harness the report is from, which attributes the pane'),
    if_state: z.array(z.enum(STATES)).max(8).optional().describe('Apply only when the pane is in one of these states'),
    harness_pid: z.number().int().min(1).optional().describe('The harness process the reporting hook runs under'),
    agent_session_id: z.string().regex(SESSION_ID_RE).optional().describe('The harness\'s conversation id (stored on the pane, for a resume)'),
    transcript_path: z.string().min(1).max(4096).optional().describe('The conversation\'s transcript file (kept for the transcript reader only)'),
    session_start: z.string().max(32).optional().describe('This report is a SessionStart, from this source (startup, resume, clear, compact)'),
    activity: z.string().max(1000).optional().describe('What the agent is doing: the prompt\'s first line or the tool call (kept whether or not the state applies)'),
    event: z.string().max(64).optional().describe('The hook event the report comes from (for the log)'),
  }),
  result: z.object({
    window_id: z.string(),
    short_id: z.string(),
    session: z.string().nullable(),
    applied: z.boolean(),
    state: z.enum(STATES),
    source: z.enum(SOURCES).nullable(),
  }),
  print: (r) => (r.applied ? '' : `not applied: ${r.state} stands (source ${r.source})`),
  run({ params, window, svc, caller }) {
    const w = window!;
    const source = params.source ?? 'report';
    // Refused before anything is written: a refused call changes nothing, `now` included.
    if (source === 'screen' || source === 'program') {
      throw new TuiosError(
        'invalid_params',
        `The source ${source} is the daemon's own: ${source === 'screen' ? 'only its screen tier has read the pane' : 'only the pane\'s OSC 7501 output sets it'}.`,
        'Report with --source report (the default), or write OSC 7501 with tuios status.',
        { field: 'source' },
      );
    }
    if (params.harness !== undefined && !HARNESS_RE.test(params.harness)) {
      throw new TuiosError('invalid_params', 'A harness id is lowercase letters, digits, - and _.', undefined, { field: 'harness' });
    }
    const harnessPid = checkedHarnessPid(caller, params.harness_pid);
    if (source === 'report' && (params.agent_session_id !== undefined || params.harness_pid !== undefined)) admitReport(svc, w, caller, params, harnessPid);
    // The pane's activity ring: a hook's report (it names its event) writes it, once admitted.
    if (source === 'report' && params.event) svc.activity.fromReport(w, { event: params.event, activity: params.activity, message: params.message });
    // Kept whether or not the state applies (spec: Agent metadata): `now` is the tool it runs,
    // `prompt` the first line of the last prompt, which starts a turn with nothing running yet.
    const metaOf = activityMeta(params.event, params.activity ? cleanHookText(params.activity) : '');
    // Activity alone (if_state none, a protocol pane's side connection) may arrive after the pane
    // came to rest: then it is no longer what the agent does now.
    const activityOnly = params.if_state?.length === 1 && params.if_state[0] === 'none';
    if (metaOf && typeof metaOf.now === 'string' && activityOnly && !['working', 'needs_input'].includes(svc.agents.stateOf(w))) delete metaOf.now;
    if (metaOf && Object.keys(metaOf).length) svc.agents.setMeta(w, metaOf, 'report', null);
    const agents = svc.agents;
    let res;
    if (source === 'report') {
      res = agents.report(w, { state: params.state, message: params.message, kind: params.kind, harness: params.harness, ifState: params.if_state as AgentState[] | undefined });
    } else {
      const origin = source === 'osc' ? 'osc:notify' : source;
      const standing = () => ({ state: agents.stateOf(w), source: (agents.recordOf(w)?.view().source ?? null) });
      if (params.if_state && !params.if_state.includes(agents.stateOf(w))) res = { applied: false, ...standing() };
      else if (params.state === 'none') {
        // Only a report clears the pane; another source's none takes back its own claim.
        agents.withdraw(w, origin);
        res = { applied: true, ...standing() };
      } else res = agents.claim(w, { origin, state: params.state, message: params.message, kind: params.kind });
    }
    if (harnessPid !== null && res.applied && params.state !== 'none') {
      const st = readStat(harnessPid);
      if (st) agents.setHarnessProcess(w, { pid: st.pid, startTime: st.startTime });
    }
    if (params.agent_session_id !== undefined && params.state !== 'none') {
      // The id outlives the agent (a resume needs it), and is kept with its harness.
      const s = agents.sessionOf(w);
      if (s.id !== params.agent_session_id) {
        agents.setSession(w, params.agent_session_id, params.harness ?? agents.harnessOf(w));
        svc.snapshot.markDirty();
      }
    }
    if (params.transcript_path !== undefined) agents.setTranscript(w, params.transcript_path);
    // A hook's report that the agent took a prompt, once admitted: the proof of a take for a
    // prompt typed into the pane (core/delivery/deliver.ts), applied or not. No other report is.
    // A prompt start begins the turn too; a session the prompt opened does not.
    if (source === 'report' && params.event) {
      if (params.state === 'working' && PROMPT_START_EVENTS.has(params.event)) agents.promptStarted(w, params.event, true);
      else if (PROMPT_SESSION_EVENTS.has(params.event)) agents.promptStarted(w, params.event, false);
    }
    return { window_id: w.id, short_id: w.shortId, session: svc.model.sessions.get(w.sessionId)?.name ?? null, applied: res.applied, state: res.state, source: res.source };
  },
});

export const getAgentState = defineVerb({
  name: 'get-agent-state',
  mcp: { tool: 'tuios_get_state' },
  hosted: 'report',
  summary: 'A pane\'s agent state, source, harness, confidence and metadata',
  target: 'window',
  mutates: false,
  params: z.object({}),
  result: agentInfoSchema,
  print: (r) => String(r.state),
  run({ window, svc }) {
    return agentInfo(svc, window!);
  },
});

/** A pane as a selector reads it. */
export function selectorRow(w: Window, svc: Services): SelectorRow {
  const harness = svc.agents.harnessOf(w);
  return {
    harness,
    harnessNames: harness ? svc.harnessNames(harness) : [],
    state: svc.agents.stateOf(w),
    session: svc.model.sessions.get(w.sessionId)?.name,
    group: (svc.model.sessions.get(w.sessionId)?.attrs.get('group') as string | undefined) ?? null,
    host: 'local',
    name: w.name,
    cwd: w.currentCwd(),
    task: null,
    stage: null,
  };
}

export function agentPanes(svc: Services, opts: { session?: string; select?: string }): Window[] {
  const only = opts.session ? svc.model.findSession(opts.session) : null;
  const sel = opts.select ? parseSelector(opts.select) : null;
  return [...svc.model.windows.values()]
    .filter((w) => !only || w.sessionId === only.id)
    .filter((w) => svc.agents.holdsAgent(w) && (svc.agents.stateOf(w) !== 'none' || svc.agents.harnessOf(w) !== null))
    .filter((w) => !sel || matches(sel, selectorRow(w, svc)))
    .sort((a, b) => (svc.model.sessions.get(a.sessionId)?.order ?? 0) - (svc.model.sessions.get(b.sessionId)?.order ?? 0) || a.order - b.order);
}

export const listAgents = defineVerb({
  name: 'list-agents',
  mcp: { tool: 'tuios_list_agents' },
  link: { untargeted: true },
  summary: 'Every pane running an agent, in every session (or -s), with its state and what it needs',
  help: 'With --select only the panes a selector matches, and `confirm`, the token for exactly that set (what a write by selector needs). --all-hosts adds the agents of every linked host, each with its `host` (this machine is local); a host whose link is down keeps its rows, `down` and not counted. ' + VERSION_HELP,
  target: 'none',
  mutates: false,
  params: z.object({
    session: z.string().max(300).optional().describe('Only this session'),
    select: z.string().max(1000).optional().describe('A selector, e.g. "harness:codex needs:you"'),
    all_hosts: z.boolean().optional().describe('Every linked host\'s agents too'),
  }),
  result: z.object({
    // --all-hosts: this machine's rows say host: 'local', a linked host's are remoteAgentSchema.
    agents: z.array(z.union([agentInfoSchema.extend({ host: z.literal('local').optional() }), remoteAgentSchema])),
    confirm: z.string().optional(),
  }),
  print: (r) => {
    if (r.agents.length === 0) return 'no agents';
    return table([
      ['SESSION', 'NAME', 'ID', 'HARNESS', 'STATE', 'MESSAGE'],
      ...r.agents.map((a) => [str(a.session), str(a.name), str(a.short_id), str('harness_id' in a ? a.harness_id : a.harness) + ('protocol' in a && a.protocol && a.protocol !== a.harness_id ? ` (${a.protocol})` : ''), String(a.state) + (a.finished_unread ? ' (unread)' : ''), str(a.message || '')]),
    ]);
  },
  run({ params, svc, caller }) {
    const may = readableSessions(svc, caller);
    const panes = agentPanes(svc, params).filter((w) => may(w.sessionId));
    if (!params.all_hosts) {
      const agents = panes.map((w) => agentInfo(svc, w));
      return params.select ? { agents, confirm: confirmToken(panes.map((w) => w.id)) } : { agents };
    }
    // Another machine's rows are for the person and for panes that reach every session here.
    const sel = params.select ? parseSelector(params.select) : null;
    const remote = readsEverySession(svc, caller) && !params.session ? (svc.remote?.agentRows() ?? []).filter((r) => !sel || matches(sel, remoteAgentSelectorRow(r, svc))) : [];
    const agents = [...panes.map((w) => ({ host: 'local' as const, ...agentInfo(svc, w) })), ...remote.map((r) => remoteAgentJson(r))];
    const ids = [...panes.map((w) => w.id), ...remote.map((r) => `${r.host}:${r.window_id}`)];
    return params.select ? { agents, confirm: confirmToken(ids) } : { agents };
  },
});

const DURATION_RE = /^(\d+)(ms|s|m|h)?$/;

function parseTtl(ttl: string): number {
  const m = DURATION_RE.exec(ttl.trim());
  if (!m) throw new TuiosError('invalid_params', `The TTL ${JSON.stringify(ttl)} is not a duration.`, 'e.g. 60s, 5m, 500ms', { field: 'ttl' });
  const n = Number(m[1]);
  const unit = m[2] ?? 's';
  const ms = unit === 'ms' ? n : unit === 's' ? n * 1000 : unit === 'm' ? n * 60_000 : n * 3_600_000;
  if (ms < 100 || ms > 7 * 24 * 3_600_000) throw new TuiosError('invalid_params', 'A TTL is from 100 ms to 7 days.', undefined, { field: 'ttl' });
  return ms;
}

export const setAgentMeta = defineVerb({
  name: 'set-agent-meta',
  mcp: { tool: 'tuios_set_meta' },
  hosted: 'report',
  access: 'self',
  summary: 'Set display-only facts about a pane\'s agent: KEY=VALUE ... (an empty value clears a key)',
  help: 'At most 16 keys a call and 32 a pane; values are cut to 80 characters; now, prompt and subagents are tuios\'s own. --clear removes the rest.',
  target: 'window',
  mutates: true,
  cli: { rest: 'values', usage: 'set-agent-meta [-w W] [--source S] [--ttl 60s] [--clear] KEY=VALUE...' },
  params: z.object({
    values: z.record(z.string(), z.string().max(4096)).optional().describe('KEY=VALUE pairs'),
    source: z.string().max(64).optional().describe('Who feeds them (default: report)'),
    ttl: z.string().max(16).optional().describe('Drop these keys after this long (e.g. 60s)'),
    clear: z.boolean().optional().describe('Remove every key (but tuios\'s own) first'),
  }),
  result: z.object({ window_id: z.string(), changed: z.boolean(), meta: z.record(z.string(), z.string()) }),
  print: 'none',
  run({ params, window, svc }) {
    const w = window!;
    const values = Object.fromEntries(Object.entries(params.values ?? {}).map(([k, v]) => [k, v === '' ? null : v]));
    const check = checkMetaCall(values);
    if (!check.ok) throw new TuiosError('invalid_params', `set-agent-meta: ${check.message}.`, undefined, { field: check.field });
    const source = params.source ?? 'report';
    if (params.clear) svc.agents.clearMeta(w);
    const r = svc.agents.setMeta(w, values, source, params.ttl ? parseTtl(params.ttl) : null);
    if ('error' in r) throw new TuiosError('limit_reached', `set-agent-meta: ${r.error}.`, 'Clear keys you no longer need (KEY= or --clear).');
    return { window_id: w.id, changed: r.changed, meta: agentInfo(svc, w).meta };
  },
});

export const setAgentSession = defineVerb({
  name: 'set-agent-session',
  hosted: 'report',
  access: 'self',
  summary: 'Record the harness\'s conversation id on a pane (for resuming it later); changes no state',
  target: 'window',
  mutates: true,
  cli: { positionals: ['session_id'], usage: 'set-agent-session [-w W] [--harness H] SESSION_ID' },
  params: z.object({
    session_id: z.string().regex(SESSION_ID_RE).describe('The conversation id'),
    harness: z.string().max(64).optional().describe('The harness it belongs to'),
    harness_pid: z.number().int().min(1).optional().describe('The harness process the reporting hook runs under'),
  }),
  result: z.object({ window_id: z.string(), agent_session_id: z.string(), harness: z.string().nullable() }),
  print: 'none',
  run({ params, window, svc, caller }) {
    const w = window!;
    if (params.harness !== undefined && !HARNESS_RE.test(params.harness)) {
      throw new TuiosError('invalid_params', 'A harness id is lowercase letters, digits, - and _.', undefined, { field: 'harness' });
    }
    const attributed = svc.agents.harnessOf(w);
    const harness = params.harness ?? attributed;
    if (params.harness && attributed && attributed !== params.harness) {
      throw new TuiosError('forbidden', `The pane runs ${attributed}, not ${params.harness}; its conversation id is not ${params.harness}'s to set.`);
    }
    const g = svc.agents.guardOf(w);
    const pid = checkedHarnessPid(caller, params.harness_pid);
    if ((g.reportedState === 'working' || g.reportedState === 'needs_input') && g.sessionId && g.sessionId !== params.session_id && pid !== null && g.harnessPid !== null && pid !== g.harnessPid) {
      throw new TuiosError('foreign_session', `The pane is ${g.reportedState} for the conversation ${g.sessionId}, reported by another process; ${params.session_id} is another run.`);
    }
    // Outside the session guard on purpose: naming the conversation clears it.
    g.guard.reset();
    svc.agents.setSession(w, params.session_id, harness);
    svc.snapshot.markDirty();
    return { window_id: w.id, agent_session_id: params.session_id, harness };
  },
});
