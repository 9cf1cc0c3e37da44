// Who queued a message, as `list-queued` shows it in `by` (spec: Queued messages, "Who may do
// what"): a process in a pane is that pane's window id, and a linked machine is `link:HOST`, the
// person there included (their nonce is that machine's, and never verifies here). Two real
// daemons linked over loopback SSH; the messages wait in a pane running `sleep`, which no rule
// reads as an agent, so nothing is typed while the test looks. (human and shell are in
// typing-edges.test.ts, `tuios mail` in queue-wake.test.ts.) Then: the policy is read again when
// the message is typed, so `write = false` for the hub here drops what the hub queued, untyped;
// there the messages wait behind a working turn of the Claude Code stand-in.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { link, linkLogLines, startHost, type Host } from '../helpers/link.js';
import { screenStandin } from '../helpers/screen-standin.js';
import { stateOf, waitState } from '../helpers/agent-state.js';
import type { RpcClient } from '../../core/rpc/client.js';
import type { Queued } from '../../core/verbs/typing.js';

const TUIOS = `${process.execPath} ${BIN}`;
let hub: Host;
let peer: Host;
let hubClient: RpcClient;
let hubNonce: string;
let target = '';

const queuedOn = async (h: Host, w: string) => (await h.d.call<{ queued: Queued[] }>('list-queued', { window: w })).queued;

test.before(async () => {
  // respond for the hub here, so a call the hub's person makes arrives vouched for.
  peer = await startHost('peer', { config: '[hosts.hub]\nrespond = true\n' });
  hub = await startHost('hub');
  await link(hub, peer);
  await peer.d.ok(['new-session', 'api', 'sleep', '3600']);
  target = (await peer.d.call<{ id: string }>('new-window', { session: 'api', name: 'target', argv: ['sleep', '3600'] })).id;
  await hub.d.ok(['new-session', 'main', 'sleep', '3600']);
  hubClient = await hub.d.client();
  hubNonce = (await hubClient.stream<{ nonce: string | null }>('attach', { mode: 'control' }, () => {})).nonce!;
  assert.ok(hubNonce, 'the attached client on the hub holds a nonce');
});

test.after(async () => {
  hubClient?.close();
  await hub?.d.stop();
  await peer?.d.stop();
});

test('a process in a pane queues as that pane: by is its window id', async () => {
  const out = join(peer.d.dir, 'queued-from-pane.json');
  const queuer = (await peer.d.call<{ id: string }>('new-window', {
    session: 'api',
    name: 'queuer',
    argv: ['sh', '-c', `${TUIOS} queue -w ${target} 'from a pane' --json > ${out}.tmp 2>&1; mv ${out}.tmp ${out}; exec sleep 3600`],
  })).id;
  const r = await waitFor(() => (existsSync(out) ? (JSON.parse(readFileSync(out, 'utf8')) as { id: string; by: string }) : null), { timeout: 30_000, what: 'the queue call from the pane' });
  assert.is(r.by, queuer);
  const m = (await queuedOn(peer, target)).find((x) => x.id === r.id);
  assert.ok(m, 'listed on the target');
  assert.is(m!.text, 'from a pane');
  assert.is(m!.by, queuer);
  assert.match(m!.by, /^[0-9a-f]{32}$/, 'a window id');
  assert.is.not(m!.by, target);
});

test('a linked machine queues as link:HOST, from a shell there and from the person there', async () => {
  const fromShell = JSON.parse(await hub.d.ok(['queue', '-w', `peer:${target}`, 'from the hub shell', '--json'])) as { id: string; by: string };
  assert.is(fromShell.by, 'link:hub');
  const fromPerson = await hub.d.call<{ id: string; by: string }>('queue-prompt', { window: `peer:${target}`, text: 'from the hub person', nonce: hubNonce });
  assert.is(fromPerson.by, 'link:hub');
  const listed = await queuedOn(peer, target);
  const byText = new Map(listed.map((m) => [m.text, m]));
  assert.is(byText.get('from the hub shell')?.by, 'link:hub', JSON.stringify(listed));
  assert.is(byText.get('from the hub person')?.by, 'link:hub', JSON.stringify(listed));
  assert.is(byText.get('from the hub shell')?.id, fromShell.id);
  assert.is(byText.get('from the hub person')?.id, fromPerson.id);
  // Queued on the peer in one place: the hub's own queue holds nothing.
  assert.is((await hub.d.call<{ queued: Queued[] }>('list-queued', { all: true })).queued.length, 0);
});

test('write taken away from the hub here drops what it queued: logged, never typed', async () => {
  // A stand-in whose turn lasts 10 s: what the hub queues waits behind it.
  const s = screenStandin(peer.d.dir, 'busy');
  const cwd = join(peer.d.home, 'project');
  mkdirSync(cwd, { recursive: true });
  const agent = (await peer.d.call<{ id: string }>('new-window', { session: 'api', name: 'busy', argv: s.argv, env: { ...s.env, STANDIN_WORK_MS: '10000' }, cwd, cols: 120, rows: 40 })).id;
  await waitState(peer.d, agent, 'idle', { timeout: 60_000, what: 'the stand-in at rest' });
  await peer.d.call('queue-prompt', { window: agent, text: 'a long turn' });
  await waitState(peer.d, agent, 'working', { timeout: 30_000, what: 'the stand-in working' });
  const q = JSON.parse(await hub.d.ok(['queue', '-w', `peer:${agent}`, 'from the hub, then refused', '--json'])) as { id: string; by: string };
  assert.is(q.by, 'link:hub');

  const cfg = join(peer.d.dir, 'config', 'tuios', 'config.toml');
  writeFileSync(cfg, readFileSync(cfg, 'utf8').replace('respond = true', 'respond = true\nwrite = false'));
  // In force once the hub's next queueing is refused (a probe into the sleep pane, never typed).
  await waitFor(async () => /forbidden/.test((await hub.d.cli(['queue', '-w', `peer:${target}`, 'probe'])).stderr), { timeout: 30_000, what: 'write = false in force on the peer' });
  assert.is((await stateOf(peer.d, agent)).state, 'working', 'the turn outlasted the change: the hub\'s message is still untyped');
  assert.ok((await queuedOn(peer, agent)).some((m) => m.id === q.id && m.status === 'waiting'), 'still queued while the turn runs');

  // The turn ends; at the rest the message is dropped, not typed.
  await waitFor(async () => (await queuedOn(peer, agent)).length === 0, { timeout: 60_000, what: 'the hub\'s message gone from the queue' });
  await waitState(peer.d, agent, ['idle', 'done'], { timeout: 30_000, what: 'the stand-in at rest' });
  const submitted = s.events().filter((e) => e.t === 'submit').map((e) => e.text);
  assert.equal(submitted, ['a long turn'], 'only the peer\'s own message was typed');
  await waitFor(() => linkLogLines(peer, /queued message dropped before typing/).some((l) => l.includes(q.id) && l.includes('forbidden')), { timeout: 10_000, what: 'the drop in the peer\'s log' });
});

test.run();
