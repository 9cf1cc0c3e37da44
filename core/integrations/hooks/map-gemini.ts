// Gemini CLI's hook events (spec: What each event reports). Pure.
import { nothing, obj, str, type HookPlan } from './plan.js';
import { approveLine, callActivity } from './call-text.js';
import { firstLine } from './text.js';

/** The confirmation's type, as Gemini CLI's own dialog names the tool (fixtures/screens/gemini-cli). */
const GEMINI_CONFIRM_TOOL: Record<string, string> = { exec: 'Shell', edit: 'Edit', info: 'WebFetch' };

export function mapGemini(p: Record<string, unknown>, argEvent?: string): HookPlan {
  const event = str(p, 'hook_event_name') || argEvent || '';
  if (!event) return nothing('', 'the payload names no event (hook_event_name)');
  const id = str(p, 'session_id');
  const transcript = str(p, 'transcript_path');
  const session = id ? { id, ...(transcript ? { transcript } : {}) } : undefined;
  const tool = str(p, 'tool_name');
  switch (event) {
    case 'SessionStart':
      return { event, report: { state: 'idle' }, ...(session ? { session: { ...session, start: str(p, 'source') || 'startup' } } : {}), activities: [{ type: 'session_start', ...(str(p, 'source') ? { source: str(p, 'source') } : {}) }] };
    case 'BeforeAgent':
      return { event, session, report: { state: 'working', activity: firstLine(p.prompt) } };
    case 'BeforeTool':
      return { event, session, report: { state: 'working', activity: callActivity(tool, p.tool_input) } };
    case 'AfterTool':
      return { event, session, report: { state: 'working', if_state: ['needs_input'] } };
    case 'Notification': {
      const type = str(p, 'notification_type');
      if (type !== 'ToolPermission') return nothing(event, type ? `the notification ${type} reports nothing` : 'a notification with no notification_type reports nothing');
      const details = obj(p.details) ?? {};
      const t = GEMINI_CONFIRM_TOOL[str(details, 'type')] ?? (str(details, 'toolName', 'serverName') || 'a tool');
      const line = str(details, 'command', 'rootCommand', 'filePath', 'url', 'prompt');
      return { event, session, report: { state: 'needs_input', kind: 'approval', message: line ? approveLine(t, { command: line }) : firstLine(p.message) || 'approve a tool call' } };
    }
    case 'AfterAgent': {
      const text = firstLine(p.prompt_response);
      return { event, session, report: { state: 'done', ...(text ? { message: text, activity: text } : {}) }, activities: [{ type: 'turn_end', ...(text ? { text } : {}) }] };
    }
    case 'SessionEnd':
      return { event, session, report: { state: 'none' } };
    default:
      return nothing(event, `the event ${event} has no mapping`);
  }
}
