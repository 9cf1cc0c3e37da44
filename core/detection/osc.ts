// What a pane's own escape sequences say about its agent: OSC 9;4 progress, OSC 9/777/99
// notifications and OSC 7501 program status, read by the emulator and handed to the store.
import type { Window } from '../model/window.js';
import type { Logger } from '../log.js';
import type { AgentStore } from '../agent-state/store.js';
import type { ProgressReport, Notification } from '../screen/osc-reports.js';
import type { AgentState } from '../agent-state/state.js';
import { parseProgramStatus } from './program-status.js';

/** OSC 9;4's published meaning: a bar is working, clearing it is idle, error is errored, paused waits. */
export function progressMeaning(p: ProgressReport): AgentState {
  switch (p.state) {
    case 0:
      return 'idle';
    case 2:
      return 'errored';
    case 4:
      return 'needs_input';
    default:
      return 'working';
  }
}

export interface OscReaders {
  /** A manifest that reads a progress report its own way (osc_progress rules) takes it first. */
  progressRule?(w: Window, p: ProgressReport): boolean;
  /** Notify rules of the pane's harness. */
  notifyRule?(w: Window, n: Notification): void;
}

export function watchPaneOsc(w: Window, store: AgentStore, log: Logger, readers: OscReaders = {}): void {
  w.addScreenHooks({
    onProgress: (p) => {
      // Package managers and builds draw progress bars too: on its own it says a program is
      // busy, not that an agent is there, so it counts only on a pane known to hold one.
      if (!store.holdsAgent(w)) return;
      if (readers.progressRule?.(w, p)) return;
      store.claim(w, { origin: 'osc:progress', state: progressMeaning(p) });
    },
    onNotification: (n) => {
      store.notification(w, { title: n.title, body: n.body, osc: n.osc });
      if (store.harnessOf(w)) readers.notifyRule?.(w, n);
    },
    onProgramStatus: (payload) => {
      const s = parseProgramStatus(payload);
      if ('error' in s) {
        log.debug('program status ignored', { window: w.id, reason: s.error });
        return;
      }
      store.program(w, s);
    },
  });
}
