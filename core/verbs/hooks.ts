// Verbs a harness's hook calls besides set-agent-state: resolve-pane (which pane a process runs
// in, for a harness that scrubbed TUIOS_PANE_ID) and report-agent-activity (a session start or a
// subagent's start, stop or tool call, which never moves the pane's state).
import { z } from 'zod';
import { defineVerb } from '../rpc/verb.js';
import { TuiosError } from '../errors.js';
import { readStat } from '../pty/procfs.js';
import { AGENT_ID_RE, MAX_ANCESTRY } from '../limits.js';
import { cleanMessage } from '../integrations/hooks/text.js';
import type { Services } from '../daemon/services.js';
import type { Window } from '../model/window.js';
import type { Caller } from '../rpc/caller.js';


/** Panes on this machine by their shell's pid (a pane's shell leads its terminal's session). */
function panesByPid(svc: Services): Map<number, Window> {
  const m = new Map<number, Window>();
  for (const w of svc.model.windows.values()) if (w.pid !== null && !w.exit && !w.closed) m.set(w.pid, w);
  return m;
}

const RESOLVED_VIA = ['the session id', 'the parent chain'] as const;
type ResolvedVia = (typeof RESOLVED_VIA)[number];

/**
 * The pane a process runs in: the one whose shell leads its session, else the first ancestor that
 * is a pane's shell. The kernel's record of the caller is used when it has one; the sid and pids
 * the caller sent only where the kernel cannot say.
 */
export function resolvePaneOf(svc: Services, caller: Caller, claimed: { sid?: number; pids?: number[] }): { window: Window; via: ResolvedVia } | null {
  const byPid = panesByPid(svc);
  let sid = claimed.sid;
  let pids = claimed.pids ?? [];
  if (caller.pid !== null) {
    const st = readStat(caller.pid);
    if (!st) return null;
    sid = st.session;
    pids = [];
    let cur = st.ppid;
    for (let i = 0; i < MAX_ANCESTRY && cur > 1; i++) {
      pids.push(cur);
      cur = readStat(cur)?.ppid ?? 0;
    }
  }
  const bySid = sid !== undefined ? byPid.get(sid) : undefined;
  if (bySid) return { window: bySid, via: 'the session id' };
  for (const p of pids) {
    const w = byPid.get(p);
    if (w) return { window: w, via: 'the parent chain' };
  }
  return null;
}

export const resolvePane = defineVerb({
  name: 'resolve-pane',
  access: 'none',
  summary: 'The pane a process runs in, from its session id or its parent chain (for hooks whose environment was scrubbed)',
  target: 'none',
  mutates: false,
  params: z.object({
    sid: z.number().int().min(1).optional().describe('The process\'s session id (used only where the kernel cannot name the caller)'),
    pids: z.array(z.number().int().min(1)).max(MAX_ANCESTRY).optional().describe('Its ancestors, nearest first (likewise)'),
  }),
  // window_id null: the process runs in no pane of this machine.
  result: z.union([z.object({ window_id: z.string(), short_id: z.string(), via: z.enum(RESOLVED_VIA) }), z.object({ window_id: z.null() })]),
  print: 'fields',
  run({ params, svc, caller }) {
    const r = resolvePaneOf(svc, caller, params);
    return r ? { window_id: r.window.id, short_id: r.window.shortId, via: r.via } : { window_id: null };
  },
});

export const reportAgentActivity = defineVerb({
  name: 'report-agent-activity',
  hosted: 'report',
  access: 'self',
  summary: 'Record what an agent does that is not a state: a session start, a subagent\'s start, stop or tool call',
  help: 'Moves the pane\'s subagents count and list, never its state. Refused for a conversation other than the pane\'s.',
  target: 'window',
  mutates: true,
  cli: { positionals: ['type'] },
  params: z.object({
    type: z.enum(['session_start', 'subagent_start', 'subagent_stop', 'subagent_update', 'turn_end']).describe('What happened'),
    agent_id: z.string().regex(AGENT_ID_RE).optional().describe('The subagent\'s id'),
    agent_type: z.string().max(128).optional().describe('The subagent\'s type'),
    text: z.string().max(1000).optional().describe('Its first line: the launch, the tool call, the last message'),
    status: z.enum(['running', 'done', 'failed', 'stopping']).optional().describe('subagent_update: where it is'),
    call: z.enum(['start', 'end', 'failed']).optional().describe('subagent_update: one of its own tool calls starts, ends or fails'),
    tools: z.number().int().min(0).max(1_000_000).optional().describe('subagent_update: how many tool calls it made (the Agent call\'s result)'),
    source: z.string().max(32).optional().describe('session_start: startup, resume, clear'),
    harness: z.string().max(64).optional().describe('The harness it comes from'),
    agent_session_id: z.string().max(256).optional().describe('The conversation it belongs to'),
    harness_pid: z.number().int().min(1).optional().describe('The harness process the hook runs under'),
  }),
  // subagents: how many of the pane's subagents run now.
  result: z.object({ window_id: z.string(), changed: z.boolean(), subagents: z.number().int() }),
  print: 'fields',
  run({ params, window, svc }) {
    const w = window!;
    const pane = svc.agents.sessionOf(w);
    if (params.agent_session_id && pane.id && params.agent_session_id !== pane.id) {
      svc.log.debug('activity refused', { code: 'foreign_session', window: w.id });
      throw new TuiosError('foreign_session', `The activity is from the conversation ${params.agent_session_id}, not the pane's.`);
    }
    const attributed = svc.agents.harnessOf(w);
    if (params.harness && attributed && attributed !== params.harness) {
      throw new TuiosError('foreign_session', `The pane runs ${attributed}; a ${params.harness} activity is not its.`);
    }
    svc.activity.fromActivity(w, { type: params.type, agent_id: params.agent_id, agent_type: params.agent_type, text: params.text, status: params.status, source: params.source });
    const r = svc.agents.subagentActivity(w, params.type, {
      agent_id: params.agent_id,
      agent_type: params.agent_type ? cleanMessage(params.agent_type) : undefined,
      text: params.text !== undefined ? cleanMessage(params.text) : undefined,
      status: params.status,
      call: params.call,
      tools: params.tools,
    });
    if (r === 'rate_limited') {
      throw new TuiosError('rate_limited', 'The pane reported more subagent tool calls than it may: a burst of 64, then 10 a second.', 'The next tool call is taken once the rate allows; starts and stops always are.');
    }
    const s = svc.agents.subagentsOf(w);
    return { window_id: w.id, changed: r === 'changed', subagents: s.running };
  },
});
