// The agents view's drawing (spec: The agents view): the header with the counts, the list in its
// groups, the focus area with the selected row's card, and the footer. The key lines come from
// the view's key tables (agents-keys.ts); nothing here decides what a key does.
import { prToken } from '../core/git/pr.js';
import type { Canvas } from './canvas.js';
import { attr, roleAttr, A_BOLD, A_DIM, A_INVERSE, PLAIN, ROLE_COLOR } from './canvas.js';
import type { Rect } from './pane-draw.js';
import { VIEW_GROUP_TITLE, askText, countedIn, needWord, showsAge, type AgentRow, type ViewGroup } from './rows.js';
import type { CardContent, Card, PeekedPrompt } from './card.js';
import type { Editor } from './editor.js';
import { drawEditorBox } from './editor-draw.js';
import { stripRows } from './image-strip.js';
import { heldItem, type HeldCard } from './held-card.js';
import { stateMark, subagentMark, waitsOnSubagents, WAITING, type Glyphs } from './marks.js';
import { subagentDetail } from './subagent-rows.js';
import { age, clean, fit, pad, textWidth } from './text.js';
import { EDITOR_MAX_ROWS } from './limits.js';
import { hintRows, hintText } from './key-table.js';
import { AGENTS_BULK_ALLOW_KEYS, AGENTS_KEYS, listFooter, type AgentsKeyState, type AgentsMode } from './agents-keys.js';
import type { AgentsModel, ViewRow } from './agents-model.js';

const ROLE_WARN = 3;

/** What the drawing reads of the view. */
export interface AgentsPicture {
  readonly ascii: boolean;
  /** The client's glyph set, for state marks. */
  readonly glyphs: Glyphs;
  readonly mode: AgentsMode;
  readonly model: AgentsModel;
  readonly card: Card;
  readonly held: HeldCard;
  readonly textLine: Editor;
  readonly reasonLine: Editor;
  /** The request the `Reason:` line answers. */
  readonly reasonFor: string;
  readonly selectorLine: Editor;
  readonly bulkAllow: { prompts: Array<{ row: AgentRow; prompt: PeekedPrompt }>; left: number } | null;
  /** The list's first line on screen, kept between frames. */
  scroll: number;
  wake(ms: number): void;
  /** The key tables' situation; `card`: what the selected row's card shows. */
  keyState(card: CardContent | null): AgentsKeyState;
  contentOf(r: ViewRow | null): CardContent | null;
}

/** The whole view in `area`; returns where the cursor goes. */
export function drawAgents(p: AgentsPicture, cv: Canvas, area: Rect, now: number): { x: number; y: number } | null {
  cv.fill(area.x, area.y, area.w, area.h);
  drawHeader(p, cv, area);
  const body: Rect = { x: area.x, y: area.y + 2, w: area.w, h: Math.max(0, area.h - 3) };
  const narrow = area.w < 80;
  const listW = area.w >= 170 ? 56 : area.w >= 120 ? 48 : area.w >= 80 ? 38 : area.w;
  const twoLine = area.w >= 120;
  const sel = p.model.selected();
  let cursor: { x: number; y: number } | null = null;
  if (!narrow || p.mode !== 'narrow-focus') drawList(p, cv, { ...body, w: listW }, twoLine, sel, now);
  const focus: Rect = narrow ? body : { x: body.x + listW + 2, y: body.y, w: body.w - listW - 2, h: body.h };
  if (!narrow || p.mode === 'narrow-focus' || p.mode === 'peek' || p.mode === 'reply') {
    if (narrow) cv.fill(body.x, body.y, body.w, body.h);
    cursor = drawFocus(p, cv, focus, sel, now);
  }
  drawFooter(p, cv, { x: area.x, y: area.y + area.h - 1, w: area.w, h: 1 }, sel);
  if (p.mode === 'select') cursor = drawSelectLine(p, cv, { x: area.x, y: area.y + 1, w: area.w, h: 1 });
  return cursor;
}

function drawHeader(p: AgentsPicture, cv: Canvas, area: Rect): void {
  const ascii = p.ascii;
  let x = cv.text(area.x + 1, area.y, 'Agents', attr(-1, -1, A_BOLD));
  const count = (g: ViewGroup) => countedIn(p.model.rows, g);
  const parts: Array<[string, number, string]> = [
    ['needs_input', count('needs'), 'need you'],
    ['working', count('working'), 'working'],
    ['done_unread', count('review'), 'to review'],
    ['idle', count('idle') + count('earlier'), 'idle'],
  ];
  for (const [st, n, label] of parts) {
    const m = stateMark(st === 'done_unread' ? 'done' : st, st === 'done_unread', p.glyphs)!;
    x = cv.text(x + 3, area.y, m.glyph, roleAttr(m.role, A_BOLD), area.x + area.w);
    x = cv.text(x + 1, area.y, `${n} ${label}`, PLAIN, area.x + area.w);
  }
  const tags: string[] = [];
  if (p.model.mem.selector) tags.push(`[select ${p.model.mem.selector}]`);
  const filter = p.model.filterTag();
  if (filter) tags.push(`[${filter}]`);
  if (p.model.marks.size) tags.push(`[${p.model.marks.size} marked]`);
  if (p.model.showSnoozed) tags.push('[snoozed shown]');
  if (tags.length) cv.text(x + 3, area.y, fit(tags.join(' '), area.x + area.w - x - 4, ascii), roleAttr('accent'), area.x + area.w);
}

function drawList(p: AgentsPicture, cv: Canvas, r: Rect, twoLine: boolean, sel: ViewRow | null, now: number): void {
  const ascii = p.ascii;
  // Lines: a heading per group with rows, then its rows (one or two lines each).
  type Line = { kind: 'head'; text: string } | { kind: 'row'; row: ViewRow; second: boolean };
  const lines: Line[] = [];
  let group: string | null = null;
  for (const row of p.model.rows) {
    if (row.group !== group) {
      group = row.group;
      // A down host's rows are shown under their last group and not counted in it.
      const n = countedIn(p.model.rows, row.group);
      lines.push({ kind: 'head', text: `${row.group === 'snoozed' ? 'Snoozed' : VIEW_GROUP_TITLE[row.group]}  ${n}` });
    }
    lines.push({ kind: 'row', row, second: false });
    if (twoLine) lines.push({ kind: 'row', row, second: true });
  }
  if (lines.length === 0) {
    cv.text(r.x + 2, r.y + 1, p.model.mem.selector || p.model.filter ? 'Nothing matches.' : 'No agents yet. Agents you start in a pane show here.', roleAttr('muted'), r.x + r.w);
    return;
  }
  const selAt = lines.findIndex((l) => l.kind === 'row' && l.row.key === sel?.key);
  if (selAt >= 0) {
    if (selAt < p.scroll) p.scroll = Math.max(0, selAt - 1);
    if (selAt + (twoLine ? 1 : 0) >= p.scroll + r.h) p.scroll = selAt + (twoLine ? 2 : 1) - r.h;
  }
  p.scroll = Math.max(0, Math.min(p.scroll, Math.max(0, lines.length - r.h)));
  for (let i = 0; i < r.h; i++) {
    const l = lines[p.scroll + i];
    if (!l) break;
    const y = r.y + i;
    if (l.kind === 'head') {
      const x = cv.text(r.x + 1, y, l.text, attr(-1, -1, A_BOLD), r.x + r.w);
      for (let j = x + 1; j < r.x + r.w; j++) cv.set(j, y, ascii ? '-' : '─', roleAttr('muted'));
      continue;
    }
    drawRow(p, cv, { x: r.x, y, w: r.w, h: 1 }, l.row, l.second, l.row.key === sel?.key, now);
  }
}

function drawRow(p: AgentsPicture, cv: Canvas, r: Rect, row: ViewRow, second: boolean, selected: boolean, now: number): void {
  const ascii = p.ascii;
  const end = r.x + r.w;
  if (selected) cv.set(r.x, r.y, ascii ? '>' : '▌', roleAttr('accent', A_BOLD));
  if (!second && p.model.marks.has(row.key)) cv.set(r.x + 1, r.y, '*', roleAttr('accent', A_BOLD));
  const muted = row.group === 'snoozed' || !!row.down;
  if (row.type === 'item' || row.type === 'host-item') {
    const it = row.type === 'host-item' ? { ...row.item, session: `${row.item.host}:${row.item.session ?? '-'}` } : row.item;
    const dim = attr(ROLE_COLOR.muted, -1, A_DIM);
    if (second) {
      const text = row.down ? `link down · ${clean(it.summary)}` : clean(it.summary);
      cv.text(r.x + 5, r.y, fit(text, r.w - 6, ascii), row.down ? dim : roleAttr(it.kind === 'done' ? 'muted' : 'warning'), end);
      return;
    }
    const glyph = it.kind === 'mail' ? '@' : it.kind === 'ask' ? stateMark('needs_input', false, p.glyphs)!.glyph : stateMark(it.kind === 'errored' ? 'errored' : it.kind === 'done' ? 'done' : 'needs_input', true, p.glyphs)!.glyph;
    cv.set(r.x + 2, r.y, glyph, row.down ? dim : roleAttr(it.kind === 'done' ? 'success' : it.kind === 'errored' ? 'error' : 'warning', A_BOLD));
    const right = row.type === 'host-item' && row.down ? `seen ${age(Math.max(0, now - row.item.seen_at))} ago` : age(now - it.opened_at);
    const label = `${it.kind}  ${clean(it.name ?? it.harness ?? '')}`;
    cv.text(r.x + 4, r.y, fit(label, r.w - 6 - right.length - clean(it.session ?? '').length - 2, ascii), muted ? attr(-1, -1, A_DIM) : attr(-1, -1, selected ? A_BOLD : 0), end);
    cv.text(end - right.length - 1 - (it.session ? clean(it.session).length + 2 : 0), r.y, it.session ? `${clean(it.session)}  ` : '', roleAttr('muted'), end);
    cv.text(end - right.length - 1, r.y, right, roleAttr('muted'), end);
    return;
  }
  const a = row.agent;
  const group = row.group === 'snoozed' ? 'idle' : row.group;
  if (a.down) return drawDownRow(p, cv, r, a, second, selected, now);
  if (second) {
    let text = '';
    if (group === 'needs') text = `${needWord(a)} · ${askText(a)}`;
    else if (group === 'working') text = [a.meta.now ?? a.message, a.context !== null ? `ctx ${a.context}%` : ''].filter(Boolean).join('   ');
    // A finished turn whose subagents still run says so first (spec: Subagents on the rail).
    else if (group === 'review') text = [a.subagents > 0 ? waitsFor(a.subagents) : '', a.message.split('\n')[0] ?? ''].filter(Boolean).join(' · ');
    cv.text(r.x + 5, r.y, fit(text, r.w - 6, ascii), group === 'needs' ? roleAttr('warning') : roleAttr('muted'), end);
    return;
  }
  const m = stateMark(a.state, a.finishedUnread, p.glyphs, a.subagents);
  if (m) cv.text(r.x + 2, r.y, m.glyph, roleAttr(m.role, A_BOLD), r.x + 2 + 2);
  const right = showsAge(a, now, selected) || group === 'needs' ? age(now - row.since) : '';
  // The session, or the machine for an agent on another one (its name carries the session).
  const info = `${a.harness ?? ''}  ${a.host ?? a.session}`;
  const nameW = Math.max(6, Math.min(16, r.w - 8 - textWidth(info) - right.length));
  cv.text(r.x + 4, r.y, pad(a.name, nameW, ascii), attr(-1, -1, selected ? A_BOLD : 0), end);
  cv.text(r.x + 5 + nameW, r.y, fit(info, end - (r.x + 5 + nameW) - right.length - 2, ascii), roleAttr('muted'), end);
  if (!twoLineWidth(r.w) && group === 'needs') {
    // One-line rows: what a row that needs you asks goes after the name instead.
    cv.text(r.x + 5 + nameW, r.y, fit(askText(a), end - (r.x + 5 + nameW) - right.length - 2, ascii), roleAttr('warning'), end);
  }
  if (right) cv.text(end - right.length - 1, r.y, right, roleAttr(group === 'needs' ? 'warning' : 'muted'), end);
}

/** A linked host's row while its link is down: dim, `link down`, the last state it knew (spec). */
function drawDownRow(p: AgentsPicture, cv: Canvas, r: Rect, a: AgentRow, second: boolean, selected: boolean, now: number): void {
  const ascii = p.ascii;
  const end = r.x + r.w;
  const dim = attr(ROLE_COLOR.muted, -1, A_DIM);
  if (second) {
    cv.text(r.x + 5, r.y, fit(`link down · last ${a.state === 'needs_input' ? needWord(a) : a.state}${a.message ? ` · ${a.message}` : ''}`, r.w - 6, ascii), dim, end);
    return;
  }
  const m = stateMark(a.state, a.finishedUnread, p.glyphs);
  if (m) cv.text(r.x + 2, r.y, m.glyph, dim, r.x + 2 + 2);
  const right = a.seenAt ? `seen ${age(Math.max(0, now - a.seenAt))} ago` : 'link down';
  const nameW = Math.max(6, r.w - 8 - right.length);
  cv.text(r.x + 4, r.y, fit(a.name, nameW, ascii), selected ? attr(ROLE_COLOR.muted, -1, A_DIM | A_BOLD) : dim, end);
  cv.text(end - right.length - 1, r.y, right, dim, end);
}

function waitsFor(n: number): string {
  return `waits for ${n} subagent${n === 1 ? '' : 's'}`;
}

function drawFocus(p: AgentsPicture, cv: Canvas, r: Rect, sel: ViewRow | null, now: number): { x: number; y: number } | null {
  const ascii = p.ascii;
  const end = r.x + r.w;
  if (r.w < 10) return null;
  if (p.mode === 'bulk-allow' && p.bulkAllow) return drawBulkAllow(p, cv, r);
  if (!sel) {
    if (p.mode === 'reply' && p.model.marks.size) return drawEditor(p, cv, r, p.model.mem.bulkDraft, `Reply to ${p.model.marks.size} marked agents`);
    return null;
  }
  let y = r.y;
  if (sel.type === 'agent') {
    const a = sel.agent;
    const m = stateMark(a.state, a.finishedUnread, p.glyphs, a.subagents);
    let x = cv.text(r.x, y, fit(a.name, r.w - 20, ascii), attr(-1, -1, A_BOLD), end);
    x = cv.text(x + 2, y, fit([a.harness, a.meta.model].filter(Boolean).join(' · '), end - x - 18, ascii), roleAttr('muted'), end);
    if (m) cv.text(end - 14, y, `${m.glyph} ${a.state === 'needs_input' ? 'needs you' : waitsOnSubagents(a.state, a.subagents) ? WAITING.word : a.state}`, roleAttr(m.role, A_BOLD), end);
    y++;
    const facts = [a.host ? `on ${a.host}${a.down ? ' (link down)' : ''}` : '', a.session, a.meta.branch, a.meta.diff, a.context !== null ? `ctx ${a.context}%` : '', a.meta.cost, a.queued ? `${a.queued} queued` : '', a.pr ? prToken(a.pr) : '', a.subagents ? (a.state === 'done' || a.state === 'idle' ? waitsFor(a.subagents) : `${a.subagents} subagents`) : ''].filter(Boolean).join('   ');
    cv.text(r.x, y++, fit(facts, r.w, ascii), roleAttr('muted'), end);
    // A line per subagent, with the same text as its rail row.
    for (const sa of (a.subagentList ?? []).slice(0, Math.max(0, r.h - 6))) {
      const sm = subagentMark(sa.state, p.glyphs.ascii);
      const x0 = cv.text(r.x + 2, y, sm.glyph, roleAttr(sm.role), end);
      cv.text(x0 + 1, y++, fit([sa.description || sa.type, subagentDetail(sa)].filter(Boolean).join(' · '), end - x0 - 1, ascii), roleAttr('muted'), end);
    }
    for (let i = r.x; i < end; i++) cv.set(i, y, ascii ? '-' : '─', roleAttr('muted'));
    y++;
    if (a.message && a.state !== 'needs_input') cv.text(r.x, y++, fit(a.message, r.w, ascii), PLAIN, end);
  } else if (sel.type === 'host-item') {
    const it = sel.item;
    cv.text(r.x, y++, fit(`${it.kind} · ${clean(it.name ?? it.harness ?? 'tuios')} · ${it.host}:${clean(it.session ?? '-')}`, r.w, ascii), attr(-1, -1, A_BOLD), end);
    cv.text(r.x, y++, fit(clean(it.summary), r.w, ascii), PLAIN, end);
    cv.text(r.x, y++, fit(it.down ? `${it.host}'s link is down: this is what it said last.` : `On ${it.host}: answered and dismissed there; d hides it here only.`, r.w, ascii), roleAttr('muted'), end);
    return null;
  } else {
    const it = sel.item;
    cv.text(r.x, y++, fit(`${it.kind} · ${clean(it.name ?? it.harness ?? 'tuios')} · ${clean(it.session ?? '')}`, r.w, ascii), attr(-1, -1, A_BOLD), end);
    cv.text(r.x, y++, fit(clean(it.summary), r.w, ascii), PLAIN, end);
  }
  if (p.mode === 'reply') {
    const ed = p.model.marks.size ? p.model.mem.bulkDraft : p.model.mem.drafts.get(sel.key);
    const who = p.model.marks.size ? `${p.model.marks.size} marked agents` : sel.type === 'agent' ? `${sel.agent.name} (${sel.agent.state} ${age(now - sel.agent.stateSince)})` : 'it';
    const strip = ed ? stripRows(cv, ed.shownImages()) : 0;
    return drawEditor(p, cv, { x: r.x, y: Math.max(y + 1, r.y + r.h - EDITOR_MAX_ROWS - 2 - strip), w: r.w, h: EDITOR_MAX_ROWS + 2 + strip }, ed ?? null, `Reply to ${who}`);
  }
  const h = heldItem(p.model.itemsOf(sel));
  if (h) {
    const reasoning = p.mode === 'reason' && String(h.ref.request_id) === p.reasonFor;
    const cardH = r.y + r.h - y - 1 - (reasoning ? 1 : 0);
    p.held.draw(cv, { x: r.x, y: y + 1, w: r.w, h: cardH }, h, now, ascii, cardKeys(p, null, '  '));
    const wait = p.held.msUntilSettled(now);
    if (wait > 0) p.wake(wait + 5);
    if (reasoning) {
      const lineY = r.y + r.h - 1;
      const v = p.reasonLine.view(1);
      cv.text(r.x, lineY, 'Reason: ', attr(-1, -1, A_BOLD), end);
      cv.text(r.x + 8, lineY, fit(v.lines[0] ?? '', r.w - 9, ascii), PLAIN, end);
      return { x: r.x + 8 + Math.min(v.cursor.x, r.w - 9), y: lineY };
    }
    return null;
  }
  const c = p.contentOf(sel);
  p.card.drawn(c, now);
  if (c) return drawCard(p, cv, { x: r.x, y: y + 1, w: r.w, h: r.y + r.h - y - 1 }, c, now);
  return null;
}

function drawCard(p: AgentsPicture, cv: Canvas, r: Rect, c: CardContent, now: number): { x: number; y: number } | null {
  const ascii = p.ascii;
  const bar = ascii ? '| ' : '▌ ';
  const end = r.x + r.w;
  const warn = roleAttr('warning');
  let y = r.y;
  const bottom = r.y + r.h;
  const put = (s: string, a: number) => {
    if (y < bottom - 1) cv.text(r.x, y++, fit(s, r.w, ascii), a, end);
  };
  if (c.kind === 'recap') {
    c.lines.forEach((l, i) => put(l, i === 0 ? attr(-1, -1, A_BOLD) : PLAIN));
    return null;
  }
  if (c.kind === 'loading') {
    put('Reading the prompt...', roleAttr('muted'));
    return null;
  }
  if (c.kind === 'unreadable') {
    put(`${stateMark('needs_input', false, p.glyphs)!.glyph} ${needWord(c.row)} · ${askText(c.row)}`, warn);
    put(c.why, roleAttr('muted'));
    put('enter goes to the pane.', roleAttr('muted'));
    return null;
  }
  if (c.kind === 'ask') {
    put(`${stateMark('needs_input', false, p.glyphs)!.glyph} ${c.question}`, attr(ROLE_WARN, -1, A_BOLD));
    c.options.forEach((o, i) => put(`${bar}${i + 1}. ${o}`, PLAIN));
    put(p.card.settled(now) ? cardKeys(p, c) : 'Read it: the keys work in a moment.', roleAttr('muted'));
    if (!p.card.settled(now)) p.wake(p.card.msUntilSettled(now) + 5);
    return null;
  }
  const pr = c.prompt;
  put(`${stateMark('needs_input', false, p.glyphs)!.glyph} ${pr.kind || needWord(c.row)}: ${pr.message || askText(c.row)}   ${c.row.name} waits ${age(now - c.row.stateSince)}`, attr(ROLE_WARN, -1, A_BOLD));
  if (p.mode === 'peek' || p.mode === 'text') put('The pane shows (its text, not tuios\'s):', roleAttr('muted'));
  const room = bottom - y - 3;
  const lines = p.mode === 'peek' || p.mode === 'text' ? pr.lines : pr.lines.filter((l) => l.trim()).slice(-Math.max(1, room));
  for (const l of lines.slice(0, Math.max(0, room))) put(bar + l, PLAIN);
  if (pr.risk?.risky) put(`risky: ${pr.risk.detail.join('; ') || pr.risk.ack.join(', ')}: an allow takes a second press`, roleAttr('error', A_BOLD));
  if (!p.card.settled(now)) p.wake(p.card.msUntilSettled(now) + 5);
  put(p.card.settled(now) ? cardKeys(p, c) : 'Read it: the keys work in a moment.', roleAttr('accent'));
  if (p.mode === 'text') {
    const v = p.textLine.view(1);
    const lineY = Math.min(y, bottom - 1);
    cv.text(r.x, lineY, 'Answer: ', attr(-1, -1, A_BOLD), end);
    cv.text(r.x + 8, lineY, fit(v.lines[0] ?? '', r.w - 9, ascii), PLAIN, end);
    return { x: r.x + 8 + Math.min(v.cursor.x, r.w - 9), y: lineY };
  }
  return null;
}

function drawEditor(p: AgentsPicture, cv: Canvas, r: Rect, ed: Editor | null, title: string): { x: number; y: number } | null {
  return ed ? drawEditorBox(cv, r, ed, title, p.ascii, true) : null;
}

function drawBulkAllow(p: AgentsPicture, cv: Canvas, r: Rect): null {
  const b = p.bulkAllow!;
  const ascii = p.ascii;
  let y = r.y;
  const end = r.x + r.w;
  cv.text(r.x, y++, fit(`Allow ${b.prompts.length} approval${b.prompts.length === 1 ? '' : 's'} once:`, r.w), attr(-1, -1, A_BOLD), end);
  for (const { row, prompt } of b.prompts) {
    if (y >= r.y + r.h - 2) break;
    cv.text(r.x, y++, fit(`${row.name}: ${prompt.message || prompt.lines.find((l) => l.trim()) || ''}`, r.w, ascii), PLAIN, end);
  }
  if (b.left) cv.text(r.x, y++, fit(`${b.left} need a second look. Allow them one by one.`, r.w), roleAttr('warning'), end);
  const st = p.keyState(null);
  cv.text(r.x, y, hintText(hintRows(AGENTS_BULK_ALLOW_KEYS, st), st), roleAttr('accent'), end);
  return null;
}

function drawSelectLine(p: AgentsPicture, cv: Canvas, r: Rect): { x: number; y: number } {
  const v = p.selectorLine.view(1);
  cv.fill(r.x, r.y, r.w, 1);
  const x = cv.text(r.x + 1, r.y, '/ ', roleAttr('accent', A_BOLD));
  cv.text(x, r.y, fit(v.lines[0] ?? '', r.w - 4), PLAIN, r.x + r.w);
  if (p.model.selectorError) cv.text(Math.min(r.x + r.w - 1, x + textWidth(v.lines[0] ?? '') + 3), r.y, fit(p.model.selectorError, r.w / 2), roleAttr('error'), r.x + r.w);
  return { x: x + v.cursor.x, y: r.y };
}

function drawFooter(p: AgentsPicture, cv: Canvas, r: Rect, sel: ViewRow | null): void {
  const st = p.keyState(null);
  const rows = hintRows(AGENTS_KEYS[p.mode], st);
  const keys = footerLead(p, st, sel) + hintText(rows, st);
  cv.fill(r.x, r.y, r.w, 1, attr(-1, -1, A_INVERSE));
  cv.text(r.x + 1, r.y, fit(keys, r.w - 2, p.ascii), attr(-1, -1, A_INVERSE), r.x + r.w);
}

/** What the list's footer says before its keys: the marks, or whose row it is. */
function footerLead(p: AgentsPicture, st: AgentsKeyState, sel: ViewRow | null): string {
  if (st.mode !== 'list' && st.mode !== 'narrow-focus') return '';
  const f = listFooter(st);
  if (f === 'marked') return `${p.model.marks.size} marked: `;
  if (f === 'host-item' && sel?.type === 'host-item') return `${sel.item.host}'s Inbox item   `;
  if (f === 'down' && sel?.type === 'agent') return `${sel.agent.host} is down: its row is what it said last   `;
  return '';
}

/** The keys line of the selected row's card, from the mode's table. */
function cardKeys(p: AgentsPicture, c: CardContent | null, sep = '   '): string {
  const st = p.keyState(c);
  return hintText(hintRows(AGENTS_KEYS[p.mode], st, 'card'), st, sep);
}

function twoLineWidth(w: number): boolean {
  return w >= 48;
}
