// Linked hosts' agents in the agents view (spec: The agents view, The Inbox / Other machines):
// a host's row is named `host:session/name`, reached as `HOST:WINDOW_ID`, sits in the group its
// state puts it in, and while its link is down stays there after the live rows, not counted. A
// replica of a host's pane takes the size its stream reports and says why the stream ended.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Readable } from 'node:stream';
import { countedIn, hostAgentRow, hostRailRow, viewGroup, viewOrder } from '../../tui/rows.js';
import { Replica, splitSizes } from '../../tui/replica.js';
import type { RemoteAgentRow } from '../../core/hosts/remote.js';
import type { Services } from '../../core/daemon/services.js';

const NOW = 1_800_000_000_000;

function row(o: Partial<RemoteAgentRow>): RemoteAgentRow {
  return { host: 'build', window_id: 'w1', short_id: 'w1', name: 'claude', session: 'api', session_id: 's1', harness: 'claude-code', state: 'idle', kind: '', message: '', needs_you: false, state_since: NOW - 1000, finished_unread: false, group: null, cwd: null, down: false, seen_at: NOW, ...o };
}

test('a host\'s agent is named host:session/name, reached as HOST:WINDOW_ID, and has no window here', () => {
  const a = hostAgentRow(row({ window_id: 'abc123' }), 0);
  assert.is(a.name, 'build:api/claude');
  assert.is(a.target, 'build:abc123');
  assert.is(a.id, 'build:abc123');
  assert.is(a.w, null);
  assert.is(a.host, 'build');
  // The rail keeps its shorter host:name.
  assert.is(hostRailRow(row({})).name, 'build:claude');
});

test('peer text is cleaned in the view\'s row too', () => {
  const a = hostAgentRow(row({ session: 'a\x1b[31mpi', name: 'x\x07y', message: 'm\x1b]0;t\x07' }), 0);
  for (const s of [a.name, a.session, a.message]) assert.not.match(s, /[\x00-\x1f\x7f-\x9f]/);
});

test('a host\'s row takes the group its state puts it in, the same five as this machine\'s', () => {
  assert.is(viewGroup(hostAgentRow(row({ state: 'needs_input', kind: 'approval' }), 0), NOW), 'needs');
  assert.is(viewGroup(hostAgentRow(row({ state: 'working' }), 0), NOW), 'working');
  assert.is(viewGroup(hostAgentRow(row({ state: 'done', finished_unread: true }), 0), NOW), 'review');
  assert.is(viewGroup(hostAgentRow(row({ state: 'idle', state_since: NOW - 2 * 3600_000 }), 0), NOW), 'earlier');
  // A question waiting in the host's own Inbox keeps an idle agent under Needs you.
  assert.is(viewGroup(hostAgentRow(row({ state: 'idle', needs_you: true, message: 'which branch?' }), 0), NOW), 'needs');
});

test('a down host\'s rows stay in their group after the live ones, and are not counted', () => {
  const rows = viewOrder([
    { key: 'gpu:old', group: 'needs' as const, since: NOW - 60_000, down: true },
    { key: 'local', group: 'needs' as const, since: NOW - 1000 },
    { key: 'build:w', group: 'working' as const, since: NOW - 5000 },
    { key: 'build:new', group: 'needs' as const, since: NOW - 30_000 },
  ]);
  assert.equal(rows.map((r) => r.key), ['build:new', 'local', 'gpu:old', 'build:w']);
  assert.is(countedIn(rows, 'needs'), 2);
  assert.is(countedIn(rows, 'working'), 1);
});

test('a pane stream\'s size reports are taken out of the text it carries', () => {
  assert.equal(splitSizes('\x1b[8;40;120thello\x1bc\x1b[8;24;80tagain'), [{ rows: 40, cols: 120 }, { text: 'hello\x1bc' }, { rows: 24, cols: 80 }, { text: 'again' }]);
  assert.equal(splitSizes('plain'), [{ text: 'plain' }]);
});

function fakeSvc(stream: Readable & { closeReason: string | null }, opened: unknown[]): Services {
  return { remote: { openStream: (host: string, kind: string, params: unknown) => (opened.push({ host, kind, params }), stream) } } as unknown as Services;
}

test('a replica takes the pane\'s size and text from the stream, and says why it ended', async () => {
  const st = Object.assign(new Readable({ read() {} }), { closeReason: null as string | null });
  const opened: unknown[] = [];
  let changes = 0;
  const r = new Replica(fakeSvc(st, opened), 'build', 'w1', 80, 24, () => changes++);
  assert.equal(opened, [{ host: 'build', kind: 'pane', params: { window: 'w1' } }]);
  assert.is(r.state.kind, 'connecting');
  st.push(Buffer.from('\x1b[8;10;50tfrom the host'));
  await new Promise((res) => setImmediate(res));
  assert.is(r.source.cols, 50);
  assert.is(r.source.rows, 10);
  assert.is(r.state.kind, 'live');
  assert.match(r.screen.screenLines()[0]!, /^from the host/);
  // A character split across two frames is drawn whole.
  st.push(Buffer.from('\r\n\xe2\x94', 'latin1'));
  st.push(Buffer.from('\x80', 'latin1'));
  await new Promise((res) => setImmediate(res));
  assert.match(r.screen.screenLines()[1]!, /^─/);
  st.closeReason = 'host_down: the link to build dropped';
  st.destroy(new Error('dropped'));
  await new Promise((res) => setImmediate(res));
  assert.equal(r.state, { kind: 'closed', reason: 'host_down: the link to build dropped' });
  assert.ok(changes >= 3);
  r.dispose();
});

test('a replica of a host it cannot reach is closed with the reason, and dispose closes the stream', () => {
  const down = { remote: { openStream: () => { throw new Error('the link to build is down'); } } } as unknown as Services;
  const r = new Replica(down, 'build', 'w1', 80, 24, () => {});
  assert.equal(r.state, { kind: 'closed', reason: 'the link to build is down' });
  r.dispose();
  const st = Object.assign(new Readable({ read() {} }), { closeReason: null as string | null });
  const live = new Replica(fakeSvc(st, []), 'build', 'w1', 80, 24, () => {});
  live.dispose();
  assert.ok(st.destroyed, 'the stream is closed with the view');
});

test.run();
