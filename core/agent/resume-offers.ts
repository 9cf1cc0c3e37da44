// After a restart, one offer per restored pane whose agent was running when the state was saved
// (spec: Resuming after a restart): `daemon.resume_agents` ask (a Resume row), auto (typed at the
// new shell's prompt, staggered; the row when the prompt never comes) or off. Made once, for the
// restart that ended the agent: a restored pane has no agent state, so the next save records none.
import type { Services } from '../daemon/services.js';
import type { Window } from '../model/window.js';
import type { Disposable } from '../bus.js';
import { paneResume, typeResume } from '../verbs/resume.js';
import { waitForShellPrompt } from './resume.js';
import { RESUME_STAGGER_MS } from './hooks/limits.js';

export function offerResumes(svc: Services, panes: Window[]): Disposable {
  const mode = svc.config.current.daemon.resume_agents;
  const timers: NodeJS.Timeout[] = [];
  const sub = svc.bus.on('agent-state', (ev) => {
    // You ran the agent yourself: the offer is moot.
    if (ev.state === 'working' || ev.state === 'needs_input') svc.inbox.closeWhere((i) => i.kind === 'resume' && i.window_id === ev.window_id, 'the agent runs again');
  });
  if (mode === 'off') return sub;
  const row = (w: Window, line: string, harness: string) => svc.inbox.open('resume', { windowId: w.id, summary: line, ref: { command: line }, harness });
  let n = 0;
  for (const w of panes) {
    let r: { line: string; harness: string };
    try {
      r = paneResume(svc, w);
    } catch {
      continue;
    }
    if (mode === 'ask') {
      row(w, r.line, r.harness);
      continue;
    }
    const t = setTimeout(() => {
      void waitForShellPrompt(w).then((ok) => {
        if (w.closed) return;
        if (!(ok && typeResume(svc, w, r.line))) row(w, r.line, r.harness);
        else svc.log.info('resumed an agent', { window: w.id, harness: r.harness });
      });
    }, RESUME_STAGGER_MS * n++);
    t.unref();
    timers.push(t);
  }
  return { dispose: () => (timers.forEach(clearTimeout), sub.dispose()) };
}
