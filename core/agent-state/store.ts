// The agent state store: one record per pane, every source's claims in it, and the one place an
// `agent-state` event is published from. Publication is edge-filtered: only a change of
// (harness, state, kind, message) is published, so an agent that works and prints for ten
// minutes costs no event at all (ADR-0046 point 7).
import type { Bus, Disposable } from '../bus.js';
import type { Logger } from '../log.js';
import type { Model } from '../model/model.js';
import type { Window } from '../model/window.js';
import { AgentRecord, type ApplyResult, type ClaimInput, type Clock, type Origin } from './record.js';
import { HOOK_META_SOURCE, MetaTable } from './meta.js';
import { atRest, confidenceOf, guessKind, isReady, needsYou, type AgentState, type BlockKind, type Identity, type Source } from './state.js';
import { stripControls } from '../pty/paste.js';
import { readStat } from '../pty/procfs.js';
import { SessionGuard } from './session-guard.js';
import { SubagentList, type SubagentActivity, type SubagentApply, type SubagentInfo } from './subagents.js';
import { STATE_MESSAGE_MAX, SUBAGENT_PUSH_MIN_MS } from '../limits.js';

export interface AgentStateEvent {
  window_id: string;
  session_id: string;
  name: string;
  harness: string | null;
  state: AgentState;
  old_state: AgentState;
  kind: BlockKind;
  message: string;
  source: Source | null;
  completion_seq: number;
  needs_you: boolean;
}

declare module '../bus.js' {
  interface EventMap {
    'agent-state': AgentStateEvent;
    notification: { window_id: string; session_id: string; title: string; body: string; osc: number };
    'agent-meta': { window_id: string; session_id: string; meta: Record<string, string> };
    /**
     * A pane's own report that its agent took a prompt, whatever state it left standing: a hook's
     * UserPromptSubmit, BeforeAgent, ..., which begins the turn (`turn`), or a session the prompt
     * opened (opencode's session.created), which does not yet.
     */
    'prompt-started': { window_id: string; session_id: string; event: string; turn: boolean };
  }
}

interface Published {
  harness: string | null;
  state: AgentState;
  kind: BlockKind;
  message: string;
  /** The source the published change came from: what list-agents and get-agent-state say until the next change. */
  source: Source | null;
}

/** Sources that state something themselves (a hook's report, the program's OSC 7501): taking over or giving up a state is news even when the state is the same. */
function declares(s: Source | null): boolean {
  return s === 'report' || s === 'program';
}

export interface HarnessProcess {
  pid: number;
  /** Start time in clock ticks: with the pid, names exactly one process. */
  startTime: number;
}

class PaneAgent {
  readonly record: AgentRecord;
  readonly meta = new MetaTable();
  published: Published = { harness: null, state: 'none', kind: '', message: '', source: null };
  harnessProcess: HarnessProcess | null = null;
  sessionId: string | null = null;
  sessionHarness: string | null = null;
  /** Which conversations may report here (spec: Nested and foreign events). */
  readonly guard = new SessionGuard();
  /** The harness's transcript file: for a transcript reader only, never shown to a client. */
  transcript: string | null = null;
  readonly subagents = new SubagentList();
  /** Progress percent from the pane's last program report while it works or waits. */
  progress: number | null = null;
  stallTimer: NodeJS.Timeout | null = null;
  metaTimer: NodeJS.Timeout | null = null;
  /** Drops finished and silent subagents when their time comes. */
  subagentTimer: NodeJS.Timeout | null = null;
  /** When the state became working (the silence clock's other end). */
  workingSince = 0;

  constructor(clock: Clock, w: Window) {
    this.record = new AgentRecord(clock, () => w.outputBytes);
  }
}

export interface ReportInput {
  state: AgentState;
  message?: string;
  kind?: BlockKind;
  harness?: string;
  ifState?: AgentState[];
}

export interface StoreDeps {
  bus: Bus;
  model: Model;
  log: Logger;
  clock?: Clock;
  /** The silence window in ms; 0 turns the stall heuristic off. */
  stallMs: number;
  /**
   * The screen tier's last look before a stall demotion: true when a rule on the screen answered
   * (the pane is left alone). None without a screen tier: the stall writes idle.
   */
  lastLook?: (w: Window) => boolean;
}

export class AgentStore {
  private readonly panes = new Map<string, PaneAgent>();
  private readonly clock: Clock;
  /** Extra fields other services add to a pane's agent info (queued, subagents, ...). */
  private readonly infoProviders: Array<(w: Window) => Record<string, unknown>> = [];
  /**
   * Who hears the screen's own reading change, whether or not it stands (see onScreenReading). Not
   * a bus event: a reading that does not stand is published to no one (ADR-0046 point 7), and would
   * fill the bus's replay ring and every subscriber with a working agent's redraws.
   */
  private readonly screenReaders = new Set<(w: Window, state: AgentState) => void>();

  constructor(private readonly deps: StoreDeps) {
    this.clock = deps.clock ?? { now: () => Date.now() };
    deps.bus.on('window-closed', (ev) => this.forget(ev.window_id));
  }

  /**
   * Calls `fn` each time the screen tier's reading of a pane changes, with the state it reads, even
   * when a higher claim (a hook's report) keeps it from standing. A prompt's take check listens:
   * a turn drawn on the screen is the harness taking the prompt, however late its hook reports.
   */
  onScreenReading(fn: (w: Window, state: AgentState) => void): Disposable {
    this.screenReaders.add(fn);
    return { dispose: () => this.screenReaders.delete(fn) };
  }

  addInfo(p: (w: Window) => Record<string, unknown>): void {
    this.infoProviders.push(p);
  }

  private pane(w: Window): PaneAgent {
    let p = this.panes.get(w.id);
    if (!p) {
      p = new PaneAgent(this.clock, w);
      this.panes.set(w.id, p);
    }
    return p;
  }

  /** The record, for readers (rules, detector); null for a pane nothing ever claimed. */
  recordOf(w: Window): AgentRecord | null {
    return this.panes.get(w.id)?.record ?? null;
  }

  stateOf(w: Window): AgentState {
    return this.panes.get(w.id)?.record.view().state ?? 'none';
  }

  harnessOf(w: Window): string | null {
    return this.panes.get(w.id)?.record.attribution?.harness ?? null;
  }

  /** Known to hold an agent: a state from any source, a harness named on it, or a harness process. */
  holdsAgent(w: Window): boolean {
    const p = this.panes.get(w.id);
    if (!p) return false;
    return p.record.view().state !== 'none' || p.record.attribution !== null || p.harnessProcess !== null;
  }

  // ---- writers ----

  /** set-agent-state: a report, from a hook or a caller. */
  report(w: Window, r: ReportInput): ApplyResult {
    const p = this.pane(w);
    const message = cleanMessage(r.message);
    const kind: BlockKind = r.state === 'needs_input' ? (r.kind ?? guessKind(message)) : '';
    const res = p.record.apply({ origin: 'report', state: r.state, message, kind }, { ifState: r.ifState });
    if (res.applied && r.state !== 'none' && r.harness) p.record.attribution = { harness: r.harness, identity: 'report' };
    if (res.applied && r.state === 'none') this.resetPane(p);
    this.commit(w, p);
    return res;
  }

  /** An OSC 7501 report from the pane's own output. */
  program(w: Window, s: { state: AgentState; message: string; kind: BlockKind; progress: number | null }): ApplyResult {
    const p = this.pane(w);
    let res: ApplyResult;
    if (s.state === 'none') {
      p.record.withdraw('program');
      p.progress = null;
      res = { applied: true, ...this.viewState(p) };
    } else {
      res = p.record.apply({ origin: 'program', state: s.state, message: cleanMessage(s.message), kind: s.state === 'needs_input' ? s.kind : '' });
      p.progress = s.state === 'working' || s.state === 'needs_input' ? s.progress : null;
    }
    this.commit(w, p);
    return res;
  }

  /** Any other source's claim: the detector's presence, a progress bar, a notification. */
  claim(w: Window, c: ClaimInput): ApplyResult {
    const p = this.pane(w);
    const res = p.record.apply({ ...c, message: cleanMessage(c.message) });
    this.commit(w, p);
    return res;
  }

  /** A screen or title look; null withdraws the look's opinion. */
  look(w: Window, origin: 'screen' | 'osc:title', reading: Omit<ClaimInput, 'origin'> | null): ApplyResult {
    const p = this.pane(w);
    const res = p.record.look(origin, reading ? { ...reading, message: cleanMessage(reading.message) } : null);
    this.commit(w, p);
    return res;
  }

  /**
   * One look of the screen tier, its screen half and its title half, in one write: the state that
   * stands after both is published once, with the source that stands for it, so a look that
   * changes the screen's claim and the title's together is one change with one source, never a
   * screen event the title's claim overtakes before anyone reads the row. 'keep' leaves the
   * screen's claim as it is (a frozen screen).
   */
  lookTiers(w: Window, screen: Omit<ClaimInput, 'origin'> | null | 'keep', title: Omit<ClaimInput, 'origin'> | null): ApplyResult {
    const p = this.pane(w);
    const clean = (r: Omit<ClaimInput, 'origin'> | null) => (r ? { ...r, message: cleanMessage(r.message) } : null);
    const before = p.record.claims.get('screen');
    if (screen !== 'keep') p.record.look('screen', clean(screen));
    const res = p.record.look('osc:title', clean(title));
    this.commit(w, p);
    const after = p.record.claims.get('screen');
    if (after && after !== before) {
      for (const fn of [...this.screenReaders]) {
        try {
          fn(w, after.state);
        } catch (e) {
          this.deps.log.error('screen reading listener threw', { window: w.id, error: String(e) });
        }
      }
    }
    return res;
  }

  withdraw(w: Window, origin: Origin): void {
    const p = this.panes.get(w.id);
    if (!p) return;
    p.record.withdraw(origin);
    this.commit(w, p);
  }

  /** The detector's attribution; null says the agent left the foreground. */
  /**
   * Names (or clears) the pane's harness. `presence`: the detector saw the harness's process, so a
   * pane nothing has set a state on becomes unknown in the same write: one agent-state event
   * (none → unknown with the harness), not a none → none for the name followed by the state.
   */
  attribute(w: Window, harness: string | null, identity: Identity, presence = false): void {
    const p = this.pane(w);
    const cur = p.record.attribution;
    if (harness === null) {
      if (!cur) return;
      p.record.attribution = null;
    } else if (cur?.harness === harness && cur.identity === identity) {
      return;
    } else {
      p.record.attribution = { harness, identity };
      if (presence && p.record.view().state === 'none') p.record.apply({ origin: 'detect', state: 'unknown' });
    }
    p.record.evidenceAt = this.clock.now();
    this.commit(w, p);
  }

  /** The agent is gone from the pane: every claim clears, metadata with it. */
  clearPane(w: Window): void {
    const p = this.panes.get(w.id);
    if (!p) return;
    p.record.clear();
    this.resetPane(p);
    this.commit(w, p);
  }

  /**
   * Another agent now holds the pane: a correction, not a retraction (ADR-0046 point 11). Every
   * claim of the old occupant goes, and the new one is paired with `unknown` in one write, so no
   * `none` is published in between for a waiter to read as the agent leaving.
   */
  reidentify(w: Window, harness: string, identity: Identity): void {
    const p = this.pane(w);
    p.record.clear();
    this.resetPane(p);
    p.record.attribution = { harness, identity };
    p.record.apply({ origin: 'detect', state: 'unknown' });
    this.commit(w, p);
  }

  setHarnessProcess(w: Window, hp: HarnessProcess | null): void {
    const p = this.pane(w);
    if (hp && p.harnessProcess?.pid === hp.pid) return; // keeps the start time it was recorded with
    p.harnessProcess = hp;
  }

  harnessProcessOf(w: Window): HarnessProcess | null {
    return this.panes.get(w.id)?.harnessProcess ?? null;
  }

  /** True when a recorded harness process no longer runs (its pid gone or given to another). */
  harnessProcessGone(w: Window): boolean {
    const hp = this.panes.get(w.id)?.harnessProcess;
    if (!hp) return false;
    const st = readStat(hp.pid);
    // A zombie has exited; it only waits for its parent to reap it.
    return !st || st.startTime !== hp.startTime || st.state === 'Z' || st.state === 'X';
  }

  setSession(w: Window, sessionId: string, harness: string | null): void {
    const p = this.pane(w);
    p.sessionId = sessionId;
    p.sessionHarness = harness;
  }

  /** The session guard's view of the pane and the guard itself, for set-agent-state. */
  guardOf(w: Window): { guard: SessionGuard; sessionId: string | null; reportedState: AgentState | null; harnessPid: number | null } {
    const p = this.pane(w);
    const v = p.record.view();
    return { guard: p.guard, sessionId: p.sessionId, reportedState: v.source === 'report' ? v.state : null, harnessPid: p.harnessProcess?.pid ?? null };
  }

  setTranscript(w: Window, path: string): void {
    this.pane(w).transcript = path;
  }

  /**
   * A subagent's start, stop or update, or a session start that forgets them. A change is pushed
   * to attached clients at once, but a busy subagent's tool calls at most once per
   * SUBAGENT_PUSH_MIN_MS per session: one that comes sooner waits for the next push.
   */
  subagentActivity(w: Window, type: string, a: SubagentActivity): SubagentApply {
    const p = this.pane(w);
    const r = p.subagents.apply(type, a, this.clock.now());
    if (r === 'changed') {
      if (type === 'subagent_update' && a.call !== undefined) this.pushSubagentCall(w, p);
      else this.metaChanged(w, p);
    }
    this.scheduleSubagentExpiry(w, p);
    return r;
  }

  subagentsOf(w: Window): { running: number; list: SubagentInfo[] } {
    const p = this.panes.get(w.id);
    return { running: p?.subagents.running ?? 0, list: p?.subagents.toJSON() ?? [] };
  }

  sessionOf(w: Window): { id: string | null; harness: string | null } {
    const p = this.panes.get(w.id);
    return { id: p?.sessionId ?? null, harness: p?.sessionHarness ?? null };
  }

  setMeta(w: Window, values: Record<string, string | null>, source: string, ttlMs: number | null): { changed: boolean } | { error: string } {
    const p = this.pane(w);
    const r = p.meta.set(source === HOOK_META_SOURCE ? p.meta.hookWritable(values) : values, source, ttlMs, this.clock.now());
    if ('changed' in r && r.changed) this.metaChanged(w, p);
    this.scheduleMetaExpiry(w, p);
    return r;
  }

  clearMeta(w: Window, source?: string): boolean {
    const p = this.panes.get(w.id);
    if (!p) return false;
    const changed = p.meta.clear(source);
    if (changed) this.metaChanged(w, p);
    return changed;
  }

  /** A person looked at the pane (an attached client focused it): its finished turns are seen. */
  markSeen(w: Window): void {
    const p = this.panes.get(w.id);
    if (p) p.record.seenSeq = p.record.completionSeq;
  }

  /**
   * The pane's agent reported that it took a prompt (set-agent-state from a prompt-start hook, or
   * from the session a prompt opened: `turn` false). The report's level may never be published
   * when the turn ends at once, so this is said apart.
   */
  promptStarted(w: Window, event: string, turn: boolean): void {
    this.deps.bus.publish('prompt-started', { window_id: w.id, session_id: w.sessionId, event, turn });
  }

  notification(w: Window, n: { title: string; body: string; osc: number }): void {
    this.deps.bus.publish('notification', { window_id: w.id, session_id: w.sessionId, title: capBytes(n.title, 512), body: capBytes(n.body, 512), osc: n.osc });
  }

  // ---- readers ----

  info(w: Window): Record<string, unknown> {
    const p = this.panes.get(w.id);
    const now = this.clock.now();
    const v = p?.record.view() ?? { state: 'none' as AgentState, kind: '' as BlockKind, message: '', source: null, origin: null };
    const attr = p?.record.attribution ?? null;
    let evidence = p?.record.evidenceAt ?? null;
    if (p && (v.source === 'detect' || v.source === 'stall') && w.lastOutputAt > (evidence ?? 0)) evidence = w.lastOutputAt;
    const out: Record<string, unknown> = {
      window_id: w.id,
      short_id: w.shortId,
      name: w.name,
      session_id: w.sessionId,
      session: this.deps.model.sessions.get(w.sessionId)?.name ?? null,
      workspace: w.workspace,
      state: v.state,
      kind: v.kind,
      blocked_by: v.state === 'needs_input' ? v.kind : '',
      message: v.message,
      // The source of the change last published (the agent-state event's), not whichever agreeing claim ranks highest now.
      source: p && v.state !== 'none' ? p.published.source : v.source,
      harness_id: attr?.harness ?? null,
      identity: attr?.identity ?? '',
      confidence: confidenceOf(attr?.identity ?? ''),
      needs_you: needsYou(v.state),
      ready: isReady(v.state),
      evidence_age_ms: evidence === null ? null : Math.max(0, now - evidence),
      state_since: p?.record.enteredAt ?? null,
      completion_seq: p?.record.completionSeq ?? 0,
      finished_unread: !!p && atRest(v.state) && p.record.completionSeq > p.record.seenSeq,
      meta: p?.meta.toJSON() ?? {},
      progress: p?.progress ?? null,
      agent_session_id: p?.sessionId ?? null,
      agent_session_harness: p?.sessionHarness ?? null,
      harness_pid: p?.harnessProcess?.pid ?? null,
      queued: 0,
      subagents: p?.subagents.running ?? 0,
      subagent_list: p?.subagents.toJSON() ?? [],
    };
    for (const f of this.infoProviders) Object.assign(out, f(w));
    return out;
  }

  // ---- publication ----

  private viewState(p: PaneAgent): { state: AgentState; source: Source | null } {
    const v = p.record.view();
    return { state: v.state, source: v.source };
  }

  private resetPane(p: PaneAgent): void {
    p.meta.reset();
    p.harnessProcess = null;
    p.progress = null;
    // The conversations go with the agent; the pane's agent_session_id stays, for a resume.
    p.guard.reset();
    p.subagents.clear();
    if (p.subagentTimer) clearTimeout(p.subagentTimer);
    p.subagentTimer = null;
  }

  /** After every write: publish if the tuple changed, count turns, arm the silence timer. */
  private commit(w: Window, p: PaneAgent): void {
    const v = p.record.view();
    const harness = p.record.attribution?.harness ?? null;
    const prev = p.published;
    if (v.state === 'none' && prev.state !== 'none') this.resetPane(p);
    this.armStall(w, p, v.state, prev.state);
    // The inferred tiers (title, screen, detector, silence) agreeing on the same state one after
    // another is no change: the row keeps the source of the change that was published. A
    // declaring source taking the state over, or leaving it to the tiers, is published.
    const sameTuple = prev.harness === harness && prev.state === v.state && prev.kind === v.kind && prev.message === v.message;
    if (sameTuple && (prev.source === v.source || !(declares(prev.source) || declares(v.source)))) return;
    p.record.transition(prev.state, v.state, v.source, w.lastOutputAt);
    if (v.state !== prev.state && v.state !== 'working' && v.state !== 'needs_input' && p.meta.toJSON().now !== undefined) {
      p.meta.set({ now: null }, 'tuios', null, this.clock.now()); // `now` is only while it works
    }
    p.published = { harness, state: v.state, kind: v.kind, message: v.message, source: v.source };
    if (v.state !== prev.state || harness !== prev.harness) p.record.evidenceAt = this.clock.now();
    this.deps.bus.publish('agent-state', {
      window_id: w.id,
      session_id: w.sessionId,
      name: w.name,
      harness,
      state: v.state,
      old_state: prev.state,
      kind: v.kind,
      message: v.message,
      source: v.source,
      completion_seq: p.record.completionSeq,
      needs_you: needsYou(v.state),
    });
  }

  private armStall(w: Window, p: PaneAgent, state: AgentState, prev: AgentState): void {
    if (state !== 'working') {
      if (p.stallTimer) clearTimeout(p.stallTimer);
      p.stallTimer = null;
      return;
    }
    if (prev !== 'working') p.workingSince = this.clock.now();
    if (this.deps.stallMs <= 0 || p.stallTimer) return;
    const fire = () => {
      p.stallTimer = null;
      if (w.closed || p.record.view().state !== 'working') return;
      const quietSince = Math.max(w.lastOutputAt, p.workingSince);
      const left = quietSince + this.deps.stallMs - Date.now();
      if (left > 50) {
        p.stallTimer = setTimeout(fire, left);
        p.stallTimer.unref();
        return;
      }
      // Silence alone cannot tell a finished agent from one waiting on a person: the screen tier
      // gets a last look first, and a pane whose screen answers is left alone.
      if (this.deps.lastLook?.(w)) {
        if (p.record.view().state === 'working') {
          p.workingSince = Date.now();
          p.stallTimer = setTimeout(fire, this.deps.stallMs);
          p.stallTimer.unref();
        }
        return;
      }
      p.record.demoteStall(this.deps.lastLook ? 'unknown' : 'idle');
      this.commit(w, p);
    };
    p.stallTimer = setTimeout(fire, this.deps.stallMs);
    p.stallTimer.unref();
  }

  private metaChanged(w: Window, p: PaneAgent): void {
    this.deps.bus.publish('agent-meta', { window_id: w.id, session_id: w.sessionId, meta: p.meta.toJSON() });
  }

  private scheduleMetaExpiry(w: Window, p: PaneAgent): void {
    const next = p.meta.nextExpiry();
    if (p.metaTimer) clearTimeout(p.metaTimer);
    p.metaTimer = null;
    if (next === null) return;
    p.metaTimer = setTimeout(() => {
      p.metaTimer = null;
      if (w.closed) return;
      if (p.meta.expire(this.clock.now())) this.metaChanged(w, p);
      this.scheduleMetaExpiry(w, p);
    }, Math.max(10, next - this.clock.now()));
    p.metaTimer.unref();
  }

  private scheduleSubagentExpiry(w: Window, p: PaneAgent): void {
    if (p.subagentTimer) clearTimeout(p.subagentTimer);
    p.subagentTimer = null;
    const next = p.subagents.nextExpiry();
    if (next === null) return;
    p.subagentTimer = setTimeout(() => {
      p.subagentTimer = null;
      if (w.closed) return;
      if (p.subagents.expire(this.clock.now())) this.metaChanged(w, p);
      this.scheduleSubagentExpiry(w, p);
    }, Math.max(10, next - this.clock.now()));
    p.subagentTimer.unref();
  }

  /** Per session: when its last subagent tool call was pushed, and the push waiting for its turn. */
  private readonly callPush = new Map<string, { at: number; timer: NodeJS.Timeout | null; panes: Set<string> }>();

  private pushSubagentCall(w: Window, p: PaneAgent): void {
    const now = this.clock.now();
    let s = this.callPush.get(w.sessionId);
    if (!s) {
      // Bounded: sessions whose last push is past the interval need no entry.
      if (this.callPush.size >= 256) for (const [id, e] of this.callPush) if (!e.timer && now - e.at >= SUBAGENT_PUSH_MIN_MS) this.callPush.delete(id);
      this.callPush.set(w.sessionId, (s = { at: -Infinity, timer: null, panes: new Set() }));
    }
    if (s.timer) {
      s.panes.add(w.id);
      return;
    }
    if (now - s.at >= SUBAGENT_PUSH_MIN_MS) {
      s.at = now;
      this.metaChanged(w, p);
      return;
    }
    const held = s;
    held.panes.add(w.id);
    held.timer = setTimeout(() => {
      held.timer = null;
      held.at = this.clock.now();
      for (const id of held.panes) {
        const win = this.deps.model.windows.get(id);
        const pa = this.panes.get(id);
        if (win && pa && !win.closed) this.metaChanged(win, pa);
      }
      held.panes.clear();
    }, SUBAGENT_PUSH_MIN_MS - (now - s.at));
    held.timer.unref();
  }

  private forget(windowId: string): void {
    const p = this.panes.get(windowId);
    if (!p) return;
    if (p.stallTimer) clearTimeout(p.stallTimer);
    if (p.metaTimer) clearTimeout(p.metaTimer);
    if (p.subagentTimer) clearTimeout(p.subagentTimer);
    this.panes.delete(windowId);
  }

  dispose(): void {
    for (const id of [...this.panes.keys()]) this.forget(id);
    for (const s of this.callPush.values()) if (s.timer) clearTimeout(s.timer);
    this.callPush.clear();
  }
}

export function cleanMessage(m: string | undefined): string {
  if (!m) return '';
  return [...stripControls(m.replace(/[\r\n\t]+/g, ' '))].slice(0, STATE_MESSAGE_MAX).join('').trim();
}

export function capBytes(s: string, max: number): string {
  const clean = stripControls(s);
  const b = Buffer.from(clean);
  if (b.length <= max) return clean;
  // Cut on a character boundary.
  let end = max;
  while (end > 0 && (b[end]! & 0xc0) === 0x80) end--;
  return b.subarray(0, end).toString('utf8');
}
