// The live path with a real agent in a pane, as a subscriber sees it (issue: detection that holds
// on the versions it was not written from, the live mismatches): Claude Code from npm against the
// fake model API, no integration installed, one turn with an approval, watched through subscribe.
// - the agent's start publishes one agent-state (none → unknown, or straight to a reading), never a
//   none → none that only names the harness;
// - every event of the stream arrives in seq order, also where one event causes another (the
//   Inbox opening an item on an agent-state).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { RpcClient } from '../../core/rpc/client.js';
import { waitFor } from '../helpers/wait.js';
import { waitForQuiet } from '../helpers/agents.js';
import { RealAgent } from '../helpers/real-agent.js';

const t = suite('live path: claude-code');
const a = new RealAgent('claude-code', { name: 'live', daemon: { config: '[daemon]\nrespond_from_shell = true\n' } });
const it = a.gate(t);
/** Every event of every type, in the order the stream gave them. */
const all: Array<{ type: string; seq: number; window_id?: string; state?: string; old_state?: string; harness?: string | null }> = [];
let stream: RpcClient | null = null;

t.before(async () => {
  await a.start();
  if (!a.needs.met) return;
  stream = await a.d.client();
  await stream.stream('subscribe', {}, (e) => all.push(e as (typeof all)[number]));
});
t.after(async () => {
  stream?.close();
  await a.stop();
});

it('the start publishes no none → none: the harness and unknown come in one event', async () => {
  await a.waitRow('idle', { what: 'claude-code at rest at its prompt' });
  const first = a.states[0];
  assert.ok(first, a.published());
  assert.is.not(first!.state, 'none', `the first agent-state of the pane: ${a.published()}`);
  const noops = a.states.filter((e) => (e as { old_state?: string }).old_state === 'none' && e.state === 'none');
  assert.equal(noops, [], `no none → none events: ${a.published()}`);
});

it('a turn with an approval: every event reaches the subscriber in seq order', async () => {
  await waitForQuiet(a.d, a.window, 2000, 60_000);
  const from = all.length;
  const asked = await a.d.call<{ state: string }>('ask-agent', { window: a.window, text: 'Please create hello.txt', timeout: 120_000 });
  assert.is(asked.state, 'needs_input', JSON.stringify(asked));
  const item = await waitFor(async () => (await a.d.call<{ items: Array<{ kind: string; window_id: string | null }> }>('list-attention')).items.find((i) => i.window_id === a.window && i.kind === 'approval'), { timeout: 60_000, what: 'the approval in the Inbox' });
  assert.ok(item);
  await a.d.ok(['respond', '-w', a.window, 'approve']);
  await waitFor(() => existsSync(join(a.project, 'hello.txt')), { timeout: 60_000, what: 'the approved command to run' });
  await a.waitRow('idle', { timeout: 60_000, what: 'claude-code at rest after the turn' });
  const seen = all.slice(from);
  assert.ok(seen.some((e) => e.type === 'attention'), 'the Inbox published while the agent-state events went out');
  const out = seen.filter((e, i) => i > 0 && e.seq <= seen[i - 1]!.seq).map((e) => `${e.type} ${e.seq}`);
  assert.equal(out, [], `events out of seq order: ${out.join(', ')}`);
});

t.run();
