// The rail: the sessions, and once an agent has been seen, the agents section in the `you`
// order (Needs you, Done, Working, At rest). Inside a group rows keep spawn order, so a row
// moves only when its own group changes. Two lines a row: the mark, name and wait or queue,
// then the one thing the row's group is about (rows.ts).
import { prToken } from '../core/git/pr.js';
import type { Canvas } from './canvas.js';
import { attr, roleAttr, A_BOLD, A_DIM, PLAIN, ROLE_COLOR } from './canvas.js';
import type { Rect } from './pane-draw.js';
import { railGroup, secondLine, showsAge, type RailRow, type RailGroup } from './rows.js';
import { stateMark, type Glyphs } from './marks.js';
import { age, fit, pad, textWidth } from './text.js';

export interface RailSession {
  id: string;
  name: string;
  windows: number;
  current: boolean;
  /** The most urgent mark among its agents, if any. */
  mark: { state: string; unread: boolean } | null;
}

export interface RailInput {
  sessions: RailSession[];
  agents: RailRow[];
  /** Linked hosts' agents (spec: Other machines): drawn in the same groups while their link is up. */
  hosts?: RailRow[];
  agentsSeen: boolean;
  focusedWindow: string | null;
  ascii: boolean;
  /** The client's glyph set for state marks (unset: the built-in set `ascii` names). */
  glyphs?: Glyphs;
  now: number;
  /** Inbox counts for the header: blocked (approvals, questions, asks, errored) and done. */
  blocked: number;
}

const GROUP_ORDER: RailGroup[] = ['needs', 'done', 'working', 'rest'];
/** Under this many lines the agents section is left out (spec: under 8 lines). */
const MIN_AGENTS_LINES = 8;

export function drawRail(cv: Canvas, r: Rect, inp: RailInput): void {
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
    const m = s.mark ? stateMark(s.mark.state, s.mark.unread, inp.glyphs ?? inp.ascii) : null;
    const count = String(s.windows);
    cv.text(r.x, y, cur, roleAttr('accent', A_BOLD));
    if (m) cv.text(r.x + 1, y, m.glyph, roleAttr(m.role), r.x + 1 + 2);
    const nameW = w - 4 - count.length;
    cv.text(r.x + 3, y, fit(s.name, nameW, inp.ascii), s.current ? attr(-1, -1, A_BOLD) : PLAIN, r.x + w);
    cv.text(r.x + w - count.length - 1, y, count, muted, r.x + w);
    y++;
  }
  const room = r.y + r.h - y;
  const hosts = inp.hosts ?? [];
  if (!inp.agentsSeen || inp.agents.length + hosts.length === 0 || room < MIN_AGENTS_LINES - 1) return;
  y++;
  const header = ' agents';
  const need = inp.blocked > 0 ? `${inp.blocked} need you` : '';
  cv.text(r.x, y, header, attr(-1, -1, A_BOLD), r.x + w);
  if (need) cv.text(r.x + w - textWidth(need) - 1, y, need, roleAttr('warning'), r.x + w);
  y++;
  // A down host's rows come last, muted and out of every group: what it said last is not news.
  const live = [...inp.agents, ...hosts.filter((h) => !h.down)];
  const grouped: Array<{ a: RailRow; g: RailGroup | 'down' }> = [
    ...GROUP_ORDER.flatMap((g) => live.filter((a) => railGroup(a) === g).map((a) => ({ a, g }))),
    ...hosts.filter((h) => h.down).map((a) => ({ a, g: 'down' as const })),
  ];
  const bottom = r.y + r.h;
  for (let i = 0; i < grouped.length; i++) {
    const { a, g } = grouped[i]!;
    if (y + 1 >= bottom) {
      const left = grouped.length - i;
      if (y < bottom) cv.text(r.x, y, fit(`  +${left} more`, w), muted, r.x + w);
      break;
    }
    if (g === 'down') drawDownRow(cv, r.x, y, w, a, inp);
    else drawRow(cv, r.x, y, w, a, g, inp);
    y += 2;
  }
}

/** A row of a host whose link is down: its last state, dim, and when it was last heard. */
function drawDownRow(cv: Canvas, x: number, y: number, w: number, a: RailRow, inp: RailInput): void {
  const dim = attr(ROLE_COLOR.muted, -1, A_DIM);
  const m = stateMark(a.state, a.finishedUnread, inp.glyphs ?? inp.ascii);
  if (m) cv.text(x + 1, y, m.glyph, dim, x + 1 + 2);
  cv.text(x + 3, y, fit(a.name, w - 3, inp.ascii), dim, x + w);
  const seen = a.seenAt ? `seen ${age(Math.max(0, inp.now - a.seenAt))} ago` : 'link down';
  cv.text(x + 4, y + 1, pad(seen, w - 4, inp.ascii), dim, x + w);
}

function drawRow(cv: Canvas, x: number, y: number, w: number, a: RailRow, g: RailGroup, inp: RailInput): void {
  const focused = a.id === inp.focusedWindow;
  if (focused) cv.set(x, y, inp.ascii ? '>' : '▎', roleAttr('accent', A_BOLD));
  const m = stateMark(a.state, a.finishedUnread, inp.glyphs ?? inp.ascii);
  if (m) cv.text(x + 1, y, m.glyph, roleAttr(m.role, A_BOLD), x + 1 + 2);
  // The right edge: a row that needs you keeps its wait; otherwise the queue, then the age.
  let right = '';
  const aged = showsAge(a, inp.now, focused);
  if (g === 'needs') right = aged ? age(inp.now - a.stateSince) : '';
  else if (a.queued > 0) right = `${a.queued} queued`;
  else if (a.pr) right = prToken(a.pr);
  else if (aged && g !== 'rest') right = age(inp.now - a.stateSince);
  const nameW = w - 3 - (right ? textWidth(right) + 1 : 0);
  cv.text(x + 3, y, fit(a.name, nameW, inp.ascii), g === 'rest' ? PLAIN : attr(-1, -1, A_BOLD), x + w);
  // The pr token: red for failing checks, amber for pending ones, green for passing ones and a merge.
  const prInk = a.pr && right === prToken(a.pr) ? (a.pr.state === 'merged' || a.pr.checks === 'pass' ? 'success' : a.pr.checks === 'fail' ? 'error' : a.pr.checks === 'pending' ? 'warning' : 'muted') : null;
  if (right) cv.text(x + w - textWidth(right), y, right, roleAttr(prInk ?? (g === 'needs' ? 'warning' : 'muted')), x + w);
  const second = secondLine(a, g, { width: w - 4, ageInline: '' });
  if (!second) return;
  const ink = g === 'needs' ? roleAttr('warning') : g === 'rest' ? attr(ROLE_COLOR.muted, -1, A_DIM) : roleAttr('muted');
  const ctx = a.context !== null && second.startsWith('ctx ');
  if (ctx) {
    const head = second.slice(0, second.indexOf(' · ') > 0 ? second.indexOf(' · ') : second.length);
    const after = cv.text(x + 4, y + 1, head, roleAttr('warning'), x + w);
    cv.text(after, y + 1, fit(second.slice(head.length), x + w - after, inp.ascii), ink, x + w);
  } else cv.text(x + 4, y + 1, pad(second, w - 4, inp.ascii), ink, x + w);
}
