// The most urgent agent state in a session, for its row on the rail and in the switcher.
import type { Services } from '../core/daemon/services.js';

const URGENCY: Record<string, number> = { needs_input: 6, errored: 5, done_unread: 4, working: 3, done: 2, idle: 1, unknown: 1 };

export function sessionMark(svc: Services, sessionId: string): { state: string; unread: boolean } | null {
  let best: { state: string; unread: boolean; u: number } | null = null;
  for (const w of svc.model.windows.values()) {
    if (w.sessionId !== sessionId || !svc.agents.holdsAgent(w)) continue;
    const state = svc.agents.stateOf(w);
    if (state === 'none') continue;
    const unread = state === 'done' && !!svc.agents.info(w).finished_unread;
    const u = URGENCY[unread ? 'done_unread' : state] ?? 1;
    if (!best || u > best.u) best = { state, unread, u };
  }
  return best ? { state: best.state, unread: best.unread } : null;
}
