// Claude Code's hook events, and the harnesses that send the same shape: Codex, Qwen Code and Kimi
// Code CLI (spec: What each event reports). Pure: payload and environment in, a plan out.
import { AGENT_ID_RE } from '../../limits.js';
import { nothing, obj, str, type Activity, type HookPlan } from './plan.js';
import { approveLine, callActivity, resultActivity } from './call-text.js';
import { cleanMessage, firstLine } from './text.js';
import { planTitle } from './hold.js';
import { statusText } from '../statusline/payload.js';

export type ClaudeFamily = 'claude-code' | 'codex' | 'qwen' | 'kimi';

const QUESTION_NOTIFICATIONS = new Set(['elicitation_dialog', 'elicitation_url_dialog', 'agent_needs_input']);
/** Tools whose PreToolUse is a question the agent asks (Kimi's and Copilot's AskUserQuestion). */
const ASK_TOOLS = new Set(['AskUserQuestion', 'ask_user']);
const AGENT_TOOLS = new Set(['Agent', 'Task']);

function sessionOf(p: Record<string, unknown>, start?: string): HookPlan['session'] {
  const id = str(p, 'session_id', 'sessionId');
  if (!id) return undefined;
  const transcript = str(p, 'transcript_path', 'transcriptPath');
  return { id, ...(transcript ? { transcript } : {}), ...(start ? { start } : {}) };
}

function questionText(input: unknown): string {
  const o = obj(input);
  const qs = Array.isArray(o?.questions) ? (o!.questions as unknown[]) : [];
  const q = obj(qs[0]);
  return firstLine(str(q ?? {}, 'question') || str(o ?? {}, 'question', 'prompt', 'message'));
}

/** The subagents a launch, a result or a Stop names beside its own report. */
function subagentUpdates(event: string, tool: string, p: Record<string, unknown>): Activity[] {
  const out: Activity[] = [];
  const input = obj(p.tool_input) ?? {};
  if (event === 'PreToolUse' && AGENT_TOOLS.has(tool)) {
    out.push({ type: 'subagent_update', agent_type: cleanMessage(str(input, 'subagent_type')) || 'agent', text: firstLine(str(input, 'description', 'prompt')), status: 'running' });
  } else if ((event === 'PostToolUse' || event === 'PostToolUseFailure') && AGENT_TOOLS.has(tool)) {
    const r = obj(p.tool_response) ?? {};
    const id = str(r, 'agentId', 'agent_id');
    const count = typeof r.totalToolUseCount === 'number' ? ` (${r.totalToolUseCount} tool calls)` : '';
    const tools = typeof r.totalToolUseCount === 'number' && Number.isInteger(r.totalToolUseCount) && r.totalToolUseCount >= 0 ? { tools: r.totalToolUseCount } : {};
    // A failed call says its error, which is how the subagent ended.
    const text = event === 'PostToolUse' ? firstLine(str(input, 'description')) + count : (firstLine(typeof p.error === 'string' ? p.error : str(r, 'error', 'message')) || firstLine(str(input, 'description'))) + count;
    out.push({ type: 'subagent_update', ...(AGENT_ID_RE.test(id) ? { agent_id: id } : {}), agent_type: cleanMessage(str(input, 'subagent_type')) || 'agent', text, status: event === 'PostToolUse' ? 'done' : 'failed', ...tools });
  } else if (event === 'PreToolUse' && tool === 'TaskStop') {
    const id = str(input, 'task_id', 'agent_id', 'shell_id');
    if (AGENT_ID_RE.test(id)) out.push({ type: 'subagent_update', agent_id: id, status: 'stopping', text: 'a stop was asked for' });
  } else if (event === 'Stop' && Array.isArray(p.background_tasks)) {
    for (const t of p.background_tasks.slice(0, 32)) {
      const o = obj(t);
      const id = o ? str(o, 'id', 'agent_id', 'task_id') : '';
      if (!o || !AGENT_ID_RE.test(id)) continue;
      out.push({ type: 'subagent_update', agent_id: id, agent_type: cleanMessage(str(o, 'type', 'agent_type')) || 'task', text: firstLine(str(o, 'description', 'command')), status: 'running' });
    }
  }
  return out;
}

/** A subagent's own event: activity only, never the pane's state. */
function subagentEvent(event: string, p: Record<string, unknown>, agentId: string): HookPlan {
  if (!AGENT_ID_RE.test(agentId)) return nothing(event, 'the agent_id is not 1 to 128 letters, digits, _ . : @ -');
  const agent_type = cleanMessage(str(p, 'agent_type')) || 'agent';
  const tool = str(p, 'tool_name');
  switch (event) {
    case 'SubagentStart':
      return { event, activities: [{ type: 'subagent_start', agent_id: agentId, agent_type }] };
    case 'SubagentStop':
      return { event, activities: [{ type: 'subagent_stop', agent_id: agentId, agent_type, text: firstLine(p.last_assistant_message) }] };
    case 'PreToolUse':
      return { event, activities: [{ type: 'subagent_update', agent_id: agentId, agent_type, text: callActivity(tool, p.tool_input), call: 'start' }] };
    case 'PostToolUse':
    case 'PostToolUseFailure':
      return { event, activities: [{ type: 'subagent_update', agent_id: agentId, agent_type, text: resultActivity(tool, p.tool_response ?? p.error), call: event === 'PostToolUse' ? 'end' : 'failed' }] };
    default:
      return nothing(event, `a subagent's ${event} is not the pane's`);
  }
}

/**
 * The model the event names, for the pane's `model` key (spec: Agent metadata): Codex names it on
 * every event, Claude Code on SessionStart. Only with a report, which is the pane's own agent.
 */
function withModel(harness: ClaudeFamily, plan: HookPlan, p: Record<string, unknown>): HookPlan {
  if (!plan.report || !(harness === 'codex' || (harness === 'claude-code' && plan.event === 'SessionStart'))) return plan;
  const model = typeof p.model === 'string' ? statusText(p.model) : '';
  return model ? { ...plan, meta: { model } } : plan;
}

export function mapClaudeFamily(harness: ClaudeFamily, p: Record<string, unknown>, argEvent?: string): HookPlan {
  return withModel(harness, mapEvent(harness, p, argEvent), p);
}

function mapEvent(harness: ClaudeFamily, p: Record<string, unknown>, argEvent?: string): HookPlan {
  const event = str(p, 'hook_event_name') || argEvent || '';
  if (!event) return nothing('', 'the payload names no event (hook_event_name)');
  const agentId = str(p, 'agent_id');
  if (agentId && harness === 'claude-code') return subagentEvent(event, p, agentId);
  if (agentId) return nothing(event, `a subagent's event (agent_id ${agentId}) is not the pane's`);
  const tool = str(p, 'tool_name');
  const session = sessionOf(p);
  const withSession = (plan: HookPlan): HookPlan => (session ? { ...plan, session: plan.session ?? session } : plan);
  switch (event) {
    case 'SessionStart': {
      const source = str(p, 'source');
      if (source === 'compact') {
        // The same conversation, compacted: Codex gets the context lines back, nothing is reported.
        return { event, why: 'a SessionStart after a compaction is the same conversation', contextLines: harness === 'codex' };
      }
      return {
        event,
        report: { state: 'idle' },
        session: sessionOf(p, source || 'startup'),
        activities: [{ type: 'session_start', ...(source ? { source } : {}) }],
        contextLines: harness === 'claude-code' || harness === 'codex',
      };
    }
    case 'UserPromptSubmit':
      return withSession({ event, report: { state: 'working', activity: firstLine(p.prompt) } });
    case 'PreToolUse': {
      if (ASK_TOOLS.has(tool) && harness === 'kimi') {
        return withSession({ event, report: { state: 'needs_input', kind: 'question', message: questionText(p.tool_input) || 'asks a question' } });
      }
      return withSession({ event, report: { state: 'working', activity: callActivity(tool, p.tool_input) }, activities: subagentUpdates(event, tool, p) });
    }
    case 'PermissionRequest': {
      if (harness === 'qwen' && tool === 'ask_user_question') {
        return withSession({ event, report: { state: 'needs_input', kind: 'question', message: questionText(p.tool_input) || 'asks a question' } });
      }
      if (harness === 'claude-code' && tool === 'AskUserQuestion') {
        return withSession({ event, report: { state: 'needs_input', kind: 'question', message: questionText(p.tool_input) || 'asks a question' } });
      }
      const input = obj(p.tool_input) ?? {};
      if (harness === 'claude-code' && tool === 'ExitPlanMode') {
        const plan = str(input, 'plan');
        return withSession({ event, report: { state: 'needs_input', kind: 'approval', message: cleanMessage(`plan: ${plan ? planTitle(plan) : 'a plan'}`) }, approval: { tool, input, plan: true } });
      }
      const suggestions = Array.isArray(p.permission_suggestions) ? p.permission_suggestions : undefined;
      return withSession({
        event,
        report: { state: 'needs_input', kind: 'approval', message: approveLine(tool, input) },
        ...(harness === 'claude-code' || harness === 'qwen' ? { approval: { tool, input, ...(suggestions ? { suggestions } : {}) } } : {}),
      });
    }
    case 'PostToolUse':
    case 'PostToolUseFailure':
      return withSession({
        event,
        report: { state: 'working', if_state: ['needs_input'], activity: resultActivity(tool, p.tool_response ?? p.error) },
        activities: subagentUpdates(event, tool, p),
      });
    case 'PermissionDenied':
    case 'ElicitationResult':
    case 'PermissionResult':
      return withSession({ event, report: { state: 'working', if_state: ['needs_input'] } });
    case 'Notification': {
      const type = str(p, 'notification_type');
      const message = firstLine(p.message);
      if (type === 'permission_prompt') return withSession({ event, report: { state: 'needs_input', kind: 'approval', ...(message ? { message } : {}) } });
      if (QUESTION_NOTIFICATIONS.has(type)) return withSession({ event, report: { state: 'needs_input', kind: 'question', ...(message ? { message } : {}) } });
      if (type === 'idle_prompt') return withSession({ event, report: { state: 'idle', if_state: ['working', 'unknown'] } });
      return nothing(event, type ? `the notification ${type} reports nothing` : 'a notification with no notification_type reports nothing');
    }
    case 'Stop': {
      const text = firstLine(p.last_assistant_message);
      return withSession({
        event,
        report: { state: 'done', ...(text ? { message: text, activity: text } : {}) },
        activities: [{ type: 'turn_end', ...(text ? { text } : {}) }, ...subagentUpdates(event, tool, p)],
      });
    }
    case 'StopFailure': {
      const err = obj(p.error);
      const type = str(p, 'error_type', 'stop_reason', 'reason') || (err ? str(err, 'type', 'code') : '') || (typeof p.error === 'string' ? p.error : '') || 'an error';
      return withSession({ event, report: { state: 'errored', message: cleanMessage(`stopped on ${type}`) } });
    }
    case 'Interrupt':
      if (harness === 'codex' || harness === 'kimi') return withSession({ event, report: { state: 'idle' } });
      return nothing(event, `${harness} has no Interrupt event`);
    case 'SessionEnd':
      return withSession({ event, report: { state: 'none' } });
    default:
      return nothing(event, `the event ${event} has no mapping`);
  }
}

/** Codex's legacy `notify` payload (the last argument): its turn-end report, with no conversation id. */
export function mapCodexNotify(arg: string): HookPlan | null {
  let p: unknown;
  try {
    p = JSON.parse(arg);
  } catch {
    return null;
  }
  const o = obj(p);
  if (!o || str(o, 'type') !== 'agent-turn-complete') return null;
  const text = firstLine(o['last-assistant-message']);
  return { event: 'notify', report: { state: 'done', ...(text ? { message: text } : {}) } };
}
