// A large paste in a reply to an agent on a linked host (spec: Replying to an agent, Large
// pastes): the hub's TUI sends the reply over the link, the block larger than one link frame
// travels in pieces, and the peer writes the paste file in its own paste folder and types the
// label naming it. A peer whose [hosts] table does not give the hub `files` refuses a block.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { waitFor } from '../helpers/wait.js';
import type { Host } from '../helpers/link.js';
import { startReplyLink } from '../helpers/reply-link.js';
import { Terminal } from '../helpers/terminal.js';
import { BIN } from '../helpers/daemon.js';
import type { RpcError } from '../../core/rpc/client.js';

let hub: Host;
let peer: Host;
let t: Terminal | null = null;
let got = '';

test.before(async () => {
  ({ hub, peer, got } = await startReplyLink());
});

test.after(async () => {
  t?.kill();
  await hub?.d.stop();
  await peer?.d.stop();
});

test('a 2 MB paste in a reply to a linked host\'s agent is written there, in that host\'s paste folder', async () => {
  await waitFor(async () => (await hub.d.call<{ agents: Array<{ host: string; name: string }> }>('list-agents', { all_hosts: true })).agents.some((a) => a.host === 'peer' && a.name === 'worker'), { timeout: 30_000, what: 'the peer\'s agent on the hub' });
  const body = Array.from({ length: 30_000 }, (_, i) => `peer log line ${i} ${'z'.repeat(50)}`).join('\n');
  assert.ok(body.length > 1024 * 1024 * 1.5, 'larger than one link frame');
  const file = join(hub.d.dir, 'big.log');
  writeFileSync(file, body);

  t = new Terminal(hub.d.env, `${process.execPath} ${BIN} attach -s here`);
  await t.wait(/┌─ /, 'the TUI');
  t.keys('C-b', 'i');
  await t.wait(/worker[\s\S]*r reply/, 'the peer\'s agent row and the list\'s keys');
  t.keys('r');
  await t.wait(/Reply to peer:api\/worker/, 'the reply editor');
  t.type('see: ');
  await t.wait(/› see:/, 'the typed words');
  t.pasteFile(file);
  await t.wait(/\[Pasted text #1 · 30000 lines\]/, 'the block', 60_000);
  t.keys('Enter');
  const dock = await t.wait(/Queued for [^\n]*worker \(q\d+ on peer\)|Not queued[^\n]*/, 'the queued line', 60_000);
  assert.match(dock, /Queued for [^\n]*worker \(q\d+ on peer\)/);

  const typed = await waitFor(() => {
    const s = existsSync(got) ? readFileSync(got, 'utf8') : '';
    return /\[Pasted text #1: [^,\]]+, 30,000 lines\]/.test(s) ? s : null;
  }, { timeout: 60_000, what: 'the label typed into the peer\'s pane' });
  assert.match(typed, /^see: \[Pasted text #1: /);
  const path = /\[Pasted text #1: ([^,\]]+), 30,000 lines\]/.exec(typed)![1]!;
  assert.is(dirname(path), join(dirname(peer.d.socket), 'paste'), 'the peer\'s own paste folder');
  assert.is(statSync(path).mode & 0o777, 0o600);
  assert.is(readFileSync(path, 'utf8'), body, 'the block arrived whole, in pieces');
  assert.not.ok(existsSync(join(dirname(hub.d.socket), 'paste')), 'the hub wrote no paste file');
});

test('a peer that does not give the hub files refuses a reply with a block, naming the setting', async () => {
  const cfg = join(peer.d.dir, 'config', 'tuios', 'config.toml');
  writeFileSync(cfg, readFileSync(cfg, 'utf8').replace('files = true', 'files = false'));
  const err = await waitFor(async () => {
    const e = await hub.d.call('queue-prompt', { window: 'peer:api:worker', parts: [{ text: 'see ' }, { paste: 'p'.repeat(13 * 1024) }] }).then(() => null, (x: RpcError) => x);
    return e && e.body.code === 'forbidden' ? e : null;
  }, { timeout: 30_000, what: 'the refusal once the peer reads its config' });
  assert.match(err.body.message, /may not write files here/);
  assert.is(err.body.hint, 'On this machine, [hosts.hub] files = true allows it.');
});

test.run();
