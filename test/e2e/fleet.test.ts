// The fleet helper (test/helpers/fleet.ts) at a small size, so the fleet bench stands on something
// the suite checks: 3 peers of 5 agent panes, the hub linked to each. Every agent is on the hub
// with the state its pane's own OSC 7501 report gave; a report typed into one pane reaches the
// hub's row and its Inbox; a peer cut off (stopped: it answers nothing and closes nothing) is
// shown down with its rows kept, the others untouched, and once it answers again its link comes
// back and the hub holds what its agents say now.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startFleet, stopFleet, report, cut, heal, type Fleet } from '../helpers/fleet.js';
import { waitHost } from '../helpers/link.js';
import { waitFor } from '../helpers/wait.js';

interface Agent {
  host: string;
  window_id: string;
  name: string;
  state: string;
  message: string;
  down?: boolean;
}

let f: Fleet;
const hubAgents = async () => (await f.hub.d.call<{ agents: Agent[] }>('list-agents', { all_hosts: true })).agents.filter((a) => a.host !== 'local');

test.before(async () => {
  f = await startFleet({ hosts: 3, panes: 5 });
});

test.after(async () => {
  if (f) await stopFleet(f);
});

test('every agent of every peer is on the hub with the state its pane reported', async () => {
  const out = JSON.parse(await f.hub.d.ok(['list-agents', '--all-hosts', '--json'])) as { agents: Agent[] };
  const rows = out.agents.filter((a) => a.host !== 'local');
  assert.is(rows.length, 15);
  for (const p of f.peers) {
    const mine = rows.filter((a) => a.host === p.name);
    assert.equal(mine.map((a) => a.window_id).sort(), [...p.windows].sort(), `${p.name}'s panes`);
    assert.equal(mine.map((a) => a.name).sort(), ['a00', 'a01', 'a02', 'a03', 'a04']);
  }
  assert.ok(rows.every((a) => a.state === 'idle' && a.message === 'ready' && a.down === false), JSON.stringify(rows.slice(0, 2)));
});

test('a state one pane reports reaches the hub: its row, and its approval in the hub\'s Inbox', async () => {
  const p = f.peers[1]!;
  const w = p.windows[3]!;
  await report(p, w, { state: 'needs_input', kind: 'approval', message: 'May I deploy p02' });
  const row = await waitFor(async () => (await hubAgents()).find((a) => a.host === p.name && a.window_id === w && a.state === 'needs_input'), { what: 'the approval on the hub\'s row' });
  assert.is(row.message, 'May I deploy p02');
  const items = await waitFor(async () => {
    const r = await f.hub.d.call<{ items: Array<{ host?: string; kind: string; summary: string }> }>('list-attention');
    return r.items.filter((i) => i.host === p.name);
  }, { what: 'the approval in the hub\'s Inbox' });
  assert.is(items.length, 1);
  assert.is(items[0]!.kind, 'approval');
  assert.match(items[0]!.summary, /May I deploy p02/);
  // Only that pane changed.
  assert.is((await hubAgents()).filter((a) => a.state !== 'idle').length, 1);
});

test('a peer cut off is shown down with its rows kept; once it answers again the hub holds what it says now', async () => {
  const p = f.peers[2]!;
  cut(p);
  // Nothing closes the link: the hub finds it silent after three unanswered pings of 5 s.
  await waitHost(f.hub, p.name, (h) => h.state === 'down', 'down', 45_000);
  const kept = (await hubAgents()).filter((a) => a.host === p.name);
  assert.is(kept.length, 5, 'its rows stay');
  assert.ok(kept.every((a) => a.down === true), 'muted as down');
  for (const o of f.peers.slice(0, 2)) assert.is((await waitHost(f.hub, o.name, () => true, 'listed')).state, 'up', `${o.name} untouched`);
  heal(p);
  await report(p, p.windows[0]!, { state: 'working', message: 'back at it' });
  await waitHost(f.hub, p.name, (h) => h.state === 'up', 'up again', 45_000);
  await waitFor(async () => {
    const rows = (await hubAgents()).filter((a) => a.host === p.name);
    return rows.length === 5 && rows.every((a) => a.down === false) && rows.find((a) => a.window_id === p.windows[0])?.message === 'back at it';
  }, { timeout: 30_000, what: `${p.name}'s rows current on the hub` });
});

test.run();
