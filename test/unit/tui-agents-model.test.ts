// The agents view's model and the TUI's pure parts (tui/agents-model.ts, app-walk.ts,
// app-alerts.ts), without a daemon: the rows in their groups, the filter and the selector's
// words, marks, a linked host's row hidden here until it changes, and where ctrl+b o and O go.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AgentsModel, newAgentsViewMemory, type AgentsSource } from '../../tui/agents-model.js';
import { nextFinished, nextNeedsYou } from '../../tui/app-walk.js';
import { arrivalAlert, stateAlert } from '../../tui/app-alerts.js';
import type { AgentRow } from '../../tui/rows.js';
import type { Item } from '../../core/inbox/inbox.js';
import type { BusEvent } from '../../core/bus.js';

const NOW = 1_800_000_000_000;

function agent(id: string, o: Partial<AgentRow> = {}): AgentRow {
  return { id, w: null, target: id, name: id, session: 'main', sessionId: 's1', order: [0, 0], state: 'idle', kind: '', message: '', harness: 'claude-code', finishedUnread: false, stateSince: NOW - 60_000, meta: {}, queued: 0, subagents: 0, subagentList: null, progress: null, context: null, items: [], ...o };
}

function item(id: number, o: Partial<Item> = {}): Item {
  return { id, kind: 'question', window_id: null, session_id: 's1', session: 'main', name: null, harness: null, summary: `item ${id}`, opened_at: NOW - 10_000, updated_at: NOW - 10_000, snoozed_until: null, unread: true, ref: {}, ...o };
}

function source(agents: AgentRow[], items: Item[] = []): AgentsSource {
  return {
    agents: () => agents,
    items: () => items,
    snoozed: () => [],
    hostItems: () => [],
    visible: () => true,
    selectorRow: { agent: (a) => ({ harness: a.harness, harnessNames: [], state: a.state, session: a.session, name: a.name, host: a.host ?? 'local' }), item: () => ({ harness: null, harnessNames: [] }), hostItem: () => ({ harness: null, harnessNames: [] }) },
  };
}

const noWake = () => {};

test('rows come in their groups, needs you first, and an Inbox item with no pane of its own joins them', () => {
  const m = new AgentsModel(newAgentsViewMemory());
  const rows = m.build(source([agent('busy', { state: 'working' }), agent('stuck', { state: 'needs_input', kind: 'approval' })], [item(7)]), NOW, noWake);
  assert.equal(rows.map((r) => [r.key, r.group]), [['stuck', 'needs'], ['item:7', 'needs'], ['busy', 'working']], 'the oldest wait first');
  assert.is(m.selected()?.key, 'stuck', 'the first row is selected when none was');
  m.move(1e9);
  assert.is(m.selected()?.key, 'busy');
});

test('f cycles every row, the items, then one kind; words and key:value terms narrow the list', () => {
  const m = new AgentsModel(newAgentsViewMemory());
  const src = source([agent('alpha', { state: 'working' }), agent('beta', { state: 'needs_input', kind: 'approval' })]);
  assert.is(m.cycleFilter(), 'Only the items: Needs you and Ready for review.');
  assert.equal(m.build(src, NOW, noWake).map((r) => r.key), ['beta']);
  assert.is(m.cycleFilter(), 'Only approval items.');
  assert.is(m.filterTag(), 'approval');
  for (let i = 0; i < 6; i++) m.cycleFilter();
  assert.is(m.filter, 0, 'back to every agent');
  assert.ok(m.applySelector('alp'));
  assert.equal(m.build(src, NOW, noWake).map((r) => r.key), ['alpha']);
  assert.ok(m.applySelector('state:needs_input'));
  assert.equal(m.build(src, NOW, noWake).map((r) => r.key), ['beta']);
  assert.not.ok(m.applySelector('nosuchkey:x'), 'a bad selector is refused');
  assert.ok(m.selectorError);
  assert.is(m.mem.selector, 'state:needs_input', 'and the one in force stays');
});

test('marks: x toggles, * marks every shown row and then clears them, and only shown marks count', () => {
  const m = new AgentsModel(newAgentsViewMemory());
  const src = source([agent('alpha'), agent('bravo')]);
  m.build(src, NOW, noWake);
  m.toggleMark(m.selected());
  assert.equal(m.markedShown().map((r) => r.key), ['alpha']);
  m.markAllOrClear();
  assert.ok(m.allMarked());
  m.markAllOrClear();
  assert.is(m.marks.size, 0);
  m.toggleMark(m.rows[1]!);
  m.applySelector('alpha');
  m.build(src, NOW, noWake);
  assert.is(m.marks.size, 1);
  assert.equal(m.markedShown(), [], 'a mark the search hides is left out');
});

test('a linked host\'s row hidden here stays hidden until it changes, and u brings it back within the window', () => {
  const m = new AgentsModel(newAgentsViewMemory());
  const remote = agent('peer:w1', { host: 'peer', state: 'idle' });
  m.hideHere('peer:w1', `${remote.state}|${remote.kind}|${remote.stateSince}|`, NOW);
  assert.equal(m.build(source([remote]), NOW, noWake), []);
  assert.ok(m.unhide(NOW + 1000));
  assert.is(m.build(source([remote]), NOW, noWake).length, 1);
  m.hideHere('peer:w1', `${remote.state}|${remote.kind}|${remote.stateSince}|`, NOW);
  assert.is(m.build(source([{ ...remote, state: 'working', stateSince: NOW }]), NOW, noWake).length, 1, 'it said something else: shown again');
  assert.not.ok(m.unhide(NOW + 60 * 60_000), 'nothing to undo once it came back');
});

test('a row is mail when mail is what it shows; its thread is what enter opens', () => {
  const m = new AgentsModel(newAgentsViewMemory());
  const rows = m.build(source([], [item(3, { kind: 'mail', ref: { thread: 12 } }), item(4, { kind: 'mail', ref: {} })]), NOW, noWake);
  assert.equal(rows.map((r) => m.mailThread(r)), [12, null]);
});

test('ctrl+b o walks what needs you oldest first and goes round; O walks finished turns newest first', () => {
  const items = [item(1, { opened_at: NOW - 5000 }), item(2, { opened_at: NOW - 9000 }), item(3, { kind: 'done' })];
  const a = nextNeedsYou(items, [], null, NOW)!;
  assert.is(a.item?.id, 2);
  const b = nextNeedsYou(items, [], a.walk, NOW)!;
  assert.is(b.item?.id, 1);
  assert.is(nextNeedsYou(items, [], b.walk, NOW)!.item?.id, 2, 'round again');
  assert.is(nextNeedsYou([], [agent('peer:w', { host: 'peer', state: 'needs_input', down: true })], null, NOW), null, 'a down host is skipped');
  const rows = [agent('old', { finishedUnread: true, stateSince: NOW - 9000 }), agent('new', { finishedUnread: true, stateSince: NOW - 1000 })];
  const f = nextFinished(rows, null, NOW)!;
  assert.is(f.row.id, 'new');
  assert.is(nextFinished(rows, f.walk, NOW + 1000)!.row.id, 'old');
  assert.is(nextFinished(rows, f.walk, NOW + 60_000)!.row.id, 'new', 'later, the newest again');
});

test('the dock alerts on a pane that needs you unless you look at it, and on asks and mail here', () => {
  const ev = { window_id: 'w1', session_id: 's1', state: 'needs_input', old_state: 'working', kind: 'approval', harness: 'claude-code', name: 'w', message: 'Bash' } as unknown as BusEvent<'agent-state'>;
  assert.is(stateAlert(ev, { sessionId: 's1', sessionName: 'main', lookingAt: null })?.state, 'approval');
  assert.is(stateAlert(ev, { sessionId: 's1', sessionName: 'main', lookingAt: 'w1' }), null);
  const here = { sessionId: 's1', visible: () => true };
  assert.is(arrivalAlert(item(1, { kind: 'question' }), here), null, 'this session\'s states alert from the state sync');
  assert.is(arrivalAlert(item(2, { kind: 'mail' }), here)?.state, 'mail');
  assert.is(arrivalAlert(item(3, { kind: 'question', session_id: 's2' }), here)?.needsYou, true);
});

test.run();
