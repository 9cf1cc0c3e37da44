// The events the Amp plugin and the Pi and oh-my-pi extensions forward (spec: What each event
// reports). The plugins (core/integrations/setup/plugins.ts) send one small JSON object per event,
// already filtered to the main agent in the TUI; this maps it. Pure.
import { nothing, str, type HookPlan } from './plan.js';
import { approveLine } from './call-text.js';
import { cleanMessage, firstLine } from './text.js';
import { SESSION_ID_RE } from './map-session.js';

function sessionOf(p: Record<string, unknown>): { id: string } | undefined {
  const id = str(p, 'session_id', 'thread_id');
  return SESSION_ID_RE.test(id) ? { id } : undefined;
}

/** Pi and oh-my-pi: the same session and start mapping; Pi's UI prompts, omp's tool approvals. */
export function mapPiFamily(harness: 'pi' | 'omp', p: Record<string, unknown>, argEvent?: string): HookPlan {
  const event = str(p, 'hook_event_name') || argEvent || '';
  if (!event) return nothing('', 'the payload names no event (hook_event_name)');
  if (p.subagent === true) return nothing(event, 'a subagent\'s event');
  const session = sessionOf(p);
  switch (event) {
    case 'session_start':
      // A reload mid-turn starts the extension again while the turn runs.
      return { event, report: { state: p.busy === true ? 'working' : 'idle' }, ...(session ? { session: { ...session, start: str(p, 'reason') || 'startup' } } : {}) };
    case 'agent_start':
      return { event, session, report: { state: 'working', activity: firstLine(p.prompt) } };
    case 'agent_settled':
      return { event, session, report: { state: 'done' }, activities: [{ type: 'turn_end' }] };
    case 'agent_end':
      if (harness === 'omp' && p.continuing === true) return nothing(event, 'an automatic continuation is scheduled: the turn goes on');
      return { event, session, report: { state: 'done' }, activities: [{ type: 'turn_end' }] };
  }
  if (harness === 'pi') {
    if (event === 'ui_prompt_start') {
      const kind = str(p, 'prompt_kind') === 'confirm' ? 'approval' : 'question';
      const title = cleanMessage(p.title);
      return { event, session, report: { state: 'needs_input', kind, ...(title ? { message: title } : {}) } };
    }
    if (event === 'ui_prompt_end') return { event, session, report: { state: p.busy === false ? 'idle' : 'working', if_state: ['needs_input'] } };
  } else {
    if (event === 'tool_approval_requested') {
      const tool = str(p, 'tool') || 'a tool';
      return { event, session, report: { state: 'needs_input', kind: 'approval', message: approveLine(tool, p.input ?? {}) } };
    }
    if (event === 'tool_approval_resolved') return { event, session, report: { state: 'working', if_state: ['needs_input'] } };
  }
  return nothing(event, `the event ${event} has no mapping`);
}

/** Amp: agent.start and agent.end by status; the thread id as a session report; ask_user_choice. */
export function mapAmp(p: Record<string, unknown>, argEvent?: string): HookPlan {
  const event = str(p, 'hook_event_name') || argEvent || '';
  if (!event) return nothing('', 'the payload names no event (hook_event_name)');
  const session = sessionOf(p);
  switch (event) {
    case 'session.start':
      return session ? { event, session, sessionOnly: true } : nothing(event, 'the payload carries no thread id');
    case 'agent.start':
      return { event, session, report: { state: 'working', activity: firstLine(p.message) } };
    case 'agent.end': {
      const status = str(p, 'status');
      if (status === 'done') return { event, session, report: { state: 'done' }, activities: [{ type: 'turn_end' }] };
      if (status === 'error') return { event, session, report: { state: 'errored', message: 'the turn ended on an error' } };
      if (status === 'cancelled') return { event, session, report: { state: 'idle' } };
      return nothing(event, status ? `an agent.end with status ${status} reports nothing` : 'an agent.end with no status reports nothing');
    }
    case 'tool.call': {
      if (str(p, 'tool') !== 'ask_user_choice') return nothing(event, 'only ask_user_choice is read from tool.call');
      const q = cleanMessage(p.question);
      return { event, session, report: { state: 'needs_input', kind: 'question', ...(q ? { message: q } : {}) } };
    }
    case 'tool.result':
      if (str(p, 'tool') !== 'ask_user_choice') return nothing(event, 'only ask_user_choice is read from tool.result');
      return { event, session, report: { state: 'working', if_state: ['needs_input'] } };
    default:
      return nothing(event, `the event ${event} has no mapping`);
  }
}
