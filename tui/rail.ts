// The rail: the sessions, and once an agent has been seen, the agents section in the `you`
// order (Needs you, Done, Working, At rest). Inside a group rows keep spawn order, so a row
// moves only when its own group changes. Two lines a row: the mark, name and wait or queue,
// then the one thing the row's group is about (rows.ts).
import { prToken } from '../core/git/pr.js';
import type { Canvas } from './canvas.js';
import { attr, roleAttr, A_BOLD, A_DIM, A_INVERSE, PLAIN, ROLE_COLOR } from './canvas.js';
import type { Rect } from './pane-draw.js';
import { secondLineSegments, showsAge, type RailRow, type RailGroup } from './rows.js';
import { stateMark, subagentMark, waitsOnSubagents, type Glyphs } from './marks.js';
import { age, fit, pad, textWidth } from './text.js';
import type { AgentRowConfig } from '../core/config/agent-row.js';
import type { SubagentInfo } from '../core/agent-state/subagents.js';
import { orderRows, type RailOrder } from './rail-order.js';
import { planSubagentRows, subagentDetail, type SubagentPlan } from './subagent-rows.js';
import { AGE_SHOWN_AFTER_MS } from './limits.js';

export interface RailSession {
  id: string;
  name: string;
  windows: number;
  current: boolean;
  /** The most urgent mark among its agents, if any. */
  mark: { state: string; unread: boolean; subagents?: number } | null;
}

export interface RailInput {
  sessions: RailSession[];
  agents: RailRow[];
  /** Linked hosts' agents (spec: Other machines): drawn in the same groups while their link is up. */
  hosts?: RailRow[];
  agentsSeen: boolean;
  focusedWindow: string | null;
  /** The agent row under the rail's keyboard cursor (rail-control.ts), while the rail holds the keyboard. */
  cursor?: string | null;
  ascii: boolean;
  /** The client's glyph set for state marks (unset: the built-in set `ascii` names). */
  glyphs?: Glyphs;
  now: number;
  /** Inbox counts for the header: blocked (approvals, questions, asks, errored) and done. */
  blocked: number;
  /** The section's order, the header's sort control (default `you`). */
  order?: RailOrder;
  /** `[appearance.sidebar.agent_row]`: the second line's tokens. */
  agentRow?: AgentRowConfig;
  /** `appearance.sidebar.subagent_rows`: a row per subagent, or the count alone. */
  subagentRows?: 'rows' | 'count';
  /** `appearance.sidebar.agent_rest_fold`: rows at rest longer than this fold (unset: none fold). */
  restFoldMs?: number;
  /** The fold is opened (enter on it, or a click): its rows are drawn in their places. */
  unfolded?: boolean;
}

/** The id the rest fold's line has among the rows the keyboard steps through. */
export const REST_FOLD_ID = '\u0000rest-fold';

/**
 * The rows that fold (spec: Rows long at rest fold): at rest (idle, unknown, or done and seen) for
 * longer than `foldMs`, and none that needs you, has a turn you have not seen, works, is the pane
 * you are in, has messages queued or subagents at work. One row alone does not fold.
 */
export function restFolded(rows: ReadonlyArray<{ a: RailRow; g: RailGroup }>, foldMs: number | undefined, focused: string | null, now: number): Set<string> {
  if (foldMs === undefined) return new Set();
  const ids = rows
    .filter(({ a, g }) => g === 'rest' && !a.host && (a.state === 'idle' || a.state === 'unknown' || (a.state === 'done' && !a.finishedUnread)))
    .filter(({ a }) => a.id !== focused && a.queued === 0 && !(a.subagents > 0) && now - a.stateSince >= foldMs)
    .map(({ a }) => a.id);
  return new Set(ids.length >= 2 ? ids : []);
}

/** Where the rail drew what a click acts on. */
export interface RailHits {
  /** The sort control in the agents header. */
  sort: { x: number; y: number; w: number } | null;
  /** Agent and subagent rows: the lines they take and the pane they go to. */
  rows: Array<{ y: number; h: number; windowId: string; sub?: boolean }>;
  /** The agent rows drawn, top to bottom, and the rest fold's line (REST_FOLD_ID): what the keyboard cursor steps through (subagent rows are stepped over). */
  agents: string[];
  /** The rest fold's line, when drawn: a click opens it. */
  fold?: { y: number };
}
/** Under this many lines the agents section is left out (spec: under 8 lines). */
const MIN_AGENTS_LINES = 8;

export function drawRail(cv: Canvas, r: Rect, inp: RailInput): RailHits {
  const muted = roleAttr('muted');
  // The last column stays blank: the tiles' own borders separate the rail from the panes.
  cv.fill(r.x, r.y, r.w, r.h);
  const w = r.w - 1;
  let y = r.y;
  const line = (s: string, a: number) => {
    if (y < r.y + r.h) cv.text(r.x, y, fit(s, w, inp.ascii), a, r.x + w);
    y++;
  };
  line(' sessions', attr(-1, -1, A_BOLD));
  for (const s of inp.sessions) {
    if (y >= r.y + r.h) break;
    const cur = s.current ? (inp.ascii ? '>' : '▸') : ' ';
    const m = s.mark ? stateMark(s.mark.state, s.mark.unread, inp.glyphs ?? inp.ascii, s.mark.subagents ?? 0) : null;
    const count = String(s.windows);
    cv.text(r.x, y, cur, roleAttr('accent', A_BOLD));
    if (m) cv.text(r.x + 1, y, m.glyph, roleAttr(m.role), r.x + 1 + 2);
    const nameW = w - 4 - count.length;
    cv.text(r.x + 3, y, fit(s.name, nameW, inp.ascii), s.current ? attr(-1, -1, A_BOLD) : PLAIN, r.x + w);
    cv.text(r.x + w - count.length - 1, y, count, muted, r.x + w);
    y++;
  }
  const hits: RailHits = { sort: null, rows: [], agents: [] };
  const room = r.y + r.h - y;
  const hosts = inp.hosts ?? [];
  if (!inp.agentsSeen || inp.agents.length + hosts.length === 0 || room < MIN_AGENTS_LINES - 1) return hits;
  y++;
  const header = ' agents';
  const order = inp.order ?? 'you';
  const need = inp.blocked > 0 ? `${inp.blocked} need you` : '';
  const after = cv.text(r.x, y, header, attr(-1, -1, A_BOLD), r.x + w);
  // The sort control is the header's word (a click steps it, as `o` does; rail-order.ts). The
  // default order says nothing more, as the shipped header reads; `pri` and `rec` say their word.
  let end = after;
  if (order !== 'you' && textWidth(header) + 1 + order.length + (need ? textWidth(need) + 2 : 0) <= w) end = cv.text(after + 1, y, order, roleAttr('accent'), r.x + w);
  hits.sort = { x: r.x + 1, y, w: end - r.x - 1 };
  if (need) cv.text(r.x + w - textWidth(need) - 1, y, need, roleAttr('warning'), r.x + w);
  y++;
  // A down host's rows come last, muted and out of every group: what it said last is not news.
  const live = [...inp.agents, ...hosts.filter((h) => !h.down)];
  const ordered = orderRows(live, order);
  const folded = inp.unfolded ? new Set<string>() : restFolded(ordered, inp.restFoldMs, inp.focusedWindow, inp.now);
  const foldRows = ordered.filter(({ a }) => folded.has(a.id)).map(({ a }) => a);
  const grouped: Array<{ a: RailRow; g: RailGroup | 'down' }> = [...ordered.filter(({ a }) => !folded.has(a.id)), ...hosts.filter((h) => h.down).map((a) => ({ a, g: 'down' as const }))];
  const bottom = r.y + r.h;
  // Subagent rows get the lines every agent row and the fold leave (an agent row is never hidden for one).
  const spare = bottom - y - grouped.length * 2 - (foldRows.length ? 1 : 0);
  const plan: SubagentPlan =
    inp.subagentRows === 'count' || spare <= 0
      ? { tall: false, rows: new Map() }
      : planSubagentRows(grouped.filter((x) => x.g !== 'down').map((x) => ({ id: x.a.id, list: x.a.subagentList ?? [] })), spare, inp.focusedWindow);
  for (let i = 0; i < grouped.length; i++) {
    const { a, g } = grouped[i]!;
    if (y + 1 >= bottom) {
      const left = grouped.length - i;
      if (y < bottom) cv.text(r.x, y, fit(`  +${left} more`, w), muted, r.x + w);
      break;
    }
    if (g === 'down') drawDownRow(cv, r.x, y, w, a, inp);
    else drawRow(cv, r.x, y, w, a, g, inp);
    hits.rows.push({ y, h: 2, windowId: a.id });
    hits.agents.push(a.id);
    y += 2;
    const subs = plan.rows.get(a.id);
    if (!subs) continue;
    for (const sa of subs.shown) {
      if (y + (plan.tall ? 1 : 0) >= bottom) break;
      drawSubagentRow(cv, r.x, y, w, sa, plan.tall, inp);
      hits.rows.push({ y, h: plan.tall ? 2 : 1, windowId: a.id, sub: true });
      y += plan.tall ? 2 : 1;
    }
    if (subs.more > 0 && y < bottom) cv.text(r.x + 4, y++, fit(`+${subs.more} more`, w - 4), muted, r.x + w);
  }
  if (foldRows.length && y < bottom) drawFold(cv, r, y, w, foldRows, inp, hits);
  return hits;
}

/** The rest fold at the end of the section: `+3 at rest`, muted, then the names when they all fit. */
function drawFold(cv: Canvas, r: Rect, y: number, w: number, rows: RailRow[], inp: RailInput, hits: RailHits): void {
  const dim = attr(ROLE_COLOR.muted, -1, A_DIM);
  const under = inp.cursor === REST_FOLD_ID;
  cv.text(r.x + 3, y, fit(`+${rows.length} at rest`, w - 3, inp.ascii), under ? dim | A_INVERSE : dim, r.x + w);
  hits.fold = { y };
  hits.agents.push(REST_FOLD_ID);
  const bottom = r.y + r.h;
  if (y + rows.length >= bottom) return;
  for (const a of rows) {
    y++;
    const m = stateMark(a.state, a.finishedUnread, inp.glyphs ?? inp.ascii, a.subagents);
    if (m) cv.text(r.x + 4, y, m.glyph, dim, r.x + 6);
    cv.text(r.x + 6, y, fit(a.name, w - 6, inp.ascii), dim, r.x + w);
  }
}

/** A subagent under its lead: its mark and description (muted once it ended), then its detail on a tall section. */
function drawSubagentRow(cv: Canvas, x: number, y: number, w: number, s: SubagentInfo, tall: boolean, inp: RailInput): void {
  const m = subagentMark(s.state, inp.ascii || !!inp.glyphs?.ascii);
  const ended = s.state !== 'running';
  const dim = attr(ROLE_COLOR.muted, -1, A_DIM);
  cv.text(x + 4, y, m.glyph, ended && s.state !== 'failed' ? dim : roleAttr(m.role), x + 6);
  // The age shows after five minutes, frozen at its length once it ended.
  const ms = (s.ended_at !== undefined ? s.ended_at / 1e6 : inp.now) - s.started_at / 1e6;
  const right = ms >= AGE_SHOWN_AFTER_MS ? age(ms) : '';
  const nameW = w - 6 - (right ? textWidth(right) + 1 : 0);
  cv.text(x + 6, y, fit(s.description || s.type, nameW, inp.ascii), ended ? dim : PLAIN, x + w);
  if (right) cv.text(x + w - textWidth(right), y, right, muted(), x + w);
  if (tall) cv.text(x + 6, y + 1, pad(subagentDetail(s), w - 6, inp.ascii), ended ? dim : roleAttr('muted'), x + w);
}

const muted = () => roleAttr('muted');

/** A row of a host whose link is down: its last state, dim, and when it was last heard. */
function drawDownRow(cv: Canvas, x: number, y: number, w: number, a: RailRow, inp: RailInput): void {
  const dim = attr(ROLE_COLOR.muted, -1, A_DIM | (a.id === inp.cursor ? A_INVERSE : 0));
  const m = stateMark(a.state, a.finishedUnread, inp.glyphs ?? inp.ascii);
  if (m) cv.text(x + 1, y, m.glyph, dim, x + 1 + 2);
  cv.text(x + 3, y, fit(a.name, w - 3, inp.ascii), dim, x + w);
  const seen = a.seenAt ? `seen ${age(Math.max(0, inp.now - a.seenAt))} ago` : 'link down';
  cv.text(x + 4, y + 1, pad(seen, w - 4, inp.ascii), dim, x + w);
}

function drawRow(cv: Canvas, x: number, y: number, w: number, a: RailRow, g: RailGroup, inp: RailInput): void {
  const focused = a.id === inp.focusedWindow;
  const under = a.id === inp.cursor;
  if (focused) cv.set(x, y, inp.ascii ? '>' : '▎', roleAttr('accent', A_BOLD));
  // At rest with subagents at work: the display state `waiting` (marks.ts), one function for every surface.
  const m = stateMark(a.state, a.finishedUnread, inp.glyphs ?? inp.ascii, a.subagents);
  if (m) cv.text(x + 1, y, m.glyph, roleAttr(m.role, A_BOLD), x + 1 + 2);
  // The right edge: a row that needs you keeps its wait; otherwise the queue, then the age.
  let right = '';
  const aged = showsAge(a, inp.now, focused || under);
  if (g === 'needs') right = aged ? age(inp.now - a.stateSince) : '';
  else if (a.queued > 0) right = `${a.queued} queued`;
  else if (a.pr) right = prToken(a.pr);
  else if (aged && g !== 'rest') right = age(inp.now - a.stateSince);
  const nameW = w - 3 - (right ? textWidth(right) + 1 : 0);
  // The keyboard cursor: the row's name drawn inverse.
  const nameInk = g === 'rest' && !waitsOnSubagents(a.state, a.subagents) ? PLAIN : attr(-1, -1, A_BOLD);
  cv.text(x + 3, y, fit(a.name, nameW, inp.ascii), under ? nameInk | A_INVERSE : nameInk, x + w);
  // The pr token: red for failing checks, amber for pending ones, green for passing ones and a merge.
  const prInk = a.pr && right === prToken(a.pr) ? (a.pr.state === 'merged' || a.pr.checks === 'pass' ? 'success' : a.pr.checks === 'fail' ? 'error' : a.pr.checks === 'pending' ? 'warning' : 'muted') : null;
  if (right) cv.text(x + w - textWidth(right), y, right, roleAttr(prInk ?? (g === 'needs' ? 'warning' : 'muted')), x + w);
  const segs = secondLineSegments(a, g, { width: w - 4, ageInline: '', config: inp.agentRow });
  if (!segs.length) return;
  const ink = g === 'needs' ? roleAttr('warning') : g === 'rest' ? attr(ROLE_COLOR.muted, -1, A_DIM) : roleAttr('muted');
  // Each token in its own ink when it asks for one (`ctx 84%` in warning); the line is cut at the rail's edge.
  let cx = x + 4;
  segs.forEach((sg, i) => {
    if (cx >= x + w) return;
    if (i > 0) cx = cv.text(cx, y + 1, ' · ', ink, x + w);
    const last = i === segs.length - 1;
    const text = last || cx + textWidth(sg.text) < x + w ? sg.text : sg.text;
    cx = cv.text(cx, y + 1, fit(text, x + w - cx, inp.ascii), sg.ink ? roleAttr(sg.ink) : ink, x + w);
  });
}
