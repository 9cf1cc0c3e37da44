// The session integrations (spec: Harness integrations, What each event reports): Droid, Qoder,
// Grok, Devin, Antigravity, Crush and Hermes report the harness's conversation id and nothing
// else. Their hooks miss an interrupt, a cancelled approval or the end of a turn, so the pane's
// state keeps coming from the manifest's screen and title rules. Pure.
import { nothing, str, type HookEnv, type HookPlan } from './plan.js';

/** The events each session integration reads the id from. */
export const SESSION_EVENTS: Record<string, string[]> = {
  droid: ['SessionStart'],
  qoder: ['SessionStart'],
  grok: ['SessionStart'],
  devin: ['SessionStart', 'UserPromptSubmit'],
  antigravity: ['PreInvocation'],
  crush: ['PreToolUse'],
  hermes: ['on_session_start', 'on_session_reset'],
};

/** An id the daemon may store (set-agent-session's rule): 1 to 256 printable ASCII characters. */
export const SESSION_ID_RE = /^[\x21-\x7e]{1,256}$/;

function sessionId(v: string): string {
  const t = v.trim();
  return SESSION_ID_RE.test(t) ? t : '';
}

export function mapSessionOnly(harness: string, p: Record<string, unknown>, env: HookEnv, argEvent?: string): HookPlan {
  const event = str(p, 'hook_event_name', 'hookEventName', 'event') || argEvent || '';
  if (!event) return nothing('', 'the payload names no event (hook_event_name)');
  const events = SESSION_EVENTS[harness] ?? [];
  if (!events.includes(event)) return nothing(event, `${harness} is a session integration: ${event} carries no conversation id it reads`);
  let raw = '';
  switch (harness) {
    case 'grok':
      raw = env.GROK_SESSION_ID || str(p, 'session_id', 'sessionId');
      break;
    case 'crush':
      raw = env.CRUSH_SESSION_ID || str(p, 'session_id', 'sessionId');
      break;
    case 'antigravity':
      raw = str(p, 'conversationId', 'conversation_id', 'session_id');
      break;
    case 'hermes':
      // Only an interactive session: the plugin says which.
      if (p.interactive === false) return nothing(event, 'not an interactive Hermes session');
      raw = str(p, 'session_id', 'sessionId');
      break;
    default:
      raw = str(p, 'session_id', 'sessionId');
  }
  const id = sessionId(raw);
  if (!id) return nothing(event, raw ? 'the conversation id is not 1 to 256 printable ASCII characters' : 'the payload carries no conversation id');
  return { event, session: { id }, sessionOnly: true };
}
