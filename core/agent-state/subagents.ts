// A pane's subagents, from report-agent-activity (spec: Each subagent): what each was asked to
// do, the tool it runs, how many tool calls it made and how it ended, fed by the harness's own
// hooks; never the pane's state. Pure: the caller passes the time. Bounded: at most
// SUBAGENTS_MAX running, SUBAGENT_LIST_MAX listed, SUBAGENT_LAUNCHES_MAX launches waiting for
// their start; finished ones go after their retention, silent ones after SUBAGENT_SILENT_MS.
import {
  SUBAGENT_DONE_KEEP_MS,
  SUBAGENT_EVENTS_BURST,
  SUBAGENT_EVENTS_PER_SECOND,
  SUBAGENT_FAILED_KEEP_MS,
  SUBAGENT_LAUNCHES_MAX,
  SUBAGENT_LIST_MAX,
  SUBAGENT_SILENT_MS,
  SUBAGENT_TEXT_MAX_BYTES,
  SUBAGENTS_MAX,
} from '../limits.js';
import { stripControls } from '../pty/paste.js';

export type SubagentState = 'running' | 'done' | 'failed' | 'stopped';

/** One subagent as `subagent_list` gives it (spec: Each subagent). Times in ns since the epoch, as the spec's example. */
export interface SubagentInfo {
  id: string;
  type: string;
  description: string;
  state: SubagentState;
  started_at: number;
  ended_at?: number;
  now?: string;
  last?: string;
  tools: number;
  result?: string;
}

interface Subagent {
  id: string;
  type: string;
  description: string;
  state: SubagentState;
  startedAt: number;
  endedAt: number | null;
  now: string;
  last: string;
  tools: number;
  result: string;
  /** The main agent asked to stop it (TaskStop): its stop reads `stopped`. */
  stopAsked: boolean;
  /** Last heard of, in ms: a running one silent for an hour goes. */
  heardAt: number;
}

/** What report-agent-activity carries for the list. */
export interface SubagentActivity {
  agent_id?: string;
  agent_type?: string;
  text?: string;
  status?: 'running' | 'done' | 'failed' | 'stopping';
  /** A subagent's own tool call: its start, its end, or its failure. */
  call?: 'start' | 'end' | 'failed';
  /** The Agent call's result: how many tool calls the subagent made. */
  tools?: number;
}

export type SubagentApply = 'changed' | 'unchanged' | 'rate_limited';

const TOOL_COUNT_SUFFIX = /\s*\((\d+) tool calls\)$/;

/**
 * One line, cut to SUBAGENT_TEXT_MAX_BYTES on a character boundary. Likely secrets were masked
 * where the text came in (report-agent-activity cleans it as a hook message).
 */
export function subagentText(s: string | undefined): string {
  if (!s) return '';
  const t = stripControls(s.replace(/[\r\n\t]+/g, ' ')).replace(/\s+/g, ' ').trim();
  const b = Buffer.from(t);
  if (b.length <= SUBAGENT_TEXT_MAX_BYTES) return t;
  let end = SUBAGENT_TEXT_MAX_BYTES;
  while (end > 0 && (b[end]! & 0xc0) === 0x80) end--;
  return b.subarray(0, end).toString('utf8');
}

const ns = (ms: number) => ms * 1_000_000;

/** The events a pane may report: a burst, then a steady rate (a token bucket, in ms). */
class EventBudget {
  private tokens = SUBAGENT_EVENTS_BURST;
  private at = 0;

  take(now: number, force: boolean): boolean {
    this.tokens = Math.min(SUBAGENT_EVENTS_BURST, this.tokens + ((now - this.at) * SUBAGENT_EVENTS_PER_SECOND) / 1000);
    this.at = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return true;
    }
    // A start or an end always counts (dropping one would leave a count on the row for an hour);
    // it spends the budget a tool call would have had.
    if (force) this.tokens -= 1;
    return force;
  }

  reset(): void {
    this.tokens = SUBAGENT_EVENTS_BURST;
  }
}

export class SubagentList {
  /** In start order (a Map keeps insertion order). */
  private readonly list = new Map<string, Subagent>();
  /** Launches (PreToolUse of Agent) waiting for their SubagentStart: description and type. */
  private launches: Array<{ description: string; type: string }> = [];
  private readonly budget = new EventBudget();

  clear(): boolean {
    const had = this.list.size > 0 || this.launches.length > 0;
    this.list.clear();
    this.launches = [];
    this.budget.reset();
    return had;
  }

  get running(): number {
    let n = 0;
    for (const s of this.list.values()) if (s.state === 'running') n++;
    return n;
  }

  /** subagent_list: start order, at most SUBAGENT_LIST_MAX, finished ones left out first. */
  toJSON(): SubagentInfo[] {
    let all = [...this.list.values()];
    if (all.length > SUBAGENT_LIST_MAX) {
      let extra = all.length - SUBAGENT_LIST_MAX;
      // The oldest finished go first, then the newest running (the count still says them).
      all = all.filter((s) => (s.state !== 'running' && extra > 0 ? (extra--, false) : true));
      all = all.slice(0, SUBAGENT_LIST_MAX);
    }
    return all.map((s) => ({
      id: s.id,
      type: s.type,
      description: s.description,
      state: s.state,
      started_at: ns(s.startedAt),
      ...(s.endedAt !== null ? { ended_at: ns(s.endedAt) } : {}),
      ...(s.state === 'running' && s.now ? { now: s.now } : {}),
      ...(s.last ? { last: s.last } : {}),
      tools: s.tools,
      ...(s.result ? { result: s.result } : {}),
    }));
  }

  /** When the next one is due to go (a finished one's retention, a silent one's hour); null: none. */
  nextExpiry(): number | null {
    let min: number | null = null;
    for (const s of this.list.values()) {
      const due = dueAt(s);
      if (min === null || due < min) min = due;
    }
    return min;
  }

  /** Drops the ones past their time; true when any went. */
  expire(now: number): boolean {
    let changed = false;
    for (const [id, s] of this.list) {
      if (dueAt(s) <= now) {
        this.list.delete(id);
        changed = true;
      }
    }
    return changed;
  }

  /** Applies one activity (session_start forgets them all). */
  apply(type: string, a: SubagentActivity, now: number): SubagentApply {
    if (type === 'session_start') return this.clear() ? 'changed' : 'unchanged';
    if (type !== 'subagent_start' && type !== 'subagent_stop' && type !== 'subagent_update') return 'unchanged';
    const toolCall = type === 'subagent_update' && a.call !== undefined;
    if (!this.budget.take(now, !toolCall)) return 'rate_limited';
    const changed = this.expire(now);
    const r = type === 'subagent_start' ? this.start(a, now) : type === 'subagent_stop' ? this.stop(a, now) : this.update(a, now);
    return r || changed ? 'changed' : 'unchanged';
  }

  private start(a: SubagentActivity, now: number): boolean {
    if (!a.agent_id || this.list.has(a.agent_id)) return false;
    if (this.running >= SUBAGENTS_MAX) return false; // not kept: the count stays at the cap until one stops
    const type = subagentText(a.agent_type) || 'agent';
    // The oldest launch of its type that has no subagent yet, else the oldest launch.
    let i = this.launches.findIndex((l) => l.type === type);
    if (i < 0 && this.launches.length) i = 0;
    const launch = i >= 0 ? this.launches.splice(i, 1)[0]! : null;
    this.list.set(a.agent_id, {
      id: a.agent_id,
      type,
      description: launch?.description ?? '',
      state: 'running',
      startedAt: now,
      endedAt: null,
      now: '',
      last: '',
      tools: 0,
      result: '',
      stopAsked: false,
      heardAt: now,
    });
    this.trim();
    return true;
  }

  private stop(a: SubagentActivity, now: number): boolean {
    const s = a.agent_id ? this.list.get(a.agent_id) : undefined;
    if (!s || s.state !== 'running') return false; // a stop for one never seen start changes nothing
    const said = subagentText(a.text);
    s.state = said && !s.stopAsked ? 'done' : 'stopped';
    s.result = said;
    s.endedAt = now;
    s.heardAt = now;
    if (s.now) s.last = s.now;
    s.now = '';
    return true;
  }

  private update(a: SubagentActivity, now: number): boolean {
    const text = a.text ?? '';
    const count = TOOL_COUNT_SUFFIX.exec(text);
    const tools = a.tools ?? (count ? Number(count[1]) : undefined);
    const plain = subagentText(text.replace(TOOL_COUNT_SUFFIX, ''));
    if (!a.agent_id) {
      // A launch: its description and type wait for the next start.
      if (a.status !== 'running' || !plain) return false;
      this.launches.push({ description: plain, type: subagentText(a.agent_type) || 'agent' });
      if (this.launches.length > SUBAGENT_LAUNCHES_MAX) this.launches.shift();
      return false;
    }
    const s = this.list.get(a.agent_id);
    if (!s) return false;
    s.heardAt = now;
    if (a.call) {
      if (s.state !== 'running') return false;
      if (a.call === 'start') {
        s.tools++;
        s.now = plain;
      } else {
        if (s.now) s.last = s.now;
        s.now = '';
      }
      return true;
    }
    const before = JSON.stringify(s);
    // The Agent call's count, when it says more than the calls heard (a background launch's says 0 at once).
    if (tools !== undefined && Number.isFinite(tools) && tools >= 0) s.tools = Math.max(s.tools, Math.min(tools, 1_000_000));
    if (a.status === 'stopping') s.stopAsked = true;
    else if (plain && (a.status === 'running' || a.status === 'done')) s.description = plain; // named by its id
    if (a.status === 'failed' && s.state !== 'failed') {
      s.state = 'failed';
      s.result = plain || s.result;
      s.endedAt = s.endedAt ?? now;
      if (s.now) s.last = s.now;
      s.now = '';
    }
    return JSON.stringify(s) !== before;
  }

  /** Past the cap, the oldest finished ones go first. */
  private trim(): void {
    for (const [id, s] of this.list) {
      if (this.list.size <= SUBAGENTS_MAX) return;
      if (s.state !== 'running') this.list.delete(id);
    }
  }
}

function dueAt(s: Subagent): number {
  if (s.state === 'running') return s.heardAt + SUBAGENT_SILENT_MS;
  return (s.endedAt ?? s.heardAt) + (s.state === 'failed' ? SUBAGENT_FAILED_KEEP_MS : SUBAGENT_DONE_KEEP_MS);
}
