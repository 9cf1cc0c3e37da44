// The detector loop (ADR-0046): per pane, re-identify the foreground process every interval and
// whenever output suggests the foreground changed; look at the screen only when the emulator is
// dirty (throttled while output flows, plus one settle look just after it goes quiet). A clean,
// quiet pane costs one stat read per interval and writes nothing.
import type { Model } from '../model/model.js';
import type { Window } from '../model/window.js';
import type { Logger } from '../log.js';
import type { AgentStore } from '../agent-state/store.js';
import type { ManifestSet } from './manifest.js';
import { findHarness } from './manifest.js';
import { identify, isInteractiveShellArgv, isInterpreter, isShellName, type ProcReader, type Verdict } from './identify.js';
import { VersionCache, versionCoverage, type HarnessVersion, type Coverage } from './harness-version.js';
import { readStat, type ProcStat } from '../pty/procfs.js';

/** Ticks of another program in the foreground before an agent's claim clears (an editor it opened). */
export const LOSE_AFTER_TICKS = 6;
/** After output, the foreground is re-read this soon (a program started or exited). */
const OUTPUT_RECHECK_MS = 250;
/** Looks while output flows are at most this often... */
export const LOOK_THROTTLE_MS = 150;
/** ...and one more this long after the output stops: the prompt is painted by the last chunk. */
export const SETTLE_MS = 120;
/** Presence claims from output are renewed at most this often. */
const PRESENCE_MS = 500;

export interface DetectorConfig {
  autodetect: boolean;
  intervalMs: number;
  extraBinaries: string[];
}

export interface ScreenTier {
  /** One look at the pane's screen and title; the tier applies what it reads. */
  look(w: Window): void;
}

interface PaneDet {
  fg: number | null;
  leaderStart: number | null;
  verdict: Verdict | null;
  /** The process group the recognised agent ran in (a new group is a new occupant). */
  agentPgid: number | null;
  otherTicks: number;
  sawAgent: boolean;
  recheck: NodeJS.Timeout | null;
  lookTimer: NodeJS.Timeout | null;
  settleTimer: NodeJS.Timeout | null;
  lastLookAt: number;
  lookedGeneration: number;
  /** Screen looks made on the pane (explain-agent-detect shows them). */
  looks: number;
  /** The running harness's release, read when it was identified (null: not readable). */
  version: HarnessVersion | null;
  /** The harness that version belongs to. */
  versionHarness: string | null;
  presenceAt: number;
  sub: { dispose(): void } | null;
  /** Whether the program the window's own pid runs (by name) is an interactive shell, for a window whose command is not one. */
  ownProbe: { comm: string; shell: boolean } | null;
}

export class Detector {
  private readonly panes = new Map<string, PaneDet>();
  private timer: NodeJS.Timeout | null = null;
  /** Identifications run (for benchmarks and explain). */
  identifications = 0;
  /** Releases read, once per process identity (never on the idle tick: only when a pane is identified). */
  readonly versions = new VersionCache();

  constructor(
    private readonly model: Model,
    private readonly store: AgentStore,
    private readonly manifests: () => ManifestSet,
    private readonly config: DetectorConfig,
    private readonly reader: ProcReader,
    private readonly log: Logger,
    /** The screen tier the looks run through; none: identification only (a test's detector). */
    private readonly screenTier: ScreenTier | null = null,
  ) {
    // list-agents, get-agent-state and explain-agent-detect carry the release and its coverage.
    store.addInfo((w) => {
      const c = this.coverageOf(w);
      return { harness_version: c?.version ?? null, version_covered: c?.covered ?? null };
    });
  }

  start(): void {
    if (this.config.intervalMs <= 0) return;
    this.timer = setInterval(() => this.tickAll(), this.config.intervalMs);
    this.timer.unref();
  }

  /** Watches a new pane's output (re-identification and looks hang off it). */
  watch(w: Window): void {
    const d: PaneDet = { fg: null, leaderStart: null, verdict: null, agentPgid: null, otherTicks: 0, sawAgent: false, recheck: null, lookTimer: null, settleTimer: null, lastLookAt: 0, lookedGeneration: -1, looks: 0, version: null, versionHarness: null, presenceAt: 0, sub: null, ownProbe: null };
    this.panes.set(w.id, d);
    d.sub = w.onOutput(() => this.onOutput(w, d));
  }

  forget(id: string): void {
    const d = this.panes.get(id);
    if (!d) return;
    d.sub?.dispose();
    for (const t of [d.recheck, d.lookTimer, d.settleTimer]) if (t) clearTimeout(t);
    this.panes.delete(id);
  }

  private tickAll(): void {
    for (const w of this.model.windows.values()) {
      const d = this.panes.get(w.id);
      if (!d) continue;
      try {
        this.tick(w, d);
      } catch (e) {
        this.log.warn('detector tick failed', { window: w.id, error: String(e) });
      }
    }
  }

  private onOutput(w: Window, d: PaneDet): void {
    if (!d.recheck) {
      d.recheck = setTimeout(() => {
        d.recheck = null;
        if (!w.closed) this.tick(w, d, true);
      }, OUTPUT_RECHECK_MS);
      d.recheck.unref();
    }
    const harness = this.store.harnessOf(w);
    if (!harness) return;
    const m = this.manifests().byId.get(harness);
    const now = Date.now();
    if (m?.detect?.presence_working && now - d.presenceAt > PRESENCE_MS) {
      d.presenceAt = now;
      this.store.claim(w, { origin: 'detect', state: 'working' });
    }
    this.scheduleLook(w, d);
  }

  /** Looks while output flows are throttled; the settle look runs once it stops. */
  private scheduleLook(w: Window, d: PaneDet): void {
    if (!this.screenTier) return;
    if (d.settleTimer) clearTimeout(d.settleTimer);
    d.settleTimer = setTimeout(() => {
      d.settleTimer = null;
      this.lookNow(w, d);
    }, SETTLE_MS);
    d.settleTimer.unref();
    if (d.lookTimer) return;
    const wait = Math.max(0, d.lastLookAt + LOOK_THROTTLE_MS - Date.now());
    d.lookTimer = setTimeout(() => {
      d.lookTimer = null;
      this.lookNow(w, d);
    }, wait);
    d.lookTimer.unref();
  }

  /** A look, unless the screen is clean since the last one (a clean screen cannot read differently). */
  lookNow(w: Window, d = this.panes.get(w.id), force = false): void {
    if (!d || !this.screenTier || w.closed) return;
    if (!force && w.screen.generation === d.lookedGeneration) return;
    d.lookedGeneration = w.screen.generation;
    d.lastLookAt = Date.now();
    d.looks++;
    try {
      this.screenTier.look(w);
    } catch (e) {
      this.log.warn('screen look failed', { window: w.id, error: String(e) });
    }
  }

  private identifyOpts() {
    const set = this.manifests();
    return { manifests: set.list, extraBinaries: this.config.extraBinaries, findByName: (n: string) => findHarness(set, n) };
  }

  /** One look at the pane's foreground. Cheap when nothing changed: one ioctl, and a stat read for an agent's leader. */
  tick(w: Window, d: PaneDet = this.panes.get(w.id)!, fromOutput = false): void {
    if (!w.running || !d) return;
    // A pane on another machine: its tree as read there, through the same identification.
    const view = w.process?.procView?.();
    let pid: number;
    let fg: number | null;
    let reader = this.reader;
    let remoteStart: number | null = null;
    if (view !== undefined) {
      if (!view) return;
      pid = view.pid;
      fg = view.tpgid > 0 ? view.tpgid : null;
      reader = view.reader;
      remoteStart = view.leaderStart;
    } else {
      if (w.pid === null) return;
      pid = w.pid;
      // The terminal says its foreground group in one ioctl; /proc/PID/stat when it cannot.
      let tpgid = w.process?.foregroundGroup?.() ?? null;
      if (tpgid === null) {
        const st = readStat(pid);
        if (!st) return; // a failed read is no evidence either way
        tpgid = st.tpgid;
      }
      fg = tpgid > 0 ? tpgid : null;
    }
    if (fg === null) return;
    // A window that runs a command (not a shell) has that command as its own foreground; one
    // whose command is a wrapper (`env FOO=1 bash`) has the shell it exec'd, read from the process.
    // The leader's stat, read at most once a tick: the shell check of a window whose command is
    // not a shell and the occupant check below both need it (undefined: not read yet).
    let lead: ProcStat | null | undefined;
    if (fg === pid) {
      if (paneRunsShell(w)) return this.atShell(w, d, pid);
      lead = view === undefined ? readStat(fg) : null;
      if (this.ownShellByProcess(d, pid, reader, lead?.comm ?? null)) return this.atShell(w, d, pid);
    }
    if (!this.config.autodetect) return;
    // The same group with the same leader is not identified again. A new occupant has a new
    // group id or start time; a program exec'd in the leader's place keeps both and changes
    // its name, so the leader's name is compared too (one stat read per tick).
    if (lead === undefined) lead = view === undefined ? readStat(fg) : null;
    const start = view === undefined ? (lead?.startTime ?? null) : remoteStart;
    // A pane on another machine: the leader's name as its snapshot has it. (Taken from the last
    // verdict, it always matched, so a leader read between fork and exec, before it was the agent,
    // kept its verdict: the pane was never identified.)
    const comm = view === undefined ? (lead?.comm ?? null) : (view.reader.info(fg)?.comm ?? null);
    const same = d.fg === fg && d.leaderStart === start && d.verdict !== null && comm === (d.verdict.leader?.comm ?? null);
    const behindWrapper = !!d.verdict && d.verdict.kind === 'agent' && d.verdict.process?.pid !== d.verdict.leader?.pid;
    if (same && !behindWrapper && (d.verdict!.kind === 'agent' || fromOutput)) {
      if (d.verdict!.kind === 'agent') d.otherTicks = 0;
      return;
    }
    const v = same && !behindWrapper ? d.verdict! : identify(fg, -1, reader, this.identifyOpts());
    if (!(same && !behindWrapper)) this.identifications++;
    d.fg = fg;
    d.leaderStart = start;
    d.verdict = v;
    if (v.kind === 'agent') {
      // A pane on another machine names paths there: no file is read for them here.
      d.version = view === undefined ? this.versionOf(v) : null;
      d.versionHarness = v.harness;
      return this.sawAgent(w, d, v, fg);
    }
    if (v.kind === 'unreadable') return;
    // Another program in the foreground: an editor or pager the agent opened, or the agent is gone.
    if (d.agentPgid !== null && !fromOutput) {
      d.otherTicks++;
      if (d.otherTicks >= LOSE_AFTER_TICKS) this.lose(w, d, 'another program held the foreground');
    }
  }

  /**
   * The window's own process is an interactive shell: by the window's command, or, for a command
   * that is a wrapper exec'ing a shell (`env FOO=1 bash`, `nice -n5 zsh -l`), by the process that
   * holds the window's pid now. Read once per program the pid runs (its name changes on exec).
   */
  private ownShell(w: Window, d: PaneDet | null, pid: number, reader: ProcReader, local: boolean): boolean {
    return paneRunsShell(w) || this.ownShellByProcess(d, pid, reader, local ? (readStat(pid)?.comm ?? null) : null);
  }

  /** ownShell's second half, for a window whose command is not a shell; `comm` is the pid's name now (null: unread). */
  private ownShellByProcess(d: PaneDet | null, pid: number, reader: ProcReader, comm: string | null): boolean {
    if (d && comm !== null && d.ownProbe?.comm === comm) return d.ownProbe.shell;
    const p = reader.info(pid);
    const shell = !!p?.argv && isShellName(p.comm) && isInteractiveShellArgv(p.argv);
    if (d && comm !== null) d.ownProbe = { comm, shell };
    return shell;
  }

  private sawAgent(w: Window, d: PaneDet, v: Verdict, fg: number): void {
    d.otherTicks = 0;
    d.sawAgent = true;
    const cur = this.store.harnessOf(w);
    const newGroup = d.agentPgid !== null && d.agentPgid !== fg;
    d.agentPgid = fg;
    if (cur && (cur !== v.harness || newGroup)) {
      // An occupant change is a correction to unknown, not a deletion (ADR-0046 point 11).
      this.store.reidentify(w, v.harness!, v.identity);
      this.log.debug('pane re-identified', { window: w.id, from: cur, to: v.harness });
    } else if (!cur) {
      this.store.attribute(w, v.harness, v.identity, true);
    }
    this.lookNow(w, d, true);
  }

  private atShell(w: Window, d: PaneDet, pid: number): void {
    const hadAgent = d.agentPgid !== null || d.sawAgent;
    d.fg = pid;
    d.leaderStart = null;
    d.verdict = null;
    d.otherTicks = 0;
    const rec = this.store.recordOf(w);
    if (!rec) return;
    const source = rec.view().source;
    // The agent exited: a held claim clears at once.
    if (d.agentPgid !== null || (rec.attribution && rec.attribution.identity !== 'report')) return this.lose(w, d, 'the shell is back in the foreground');
    // A state another tier inferred clears the same way once an agent was seen here.
    if (hadAgent && source !== null && source !== 'report' && source !== 'program') return this.lose(w, d, 'the shell is back in the foreground');
    // A hook's harness that exited without its last report (killed, crashed) leaves no badge.
    if (this.store.harnessProcessGone(w)) return this.lose(w, d, 'the harness process that reported is gone');
  }

  private lose(w: Window, d: PaneDet, why: string): void {
    d.agentPgid = null;
    d.version = null;
    d.versionHarness = null;
    d.sawAgent = false;
    d.otherTicks = 0;
    if (this.store.holdsAgent(w)) {
      this.log.debug('agent left the pane', { window: w.id, why });
      this.store.clearPane(w);
    }
  }

  /** The screen looks made on a pane, and the screen generation the last one read (-1: none yet). */
  looksOf(w: Window): { made: number; read_generation: number } | null {
    const d = this.panes.get(w.id);
    return d ? { made: d.looks, read_generation: d.lookedGeneration } : null;
  }

  /**
   * The release of the agent a verdict names, from its package.json or its path; cached per
   * process. A harness named by TUIOS_AGENT on a wrapper is not read: the process is not the agent.
   */
  versionOf(v: Verdict): HarnessVersion | null {
    const p = v.process;
    if (v.kind !== 'agent' || !p || v.identity === 'hint') return null;
    const interp = isInterpreter(p);
    return this.versions.get({ pid: p.pid, exe: p.exe, script: interp ? (p.argvResolved ?? null) : null, interpreter: interp });
  }

  /** The pane's harness release and whether its manifest's captures cover it; null when no harness is named. */
  coverageOf(w: Window): (Coverage & { harness: string; version: string | null; from: string | null; captured: string[] | null }) | null {
    const harness = this.store.harnessOf(w);
    if (!harness) return null;
    const d = this.panes.get(w.id);
    const hv = d && d.versionHarness === harness ? d.version : null;
    const m = this.manifests().byId.get(harness);
    const cov = versionCoverage(hv?.version ?? null, m?.captured_versions, m?.name ?? harness);
    return { harness, version: hv?.version ?? null, from: hv?.from ?? null, captured: m?.captured_versions ?? null, ...cov };
  }

  /** The release and coverage of the agent a fresh verdict names, for explain-agent-detect. */
  explainVersion(w: Window, v: Verdict): (Coverage & { version: string | null; from: string | null; captured: string[] | null }) | null {
    if (v.kind !== 'agent' || !v.harness) return null;
    const hv = w.process?.procView?.() === undefined ? this.versionOf(v) : null;
    const m = this.manifests().byId.get(v.harness);
    const cov = versionCoverage(hv?.version ?? null, m?.captured_versions, m?.name ?? v.harness);
    return { version: hv?.version ?? null, from: hv?.from ?? null, captured: m?.captured_versions ?? null, ...cov };
  }

  /** A fresh identification for explain-agent-detect (does not change the pane). */
  explain(w: Window): Verdict | null {
    const view = w.process?.procView?.();
    if (view) return w.running && view.tpgid > 0 ? identify(view.tpgid, view.tpgid === view.pid && this.ownShell(w, null, view.pid, view.reader, false) ? view.pid : -1, view.reader, this.identifyOpts()) : null;
    const pid = w.pid;
    if (pid === null || !w.running) return null;
    const st = readStat(pid);
    if (!st || !(st.tpgid > 0)) return null;
    return identify(st.tpgid, st.tpgid === pid && this.ownShell(w, null, pid, this.reader, true) ? pid : -1, this.reader, this.identifyOpts());
  }

  dispose(): void {
    if (this.timer) clearInterval(this.timer);
    for (const id of [...this.panes.keys()]) this.forget(id);
  }
}

/**
 * The pane's own process is an interactive shell: the user's, or one named as the window's
 * command with no script (`sh -c '...'` and `bash script.sh` are wrappers, not prompts).
 */
function paneRunsShell(w: Window): boolean {
  return w.isShell || isInteractiveShellArgv(w.argv);
}

