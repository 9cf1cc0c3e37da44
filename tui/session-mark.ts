// The most urgent agent state in a session, for its row on the rail and in the switcher.
import type { Services } from '../core/daemon/services.js';
import { waitsOnSubagents } from './marks.js';

const URGENCY: Record<string, number> = { needs_input: 6, errored: 5, done_unread: 4, working: 3, done: 2, idle: 1, unknown: 1 };

export function sessionMark(svc: Services, sessionId: string): { state: string; unread: boolean; subagents: number } | null {
  let best: { state: string; unread: boolean; subagents: number; u: number } | null = null;
  for (const w of svc.model.windows.values()) {
    if (w.sessionId !== sessionId || !svc.agents.holdsAgent(w)) continue;
    const state = svc.agents.stateOf(w);
    if (state === 'none') continue;
    const info = svc.agents.info(w);
    const unread = state === 'done' && !!info.finished_unread;
    const subagents = Number(info.subagents ?? 0);
    // Waiting on its subagents reads as work going on.
    const u = waitsOnSubagents(state, subagents) ? URGENCY.working! : URGENCY[unread ? 'done_unread' : state] ?? 1;
    if (!best || u > best.u) best = { state, unread, subagents, u };
  }
  return best ? { state: best.state, unread: best.unread, subagents: best.subagents } : null;
}
