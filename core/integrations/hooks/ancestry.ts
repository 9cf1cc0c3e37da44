// What the hook can say about where it runs, from /proc (Linux): its session id, its ancestors,
// and the harness it runs under. Every read may fail; a failure says nothing.
import { readStat } from '../../pty/procfs.js';
import { HOOK_ANCESTRY_MAX_DEPTH } from '../../limits.js';

/** Programs between a harness and its hook that are not the harness. */
const NOT_HARNESS = new Set(['sh', 'bash', 'dash', 'zsh', 'fish', 'ksh', 'mksh', 'tcsh', 'csh', 'busybox', 'env', 'timeout', 'nice', 'stdbuf', 'tuios']);

export interface HookProcess {
  /** The kernel session id: a pane's shell leads the session of the pane's terminal. */
  sid: number | null;
  /** Parent, grandparent, ... up to (not including) init. */
  ancestors: number[];
  /** The nearest ancestor that is not a shell or env. */
  harnessPid: number | null;
}

/** `untilHarness`: stop at the harness (its pid is all the caller needs), not at init. */
export function hookProcess(selfPid = process.pid, opts: { untilHarness?: boolean } = {}): HookProcess {
  const self = readStat(selfPid);
  if (!self) return { sid: null, ancestors: [], harnessPid: null };
  const ancestors: number[] = [];
  let harnessPid: number | null = null;
  let cur = self.ppid;
  for (let i = 0; i < HOOK_ANCESTRY_MAX_DEPTH && cur > 1; i++) {
    const st = readStat(cur);
    if (!st) break;
    ancestors.push(cur);
    if (harnessPid === null && !NOT_HARNESS.has(st.comm)) {
      harnessPid = cur;
      if (opts.untilHarness) break;
    }
    cur = st.ppid;
  }
  return { sid: self.session > 0 ? self.session : null, ancestors, harnessPid };
}
