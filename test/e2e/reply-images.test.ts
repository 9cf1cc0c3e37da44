// An image in a reply to a real Claude Code, through the real TUI in tmux (spec: Replying to an
// agent, Images; Typing a prompt, `[input] images`): the path of a PNG pasted into the reply
// editor becomes one image block and a strip above the draft; the same image again and a ninth
// image are refused in the spec's words; sent, the daemon writes the image into the paste folder
// beside its socket (0600) and pastes its path on its own where the image was, and Claude Code
// sends the fake Anthropic API the image itself, as an image block of the request, between the
// words typed before and after it. The fake model answers with text only.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import sharp from 'sharp';
import { RealAgent } from '../helpers/real-agent.js';
import { Terminal, openReply } from '../helpers/terminal.js';
import { BIN } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';

const a = new RealAgent('claude-code', { fake: { command: null, finalText: 'A blue square.' } });
const it = a.gate(test);
let t: Terminal | null = null;

test.before(() => a.start());
test.after(async () => {
  t?.kill();
  await a.stop();
});

/** A PNG of one colour, `w`×`h`, written to the daemon's folder; answers its path. */
async function png(name: string, w: number, h: number, colour: string): Promise<{ path: string; data: Buffer }> {
  const data = await sharp({ create: { width: w, height: h, channels: 3, background: colour } }).png().toBuffer();
  const path = join(a.d.dir, name);
  writeFileSync(path, data);
  return { path, data };
}

/** Pastes `text` into the TUI as the terminal does (bracketed). */
function paste(text: string): void {
  const f = join(a.d.dir, 'paste.txt');
  writeFileSync(f, text);
  t!.pasteFile(f);
}

/** Every image block of a request to the Anthropic API, as its media type and bytes. */
function imagesIn(body: unknown): Array<{ media: string; data: Buffer }> {
  const out: Array<{ media: string; data: Buffer }> = [];
  const walk = (x: unknown): void => {
    if (Array.isArray(x)) return x.forEach(walk);
    if (!x || typeof x !== 'object') return;
    const o = x as Record<string, unknown>;
    const src = o.source as Record<string, unknown> | undefined;
    if (o.type === 'image' && src?.type === 'base64') out.push({ media: String(src.media_type), data: Buffer.from(String(src.data), 'base64') });
    Object.values(o).forEach(walk);
  };
  walk(body);
  return out;
}

it('a pasted PNG path becomes an image block, refusals keep the draft, and Claude Code sends the image itself', async () => {
  await a.waitState(['idle', 'unknown']);
  const shot = await png('shot.png', 320, 200, '#2040d0');
  t = await openReply(a.d.env, BIN, 'agents', /claude/i);
  t.type('what colour is ');
  await t.wait(/› what colour is/, 'the typed words');
  paste(shot.path);
  await t.wait(/› what colour is \[Image #1 · 320×200 png\]/, 'the image block at the cursor');
  // The strip above the draft: the thumbnail in half blocks (this terminal is not kitty's).
  await t.wait(/▀▀▀▀[\s\S]*› what colour is/, 'the strip of thumbnails above the draft');

  // The same image again is refused; the draft keeps one block.
  paste(`'${shot.path}'`);
  await t.wait(/Image #1 is already in the message\./, 'the refusal of the same image');
  assert.not.match(t.screen(), /Image #2/);

  // Seven more make eight, each on a line of its own (a row is cut at the box's width); a ninth is refused.
  for (let i = 2; i <= 8; i++) {
    const p = await png(`more${i}.png`, 16 * i, 16, `#${(i * 30).toString(16).padStart(2, '0')}8040`);
    t.keys('C-j');
    paste(p.path);
    await t.wait(new RegExp(`\\[Image #${i} · ${16 * i}×16 png\\]`), `image ${i}`);
  }
  await t.wait(/\+4 more/, 'the strip shows four, then +N more');
  const ninth = await png('ninth.png', 10, 10, '#ffffff');
  paste(ninth.path);
  await t.wait(/A message takes at most 8 images\./, 'the refusal of a ninth image');
  assert.not.match(t.screen(), /Image #9/);
  // Back to the one image: a backspace removes the selected image whole, the next its line break.
  for (let i = 0; i < 14; i++) t.keys('BSpace');
  await waitFor(() => !/Image #2/.test(t!.screen()) || null, { timeout: 20_000, what: 'the seven images removed' });
  await t.wait(/› what colour is \[Image #1 · 320×200 png\]/, 'the first image left');
  t.type(' in this picture?');
  await t.wait(/png\] in this picture\?/, 'the words after the image');
  t.keys('Enter');
  await t.wait(/Queued for /, 'the queued line', 30_000);

  const req = await a.fake.waitRequest((r) => r.role === 'main' && imagesIn(r.body).length > 0, 120_000);
  const images = imagesIn(req.body);
  assert.is(images.length, 1, 'one image reached the model');
  assert.is(images[0]!.media, 'image/png');
  const meta = await sharp(images[0]!.data).metadata();
  assert.equal([meta.width, meta.height], [320, 200], 'the image itself, at its size');
  const px = await sharp(images[0]!.data).removeAlpha().raw().toBuffer();
  assert.equal([...px.subarray(0, 3)], [0x20, 0x40, 0xd0], 'its colour');
  const sent = JSON.stringify(req.body);
  assert.match(sent, /what colour is/, 'the words before it');
  assert.match(sent, /in this picture\?/, 'the words after it');

  // The file the daemon wrote: in the paste folder beside the socket, the person's alone.
  const dir = join(dirname(a.d.socket), 'paste');
  const files = readdirSync(dir).filter((n) => /^tuios-paste-image-.*\.png$/.test(n));
  assert.is(files.length, 1, `one image file in ${dir}: ${files.join(', ')}`);
  const file = join(dir, files[0]!);
  assert.equal(readFileSync(file), shot.data, 'the image as attached');
  assert.is(statSync(file).mode & 0o777, 0o600);
});

test.run();
