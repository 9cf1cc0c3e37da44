// The events a hook drops before any map: another harness's, as TUIOS_AGENT names it, and Claude
// Code's hooks run by Cursor or Grok, and a Codex hook of another conversation (spec: Nested and
// foreign events). Pure. On its own so the status line wrapper applies it without the maps.
import { KNOWN_HARNESS_NAMES } from './harnesses.js';
import { str, type HookEnv } from './plan.js';

/** A foreign event, before the map: the reason it is dropped, or null. */
export function foreignEvent(harnessId: string, payload: Record<string, unknown>, env: HookEnv): string | null {
  const named = env.TUIOS_AGENT?.trim().toLowerCase();
  if (named) {
    const id = KNOWN_HARNESS_NAMES[named];
    if (id && id !== harnessId) return `TUIOS_AGENT names ${named}, not ${harnessId}`;
  }
  if (harnessId === 'claude-code') {
    if (env.GROK_SESSION_ID) return 'Grok runs this Claude Code hook (GROK_SESSION_ID is set)';
    if (typeof payload.cursor_version === 'string' || (typeof payload.conversation_id === 'string' && typeof payload.generation_id === 'string')) {
      return 'Cursor runs this Claude Code hook (its payload carries conversation_id and generation_id)';
    }
  }
  if (harnessId === 'codex') {
    const thread = env.CODEX_THREAD_ID;
    const sid = str(payload, 'session_id');
    if (thread && sid && thread !== sid) return `the session ${sid} is not the CODEX_THREAD_ID the hook inherited`;
  }
  return null;
}
