// An image in a reply to an agent on a linked host (spec: Replying to an agent, Images): the hub's
// TUI sends the reply over the link, the image larger than one link frame travels ahead in pieces,
// and the peer writes the image file in its own paste folder and types its path where the image
// was. A peer whose [hosts] table does not give the hub `files` refuses an image.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import sharp from 'sharp';
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

test('a 2 MB image in a reply to a linked host\'s agent is written there and its path typed where it was', async () => {
  await waitFor(async () => (await hub.d.call<{ agents: Array<{ host: string; name: string }> }>('list-agents', { all_hosts: true })).agents.some((a) => a.host === 'peer' && a.name === 'worker'), { timeout: 30_000, what: 'the peer\'s agent on the hub' });
  // Noise does not compress: a PNG larger than one link frame.
  const data = await sharp({ create: { width: 900, height: 800, channels: 3, background: '#000000', noise: { type: 'gaussian', mean: 128, sigma: 60 } } }).png().toBuffer();
  assert.ok(data.length > 1.5 * 1024 * 1024 && data.length < 8 * 1024 * 1024, `the image is ${data.length} bytes`);
  const file = join(hub.d.dir, 'noise.png');
  writeFileSync(file, data);
  const pasted = join(hub.d.dir, 'paste.txt');
  writeFileSync(pasted, file);

  t = new Terminal(hub.d.env, `${process.execPath} ${BIN} attach -s here`);
  await t.wait(/┌─ /, 'the TUI');
  t.keys('C-b', 'i');
  await t.wait(/worker[\s\S]*r reply/, 'the peer\'s agent row and the list\'s keys');
  t.keys('r');
  await t.wait(/Reply to peer:api\/worker/, 'the reply editor');
  t.type('see: ');
  await t.wait(/› see:/, 'the typed words');
  t.pasteFile(pasted);
  await t.wait(/› see: \[Image #1 · 900×800 png\]/, 'the image block', 30_000);
  t.type(' now');
  await t.wait(/png\] now/, 'the words after it');
  t.keys('Enter');
  const dock = await t.wait(/Queued for [^\n]*worker \(q\d+ on peer\)|Not queued[^\n]*/, 'the queued line', 60_000);
  assert.match(dock, /Queued for [^\n]*worker \(q\d+ on peer\)/);

  // The stand-in takes no bracketed paste, so the path is in the text, where the image was.
  const typed = await waitFor(() => {
    const s = existsSync(got) ? readFileSync(got, 'utf8') : '';
    return /see: \S+\.png now/.test(s) ? s : null;
  }, { timeout: 60_000, what: 'the path typed into the peer\'s pane' });
  const path = /see: (\S+\.png) now/.exec(typed)![1]!;
  assert.is(dirname(path), join(dirname(peer.d.socket), 'paste'), 'the peer\'s own paste folder');
  assert.match(path, /tuios-paste-image-/);
  assert.is(statSync(path).mode & 0o777, 0o600);
  assert.equal(readFileSync(path), data, 'the image arrived whole, in pieces');
  assert.not.ok(existsSync(join(dirname(hub.d.socket), 'paste')), 'the hub wrote no image file');
});

test('a peer that does not give the hub files refuses a reply with an image, naming the setting', async () => {
  const cfg = join(peer.d.dir, 'config', 'tuios', 'config.toml');
  writeFileSync(cfg, readFileSync(cfg, 'utf8').replace('files = true', 'files = false'));
  const image = (await sharp({ create: { width: 4, height: 4, channels: 3, background: '#fff' } }).png().toBuffer()).toString('base64');
  const err = await waitFor(async () => {
    const e = await hub.d.call('queue-prompt', { window: 'peer:api:worker', parts: [{ text: 'see ' }, { image }] }).then(() => null, (x: RpcError) => x);
    return e && e.body.code === 'forbidden' ? e : null;
  }, { timeout: 30_000, what: 'the refusal once the peer reads its config' });
  assert.match(err.body.message, /paste block or an image is refused: the linked host hub may not write files here/);
  assert.is(err.body.hint, 'On this machine, [hosts.hub] files = true allows it.');
});

test.run();
