// GitHub Copilot CLI's hook events (spec: What each event reports). Its payloads carry no event
// name, so each installed entry passes `--event NAME`. Its permissionRequest hook is not used: it
// fires before Copilot's own rules and auto-allow. Pure.
import { nothing, obj, str, type HookPlan } from './plan.js';
import { callActivity, resultActivity } from './call-text.js';
import { firstLine } from './text.js';

/** Copilot's camelCase names and the PascalCase ones its Notification payload uses. */
const CANON: Record<string, string> = {
  sessionStart: 'SessionStart', SessionStart: 'SessionStart',
  userPromptSubmitted: 'UserPromptSubmit', UserPromptSubmit: 'UserPromptSubmit',
  preToolUse: 'PreToolUse', PreToolUse: 'PreToolUse',
  postToolUse: 'PostToolUse', PostToolUse: 'PostToolUse',
  postToolUseFailure: 'PostToolUseFailure', PostToolUseFailure: 'PostToolUseFailure',
  notification: 'Notification', Notification: 'Notification',
  agentStop: 'Stop', Stop: 'Stop',
  errorOccurred: 'ErrorOccurred', ErrorOccurred: 'ErrorOccurred',
  sessionEnd: 'SessionEnd', SessionEnd: 'SessionEnd',
  permissionRequest: 'PermissionRequest', subagentStop: 'SubagentStop',
};

function questionOf(args: unknown): string {
  const o = obj(args) ?? {};
  return firstLine(str(o, 'question', 'prompt', 'message'));
}

export function mapCopilot(p: Record<string, unknown>, argEvent?: string): HookPlan {
  const named = argEvent || str(p, 'hook_event_name', 'hookName');
  const event = CANON[named] ?? named;
  if (!event) return nothing('', 'the payload names no event: the installed entry passes --event');
  const id = str(p, 'sessionId', 'session_id');
  const transcript = str(p, 'transcriptPath', 'transcript_path');
  const session = id ? { id, ...(transcript ? { transcript } : {}) } : undefined;
  const tool = str(p, 'toolName', 'tool_name');
  const args = p.toolArgs ?? p.tool_input;
  switch (event) {
    case 'SessionStart':
      return { event, report: { state: 'idle' }, ...(session ? { session: { ...session, start: str(p, 'source') || 'new' } } : {}), activities: [{ type: 'session_start', ...(str(p, 'source') ? { source: str(p, 'source') } : {}) }] };
    case 'UserPromptSubmit':
      return { event, session, report: { state: 'working', activity: firstLine(p.prompt) } };
    case 'PreToolUse':
      if (tool === 'AskUserQuestion' || tool === 'ask_user') return { event, session, report: { state: 'needs_input', kind: 'question', message: questionOf(args) || 'asks a question' } };
      return { event, session, report: { state: 'working', activity: callActivity(tool, args) } };
    case 'PostToolUse':
    case 'PostToolUseFailure':
      return { event, session, report: { state: 'working', if_state: ['needs_input'], activity: resultActivity(tool, p.toolResult ?? p.error) } };
    case 'Notification': {
      const type = str(p, 'notification_type');
      const message = firstLine(p.message);
      if (type === 'permission_prompt') return { event, session, report: { state: 'needs_input', kind: 'approval', ...(message ? { message } : {}) } };
      if (type === 'elicitation_dialog') return { event, session, report: { state: 'needs_input', kind: 'question', ...(message ? { message } : {}) } };
      return nothing(event, type ? `the notification ${type} reports nothing` : 'a notification with no notification_type reports nothing');
    }
    case 'Stop':
      return { event, session, report: { state: 'done' }, activities: [{ type: 'turn_end' }] };
    case 'ErrorOccurred': {
      const err = obj(p.error) ?? {};
      const recoverable = p.recoverable === true || err.recoverable === true;
      if (recoverable) return nothing(event, 'a recoverable error reports nothing');
      return { event, session, report: { state: 'errored', message: firstLine(str(err, 'message', 'name') || str(p, 'message')) || 'stopped on an error' } };
    }
    case 'SessionEnd':
      return { event, session, report: { state: 'none' } };
    case 'PermissionRequest':
      return nothing(event, 'Copilot runs permissionRequest before its own rules and auto-allow; the permission_prompt notification reports the prompt');
    default:
      return nothing(event, `the event ${event} has no mapping`);
  }
}
