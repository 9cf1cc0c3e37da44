// A reply with an image to an agent that takes none (spec: Replying to an agent, Images), through
// the real TUI in tmux, to a real Claude Code whose manifest (the user's own, replacing the
// bundled one) says `images = "none"`: the reply is refused in the spec's words, nothing is typed,
// no image file is written, and the draft stays. Before it, a pasted file named .png that is not
// an image is refused, and a path to no file is pasted as the text it is.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { RealAgent } from '../helpers/real-agent.js';
import { Terminal, openReply } from '../helpers/terminal.js';
import { BIN } from '../helpers/daemon.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const harnesses = mkdtempSync(join(tmpdir(), 'tuios-harnesses-'));
const bundled = readFileSync(join(root, 'manifests', 'claude-code.toml'), 'utf8');
assert.match(bundled, /^images = "path_paste"$/m, 'the bundled manifest takes images');
writeFileSync(join(harnesses, 'claude-code.toml'), bundled.replace(/^images = "path_paste"$/m, 'images = "none"'));

const a = new RealAgent('claude-code', { fake: { command: null, finalText: 'ok' }, daemon: { env: { TUIOS_HARNESS_DIR: harnesses } } });
const it = a.gate(test);
let t: Terminal | null = null;

test.before(() => a.start());
test.after(async () => {
  t?.kill();
  await a.stop();
});

function paste(text: string): void {
  const f = join(a.d.dir, 'paste.txt');
  writeFileSync(f, text);
  t!.pasteFile(f);
}

it('an agent whose manifest says images = "none" refuses the reply in the spec\'s words, and the draft stays', async () => {
  await a.waitState(['idle', 'unknown']);
  const shot = join(a.d.dir, 'shot.png');
  writeFileSync(shot, await sharp({ create: { width: 40, height: 30, channels: 3, background: '#808080' } }).png().toBuffer());
  const fake = join(a.d.dir, 'notes.png');
  writeFileSync(fake, 'these are notes, not a picture\n');

  t = await openReply(a.d.env, BIN, 'agents', /claude/i);

  paste(fake);
  await t.wait(/notes\.png is not an image tuios reads \(png, jpeg, gif, webp\)\./, 'the refusal of a file that is no image');
  paste('/no/such/dir/missing.png');
  await t.wait(/› \/no\/such\/dir\/missing\.png/, 'a path to no file, pasted as text');
  t.keys('C-u');
  await t.wait(/›\s*\n/, 'the draft emptied');

  t.type('look: ');
  paste(shot);
  await t.wait(/› look: \[Image #1 · 40×30 png\]/, 'the image block');
  const before = a.fake.requests.length;
  t.keys('Enter');
  await t.wait(/This agent cannot take images\. Remove the image to send\./, 'the spec\'s refusal', 30_000);
  // The draft is kept: r opens it again with the image in it.
  t.keys('r');
  await t.wait(/› look: \[Image #1 · 40×30 png\]/, 'the draft, kept');
  const queued = await a.d.call<{ queued: unknown[] }>('list-queued', {});
  assert.equal(queued.queued, [], 'nothing queued');
  const dir = join(dirname(a.d.socket), 'paste');
  assert.ok(!existsSync(dir) || readdirSync(dir).every((n) => !n.includes('image')), 'no image file written');
  assert.ok(a.fake.requests.slice(before).every((r) => r.role !== 'main'), 'nothing reached the model');
});

test.run();
