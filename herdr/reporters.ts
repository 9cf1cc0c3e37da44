// Who holds a pane's reported state, for two rules of herdr's pane state protocol (spec: herdr's
// pane state protocol, Two reporters for one agent, and the crash clear):
//
// - While a report from tuios's own integration holds the pane for a harness, the state reports
//   and the release from herdr's hook scripts (source `herdr:...`) for that harness are dropped.
//   The report claim a herdr report wrote is remembered; a report claim that is not it came from
//   another reporter (tuios's hooks, `tuios set-agent-state`).
// - An agent that exits without pane.release_agent does not keep its last state. The process that
//   reported is recorded, and for a short hook also the first program above it that is not a
//   shell (below the pane's own process). The pane clears to none when it is back at its shell
//   prompt, its last report is over two seconds old, and no recorded process runs.
import type { Services } from '../core/daemon/services.js';
import type { Window } from '../core/model/window.js';
import type { Claim } from '../core/agent-state/record.js';
import { readStat } from '../core/pty/procfs.js';
import { isShellName } from '../core/detection/identify.js';
import { HOOK_ANCESTRY_MAX_DEPTH } from '../core/limits.js';
import { HERDR_CRASH_CHECK_MS, HERDR_CRASH_CLEAR_MS } from './limits.js';

/** Programs between an agent and its hook that are not the agent (the hook ancestry's list). */
const NOT_AGENT = new Set(['sh', 'bash', 'dash', 'zsh', 'fish', 'ksh', 'mksh', 'tcsh', 'csh', 'busybox', 'env', 'timeout', 'nice', 'stdbuf', 'tuios', 'herdr']);

interface Proc {
  pid: number;
  startTime: number;
}

interface Held {
  w: Window;
  /** The report claim the herdr report wrote. */
  claim: Claim;
  at: number;
  procs: Proc[];
}

/** The report claim standing for a pane, if any. */
function reportClaim(svc: Services, w: Window): Claim | undefined {
  return svc.agents.recordOf(w)?.claims.get('report');
}

function running(p: Proc): boolean {
  const st = readStat(p.pid);
  return !!st && st.startTime === p.startTime && st.state !== 'Z' && st.state !== 'X';
}

/**
 * The reporter and, when it is a short hook (started by something other than the pane's own
 * process), the first program above it that is not a shell: the agent a hook runs under, or for a
 * process outside every pane the program that ran it. The walk stops at the pane's own process.
 */
function recordedProcesses(w: Window, reporter: number): Proc[] {
  const out: Proc[] = [];
  const self = readStat(reporter);
  if (!self) return out;
  out.push({ pid: reporter, startTime: self.startTime });
  let cur = self.ppid;
  for (let i = 0; i < HOOK_ANCESTRY_MAX_DEPTH && cur > 1 && cur !== w.pid; i++) {
    const st = readStat(cur);
    if (!st) break;
    if (!NOT_AGENT.has(st.comm)) {
      out.push({ pid: cur, startTime: st.startTime });
      break;
    }
    cur = st.ppid;
  }
  return out;
}

/** The pane's own process is a shell in the foreground: it waits at its prompt. */
function atPrompt(w: Window): boolean {
  if (!w.running || w.pid === null) return false;
  const fg = w.foreground();
  return !!fg && fg.pid === w.pid && isShellName(fg.comm);
}

export class Reporters {
  private readonly held = new Map<string, Held>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly svc: Services) {}

  /**
   * True when a report that did not come from the herdr socket holds the pane for `harness` (any
   * harness when null): tuios's integration wins over herdr's script.
   */
  integrationHolds(w: Window, harness: string | null): boolean {
    const c = reportClaim(this.svc, w);
    if (!c) return false;
    if (c === this.held.get(w.id)?.claim || c === this.lastHerdr.get(w)) return false;
    const attr = this.svc.agents.recordOf(w)?.attribution;
    return harness === null || !attr || attr.harness === harness;
  }

  /** The claim a herdr report just wrote, and who reported it (null: a caller with no pid). */
  wrote(w: Window, reporter: number | null): void {
    const claim = reportClaim(this.svc, w);
    if (!claim) {
      this.held.delete(w.id);
      return;
    }
    this.lastHerdr.set(w, claim);
    const procs = reporter === null ? [] : recordedProcesses(w, reporter);
    this.held.set(w.id, { w, claim, at: Date.now(), procs });
    if (!this.timer) {
      this.timer = setInterval(() => this.check(), HERDR_CRASH_CHECK_MS);
      this.timer.unref();
    }
  }

  /** The last report claim each pane's herdr reports wrote (also after the crash watch let go). */
  private readonly lastHerdr = new WeakMap<Window, Claim>();

  /** The crash clear, for each pane a herdr report holds. */
  check(now = Date.now()): void {
    for (const [id, h] of this.held) {
      // Closed, cleared, or another report took over: no longer ours to clear.
      if (h.w.closed || reportClaim(this.svc, h.w) !== h.claim) {
        this.held.delete(id);
        continue;
      }
      if (now - h.at <= HERDR_CRASH_CLEAR_MS || !atPrompt(h.w) || h.procs.some(running)) continue;
      this.held.delete(id);
      this.svc.log.debug('herdr: the reporter is gone and the pane is at its prompt: cleared', { window: id });
      this.svc.agents.clearPane(h.w);
    }
    if (this.held.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  dispose(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.held.clear();
  }
}

const byDaemon = new WeakMap<Services, Reporters>();

export function reporters(svc: Services): Reporters {
  let r = byDaemon.get(svc);
  if (!r) byDaemon.set(svc, (r = new Reporters(svc)));
  return r;
}
