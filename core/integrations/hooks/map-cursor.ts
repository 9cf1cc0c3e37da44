// Cursor Agent's hook events (spec: What each event reports). tuios registers none of Cursor's
// permission hooks, which block a call on an empty answer; its approval prompt comes from the
// screen. Pure.
import { nothing, str, type HookPlan } from './plan.js';
import { callActivity, resultActivity } from './call-text.js';
import { firstLine } from './text.js';

export function mapCursor(p: Record<string, unknown>, argEvent?: string): HookPlan {
  const event = str(p, 'hook_event_name') || argEvent || '';
  if (!event) return nothing('', 'the payload names no event (hook_event_name)');
  const id = str(p, 'conversation_id', 'session_id');
  const session = id ? { id } : undefined;
  const tool = str(p, 'tool_name');
  switch (event) {
    case 'sessionStart':
      return { event, report: { state: 'idle' }, ...(session ? { session: { ...session, start: 'startup' } } : {}), activities: [{ type: 'session_start' }] };
    case 'beforeSubmitPrompt':
      return { event, session, report: { state: 'working', activity: firstLine(p.prompt) } };
    case 'postToolUse':
      return { event, session, report: { state: 'working', activity: resultActivity(tool, p.tool_output ?? p.tool_response) } };
    case 'postToolUseFailure':
      return { event, session, report: { state: 'working', activity: callActivity(tool, p.tool_input) } };
    case 'stop': {
      const status = str(p, 'status');
      if (status === 'completed') return { event, session, report: { state: 'done' }, activities: [{ type: 'turn_end' }] };
      if (status === 'aborted') return { event, session, report: { state: 'idle' } };
      if (status === 'error') return { event, session, report: { state: 'errored', message: 'stopped on an error' } };
      return nothing(event, status ? `a stop with status ${status} reports nothing` : 'a stop with no status reports nothing');
    }
    case 'sessionEnd':
      return { event, session, report: { state: 'none' } };
    default:
      return nothing(event, `the event ${event} has no mapping`);
  }
}
