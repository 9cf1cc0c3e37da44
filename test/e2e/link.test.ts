// Three daemons on loopback, each with its own XDG folders and SSH port: a hub linked to two
// peers (build and ci) the way a person links them (`hosts add --yes`), then an agent on a peer
// that waits for an answer, mail across the link, a peer killed with SIGKILL while mail waits for
// it, the hub restarted with that mail on disk, and a peer whose [hosts] table keeps answering
// prompts off and holds the hub's mail for the person there.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { appendFileSync, existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '../helpers/wait.js';
import { stateOf } from '../helpers/agent-state.js';
import { freePort, link, restart, startHost, waitHost, STANDIN_ASKS, type Host } from '../helpers/link.js';

let hub: Host;
let build: Host;
let ci: Host;

interface Item {
  id: string | number;
  host?: string;
  kind: string;
  label: string;
  summary: string;
  muted?: boolean;
  counted?: boolean;
}
interface Agent {
  host: string;
  window_id: string;
  name: string;
  session: string;
  state: string;
  down?: boolean;
  counted?: boolean;
}

const attention = async (h: Host) => (await h.d.call<{ items: Item[]; counted: number }>('list-attention'));
const allAgents = async (h: Host) => (await h.d.call<{ agents: Agent[] }>('list-agents', { all_hosts: true })).agents;

async function standin(h: Host, session: string, name: string): Promise<string> {
  await h.d.ok(['new-session', session, 'sleep', '3600']);
  const w = await h.d.call<{ id: string }>('new-window', { session, name, argv: ['sh', '-c', STANDIN_ASKS] });
  return w.id;
}

async function mailbox(h: Host, window: string): Promise<string[]> {
  const r = await h.d.call<{ messages: Array<{ body: string; from_kind: string; host?: string }> }>('read-agent-messages', { window });
  return r.messages.map((m) => m.body);
}

test.before(async () => {
  build = await startHost('build');
  ci = await startHost('ci', { config: '[hosts.hub]\nrespond = false\nhold_mail = true\n' });
  hub = await startHost('hub');
  await link(hub, build);
  await link(hub, ci);
});

test.after(async () => {
  for (const h of [hub, build, ci]) await h?.d.stop();
});

test('hosts ls names both peers up, and the known host key is recorded 0600', async () => {
  const r = await hub.d.call<{ self: string; hosts: Array<{ name: string; state: string; via: string }> }>('list-hosts');
  assert.is(r.self, 'hub');
  assert.equal(r.hosts.map((h) => [h.name, h.state, h.via]), [['build', 'up', 'subsystem'], ['ci', 'up', 'subsystem']]);
  const kh = join(hub.d.dir, 'state', 'tuios', 'known_hosts');
  assert.ok(existsSync(kh));
  assert.is(statSync(kh).mode & 0o777, 0o600);
  assert.is(readFileSync(kh, 'utf8').trim().split('\n').length, 2);
  const json = JSON.parse(await hub.d.ok(['hosts', 'ls', '--json'])) as { hosts: Array<{ name: string; state: string }> };
  assert.equal(json.hosts.map((h) => h.name), ['build', 'ci']);
});

test('an agent on a peer waiting for an approval is pushed to the hub\'s list-attention over the live link', async () => {
  const w = await standin(build, 'api', 'claude');
  await build.d.waitScreen(w, /^$/m);
  // What the hub publishes meanwhile: build's Inbox rows as they open, and build's link changing.
  const events: Array<{ type: string; host: string; op?: string; item?: { kind: string } | null; state?: string }> = [];
  const sub = await hub.d.client();
  await sub.stream('subscribe', { types: ['host-attention', 'host-link'] }, (e) => events.push(e as (typeof events)[number]));
  await build.d.call('send-text', { window: w, text: 'v1\n' });
  const item = await waitFor(async () => (await attention(hub)).items.find((i) => i.host === 'build' && i.kind === 'approval'), { timeout: 30_000, what: 'the approval on the hub' });
  sub.close();
  // Pushed as it happened: the hub opened the row from build's delta, and build's link never went
  // down in between (the snapshot of a reconnect is the only other way the row could come). How
  // soon it comes is test/bench/link.bench.ts's figure.
  assert.ok(events.some((e) => e.type === 'host-attention' && e.host === 'build' && e.op === 'open' && e.item?.kind === 'approval'), `the open was published: ${JSON.stringify(events)}`);
  assert.equal(events.filter((e) => e.type === 'host-link' && e.host === 'build' && e.state !== 'up'), [], 'build\'s link stayed up');
  assert.match(String(item.id), /^build:\d+$/);
  assert.is(item.label, 'build:api/claude');
  assert.match(item.summary, /May I deploy v1/);
  // The agent's row comes on its own delta, which may follow the Inbox row's.
  const a = await waitFor(async () => (await allAgents(hub)).find((x) => x.host === 'build' && x.name === 'claude' && x.state === 'needs_input'), { what: 'the agent row mirrored as needs_input' });
  assert.is(a.down, false);
  // host: narrows it, and local names this machine's own.
  const only = await hub.d.call<{ agents: Agent[] }>('list-agents', { all_hosts: true, select: 'host:build' });
  assert.equal(only.agents.map((x) => x.host), ['build']);
  const sel = await hub.d.call<{ items: Item[] }>('list-attention', { select: 'host:ci' });
  assert.is(sel.items.length, 0);
});

test('a remote target runs on the peer: capture-pane -w build:api:claude', async () => {
  // The pane's screen as build has it: the answer v1 typed there by the test before on its first
  // row, and row for row what build's own capture of that window gives.
  const r = await hub.d.call<{ lines: string[]; rows: number }>('capture-pane', { window: 'build:api:claude' });
  const w = (await build.d.call<{ windows: Array<{ id: string; name: string }> }>('list-windows')).windows.find((x) => x.name === 'claude')!.id;
  const there = await build.d.call<{ lines: string[]; rows: number }>('capture-pane', { window: w });
  assert.is(r.lines[0]?.trimEnd(), 'v1', `the first row of build's pane: ${JSON.stringify(r.lines.slice(0, 3))}`);
  assert.equal(r.lines, there.lines, 'the screen build captures of that pane, row for row');
  assert.is(r.rows, there.rows);
  const s = await hub.d.cli(['capture-pane', '-s', 'build:api']);
  assert.is(s.code, 0, s.stderr);
  // Typing into a pane that waits on a prompt would answer it: not for a linked host's write.
  const typed = await hub.d.cli(['send-text', '-w', 'build:api:claude', 'yes']);
  assert.is(typed.code, 1);
  assert.match(typed.stderr, /forbidden/);
  const peek = await hub.d.cli(['peek-prompt', '-w', 'build:api:claude']);
  assert.match(peek.stderr, /build: claude waits on a prompt no rule with answers reads/, 'peek-prompt ran on build');
  const sent = await hub.d.call<{ window: string; bytes: number }>('send-text', { window: 'build:api:sleep', text: 'typed from the hub' });
  assert.is(sent.bytes, 'typed from the hub'.length);
  await build.d.waitScreen('sleep', /typed from the hub/);
  const bad = await hub.d.cli(['capture-pane', '-s', 'nowhere:api']);
  assert.is(bad.code, 1);
  assert.match(bad.stderr, /host_not_found/);
});

test('mail to an agent on a peer is delivered there', async () => {
  const out = await hub.d.ok(['send-agent-message', '-s', 'build:api', 'first: hello from the hub']);
  assert.match(out, /delivered to build/);
  const w = (await build.d.call<{ windows: Array<{ id: string; name: string }> }>('list-windows')).windows.find((x) => x.name === 'claude')!.id;
  await waitFor(async () => (await mailbox(build, w)).includes('first: hello from the hub'), { what: 'the mail on build' });
});

test('ci keeps respond off for the hub: an answer from the hub is refused there', async () => {
  const w = await standin(ci, 'web', 'codex');
  await ci.d.waitScreen(w, /^$/m);
  await ci.d.call('send-text', { window: w, text: 'v2\n' });
  await waitFor(async () => (await attention(hub)).items.find((i) => i.host === 'ci'), { what: 'ci\'s approval on the hub' });
  const r = await hub.d.cli(['respond', '-w', 'ci:web:codex', 'approve']);
  assert.is(r.code, 1);
  assert.match(r.stderr, /forbidden/);
  assert.match(r.stderr, /respond = true/);
  assert.is((await stateOf(ci.d, w)).state, 'needs_input', 'nothing was pressed');
});

/** The person at a host: an attached control client's nonce (the test runs outside every pane). */
async function personOf(h: Host): Promise<string> {
  const c = await h.d.client();
  const att = await c.stream<{ nonce: string | null }>('attach', { mode: 'control' }, () => {});
  assert.ok(att.nonce, 'a nonce for the person');
  return att.nonce!;
}

test('ci holds mail from the hub for the person there; only the person passes it on', async () => {
  const out = await hub.d.ok(['send-agent-message', '-w', 'ci:web:codex', 'Deploy now?']);
  assert.match(out, /delivered to ci, held there for the person \(it was for codex\)/);
  const held = await waitFor(async () => (await attention(ci)).items.find((i) => i.kind === 'held'), { what: 'the held row on ci' });
  assert.match(held.summary, /^\[held for codex, p passes on\] shell@hub: Deploy now\?/);
  const codex = (await ci.d.call<{ windows: Array<{ id: string; name: string }> }>('list-windows')).windows.find((w) => w.name === 'codex')!.id;
  assert.equal(await mailbox(ci, codex), [], 'the agent has not seen it');
  const ref = (held as unknown as { ref: { message_id: number } }).ref.message_id;
  const refused = await ci.d.cli(['release-agent-message', String(ref)]);
  assert.match(refused.stderr, /not_human/, 'without the nonce it is refused');
  const nonce = await personOf(ci);
  const r = await ci.d.call<{ released: { released_from: number; host: string } }>('release-agent-message', { id: ref, nonce });
  assert.is(r.released.released_from, ref);
  assert.is(r.released.host, 'hub');
  assert.equal(await mailbox(ci, codex), ['Deploy now?']);
  assert.not.ok((await attention(ci)).items.some((i) => i.kind === 'held'), 'the held row closed');
});

test('mail a peer refuses is a row with its reason; d on Waiting to send discards what waits; d on a host\'s row hides it here only', async () => {
  const r = await hub.d.cli(['send-agent-message', '-s', 'ci:nosuch', 'for nobody']);
  assert.is(r.code, 1);
  assert.match(r.stderr, /ci refused the message/);
  const row = await waitFor(async () => (await attention(hub)).items.find((i) => i.kind === 'waiting' && /refused there/.test(i.summary)), { what: 'the refusal row' });
  assert.match(row.summary, /a message for ci:nosuch was refused there: There is no session "nosuch"/);

  // A host that never answers: its mail waits, and the person discards it.
  const closed = await freePort();
  const cfg = join(hub.d.dir, 'config', 'tuios', 'config.toml');
  appendFileSync(cfg, `\n[hosts.ghost]\naddress = "127.0.0.1"\nport = ${closed}\n`);
  await waitHost(hub, 'ghost', (h) => h.state === 'down', 'down');
  assert.match(await hub.d.ok(['send-agent-message', '-s', 'ghost:api', 'into the void']), /queued for ghost/);
  const waiting = await waitFor(async () => (await attention(hub)).items.find((i) => i.kind === 'waiting' && /link to ghost/.test(i.summary)), { what: 'ghost\'s Waiting to send row' });
  assert.match(waiting.summary, /^1 message waits for the link to ghost$/);
  const nonce = await personOf(hub);
  await hub.d.call('dismiss-attention', { ids: [waiting.id, row.id], nonce });
  await waitHost(hub, 'ghost', (h) => h.mail_waiting === 0, 'discarded');

  const ciRow = (await attention(hub)).items.find((i) => i.host === 'ci' && i.kind === 'approval')!;
  const d = await hub.d.call<{ hidden?: string[] }>('dismiss-attention', { ids: [ciRow.id], nonce });
  assert.equal(d.hidden, [ciRow.id]);
  assert.not.ok((await attention(hub)).items.some((i) => i.id === ciRow.id), 'hidden here');
  assert.ok((await attention(ci)).items.some((i) => i.kind === 'approval'), 'nothing marked on ci');
});

test('a peer killed with SIGKILL: its rows stay, muted and not counted; mail waits, survives a hub restart, and arrives in order', async () => {
  // The peer's session must be on disk to come back after the kill.
  await waitFor(() => existsSync(join(build.d.dir, 'state', 'tuios', 'sessions.json')) && readFileSync(join(build.d.dir, 'state', 'tuios', 'sessions.json'), 'utf8').includes('"api"'), { what: 'build\'s sessions saved' });
  build.d.kill9();
  await build.d.waitExit();
  await waitHost(hub, 'build', (h) => h.state === 'down', 'down');
  const rows = (await allAgents(hub)).filter((a) => a.host === 'build');
  assert.ok(rows.length > 0, 'a down host keeps its rows');
  assert.ok(rows.every((a) => a.down === true && a.counted === false));
  const att = await attention(hub);
  const muted = att.items.filter((i) => i.host === 'build');
  assert.ok(muted.length > 0 && muted.every((i) => i.muted === true && i.counted === false));
  assert.is(att.counted, att.items.length - muted.length);
  // ci is not touched by build's fall.
  assert.is((await waitHost(hub, 'ci', (h) => h.state === 'up', 'still up')).state, 'up');

  for (const n of ['second', 'third', 'fourth']) {
    const out = await hub.d.ok(['send-agent-message', '-w', 'build:api:claude', `${n}: sent while build is down`]);
    assert.match(out, /queued for build/);
  }
  const waiting = await waitHost(hub, 'build', (h) => h.mail_waiting === 3, 'three waiting');
  assert.match(waiting.label, /seen \d+[smhd] ago/);
  const row = (await attention(hub)).items.find((i) => i.kind === 'waiting');
  assert.ok(row, 'a Waiting to send row');
  assert.match(row!.summary, /3 messages wait for the link to build/);

  await restart(hub);
  const after = await waitHost(hub, 'build', (h) => h.state !== 'connecting' || h.mail_waiting === 3, 'the outbox read back');
  assert.is(after.mail_waiting, 3, 'the outbox survived the restart');
  const outbox = join(hub.d.dir, 'state', 'tuios', 'link', 'outbox', 'build.json');
  assert.is(statSync(outbox).mode & 0o777, 0o600);
  assert.is(statSync(join(hub.d.dir, 'state', 'tuios', 'link', 'outbox')).mode & 0o777, 0o700);
  await waitHost(hub, 'ci', (h) => h.state === 'up', 'ci back after the hub restart');

  await build.d.spawn();
  await waitHost(hub, 'build', (h) => h.state === 'up' && h.mail_waiting === 0, 'up with nothing waiting', 60_000);
  const w = (await build.d.call<{ windows: Array<{ id: string; name: string }> }>('list-windows')).windows.find((x) => x.name === 'claude')!.id;
  const got = await waitFor(async () => {
    const m = await mailbox(build, w);
    return m.length >= 3 ? m : null;
  }, { what: 'the waiting mail on build' });
  assert.equal(got, ['second: sent while build is down', 'third: sent while build is down', 'fourth: sent while build is down']);
  assert.not.ok((await attention(hub)).items.some((i) => i.kind === 'waiting'), 'the Waiting to send row closed');

  // Its rows come back, live: a restored pane runs a shell, and the agent there reports again.
  await build.d.ok(['set-agent-state', '-w', w, 'needs_input', '--kind', 'approval', '-m', 'May I deploy v3']);
  const back = await waitFor(async () => (await allAgents(hub)).find((a) => a.host === 'build' && a.name === 'claude' && a.state === 'needs_input' && a.down === false), { what: 'build\'s row back' });
  assert.is(back.counted, true);
});

test.run();
