// After a restart, one offer per restored pane whose agent was running when the state was saved
// (spec: Resuming after a restart): `daemon.resume_agents` ask (a Resume row), auto (typed at the
// new shell's prompt, staggered; the row when the prompt never comes) or off. Made once, for the
// restart that ended the agent: a restored pane has no agent state, so the next save records none.
import type { AgentStore } from '../agent-state/store.js';
import type { ManifestSet } from '../detection/manifest.js';
import type { Inbox } from '../inbox/inbox.js';
import type { ConfigStore } from '../config/config.js';
import type { Bus } from '../bus.js';
import type { Logger } from '../log.js';

/** What resuming after a restart reads and writes: the panes' agents, their manifests, the Inbox's offers. */
export interface ResumeDeps {
  readonly agents: AgentStore;
  readonly manifests: ManifestSet;
  readonly inbox: Inbox;
  readonly config: ConfigStore;
  readonly bus: Bus;
  readonly log: Logger;
}
import type { Window } from '../model/window.js';
import type { Disposable } from '../bus.js';
import { TuiosError } from '../errors.js';
import { findHarness } from '../detection/manifest.js';
import { resumeCommand, shellHoldsForeground, waitForShellPrompt } from './resume.js';
import { RESUME_STAGGER_MS } from '../limits.js';

/** The pane's resume command, or a typed error a person can act on. */
export function paneResume(svc: ResumeDeps, w: Window): { argv: string[]; line: string; harness: string } {
  const s = svc.agents.sessionOf(w);
  const m = s.harness ? findHarness(svc.manifests, s.harness) : undefined;
  const r = resumeCommand(m, s.id);
  if (!r.ok) throw new TuiosError('not_found', `${w.name} cannot be resumed: ${r.why}.`, 'A harness reports its conversation id once its integration is installed: tuios integration install HARNESS');
  return { argv: r.argv, line: r.line, harness: m!.id };
}

/** Types the command into the pane's shell; false when the shell does not hold the foreground. */
export function typeResume(svc: ResumeDeps, w: Window, line: string): boolean {
  if (!shellHoldsForeground(w)) return false;
  w.write(`${line}\r`);
  svc.inbox.closeWhere((i) => i.kind === 'resume' && i.window_id === w.id, 'the resume command was typed');
  return true;
}

export function offerResumes(svc: ResumeDeps, panes: Window[]): Disposable {
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
