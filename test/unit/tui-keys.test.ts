// The TUI's keys are data (tui/key-table.ts): one table per view dispatches a key and draws every
// line that lists keys. These fail when a table and what it draws drift apart: two rows of a
// table claiming one key at once, a hint naming a key that goes to another row, a row missing
// from both the help and its footer, or a help line no row stands for.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { hintRows, hintText, helpEntries, OTHER_KEY, rowFor, type KeyTable } from '../../tui/key-table.js';
import { AGENTS_KEYS, type AgentsKeyState, type AgentsMode } from '../../tui/agents-keys.js';
import { MAILBOX_KEYS, type MailboxKeyState, type MailboxMode } from '../../tui/mailbox-keys.js';
import { CONFIRM_KEYS, GLOBAL_KEYS, PREFIX_KEYS, type AppKeyState } from '../../tui/app-keys.js';
import { EDITOR_KEYS, Editor, editorHint } from '../../tui/editor.js';
import { SWITCHER_KEYS } from '../../tui/switcher.js';
import { COMPARE_LIST_KEYS, type CompareKeyState } from '../../tui/compare-keys.js';
import { helpLines } from '../../tui/help.js';
import { REVIEW_KEYS, type ReviewKeyState, type ReviewMode } from '../../tui/review-keys.js';
import { RAIL_KEYS, type RailKeyState } from '../../tui/rail-control.js';

type AnyTable = KeyTable<never, never, unknown>;

function product<T extends object>(axes: { [K in keyof T]: ReadonlyArray<T[K]> }): T[] {
  let out: Array<Partial<T>> = [{}];
  for (const k of Object.keys(axes) as Array<keyof T>) out = out.flatMap((o) => axes[k].map((v) => ({ ...o, [k]: v })));
  return out as T[];
}

const AGENT_MODES = Object.keys(AGENTS_KEYS) as AgentsMode[];
const CARDS: AgentsKeyState['card'][] = [null, { kind: 'prompt', offered: ['approve', 'approve_always', 'deny', 'choose', 'text'], choices: 3 }, { kind: 'ask', choices: 2 }];

/** Every situation of the agents view worth telling apart (consistent ones only). */
function agentStates(mode: AgentsMode): AgentsKeyState[] {
  return product<Omit<AgentsKeyState, 'mode' | 'heldOffers'>>({
    marked: [false, true],
    markedShown: [false, true],
    allMarked: [false, true],
    row: ['none', 'agent', 'item', 'host-agent', 'host-item'],
    needsYou: [false, true],
    down: [false, true],
    mail: [false, true],
    snoozed: [false, true],
    held: [null, 'approval', 'plan'],
    reasons: [false, true],
    card: CARDS,
  })
    .filter((s) => (!s.markedShown || s.marked) && (!s.down || s.row === 'host-agent') && (!s.snoozed || s.row === 'item') && (s.held === null || s.row === 'agent' || s.row === 'item'))
    .map((s) => ({ ...s, mode, heldOffers: s.held ? ['1', '2', '3'] : [] }));
}

const TABLES: Array<{ name: string; table: AnyTable; states: unknown[] }> = [
  ...AGENT_MODES.filter((m) => m !== 'narrow-focus').map((m) => ({ name: `agents ${m}`, table: AGENTS_KEYS[m] as AnyTable, states: m === 'list' ? [...agentStates('list'), ...agentStates('narrow-focus')] : agentStates(m) })),
  ...(Object.keys(MAILBOX_KEYS) as MailboxMode[]).map((m) => ({ name: `mailbox ${m}`, table: MAILBOX_KEYS[m] as AnyTable, states: [true, false].map((back): MailboxKeyState => ({ mode: m, back })) })),
  ...[PREFIX_KEYS, GLOBAL_KEYS].map((t, i) => ({ name: i ? 'global' : 'prefix', table: t as AnyTable, states: product<AppKeyState>({ overlay: [false, true], agentsSeen: [false, true] }) })),
  { name: 'confirm', table: CONFIRM_KEYS as AnyTable, states: [null] },
  { name: 'editor', table: EDITOR_KEYS as AnyTable, states: [null, { block: false, reading: false }, { block: true, reading: false }, { block: true, reading: true }, { block: false, reading: false, searching: true }, { block: true, reading: false, searching: true }, { block: false, reading: false, naming: true }, { block: true, reading: false, naming: true }, { block: true, reading: false, image: true }, { block: true, reading: true, image: true }] },
  { name: 'switcher', table: SWITCHER_KEYS as AnyTable, states: [null] },
  { name: 'rail', table: RAIL_KEYS as AnyTable, states: product<RailKeyState>({ row: [false, true], fold: [false, true], undoDrop: [false, true] }).filter((s) => (s.row || !s.undoDrop) && !(s.row && s.fold)) },
  { name: 'compare', table: COMPARE_LIST_KEYS as AnyTable, states: product<CompareKeyState>({ mode: ['list', 'keep', 'verify', 'diff'], marked: [0, 1, 2], hasRows: [false, true] }) },
  ...(Object.keys(REVIEW_KEYS) as ReviewMode[]).map((m) => ({ name: `review ${m}`, table: REVIEW_KEYS[m] as AnyTable, states: product<Omit<ReviewKeyState, 'mode'>>({ onNote: [false, true], onLine: [false, true], unsent: [false, true], fan: [false, true] }).filter((x) => !(x.onNote && x.onLine)).map((x) => ({ ...x, mode: m })) })),
];

const key = (name: string) => ({ t: 'key' as const, raw: name, name });

test('no two rows of a table claim the same key in the same situation', () => {
  for (const { name, table, states } of TABLES) {
    const keys = [...new Set(table.flatMap((r) => r.keys))];
    for (const s of states) {
      for (const k of keys) {
        const claim = table.filter((r) => r.keys.includes(k) && (!r.when || r.when(s as never)));
        assert.ok(claim.length <= 1, `${name}: ${JSON.stringify(k)} is claimed by ${claim.map((r) => r.help).join(' and ')} in ${JSON.stringify(s)}`);
      }
    }
  }
});

test('a key a hint line shows goes to the row that line names', () => {
  for (const { name, table, states } of TABLES) {
    for (const s of states) {
      for (const line of ['footer', 'card'] as const) {
        for (const row of hintRows(table, s as never, line)) {
          const k = row.keys[0]!;
          const tok = k === OTHER_KEY ? { t: 'paste' as const, raw: '', text: '' } : key(k);
          assert.is(rowFor(table, s as never, tok), row, `${name}: the ${line} shows ${JSON.stringify(k)} ${row.help}, which goes elsewhere in ${JSON.stringify(s)}`);
        }
      }
    }
  }
});

/** The help overlay's text: every line, its key column and what it says. */
function helpText(): string {
  return helpLines(true, 10_000)
    .map((l) => (typeof l === 'string' ? l : `${l[0]} ${l[1]}`))
    .join('\n');
}

test('every row is in the help overlay or on its footer in some situation', () => {
  const help = helpText();
  for (const { name, table, states } of TABLES) {
    for (const row of table) {
      if (row.keys.includes(OTHER_KEY)) continue;
      const e = helpEntries([row] as AnyTable)[0]!;
      const inHelp = help.includes(`${e.label} ${e.help}`);
      const onFooter = states.some((s) => hintRows(table, s as never).includes(row));
      const onCard = states.some((s) => hintRows(table, s as never, 'card').includes(row));
      assert.ok(inHelp || onFooter || onCard, `${name}: ${e.label} ${e.help} is shown nowhere`);
    }
  }
});

test('every key the help overlay lists is a row of a table that dispatches it', () => {
  const all = TABLES.flatMap((t) => helpEntries(t.table)).map((e) => `${e.label} ${e.help}`);
  for (const l of helpLines(true, 60)) {
    if (typeof l === 'string') continue;
    // A section's items, wrapped: take off every row's text; nothing but separators may be left.
    let rest = l[0] && !/^(in the view|on the rail|peeking|mailbox|compare|review|typing)/.test(l[0]) ? `${l[0]} ${l[1]}` : l[1];
    if (rest === 'Any key closes this.') continue;
    for (const item of [...all].sort((a, b) => b.length - a.length)) rest = rest.split(item).join('');
    assert.ok(/^[,\s]*$/.test(rest), `the help says "${rest.trim()}", which no key table has (line: ${JSON.stringify(l)})`);
  }
  // Before the first agent: the agents section is left out, the panes' keys stay.
  const before = helpLines(false, 60).map((l) => (typeof l === 'string' ? l : l.join(' '))).join('\n');
  assert.not.match(before, /Agents \(after ctrl\+b\)/);
  assert.match(before, /c new window in this workspace/);
});

test('the words tests and people read are the tables\'s: footers, the snooze and state questions, the editor line', () => {
  const list = agentStates('list').find((s) => s.row === 'none' && !s.marked)!;
  assert.is(
    hintText(hintRows(AGENTS_KEYS.list, list), list),
    'j/k move   enter go   r reply   d dismiss   z snooze   u undo   S snoozed   / select   f filter   x mark   m mailbox   ? help   esc close',
  );
  const held = agentStates('list').find((s) => s.row === 'agent' && s.held === 'approval' && s.reasons && !s.marked)!;
  const card = hintRows(AGENTS_KEYS.list, held, 'card');
  assert.equal(card.map((r) => r.keys[0]), ['1', '2', '3', 'R', 'Enter', 'd']);
  assert.is(editorHint(true), 'enter send  ctrl+j new line  ctrl+z undo  esc close');
  assert.is(editorHint(false), '↵ send  ctrl+j new line  ctrl+z undo  esc close');
  const peek = { ...list, mode: 'peek' as const, row: 'agent' as const, card: CARDS[1]! };
  assert.equal(hintRows(AGENTS_KEYS.peek, peek, 'card').map((r) => r.says?.(peek) ?? r.help), ['allow once', 'always', 'deny', '1-3 choose', 'type an answer', 'back', 'pane']);
  assert.equal(hintRows(AGENTS_KEYS.peek, peek).map((r) => r.help), ['back', 'pane', 'read it again'], 'answer keys wait on the card, never on the footer');
});

test('the editor keys: enter sends unless a backslash ends the line, ctrl+j breaks it, ctrl+z undoes', () => {
  const ed = new Editor();
  for (const ch of 'one\\') ed.key(key(ch));
  assert.is(ed.key(key('Enter')), 'handled', 'a backslash before enter is a line break');
  assert.is(ed.value(), 'one\n');
  ed.key(key('t'));
  ed.key(key('C-j'));
  assert.is(ed.value(), 'one\nt\n');
  ed.key(key('C-z'));
  assert.is(ed.value(), 'one\nt');
  assert.is(ed.key(key('Enter')), 'send');
  assert.is(ed.key(key('Esc')), 'close');
  assert.is(ed.key(key('F5')), 'ignored');
});


test('no global key is a bare printable character: the TUI sends those to the pane unread (app.ts input)', () => {
  for (const s of product<AppKeyState>({ overlay: [false, true], agentsSeen: [false, true] })) {
    for (let c = 0x20; c < 0x7f; c++) {
      const ch = String.fromCharCode(c);
      const row = rowFor(GLOBAL_KEYS as AnyTable, s as never, { t: 'key', raw: ch, name: ch });
      assert.is(row, undefined, `"${ch}" is bound by a global key (${row && JSON.stringify(row.keys)})`);
    }
  }
});

test.run();
