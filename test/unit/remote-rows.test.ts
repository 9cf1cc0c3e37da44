// A linked host's rows as list-agents --all-hosts and list-attention answer them
// (core/hosts/rows.ts): each row is the host's row with its tags, fields in the row's order. How
// fast a fleet's worth is made is the fleet bench's to say (test/bench/fleet.bench.ts): written as
// a spread, 800 agent rows took 2.5 ms a call and tens of ms at the 99th percentile.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { remoteAgentJson, remoteItemJson } from '../../core/hosts/rows.js';
import type { RemoteAgentRow, RemoteItemRow } from '../../core/hosts/remote.js';

const NOW = 1_800_000_000_000;

function agent(host: string, i: number): RemoteAgentRow {
  return { host, window_id: `${i}`.padStart(32, '0'), short_id: `${i}`.padStart(12, '0'), name: `a${i}`, session: 'fleet', session_id: 'f'.repeat(32), harness: i % 2 ? 'claude-code' : null, state: 'working', kind: '', message: `step ${i}`, needs_you: false, state_since: NOW - 5000, finished_unread: false, group: null, cwd: '/home/me/api', down: i % 3 === 0, seen_at: NOW - 1500 };
}

const item: RemoteItemRow = { host: 'build', id: 17, kind: 'approval', window_id: 'w'.repeat(32), session: 'api', name: 'claude', harness: 'claude-code', summary: 'May I deploy', opened_at: NOW - 9000, updated_at: NOW - 4000, options: ['yes', 'no'], held: false, unread: true, down: false, seen_at: NOW - 500 };

test('an agent row is the host\'s row, in its order, with its target, seen_ms and counted', () => {
  const r = agent('build', 3);
  const j = remoteAgentJson(r, NOW);
  assert.equal(j, { ...r, target: 'build:fleet:a3', seen_ms: 1500, counted: false });
  assert.equal(Object.keys(j), [...Object.keys(r), 'target', 'seen_ms', 'counted']);
});

test('an Inbox row is the host\'s row, its id HOST:ID, with its label and times, muted as its link is', () => {
  const j = remoteItemJson(item, NOW);
  assert.equal(j, { ...item, id: 'build:17', host_item_id: 17, label: 'build:api/claude-code', waited_ms: 9000, seen_ms: 500, muted: false, counted: true, display_only: true });
  assert.equal(Object.keys(j), [...Object.keys(item), 'host_item_id', 'label', 'waited_ms', 'seen_ms', 'muted', 'counted', 'display_only']);
  assert.is(remoteItemJson({ ...item, down: true }, NOW).counted, false);
});

test.run();
