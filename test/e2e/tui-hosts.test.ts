// The agents view across linked hosts, as a person uses it in tmux: two daemons linked on
// loopback, a stand-in Claude Code on the peer drawing the captured permission screen. The hub's
// agents view lists it under Needs you as `peer:api/claude` and ctrl+b o visits it; space peeks
// it across the link; `1` is refused while the peer keeps respond off for the hub (the dock says
// why) and answers once it is on, and the peer's pane goes working. r queues a reply there; d hides a row here and
// marks nothing on the peer, whose Inbox is changed only there. Enter opens the peer's pane here from a replica fed over the link, keys typed
// there reach it, the view is read-only once the peer refuses write, and a dropped link shows it
// disconnected without taking the client down.
//
// Each test attaches a terminal of its own to the hub (killed when the test ends) and first puts
// the peer's pane and its [hosts.hub] table where it needs them, so one that fails leaves no
// half-open view or stale pane state for the next.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { Terminal } from '../helpers/terminal.js';
import { link, startHost, waitHost, type Host } from '../helpers/link.js';
import { screenStandin, type ScreenStandin } from '../helpers/screen-standin.js';
import { stateOf, waitState } from '../helpers/agent-state.js';

const TUIOS = `${process.execPath} ${BIN}`;
const PROMPT = 'approve Bash: touch a.txt';
let hub: Host;
let peer: Host;
let standin: ScreenStandin;
let win = '';

/** Sets respond and write for the hub in the peer's [hosts.hub] table, and waits until the peer judges by them. */
async function peerAllows(o: { respond: boolean; write: boolean }): Promise<void> {
  const cfg = join(peer.d.dir, 'config', 'tuios', 'config.toml');
  writeFileSync(cfg, readFileSync(cfg, 'utf8').replace(/respond = (true|false)(\nwrite = (true|false))?/, `respond = ${o.respond}\nwrite = ${o.write}`));
  // Over a link select-window needs write, refused exactly while it is off; focus-window needs
  // respond too, refused for that exactly while it is off (with write off, refused for that first).
  let last = '';
  await waitFor(async () => {
    const focus = await hub.d.cli(['focus-window', '-w', `peer:${win}`]);
    const select = await hub.d.cli(['select-window', '-w', `peer:${win}`]);
    last = `focus-window: ${focus.code} ${focus.stderr.trim()}; select-window: ${select.code} ${select.stderr.trim()}`;
    const writeInForce = /may not change anything/.test(select.stderr) !== o.write;
    return writeInForce && (!o.write || /may not answer prompts/.test(focus.stderr) !== o.respond);
  }, { timeout: 30_000, what: `respond = ${o.respond}, write = ${o.write} in force on the peer` }).catch((e: Error) => {
    throw new Error(`${e.message}; last ${last}`);
  });
}

/** The peer's pane at rest: not working, and off a prompt a test before left it on (4 denies it). */
async function peerAtRest(): Promise<void> {
  const s = await waitState(peer.d, win, (a) => a.state !== 'working', { timeout: 30_000, what: 'the stand-in not working' });
  if (s.state === 'needs_input') await peer.d.call('send-keys', { window: win, keys: ['4'] });
  await waitState(peer.d, win, ['idle', 'done'], { timeout: 30_000, what: 'the stand-in at rest' });
}

/** The peer's pane on its permission prompt for touch a.txt: asked now unless it is there already. */
async function peerAtPrompt(): Promise<void> {
  const s = await stateOf(peer.d, win);
  if (s.state === 'needs_input' && s.message === PROMPT) return;
  await peerAtRest();
  const r = await peer.d.call<{ state: string }>('ask-agent', { window: win, text: 'run touch a.txt', timeout: 30_000 });
  assert.is(r.state, 'needs_input');
  await waitState(peer.d, win, (a) => a.state === 'needs_input' && a.message === PROMPT, { timeout: 30_000, what: 'the approval message' });
}

/** The peer's daemon up and linked (a test before may have left it killed). */
async function peerUp(): Promise<void> {
  if (!(await peer.d.answers())) await peer.d.spawn();
  await waitHost(hub, 'peer', (h) => h.state === 'up', 'up', 60_000);
}

/** A test with a terminal of its own attached to the hub's session main, killed however the test ends. */
function tuiTest(title: string, fn: (t: Terminal) => Promise<void>): void {
  test(title, async () => {
    const t = new Terminal(hub.d.env, `${TUIOS} attach -s main`);
    try {
      await t.wait(/┌─ here /, 'the hub\'s own pane', 30_000);
      await fn(t);
    } finally {
      t.kill();
    }
  });
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
  await waitState(peer.d, win, (a) => a.harness_id === 'claude-code' && a.state === 'idle', { what: 'the stand-in attributed to claude-code and at rest' });
  await hub.d.ok(['new-session', 'main', '--window-name', 'here']);
});

test.after(async () => {
  await hub?.d.stop();
  await peer?.d.stop();
});

/** From the panes: the agents view, with the peer's agent row selected once `row` shows. */
async function agentsView(t: Terminal, row = /peer:api\/claude/): Promise<string> {
  t.keys('C-b', 'i');
  const s = await t.wait(row, 'the peer\'s row', 60_000);
  await select(t, AGENT_ROW);
  return s;
}

const AGENT_ROW = /^▌ \S+ peer:api\/claude/;

/**
 * Moves the agents view's selection down with j until the selected row (the line starting ▌)
 * matches `row`, so a row a test before left (an ask, a held approval) is not taken for it.
 */
async function select(t: Terminal, row: RegExp): Promise<void> {
  const at = (): { i: number; line: string } => {
    const lines = t.screen().split('\n');
    const i = lines.findIndex((l) => l.startsWith('▌'));
    return { i, line: lines[i] ?? '' };
  };
  for (let n = 0; n < 16; n++) {
    const now = await waitFor(() => (at().i >= 0 ? at() : null), { timeout: 30_000, what: 'a selected row' });
    if (row.test(now.line)) return;
    t.keys('j');
    await waitFor(() => at().i !== now.i, { timeout: 30_000, what: `the selection to move on from ${now.line.trim()}` });
  }
  throw new Error(`no row matching ${row} to select:\n${t.screen()}`);
}

/** The agents view, the peer's row, and space: its card once it has settled on the answer keys. */
async function peekCard(t: Terminal): Promise<void> {
  await agentsView(t);
  t.keys('Space');
  await t.wait(/a allow once/, 'the answer keys once the card has settled', 30_000);
}

/** The agents view, the peer's row once `row` shows, and its pane opened here. */
async function openPeerPane(t: Terminal, row?: RegExp): Promise<void> {
  await agentsView(t, row);
  t.keys('Enter');
  await t.wait(/on peer · live/, 'the remote view', 30_000);
}

tuiTest('the peer\'s agent on its prompt is under Needs you as peer:api/claude, and space peeks it across the link', async (t) => {
  await peerAtPrompt();
  t.keys('C-b', 'i');
  const s = await t.wait(/Needs you\s+1[\s\S]*peer:api\/claude/, 'the peer row under Needs you', 30_000);
  assert.match(s, /claude-code\s+peer/, 'the machine stands where the session would');
  await select(t, AGENT_ROW);
  t.keys('Space');
  // The card is the prompt as the peer's pane shows it, read there with peek-prompt.
  await t.wait(/The pane shows[\s\S]*touch a\.txt/, 'the peeked prompt', 30_000);
  await t.wait(/a allow once/, 'the answer keys once the card has settled', 30_000);
});

tuiTest('ctrl+b o visits the peer\'s agent that needs you: its pane opens here from the link', async (t) => {
  await peerAtPrompt();
  t.keys('C-b', 'o');
  await t.wait(/on peer · live/, 'the remote view', 30_000);
  await t.wait(/Do you want to proceed\?/, 'the peer\'s permission screen in the replica', 30_000);
  // The prefix stays armed for the next o; escape lets it go.
  await t.wait(/\[C-b\]/, 'the armed prefix', 30_000);
  t.keys('Escape');
  // The status line drawn again, whole, without the armed prefix: only then is the C-b that
  // follows read on its own (an ESC and a C-b read together are M-C-b).
  await t.wait(/^ \[main\] 1\*(?! +\[C-b\]).*C-b \? help\s*$/m, 'the status line with the prefix let go', 30_000);
  await peekCard(t);
});

tuiTest('with respond off on the peer, 1 is refused and the dock line says why', async (t) => {
  await peerAtPrompt();
  await peerAllows({ respond: false, write: true });
  await peekCard(t);
  const before = standin.events().length;
  t.keys('1');
  await t.wait(/Not answered: peer: respond is refused: the linked host hub may not answer prompts/, 'the refusal in the dock', 30_000);
  assert.is((await stateOf(peer.d, win)).state, 'needs_input', 'nothing was pressed on the peer');
  assert.not.ok(standin.events().slice(before).some((e) => e.t === 'key' && e.key === '1'), 'no key reached the stand-in');
});

tuiTest('with respond on, 1 answers it across the link and the peer\'s pane goes working', async (t) => {
  await peerAtPrompt();
  await peerAllows({ respond: true, write: true });
  await peekCard(t);
  const before = standin.events().length;
  t.keys('1');
  await t.wait(/Sent "1" to claude-code; it is (working|idle) now/, 'the answer line', 30_000);
  await waitFor(() => standin.events().slice(before).some((e) => e.t === 'key' && e.key === '1' && e.mode === 'approval'), { timeout: 30_000, what: 'the 1 on the stand-in' });
  await waitState(peer.d, win, ['working', 'idle', 'done'], { timeout: 30_000, what: 'the peer pane past the prompt' });
});

tuiTest('r queues a reply on the peer through the link; d hides the row here only, u brings it back', async (t) => {
  await peerAtRest();
  await peerAllows({ respond: true, write: true });
  await agentsView(t);
  t.keys('d');
  // The frame that hid it: the dock line, the empty list in the row's place, and every count 0.
  const hidden = await t.wait(/Agents\s+▲ 0 need you\s+● 0 working\s+■ 0 to review\s+○ 0 idle[\s\S]*No agents yet[\s\S]*Hidden here; nothing changes on peer/, 'the list drawn without the row, and the hidden line', 30_000);
  assert.not.match(hidden, /peer:api\/claude/, 'the row gone here');
  assert.ok(['idle', 'done'].includes((await stateOf(peer.d, win)).state), 'the agent on the peer untouched');
  t.keys('u');
  await t.wait(/peer:api\/claude/, 'the row back', 30_000);
  await select(t, AGENT_ROW);
  t.keys('r');
  await t.wait(/Reply to peer:api\/claude/, 'the reply editor', 30_000);
  t.type('hello from the hub');
  t.keys('Enter');
  await t.wait(/Queued for peer:api\/claude \(q\d+ on peer\)/, 'the queued line', 30_000);
  await waitFor(() => standin.events().some((e) => e.t === 'submit' && e.text === 'hello from the hub'), { timeout: 30_000, what: 'the reply typed on the peer' });
});

/** Dismisses Inbox items on the peer as its person does: with the nonce of a client attached there. */
async function dismissOnPeer(ids: number[]): Promise<void> {
  const c = await peer.d.client();
  try {
    const att = await c.stream<{ nonce: string | null }>('attach', { mode: 'control' }, () => {});
    await peer.d.call('dismiss-attention', { ids, nonce: att.nonce });
  } finally {
    c.close();
  }
}

const peerItems = async () => (await peer.d.call<{ items: Array<{ id: number; kind: string; summary: string }> }>('list-attention')).items;

tuiTest('a question on the peer from outside any agent is a display-only row of its own', async (t) => {
  await peerAtRest();
  const asked = await peer.d.call<{ status: string; item_id: number }>('ask-human', { question: 'Ship the release tonight?', options: ['yes', 'no'], timeout: 500 });
  try {
    assert.is(asked.status, 'pending', 'nobody answered in 500 ms: it waits in the peer\'s Inbox');
    const items = await peerItems();
    assert.ok(items.some((i) => i.id === asked.item_id && i.kind === 'ask'), `the ask is item ${asked.item_id} on the peer: ${JSON.stringify(items)}`);
    t.keys('C-b', 'i');
    await t.wait(/Needs you\s+1[\s\S]*ask\s+[\s\S]*peer:-/, 'the peer\'s ask under Needs you', 30_000);
    await select(t, /^▌ \S+ ask\s/);
    await t.wait(/On peer: answered and dismissed there; d hides it here only/, 'its focus', 30_000);
    t.keys('d');
    // The frame that hid it: nothing under Needs you any more, and the hidden line.
    const hidden = await t.wait(/Agents\s+▲ 0 need you[\s\S]*Hidden here; nothing changes on peer/, 'the list drawn without the ask, and the hidden line', 30_000);
    assert.not.match(hidden, /Ship the release/, 'the row hidden here');
    assert.ok((await peerItems()).some((i) => i.id === asked.item_id), 'nothing dismissed on the peer');
    t.keys('u');
    await t.wait(/Agents\s+▲ 1 need you[\s\S]*Ship the release/, 'the row back after u', 30_000);
    // The person on the peer deals with it there, and the row goes here.
    await dismissOnPeer([asked.item_id]);
    const gone = await t.wait(/Agents\s+▲ 0 need you/, 'the list drawn with nothing under Needs you', 30_000);
    assert.not.match(gone, /Ship the release/, 'the row gone');
  } finally {
    // Not left in the peer's Inbox for the tests after, whatever failed here.
    if ((await peerItems()).some((i) => i.id === asked.item_id)) await dismissOnPeer([asked.item_id]);
  }
});

tuiTest('enter opens the peer\'s pane from a replica; typed keys reach it there; ctrl+b q closes it', async (t) => {
  await peerAtRest();
  await peerAllows({ respond: true, write: true });
  // A line of the peer pane's own, for the replica to show.
  await peer.d.call('ask-agent', { window: win, text: 'a line for the replica', timeout: 30_000 });
  await waitState(peer.d, win, ['idle', 'done'], { timeout: 30_000, what: 'the stand-in at rest after the prompt' });
  await openPeerPane(t);
  // The stand-in's finished screen, drawn here from the stream.
  await t.wait(/reply: a line for the replica/, 'the peer pane\'s text', 30_000);
  const before = standin.events().length;
  t.type('z');
  await waitFor(() => standin.events().slice(before).some((e) => e.t === 'key' && e.key === 'z'), { timeout: 30_000, what: 'the typed key on the peer' });
  t.keys('C-b', 'q');
  await t.wait(/┌─ here /, 'the hub\'s own pane again', 30_000);
});

tuiTest('once the peer refuses write, the view is read-only and the dock says why', async (t) => {
  await peerAllows({ respond: true, write: false });
  await openPeerPane(t);
  const before = standin.events().length;
  t.type('y');
  await t.wait(/Read-only: peer: send-keys is refused: the linked host hub may not change anything/, 'the read-only line', 30_000);
  await t.wait(/on peer · read-only/, 'the view marked read-only', 30_000);
  assert.not.ok(standin.events().slice(before).some((e) => e.t === 'key' && e.key === 'y'), 'nothing typed on the peer');
  t.keys('C-b', 'q');
  await t.wait(/┌─ here /, 'the hub\'s own pane again', 30_000);
});

tuiTest('a dropped link shows the replica disconnected, and the client goes on', async (t) => {
  await peerUp();
  await openPeerPane(t);
  peer.d.kill9();
  await peer.d.waitExit();
  await t.wait(/on peer · disconnected/, 'the replica disconnected', 30_000);
  await waitHost(hub, 'peer', (h) => h.state === 'down', 'down');
  t.keys('C-b', 'q');
  await t.wait(/┌─ here /, 'the hub\'s own pane again', 30_000);
  // The row stays, muted, and enter on it says the machine cannot be reached.
  await agentsView(t, /peer:api\/claude[^\n]*seen \S+ ago/);
  t.keys('Enter');
  await t.wait(/peer cannot be reached: its link is down/, 'the unreachable line', 30_000);
  assert.ok(await hub.d.answers(), 'the hub daemon is up');
});

tuiTest('the peer back: its row is live again, and a view open across another drop comes back by itself', async (t) => {
  // Down first, as the test before leaves it.
  if (await peer.d.answers()) {
    peer.d.kill9();
    await peer.d.waitExit();
  }
  await waitHost(hub, 'peer', (h) => h.state === 'down', 'down');
  await peer.d.spawn();
  await waitHost(hub, 'peer', (h) => h.state === 'up', 'up again', 60_000);
  // The window comes back with its id and a shell in it; a report makes it an agent's again.
  await peer.d.ok(['set-agent-state', '-w', win, 'working', '--harness', 'x', '-m', 'back at work']);
  await openPeerPane(t, /peer:api\/claude(?![^\n]*seen)/);
  peer.d.kill9();
  await peer.d.waitExit();
  await t.wait(/on peer · disconnected/, 'the replica disconnected', 30_000);
  await peer.d.spawn();
  await t.wait(/on peer · live/, 'the view live again without a key', 60_000);
  await t.wait(/peer is back/, 'the dock line', 30_000);
});

test.run();
