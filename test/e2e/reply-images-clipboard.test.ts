// The clipboard's image in a reply (spec: Replying to an agent, Images): on a client that runs on
// the person's machine (`tuios attach`), ctrl+v with an image and no text on the clipboard, and an
// empty paste from the terminal, attach the clipboard's image, read with wl-paste. The desktop's
// wl-paste is stood in for by a script on the daemon's PATH that offers one PNG and no text; the
// agent by a pane that keeps what is typed to it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { TestDaemon, BIN } from '../helpers/daemon.js';
import { Terminal, openReply } from '../helpers/terminal.js';
import { waitFor } from '../helpers/wait.js';

let d: TestDaemon;
let t: Terminal | null = null;
let clip: Buffer;
let got = '';
const asked: string[] = [];

test.before(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tuios-clip-'));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  clip = await sharp({ create: { width: 30, height: 20, channels: 3, background: '#10a040' } }).png().toBuffer();
  writeFileSync(join(dir, 'clip.png'), clip);
  const log = join(dir, 'wl-paste.log');
  // wl-paste as the person's desktop answers it: one PNG on the clipboard, no text.
  writeFileSync(join(bin, 'wl-paste'), `#!/bin/sh\necho "$*" >> ${log}\ncase "$*" in\n  *--list-types*) printf 'image/png\\n' ;;\n  *image/png*) cat ${join(dir, 'clip.png')} ;;\n  *) echo 'No suitable type of content copied' >&2; exit 1 ;;\nesac\n`);
  chmodSync(join(bin, 'wl-paste'), 0o755);
  d = await TestDaemon.start({ env: { PATH: `${bin}:${process.env.PATH}`, WAYLAND_DISPLAY: 'wayland-test' } });
  asked.push(log);
  got = join(d.dir, 'got.txt');
  await d.ok(['new-session', 'api', '--window-name', 'sh']);
  await d.call('new-window', { session: 'api', name: 'worker', argv: ['sh', '-c', `cat > ${got}`] });
  await d.ok(['set-agent-state', '-w', 'api:worker', 'idle', '--harness', 'x']);
});

test.after(async () => {
  t?.kill();
  await d?.stop();
});

test('ctrl+v and an empty paste attach the clipboard\'s image on a client on the person\'s machine', async () => {
  t = await openReply(d.env, BIN, 'api', /worker/);
  t.type('clip: ');
  await t.wait(/› clip:/, 'the typed words');
  t.keys('C-v');
  await t.wait(/› clip: \[Image #1 · 30×20 png\]/, 'the clipboard\'s image, at the cursor');
  const log = readFileSync(asked[0]!, 'utf8');
  assert.match(log, /--type text\/plain/, 'the text was asked for first');
  assert.match(log, /--list-types/);
  // An empty paste (what some terminals send for an image-only clipboard) reads it too: the same image.
  t.type(' ');
  t.tmux(['send-keys', '-t', 't', '-l', '\x1b[200~\x1b[201~']);
  await t.wait(/Image #1 is already in the message\./, 'the empty paste read the clipboard again');
  t.keys('Enter');
  await t.wait(/Queued for /, 'the queued line', 30_000);
  const typed = await waitFor(() => {
    const s = existsSync(got) ? readFileSync(got, 'utf8') : '';
    return /clip: \S+\.png/.test(s) ? s : null;
  }, { timeout: 30_000, what: 'the path typed into the pane' });
  const path = /clip: (\S+\.png)/.exec(typed)![1]!;
  assert.equal(readFileSync(path), clip, 'the clipboard\'s image, written for the agent');
});

test.run();
