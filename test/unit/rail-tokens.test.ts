// The rail's rows as the spec words them: the second line's tokens and `[appearance.sidebar.
// agent_row]` (What the second line says, Agent metadata), the `waiting` display state of a lead
// at rest with subagents at work, the sort control's three orders, the collapsed strip, and
// which subagent rows the section draws when room runs short (Subagents on the rail).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RailRow } from '../../tui/rows.js';
import { secondLine, secondLineSegments } from '../../tui/rows.js';
import { agentRowSchema } from '../../core/config/agent-row.js';
import { nextOrder, orderRows } from '../../tui/rail-order.js';
import { stripMarks } from '../../tui/strip.js';
import { planSubagentRows, subagentDetail } from '../../tui/subagent-rows.js';
import { stateMark } from '../../tui/marks.js';
import type { SubagentInfo } from '../../core/agent-state/subagents.js';
import { Canvas } from '../../tui/canvas.js';
import { openStreamTerminal } from '../../tui/terminal.js';
import { drawRail, type RailInput } from '../../tui/rail.js';
import { Emulator } from '../../core/screen/emulator.js';

/** The rail drawn 24 wide, as the screen shows it. */
async function railText(inp: Partial<RailInput>, rows = 24): Promise<string[]> {
  let out = '';
  const cols = 24;
  const t = openStreamTerminal(cols, rows, (s) => (out += s));
  try {
    const cv = new Canvas(t.term, cols, rows);
    drawRail(cv, { x: 0, y: 0, w: cols, h: rows }, { sessions: [{ id: 's', name: 'main', windows: 1, current: true, mark: null }], agents: [], agentsSeen: true, focusedWindow: null, ascii: false, now: NOW, blocked: 0, ...inp });
    cv.draw();
  } finally {
    t.dispose();
  }
  const e = new Emulator({ cols, rows, scrollback: 0 });
  await new Promise<void>((r) => e.write(out, r));
  return e.screenLines().map((l) => l.trimEnd());
}

const NOW = 1_800_000_000_000;

function row(o: Partial<RailRow> = {}): RailRow {
  return { id: 'w', name: 'api', session: 'main', state: 'working', kind: '', message: '', harness: 'claude', finishedUnread: false, stateSince: NOW, meta: {}, queued: 0, subagents: 0, subagentList: null, progress: null, context: null, items: [], ...o };
}

function sub(id: string, o: Partial<SubagentInfo> = {}): SubagentInfo {
  return { id, type: 'general-purpose', description: `Task ${id}`, state: 'running', started_at: NOW * 1e6, tools: 0, ...o };
}

const W = { width: 60, ageInline: '' };

test('the shipped tokens: ctx from 80%, the count on any row, now last while working, nothing else at rest', () => {
  const meta = { now: 'Bash: go test ./...', model: 'opus', cost: '$1.20', context: '84%', branch: 'main · 3 files' };
  assert.is(secondLine(row({ meta, context: 84, subagents: 2 }), 'working', W), 'ctx 84% · 2 subagents · main · 3 files · Bash: go test ./...');
  assert.is(secondLine(row({ meta: {}, context: 42 }), 'working', W), 'claude', 'below 80% ctx says nothing; nothing running shows the harness');
  assert.is(secondLine(row({ state: 'done', message: 'Updated CHANGELOG\nmore' }), 'done', W), 'Updated CHANGELOG');
  assert.is(secondLine(row({ state: 'idle', message: 'old news' }), 'rest', W), '', 'at rest says nothing');
  assert.is(secondLine(row({ state: 'done', subagents: 3 }), 'rest', W), 'claude · 3 subagents', 'a lead at rest with subagents says so');
  assert.is(secondLine(row({ state: 'done', subagents: 1, subagentList: [sub('a'), sub('b', { state: 'done' })] }), 'rest', W), 'claude · 1 of 2 run');
  // Narrow: the harness gives way to the count.
  assert.is(secondLine(row({ state: 'done', subagents: 3, context: 91 }), 'rest', { width: 20, ageInline: '' }), 'ctx 91% · 3 subagents');
  const segs = secondLineSegments(row({ context: 91, meta: { now: 'Edit: a' } }), 'working', W);
  assert.equal(segs.map((s) => [s.token, s.ink ?? '']), [['context', 'warning'], ['now', '']]);
});

test('meta draws every key but tuios\'s own, in report order; $key places one and meta leaves it out; a written list keeps its order', () => {
  const meta = { model: 'opus 4.7', branch: 'rail', context: '42%', cost: '$1.20', prompt: 'make it fast', tests: '12 pass', now: 'Read: a.ts' };
  assert.is(secondLine(row({ meta }), 'working', W), 'rail · 12 pass · Read: a.ts');
  const config = agentRowSchema.parse({ tokens: ['need', '$model', '$context', '$cost', 'meta', 'prompt', 'now'], $context: { fg: 'warning', gt: 40 } });
  const segs = secondLineSegments(row({ meta, context: 42 }), 'working', { ...W, width: 200, config });
  assert.equal(segs.map((s) => s.text), ['opus 4.7', '42%', '$1.20', 'rail · 12 pass', 'make it fast', 'Read: a.ts']);
  assert.is(segs[1]!.ink, 'warning', 'the style applies while its number passes gt');
  const low = secondLineSegments(row({ meta: { ...meta, context: '30%' }, context: 30 }), 'working', { ...W, width: 200, config });
  assert.is(low[1]!.ink, undefined, 'and not below it');
  // A list without subagents draws no count; adding it does.
  const noCount = agentRowSchema.parse({ tokens: ['harness', 'now'] });
  assert.is(secondLine(row({ state: 'done', subagents: 2 }), 'rest', { ...W, config: noCount }), 'claude');
  assert.is(secondLine(row({ state: 'done', subagents: 2 }), 'rest', { ...W, config: agentRowSchema.parse({ tokens: ['harness', 'subagents'] }) }), 'claude · 2 subagents');
});

test('agent_row config: unknown tokens and style tables are refused; progress draws in a written list while it works', () => {
  assert.not.ok(agentRowSchema.safeParse({ tokens: ['bogus'] }).success);
  assert.not.ok(agentRowSchema.safeParse({ nope: { fg: 'warning' } }).success);
  assert.not.ok(agentRowSchema.safeParse({ $model: { fg: 'pink' } }).success);
  assert.not.ok(agentRowSchema.safeParse({ tokens: Array(33).fill('now') }).success, 'at most 32 tokens');
  assert.ok(agentRowSchema.safeParse({ tokens: ['$x.y-z', 'prompt'], subagents: { fg: 'error', gt: 2 } }).success);
  assert.is(secondLine(row({ progress: 40 }), 'working', { ...W, config: agentRowSchema.parse({ tokens: ['progress'] }) }), '40%');
  assert.is(secondLine(row({ progress: 40 }), 'working', W), 'claude', 'not shipped on the row');
});

test('waiting: a lead idle or done with subagents at work wears ◊ (% in ASCII); a working or waiting-on-you one its own mark', () => {
  assert.equal(stateMark('done', false, false, 2), { glyph: '◊', role: 'info' });
  assert.equal(stateMark('idle', true, true, 1), { glyph: '%', role: 'info' });
  assert.is(stateMark('done', true, false, 0)!.glyph, '■');
  assert.is(stateMark('working', false, false, 3)!.glyph, '●');
  assert.is(stateMark('needs_input', false, false, 3)!.glyph, '▲');
});

test('the sort control: you (groups by need, spawn order inside), pri (by state), rec (newest change first); o steps through them', () => {
  const rows = [
    row({ id: 'idle', state: 'idle', stateSince: NOW - 5 }),
    row({ id: 'work', state: 'working', stateSince: NOW - 1 }),
    row({ id: 'err', state: 'errored', stateSince: NOW - 9 }),
    row({ id: 'ask', state: 'needs_input', stateSince: NOW - 7 }),
    row({ id: 'unread', state: 'done', finishedUnread: true, stateSince: NOW - 3 }),
  ];
  assert.equal(orderRows(rows, 'you').map((x) => x.a.id), ['err', 'ask', 'unread', 'work', 'idle'], 'needs you keeps spawn order: err was opened first');
  assert.equal(orderRows(rows, 'pri').map((x) => x.a.id), ['err', 'ask', 'work', 'unread', 'idle']);
  assert.equal(orderRows(rows, 'rec').map((x) => x.a.id), ['work', 'unread', 'idle', 'ask', 'err']);
  assert.equal([nextOrder('you'), nextOrder('pri'), nextOrder('rec')], ['pri', 'rec', 'you']);
  // The strip lists the same order, one mark a line, `+` when they do not fit.
  assert.equal(stripMarks(rows, 'you', false, 10).map((m) => m.glyph), ['×', '▲', '■', '●', '○']);
  assert.equal(stripMarks(rows, 'rec', true, 3).map((m) => m.glyph), ['*', '#', '+']);
});

test('subagent rows: tall with room, short, then the finished left out, then one row a lead (focused first) with +N more, then none', () => {
  const lead = { id: 'L', list: [sub('a', { started_at: 1 }), sub('b', { state: 'done', started_at: 2 }), sub('c', { started_at: 3 })] };
  const other = { id: 'M', list: [sub('x', { started_at: 9 }), sub('y', { started_at: 8 })] };
  let p = planSubagentRows([lead, other], 10, null);
  assert.ok(p.tall);
  assert.equal(p.rows.get('L')!.shown.map((s) => s.id), ['a', 'b', 'c']);
  p = planSubagentRows([lead, other], 5, null);
  assert.not.ok(p.tall);
  assert.is(p.rows.get('L')!.shown.length, 3);
  p = planSubagentRows([lead, other], 4, null);
  assert.equal(p.rows.get('L')!.shown.map((s) => s.id), ['a', 'c'], 'the finished go first');
  p = planSubagentRows([lead, other], 3, 'L');
  assert.equal([p.rows.get('L')!.shown.map((s) => s.id), p.rows.get('L')!.more], [['c'], 1], 'the focused lead first, its newest, then +1 more');
  assert.is(p.rows.get('M'), undefined, 'no room left for the other');
  p = planSubagentRows([lead, other], 3, null);
  assert.equal(p.rows.get('M')!.shown.map((s) => s.id), ['x'], 'else the lead that started one last');
  assert.is(planSubagentRows([lead, other], 1, null).rows.size, 0, 'then none');
  assert.is(subagentDetail(sub('d', { state: 'done', tools: 14 })), 'done · 14 tools');
  assert.is(subagentDetail(sub('r', { now: 'Bash: gh run list', last: 'Read: a' })), 'Bash: gh run list');
  assert.is(subagentDetail(sub('r', { last: 'Read: a' })), 'Read: a', 'between calls, the tool it ran last');
  assert.is(subagentDetail(sub('f', { state: 'failed', result: 'API Error' })), 'failed · API Error');
});

test('drawn: the header says its order unless it is the default; a lead waiting on its subagents, their rows under it', async () => {
  const lead = row({ id: 'L', name: 'lead', state: 'done', subagents: 1, subagentList: [sub('a', { description: 'Research tmux', now: 'Bash: go test ./...' }), sub('b', { description: 'Write the docs', state: 'done', tools: 14 })] });
  let lines = await railText({ agents: [lead], blocked: 1 });
  assert.ok(lines.some((l) => /^ agents\s+1 need you$/.test(l)), lines.join('\n'));
  const at = lines.indexOf(' ◊ lead');
  assert.ok(at > 0, lines.join('\n'));
  assert.equal(lines.slice(at + 1, at + 6), ['    claude · 1 of 2 run', '    ● Research tmux', '      Bash: go test ./…', '    ■ Write the docs', '      done · 14 tools']);
  lines = await railText({ agents: [lead], order: 'rec' });
  assert.ok(lines.includes(' agents rec'), lines.join('\n'));
  lines = await railText({ agents: [lead], subagentRows: 'count' });
  assert.not.ok(lines.some((l) => /Research/.test(l)), 'the count alone');
  // Too little room: short rows, the finished left out, never an agent row hidden.
  lines = await railText({ agents: [lead, row({ id: 'M', name: 'other', state: 'idle' })] }, 9);
  assert.ok(lines.includes('    ● Research tmux') && !lines.some((l) => /Write the docs|go test/.test(l)) && lines.includes(' ○ other'), lines.join('\n'));
});

test('rows long at rest fold into +N at rest at the end, their names under it; what must stay never folds; one alone does not', async () => {
  const HOUR = 3_600_000;
  const old = NOW - 2 * HOUR;
  const agents = [
    row({ id: 'a', name: 'alpha', state: 'idle', stateSince: old }),
    row({ id: 'b', name: 'beta', state: 'done', stateSince: old }),
    row({ id: 'c', name: 'gamma', state: 'unknown', stateSince: old }),
    row({ id: 'd', name: 'delta', state: 'working', stateSince: old }),
    row({ id: 'e', name: 'eps', state: 'done', finishedUnread: true, stateSince: old }),
    row({ id: 'f', name: 'phi', state: 'idle', stateSince: old, queued: 1 }),
    row({ id: 'g', name: 'nu', state: 'idle', stateSince: old, subagents: 1 }),
    row({ id: 'h', name: 'fresh', state: 'idle', stateSince: NOW - 60_000 }),
    row({ id: 'i', name: 'mine', state: 'idle', stateSince: old }),
  ];
  const lines = await railText({ agents, restFoldMs: HOUR, focusedWindow: 'i' }, 40);
  const fold = lines.indexOf('   +3 at rest');
  assert.ok(fold > 0, lines.join('\n'));
  assert.equal(lines.slice(fold + 1, fold + 4), ['    ○ alpha', '    ○ beta', '    □ gamma']);
  for (const stays of ['delta', 'eps', 'phi', 'fresh', 'mine']) assert.ok(lines.slice(0, fold).some((l) => l.includes(` ${stays}`)), `${stays} keeps its row:\n${lines.join('\n')}`);
  assert.ok(lines.slice(0, fold).some((l) => / nu$/.test(l)), 'a lead with subagents at work keeps its row');
  // Opened: every row in its place, no fold.
  const open = await railText({ agents, restFoldMs: HOUR, focusedWindow: 'i', unfolded: true }, 40);
  assert.not.ok(open.some((l) => /at rest/.test(l)));
  assert.ok(open.includes(' ○ alpha'), open.join('\n'));
  // One row alone does not fold; no fold length, none fold.
  assert.not.ok((await railText({ agents: agents.slice(0, 1), restFoldMs: HOUR }, 40)).some((l) => /at rest/.test(l)));
  assert.not.ok((await railText({ agents }, 40)).some((l) => /at rest/.test(l)));
  // Too short for the names: the line alone.
  const short = await railText({ agents, restFoldMs: HOUR, focusedWindow: 'i' }, 18);
  assert.ok(short.some((l) => /\+3 at rest/.test(l)) && !short.some((l) => /alpha/.test(l)), short.join('\n'));
});

test.run();
