// The agents view across linked hosts, as a person uses it in tmux: two daemons linked on
// loopback, a stand-in Claude Code on the peer drawing the captured permission screen. The hub's
// agents view lists it under Needs you as `peer:api/claude` and ctrl+b o visits it; space peeks
// it across the link; `1` is refused while the peer keeps respond off for the hub (the dock says
// why) and answers once it is on, and the peer's pane goes working. r queues a reply there; d hides a row here and
// marks nothing on the peer, whose Inbox is changed only there. Enter opens the peer's pane here from a replica fed over the link, keys typed
// there reach it, the view is read-only once the peer refuses write, and a dropped link shows it
// disconnected without taking the client down.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { Terminal } from '../helpers/terminal.js';
import { link, startHost, waitHost, type Host } from '../helpers/link.js';
import { screenStandin, type ScreenStandin } from '../helpers/screen-standin.js';

const TUIOS = `${process.execPath} ${BIN}`;
let hub: Host;
let peer: Host;
let t: Terminal;
let standin: ScreenStandin;
let win = '';

const stateOf = async (w: string) => peer.d.call<{ state: string; harness_id: string | null; message: string }>('get-agent-state', { window: w });

/** Sets respond for the hub in the peer's [hosts.hub] table, and waits until the peer judges by it. */
async function peerRespond(on: boolean): Promise<void> {
  const cfg = join(peer.d.dir, 'config', 'tuios', 'config.toml');
  writeFileSync(cfg, readFileSync(cfg, 'utf8').replace(/respond = (true|false)/, `respond = ${on}`));
  // focus-window needs respond over a link: refused as forbidden exactly while it is off.
  await waitFor(async () => {
    const r = await hub.d.cli(['focus-window', '-w', `peer:${win}`]);
    return /forbidden/.test(r.stderr) !== on;
  }, { timeout: 30_000, what: `respond = ${on} in force on the peer` });
}

test.before(async () => {
  peer = await startHost('peer', { config: '[hosts.hub]\nrespond = false\n' });
  hub = await startHost('hub');
  await link(hub, peer);
  await peer.d.ok(['new-session', 'api', 'sleep', '3600']);
  standin = screenStandin(peer.d.dir, 'claude');
  const cwd = join(peer.d.home, 'project');
  mkdirSync(cwd, { recursive: true });
  win = (await peer.d.call<{ id: string }>('new-window', { session: 'api', name: 'claude', argv: standin.argv, env: standin.env, cwd, cols: 120, rows: 40 })).id;
  await waitFor(async () => {
    const a = await stateOf(win);
    return a.harness_id === 'claude-code' && a.state === 'idle';
  }, { timeout: 60_000, what: 'the stand-in attributed to claude-code and at rest' });
  await hub.d.ok(['new-session', 'main', '--window-name', 'here']);
});

test.after(async () => {
  t?.kill();
  await hub?.d.stop();
  await peer?.d.stop();
});

test('the peer\'s agent on its prompt is under Needs you as peer:api/claude, and space peeks it across the link', async () => {
  const r = await peer.d.call<{ state: string }>('ask-agent', { window: win, text: 'run touch a.txt', timeout: 30_000 });
  assert.is(r.state, 'needs_input');
  await waitFor(async () => (await stateOf(win)).message === 'approve Bash: touch a.txt', { timeout: 30_000, what: 'the approval message' });
  t = new Terminal(hub.d.env, `${TUIOS} attach -s main`);
  await t.wait(/┌─ here /);
  t.keys('C-b', 'i');
  const s = await t.wait(/Needs you\s+1[\s\S]*peer:api\/claude/, 'the peer row under Needs you', 30_000);
  assert.match(s, /claude-code\s+peer/, 'the machine stands where the session would');
  t.keys('g');
  t.keys('Space');
  // The card is the prompt as the peer's pane shows it, read there with peek-prompt.
  await t.wait(/The pane shows[\s\S]*touch a\.txt/, 'the peeked prompt', 30_000);
  await t.wait(/a allow once/, 'the answer keys once the card has settled', 30_000);
});

/** From the panes: the agents view, the peer's row once `row` shows, and its pane opened here. */
async function openPeerPane(row: RegExp): Promise<void> {
  t.keys('C-b', 'i');
  await t.wait(row, 'the peer\'s row', 60_000);
  t.keys('g');
  t.keys('Enter');
  await t.wait(/on peer · live/, 'the remote view', 30_000);
}

test('ctrl+b o visits the peer\'s agent that needs you: its pane opens here from the link', async () => {
  t.keys('C-b', 'o');
  await t.wait(/on peer · live/, 'the remote view', 30_000);
  await t.wait(/Do you want to proceed\?/, 'the peer\'s permission screen in the replica', 30_000);
  // The prefix stays armed for the next o; escape lets it go.
  await t.wait(/\[C-b\]/, 'the armed prefix', 30_000);
  t.keys('Escape');
  t.keys('C-b', 'i');
  await t.wait(/peer:api\/claude/, 'the row', 30_000);
  t.keys('g');
  t.keys('Space');
  await t.wait(/a allow once/, 'the card again', 30_000);
});

test('with respond off on the peer, 1 is refused and the dock line says why', async () => {
  t.keys('1');
  await t.wait(/Not answered: peer: respond is refused: the linked host hub may not answer prompts/, 'the refusal in the dock', 30_000);
  assert.is((await stateOf(win)).state, 'needs_input', 'nothing was pressed on the peer');
  assert.not.ok(standin.events().some((e) => e.t === 'key' && e.key === '1'), 'no key reached the stand-in');
});

test('with respond on, 1 answers it across the link and the peer\'s pane goes working', async () => {
  await peerRespond(true);
  t.keys('1');
  await t.wait(/Sent "1" to claude-code; it is (working|idle) now/, 'the answer line', 30_000);
  await waitFor(() => standin.events().some((e) => e.t === 'key' && e.key === '1' && e.mode === 'approval'), { timeout: 30_000, what: 'the 1 on the stand-in' });
  await waitFor(async () => ['working', 'idle', 'done'].includes((await stateOf(win)).state), { timeout: 30_000, what: 'the peer pane past the prompt' });
});

test('r queues a reply on the peer through the link; d hides the row here only, u brings it back', async () => {
  await waitFor(async () => (await stateOf(win)).state !== 'working', { timeout: 30_000, what: 'the stand-in at rest' });
  t.keys('g');
  t.keys('d');
  await t.wait(/Hidden here; nothing changes on peer/, 'the hidden line', 30_000);
  await t.wait(/^(?![\s\S]*peer:api\/claude)/, 'the row gone here', 30_000);
  t.keys('u');
  await t.wait(/peer:api\/claude/, 'the row back', 30_000);
  t.keys('g');
  t.keys('r');
  await t.wait(/Reply to peer:api\/claude/, 'the reply editor', 30_000);
  t.type('hello from the hub');
  t.keys('Enter');
  await t.wait(/Queued for peer:api\/claude \(q\d+ on peer\)/, 'the queued line', 30_000);
  await waitFor(() => standin.events().some((e) => e.t === 'submit' && e.text === 'hello from the hub'), { timeout: 30_000, what: 'the reply typed on the peer' });
});

test('a question on the peer from outside any agent is a display-only row of its own', async () => {
  const asked = await peer.d.call<{ status?: string }>('ask-human', { question: 'Ship the release tonight?', options: ['yes', 'no'], timeout: 500 });
  assert.ok(asked);
  const item = await waitFor(async () => (await peer.d.call<{ items: Array<{ id: number; kind: string; summary: string }> }>('list-attention')).items.find((i) => i.kind === 'ask'), { what: 'the ask on the peer' });
  await t.wait(/Needs you\s+1[\s\S]*ask\s+[\s\S]*peer:-/, 'the peer\'s ask under Needs you', 30_000);
  t.keys('g');
  await t.wait(/On peer: answered and dismissed there; d hides it here only/, 'its focus', 30_000);
  t.keys('d');
  await t.wait(/Hidden here; nothing changes on peer/, 'the hidden line', 30_000);
  await t.wait(/^(?![\s\S]*Ship the release)/, 'the row hidden here', 30_000);
  assert.ok((await peer.d.call<{ items: Array<{ id: number }> }>('list-attention')).items.some((i) => i.id === item.id), 'nothing dismissed on the peer');
  t.keys('u');
  await t.wait(/Ship the release/, 'the row back after u', 30_000);
  // The person on the peer deals with it there, and the row goes here.
  const c = await peer.d.client();
  const att = await c.stream<{ nonce: string | null }>('attach', { mode: 'control' }, () => {});
  await peer.d.call('dismiss-attention', { ids: [item.id], nonce: att.nonce });
  c.close();
  await t.wait(/^(?![\s\S]*Ship the release)/, 'the row gone', 30_000);
});

test('enter opens the peer\'s pane from a replica; typed keys reach it there; ctrl+b q closes it', async () => {
  await waitFor(async () => (await stateOf(win)).state !== 'working', { timeout: 30_000, what: 'the stand-in at rest' });
  await t.wait(/peer:api\/claude/, 'the row', 30_000);
  t.keys('g');
  t.keys('Enter');
  await t.wait(/on peer · live/, 'the remote view', 30_000);
  // The stand-in's finished screen, drawn here from the stream.
  await t.wait(/reply: hello from the hub/, 'the peer pane\'s text', 30_000);
  const before = standin.events().length;
  t.type('z');
  await waitFor(() => standin.events().slice(before).some((e) => e.t === 'key' && e.key === 'z'), { timeout: 30_000, what: 'the typed key on the peer' });
  t.keys('C-b', 'q');
  await t.wait(/┌─ here /, 'the hub\'s own pane again', 30_000);
});

test('once the peer refuses write, the view is read-only and the dock says why', async () => {
  const cfg = join(peer.d.dir, 'config', 'tuios', 'config.toml');
  writeFileSync(cfg, readFileSync(cfg, 'utf8').replace('respond = true', 'respond = true\nwrite = false'));
  await waitFor(async () => /may not change anything/.test((await hub.d.cli(['select-window', '-w', `peer:${win}`])).stderr), { timeout: 30_000, what: 'write = false in force on the peer' });
  await openPeerPane(/peer:api\/claude/);
  const before = standin.events().length;
  t.type('y');
  await t.wait(/Read-only: peer: send-keys is refused: the linked host hub may not change anything/, 'the read-only line', 30_000);
  await t.wait(/on peer · read-only/, 'the view marked read-only', 30_000);
  assert.not.ok(standin.events().slice(before).some((e) => e.t === 'key' && e.key === 'y'), 'nothing typed on the peer');
  t.keys('C-b', 'q');
  await t.wait(/┌─ here /, 'the hub\'s own pane again', 30_000);
});

test('a dropped link shows the replica disconnected, and the client goes on', async () => {
  await openPeerPane(/peer:api\/claude/);
  peer.d.kill9();
  await peer.d.waitExit();
  await t.wait(/on peer · disconnected/, 'the replica disconnected', 30_000);
  await waitHost(hub, 'peer', (h) => h.state === 'down', 'down');
  t.keys('C-b', 'q');
  await t.wait(/┌─ here /, 'the hub\'s own pane again', 30_000);
  // The row stays, muted, and enter on it says the machine cannot be reached.
  t.keys('C-b', 'i');
  await t.wait(/peer:api\/claude[^\n]*seen \S+ ago/, 'the down row with when it was heard', 30_000);
  t.keys('g');
  t.keys('Enter');
  await t.wait(/peer cannot be reached: its link is down/, 'the unreachable line', 30_000);
  assert.ok(await hub.d.answers(), 'the hub daemon is up');
});

test('the peer back: its row is live again, and a view open across another drop comes back by itself', async () => {
  t.keys('Escape');
  await t.wait(/┌─ here /, 'the hub\'s own pane', 30_000);
  await peer.d.spawn();
  await waitHost(hub, 'peer', (h) => h.state === 'up', 'up again', 60_000);
  // The window comes back with its id and a shell in it; a report makes it an agent's again.
  await peer.d.ok(['set-agent-state', '-w', win, 'working', '--harness', 'x', '-m', 'back at work']);
  await openPeerPane(/peer:api\/claude(?![^\n]*seen)/);
  peer.d.kill9();
  await peer.d.waitExit();
  await t.wait(/on peer · disconnected/, 'the replica disconnected', 30_000);
  await peer.d.spawn();
  await t.wait(/on peer · live/, 'the view live again without a key', 60_000);
  await t.wait(/peer is back/, 'the dock line', 30_000);
});

test.run();
