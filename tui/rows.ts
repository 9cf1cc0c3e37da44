// Agent rows: one per pane running an agent, in every session, read from the agent store and
// the Inbox. The rail's agents section and the agents view both draw these, so they agree.
import type { Services } from '../core/daemon/services.js';
import type { Window } from '../core/model/window.js';
import type { Item } from '../core/inbox/inbox.js';
import type { AgentState } from '../core/agent-state/state.js';
import { AGE_SHOWN_AFTER_MS, CONTEXT_WARN_PERCENT, EARLIER_AFTER_MS } from './limits.js';
import { clean } from './text.js';
import type { RemoteAgentRow } from '../core/hosts/remote.js';
import type { SubagentInfo } from '../core/agent-state/subagents.js';
import type { AgentRowConfig } from '../core/config/agent-row.js';
import { lineSegments, segmentsText, type Segment } from './row-tokens.js';

/** A subagent's strings are the agent's: drawn cleaned, like every text from a pane. */
function cleanSubagents(list: SubagentInfo[]): SubagentInfo[] {
  return list.map((s) => ({ ...s, description: clean(s.description), type: clean(s.type), ...(s.now ? { now: clean(s.now) } : {}), ...(s.last ? { last: clean(s.last) } : {}), ...(s.result ? { result: clean(s.result) } : {}) }));
}

export interface AgentRow {
  id: string;
  /** The pane here; null for an agent of a linked host (its window lives there). */
  w: Window | null;
  /** What verbs name it by: the window id here, `HOST:WINDOW_ID` on a linked host. */
  target: string;
  name: string;
  session: string;
  sessionId: string;
  /** Spawn order: the session's, then the pane's. */
  order: [number, number];
  state: AgentState;
  kind: string;
  message: string;
  harness: string | null;
  finishedUnread: boolean;
  stateSince: number;
  meta: Record<string, string>;
  queued: number;
  /** The pull request ship pr recorded on the pane's session (spec: The pull request on the rail). */
  pr?: { number: number; state: 'open' | 'merged' | 'closed'; checks: 'pending' | 'pass' | 'fail' | 'none' } | null;
  subagents: number;
  /** Each subagent, when the daemon sends the list (null: the count alone). */
  subagentList: SubagentInfo[] | null;
  /** The percent of the pane's OSC 7501 progress report while it works or waits. */
  progress: number | null;
  /** Context used, percent, when the pane reports it. */
  context: number | null;
  /** Inbox items about this pane (its approval, question, ask, errored, done, mail). */
  items: Item[];
  /** The linked host the row is on; undefined for this machine's panes. */
  host?: string;
  /** The host's link is down: the row is what it said last, muted, not counted, no alert. */
  down?: boolean;
  /** When the link last heard the host (ms since the epoch). */
  seenAt?: number;
  /** The row as the host reported it (for selectors); undefined for this machine's panes. */
  remote?: RemoteAgentRow;
}

/** What the rail draws of a row: a local pane's, or one a linked host reported (no Window here). */
export type RailRow = Omit<AgentRow, 'w' | 'sessionId' | 'order' | 'target' | 'remote'>;

/** A linked host's agent as a rail row, named `host:name`; its need comes from the host's own needs_you. */
export function hostRailRow(r: RemoteAgentRow): RailRow {
  return { ...hostAgentRow(r, 0), name: clean(`${r.host}:${r.name}`) };
}

/**
 * A linked host's agent as an agents-view row, named `host:session/name` (spec: The Inbox, Other
 * machines). Verbs reach it as `HOST:WINDOW_ID`; its need comes from the host's own needs_you.
 */
export function hostAgentRow(r: RemoteAgentRow, index: number): AgentRow {
  const needs = r.needs_you && r.state !== 'needs_input' && r.state !== 'errored';
  return {
    id: `${r.host}:${r.window_id}`,
    w: null,
    target: `${r.host}:${r.window_id}`,
    sessionId: `${r.host}:${r.session_id}`,
    // After this machine's panes, in the order the host listed them.
    order: [Number.MAX_SAFE_INTEGER, index],
    host: r.host,
    remote: r,
    name: clean(`${r.host}:${r.session}/${r.name}`),
    session: clean(r.session),
    state: r.state as AgentState,
    kind: clean(r.kind),
    message: clean(r.message),
    harness: r.harness ? clean(r.harness) : null,
    finishedUnread: r.finished_unread,
    stateSince: r.state_since,
    meta: {},
    queued: 0,
    subagents: 0,
    subagentList: null,
    progress: null,
    context: null,
    // A host's own Inbox item (a question or mail there) keeps the row under Needs you here.
    items: needs ? [{ kind: 'ask', summary: clean(r.message) } as Item] : [],
    down: r.down,
    seenAt: r.seen_at,
  };
}

/** The rail's `you` groups, top to bottom. */
export type RailGroup = 'needs' | 'done' | 'working' | 'rest';
/** The agents view's five groups, in order. */
export type ViewGroup = 'needs' | 'review' | 'working' | 'idle' | 'earlier';

export const VIEW_GROUPS: ViewGroup[] = ['needs', 'review', 'working', 'idle', 'earlier'];
export const VIEW_GROUP_TITLE: Record<ViewGroup, string> = { needs: 'Needs you', review: 'Ready for review', working: 'Working', idle: 'Idle', earlier: 'Earlier' };

/** Items that wait on the person for a pane (what puts a row under Needs you). */
const NEEDS_KINDS = new Set(['approval', 'question', 'plan', 'ask', 'mail', 'errored', 'resume', 'held']);

function contextPercent(meta: Record<string, string>): number | null {
  const v = meta.context;
  if (!v) return null;
  const m = /(\d{1,3})(?:\.\d+)?\s*%/.exec(v) ?? /^(\d{1,3})$/.exec(v.trim());
  return m ? Math.min(100, Number(m[1])) : null;
}

function metaOf(info: Record<string, unknown>): Record<string, string> {
  const raw = (info.meta ?? {}) as Record<string, unknown>;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (typeof v === 'string') out[k] = clean(v);
    else if (v && typeof v === 'object' && typeof (v as { value?: unknown }).value === 'string') out[k] = clean((v as { value: string }).value);
  }
  return out;
}

/** Every agent row the caller may see, in spawn order. `visible` filters sessions. */
export function agentRows(svc: Services, visible: (sessionId: string) => boolean = () => true): AgentRow[] {
  const bySession = new Map<string, Item[]>();
  for (const it of svc.inbox.list()) {
    if (!it.window_id) continue;
    const l = bySession.get(it.window_id) ?? [];
    l.push(it);
    bySession.set(it.window_id, l);
  }
  const rows: AgentRow[] = [];
  for (const w of svc.model.windows.values()) {
    if (!visible(w.sessionId)) continue;
    if (!svc.agents.holdsAgent(w)) continue;
    const info = svc.agents.info(w);
    const state = info.state as AgentState;
    if (state === 'none' && !info.harness_id) continue;
    const s = svc.model.sessions.get(w.sessionId);
    const meta = metaOf(info);
    rows.push({
      id: w.id,
      w,
      target: w.id,
      name: clean(w.name),
      session: clean(s?.name ?? '?'),
      sessionId: w.sessionId,
      order: [s?.order ?? 0, w.order],
      state,
      kind: String(info.kind ?? ''),
      message: clean(String(info.message ?? '')),
      harness: (info.harness_id as string | null) ?? null,
      finishedUnread: !!info.finished_unread,
      stateSince: (info.state_since as number | null) ?? w.createdAt,
      meta,
      queued: Number(info.queued ?? 0),
      pr: prOfSession(s?.attrs.get('pr')),
      subagents: Number(info.subagents ?? 0) || Number(/^(\d+)/.exec(meta.subagents ?? '')?.[1] ?? 0),
      subagentList: Array.isArray(info.subagent_list) ? cleanSubagents(info.subagent_list as SubagentInfo[]) : null,
      progress: typeof info.progress === 'number' ? info.progress : null,
      context: contextPercent(meta),
      items: bySession.get(w.id) ?? [],
    });
  }
  return rows.sort((a, b) => a.order[0] - b.order[0] || a.order[1] - b.order[1]);
}

function prOfSession(v: unknown): AgentRow['pr'] {
  const p = v as { number?: unknown; state?: unknown; checks?: unknown } | undefined;
  if (!p || typeof p.number !== 'number') return null;
  const state = p.state === 'merged' || p.state === 'closed' ? p.state : 'open';
  const checks = p.checks === 'pending' || p.checks === 'pass' || p.checks === 'fail' ? p.checks : 'none';
  return { number: p.number, state, checks };
}

export function needsYouRow(r: Pick<AgentRow, 'state' | 'items'>): boolean {
  return r.state === 'needs_input' || r.state === 'errored' || r.items.some((i) => NEEDS_KINDS.has(i.kind) && i.kind !== 'errored');
}

/** The rail's `you` group (spec: The rail's agents section). */
export function railGroup(r: RailRow): RailGroup {
  if (needsYouRow(r)) return 'needs';
  if (r.state === 'done' && r.finishedUnread) return 'done';
  if (r.state === 'working') return 'working';
  return 'rest';
}

/** The agents view's group, now (the view settles moves with the 0.4 s rule). */
export function viewGroup(r: AgentRow, now: number): ViewGroup {
  if (needsYouRow(r)) return 'needs';
  if (r.state === 'done' && r.finishedUnread) return 'review';
  if (r.state === 'working') return 'working';
  return now - r.stateSince > EARLIER_AFTER_MS ? 'earlier' : 'idle';
}

/** The `need` word (spec: What a row says without colour). */
export function needWord(r: RailRow): string {
  const ask = r.items.find((i) => i.kind === 'ask');
  if (r.state === 'needs_input') return r.kind === 'approval' || r.kind === 'question' ? r.kind : 'needs you';
  if (r.state === 'errored') return 'errored';
  if (ask) return 'question';
  if (r.items.some((i) => i.kind === 'mail')) return 'mail';
  return 'done';
}

/** What the pane asks, with the need word taken off its front so it is said once. */
export function askText(r: RailRow): string {
  const ask = r.items.find((i) => i.kind === 'ask');
  const msg = r.state === 'needs_input' || r.state === 'errored' ? r.message : ask?.summary ?? r.items.find((i) => i.kind === 'mail')?.summary ?? r.message;
  const word = needWord(r);
  const lower = msg.toLowerCase();
  if (word !== 'needs you' && lower.startsWith(word)) return msg.slice(word.length).replace(/^[\s:·-]+/, '');
  // `approve Bash: make` under the word `approval` says it twice: the tool and command are the news.
  if (word === 'approval' && /^approve\b/.test(lower)) return msg.slice('approve'.length).replace(/^[\s:·-]+/, '') || msg;
  return msg;
}

/** Whether a row shows its age: once its state is five minutes old, or always under the cursor. */
export function showsAge(r: RailRow, now: number, selected = false): boolean {
  return selected || now - r.stateSince >= AGE_SHOWN_AFTER_MS;
}

/** The second line of a row, by its group (spec: What the second line says), as segments (row-tokens.ts). */
export function secondLineSegments(r: RailRow, group: RailGroup, opts: { width: number; ageInline: string; config?: AgentRowConfig }): Segment[] {
  const need = group === 'needs' ? { word: needWord(r), ask: askText(r) } : undefined;
  return lineSegments(r, group, { ...opts, need });
}

/** The second line of a row, as text. */
export function secondLine(r: RailRow, group: RailGroup, opts: { width: number; ageInline: string; config?: AgentRowConfig }): string {
  return segmentsText(secondLineSegments(r, group, opts));
}

/** Where a row of the agents view sits: its settled group, since when it waits, and whether its host is down. */
export interface Placed {
  key: string;
  group: ViewGroup | 'snoozed';
  since: number;
  /** A linked host's row whose link is down: muted, not counted, after the live rows of its group. */
  down?: boolean;
}

/** The agents view's order: the five groups, then Snoozed; in a group the live rows, oldest wait first, then down hosts' rows. */
export function viewOrder<T extends Placed>(rows: T[]): T[] {
  const order = (g: Placed['group']) => (g === 'snoozed' ? 99 : VIEW_GROUPS.indexOf(g));
  return [...rows].sort((a, b) => order(a.group) - order(b.group) || Number(!!a.down) - Number(!!b.down) || a.since - b.since || a.key.localeCompare(b.key));
}

/** How many rows of a group count: a down host's rows are shown, never counted. */
export function countedIn(rows: Placed[], g: Placed['group']): number {
  return rows.filter((r) => r.group === g && !r.down).length;
}
