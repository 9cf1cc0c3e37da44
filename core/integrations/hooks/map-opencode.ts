// The opencode plugin's events, which Kilo's copy sends too (spec: What each event reports). The
// plugin (integrations, opencode-plugin.ts) forwards opencode's bus events as one JSON object:
// { hook_event_name, session_id, parent_id?, status?, message?, tool?, pattern? }. Pure.
import { nothing, str, type HookPlan } from './plan.js';
import { approvalMessage, cleanMessage, firstLine } from './text.js';

export function mapOpencode(p: Record<string, unknown>, argEvent?: string): HookPlan {
  const event = str(p, 'hook_event_name', 'type') || argEvent || '';
  if (!event) return nothing('', 'the payload names no event');
  if (str(p, 'parent_id') || p.is_child === true) return nothing(event, 'an event from a child session is not the pane\'s');
  const id = str(p, 'session_id');
  const session = id ? { id } : undefined;
  switch (event) {
    case 'session.status': {
      const status = str(p, 'status');
      if (status === 'busy') return { event, session, report: { state: 'working' } };
      if (status === 'retry') return { event, session, report: { state: 'working', message: cleanMessage(`retrying: ${firstLine(p.message) || 'the model call failed'}`) } };
      if (status === 'idle') return { event, session, report: { state: 'done', if_state: ['working', 'needs_input'] }, activities: [{ type: 'turn_end' }] };
      return nothing(event, status ? `the status ${status} reports nothing` : 'a status with no type reports nothing');
    }
    case 'session.idle':
      // Deprecated in favour of session.status idle; whichever comes second changes nothing.
      return { event, session, report: { state: 'done', if_state: ['working', 'needs_input'] } };
    case 'chat.message':
      return { event, session, report: { state: 'working', activity: firstLine(p.message) } };
    case 'permission.asked':
      return { event, session, report: { state: 'needs_input', kind: 'approval', message: approvalMessage(str(p, 'tool') || 'a tool', str(p, 'pattern', 'message')) } };
    case 'question.asked':
      return { event, session, report: { state: 'needs_input', kind: 'question', message: firstLine(p.message) || 'asks a question' } };
    case 'permission.replied':
    case 'question.replied':
      return { event, session, report: { state: 'working', if_state: ['needs_input'] } };
    case 'session.error':
      return { event, session, report: { state: 'errored', message: firstLine(p.message) || 'stopped on an error' } };
    case 'session.created':
      return { event, report: { state: 'idle' }, ...(session ? { session: { ...session, start: 'startup' } } : {}) };
    default:
      return nothing(event, `the event ${event} has no mapping`);
  }
}
