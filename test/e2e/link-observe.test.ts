// A linked host that only observes: the peer's [hosts.hub] table says observe = true (with respond
// = true beside it, which observe overrides). Over the link the hub follows the peer's agents and
// Inbox and runs reading verbs there; every verb that changes something, and an answer as the
// person, is refused forbidden naming [hosts.hub] observe, and nothing reaches the peer's pane.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { waitFor } from '../helpers/wait.js';
import { link, startHost, STANDIN_ASKS, type Host } from '../helpers/link.js';

let hub: Host;
let peer: Host;
let asks = '';

test.before(async () => {
  peer = await startHost('peer', { config: '[hosts.hub]\nobserve = true\nrespond = true\n' });
  hub = await startHost('hub');
  await link(hub, peer);
  await peer.d.ok(['new-session', 'api', '--window-name', 'sh']);
  asks = (await peer.d.call<{ id: string }>('new-window', { session: 'api', name: 'asks', argv: ['sh', '-c', STANDIN_ASKS] })).id;
  await peer.d.ok(['send-text', '-w', asks, '--submit', 'prod']);
  await peer.d.ok(['send-text', '-w', 'api:sh', '--submit', 'echo peer-$((6*7))']);
  await peer.d.waitScreen('api:sh', /peer-42/);
});

test.after(async () => {
  await hub?.d.stop();
  await peer?.d.stop();
});

const refused = async (args: string[]) => {
  const r = await hub.d.cli(args);
  assert.is(r.code, 1, `${args[0]} was not refused: ${r.stdout}${r.stderr}`);
  assert.match(r.stderr, /\(forbidden\)/, args[0]);
  assert.match(r.stderr, /the linked host hub only observes here \(\[hosts\.hub\] observe = true\)/, `${args[0]} names the setting`);
  assert.match(r.stderr, /\[hosts\.hub\] observe = false/, `${args[0]}: the hint names what allows it`);
};

test('an observing hub follows the peer and reads there: agents, the Inbox, a pane\'s text', async () => {
  await waitFor(async () => (await hub.d.call<{ agents: Array<{ host: string; state: string }> }>('list-agents', { all_hosts: true })).agents.some((a) => a.host === 'peer' && a.state === 'needs_input'), { timeout: 30_000, what: 'the peer\'s waiting agent on the hub' });
  await waitFor(async () => (await hub.d.call<{ items: Array<{ host?: string }> }>('list-attention')).items.some((i) => i.host === 'peer'), { timeout: 30_000, what: 'the peer\'s Inbox item on the hub' });
  const cap = await hub.d.cli(['capture-pane', '-w', 'peer:api:sh']);
  assert.is(cap.code, 0, cap.stderr);
  assert.match(cap.stdout, /peer-42/);
  const peek = await hub.d.cli(['peek-prompt', '-w', `peer:api:asks`]);
  assert.not.match(peek.stderr, /observe/, 'a peek is a read');
});

test('an observing hub is refused forbidden, naming [hosts.hub] observe, for typing, resizing, killing and answering there', async () => {
  await refused(['send-text', '-w', 'peer:api:sh', '--submit', 'echo from-the-hub']);
  await refused(['send-keys', '-w', 'peer:api:sh', 'Enter']);
  await refused(['resize-window', '-w', 'peer:api:sh', '--cols', '70', '--rows', '20']);
  await refused(['kill-window', '-w', 'peer:api:sh']);
  // respond = true is in the table too: observe wins.
  await refused(['respond', '-w', 'peer:api:asks', 'approve']);
  const ws = await peer.d.call<{ windows: Array<{ name: string; cols: number }> }>('list-windows', { session: 'api' });
  assert.ok(ws.windows.some((w) => w.name === 'sh'), 'the window is still there');
  assert.not.match(await peer.d.screen('api:sh'), /from-the-hub/, 'nothing was typed on the peer');
  assert.is((await peer.d.call<{ state: string }>('get-agent-state', { window: asks })).state, 'needs_input', 'nothing was answered on the peer');
});

test.run();
