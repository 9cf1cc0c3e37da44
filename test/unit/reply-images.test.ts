// Images in a reply (spec: Replying to an agent, Images; Typing a prompt, `[input] images`): the
// label and the words, the limits and the refusals in the spec's words, what a pasted path names,
// how the typed pastes place an image's path for each `images` mode, the image file in the paste
// folder, and the queue refusing an image for a harness that takes none.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { TuiosError } from '../../core/errors.js';
import { Bus } from '../../core/bus.js';
import { DeliveryQueue } from '../../core/delivery/queue.js';
import { alreadyInMessage, imageLabel, imagePathOf, imageRefusal, imageWords, IMAGES_REFUSED, sizeWords, sniffFormat, type ImageInfo } from '../../core/delivery/images.js';
import { readImageFile, readImageInfo } from '../../core/delivery/image-read.js';
import { pastesOf, renderPieces } from '../../core/delivery/image-parts.js';
import { checkParts, partsSummary, type ImagePart, type MessagePart } from '../../core/delivery/parts.js';
import { PasteFolder } from '../../core/delivery/paste-folder.js';
import { StagedPastes } from '../../core/delivery/paste-stage.js';
import { callWithParts, pieces } from '../../core/hosts/forward-parts.js';
import { IMAGE_BASE64_MAX_CHARS, IMAGE_MAX_BYTES, IMAGES_MAX, IMAGES_TOTAL_BYTES, PASTE_INLINE_MAX_BYTES, PASTE_STAGE_CHUNK_CHARS } from '../../core/limits.js';

const log = { debug() {}, info() {}, warn() {}, error() {} };
const png = (w: number, h: number, colour = '#3060c0') => sharp({ create: { width: w, height: h, channels: 3, background: colour } }).png().toBuffer();
const info: ImageInfo = { format: 'png', width: 1280, height: 720, bytes: 412_000 };
const image = (n: number, bytes = 100): ImagePart => ({ kind: 'image', text: '', data: Buffer.alloc(bytes), n, info: { ...info, bytes } });
const words = (text: string): MessagePart => ({ kind: 'text', text });

function refused(f: () => unknown): TuiosError {
  try {
    f();
  } catch (e) {
    if (e instanceof TuiosError) return e;
    throw e;
  }
  throw new Error('it was not refused');
}

test('the block and the words are the spec\'s', () => {
  assert.is(imageLabel(1, info), '[Image #1 · 1280×720 png]');
  assert.is(imageLabel(1, info, true), '[Image #1 - 1280x720 png]');
  assert.is(imageWords(1, info), 'Image #1 · 1280×720 png · 412 KB');
  assert.is(sizeWords(2_400_000), '2.4 MB');
  assert.is(alreadyInMessage(1), 'Image #1 is already in the message.');
  assert.is(IMAGES_REFUSED, 'This agent cannot take images. Remove the image to send.');
});

test('the limits are 8 images, 8 MB each and 8 MB in all', () => {
  assert.is(IMAGES_MAX, 8);
  assert.is(IMAGE_MAX_BYTES, 8 * 1024 * 1024);
  assert.is(IMAGES_TOTAL_BYTES, 8 * 1024 * 1024);
  assert.is(imageRefusal([], 1000), null);
  assert.match(imageRefusal(Array(8).fill(10), 10) ?? '', /at most 8 images/);
  assert.match(imageRefusal([], IMAGE_MAX_BYTES + 1) ?? '', /larger than 8 MB/);
  assert.match(imageRefusal([5 * 1024 * 1024], 4 * 1024 * 1024) ?? '', /together would pass 8 MB/);
  assert.is(imageRefusal([4 * 1024 * 1024], 4 * 1024 * 1024), null, '8 MB in all exactly is taken');
  // The daemon holds a message to the same limits.
  assert.match(refused(() => checkParts(Array.from({ length: 9 }, (_, i) => image(i + 1)))).message, /at most 8 images/);
  assert.match(refused(() => checkParts([image(1, 5 * 1024 * 1024), image(2, 4 * 1024 * 1024)])).message, /8 MB/);
  checkParts([words('look: '), image(1), image(2)]);
});

test('a paste that is only the path of an image file names it; anything else does not', () => {
  assert.is(imagePathOf('/home/me/shot.png'), '/home/me/shot.png');
  assert.is(imagePathOf('  /home/me/shot.PNG\n'.trimEnd()), '/home/me/shot.PNG');
  assert.is(imagePathOf("'/home/me/my shot.jpg'"), '/home/me/my shot.jpg');
  assert.is(imagePathOf('/home/me/my\\ shot.webp'), '/home/me/my shot.webp');
  assert.is(imagePathOf('file:///home/me/my%20shot.gif'), '/home/me/my shot.gif');
  assert.is(imagePathOf('~/shot.jpeg'), '~/shot.jpeg');
  assert.is(imagePathOf('see /home/me/shot.png'), null, 'words around it');
  assert.is(imagePathOf('/home/me/notes.txt'), null, 'not an image extension');
  assert.is(imagePathOf('shot.png'), null, 'not a path');
  assert.is(imagePathOf('/a.png\n/b.png'), null, 'two paths');
  assert.is(imagePathOf(''), null);
});

test('the format and size are read by decoding, not from the name', async () => {
  const b = await png(64, 48);
  assert.is(sniffFormat(b), 'png');
  assert.equal(await readImageInfo(b), { format: 'png', width: 64, height: 48, bytes: b.length });
  const jpg = await sharp({ create: { width: 10, height: 20, channels: 3, background: '#fff' } }).jpeg().toBuffer();
  assert.equal(await readImageInfo(jpg), { format: 'jpeg', width: 10, height: 20, bytes: jpg.length });
  assert.is(await readImageInfo(Buffer.from('not an image at all')), null);
  // A PNG signature over garbage is not an image.
  assert.is(await readImageInfo(Buffer.concat([b.subarray(0, 8), Buffer.alloc(64, 7)])), null);
  const dir = mkdtempSync(join(tmpdir(), 'tuios-img-'));
  const { writeFileSync } = await import('node:fs');
  writeFileSync(join(dir, 'a.png'), b);
  writeFileSync(join(dir, 'fake.png'), 'hello');
  const ok = await readImageFile(join(dir, 'a.png'));
  assert.ok(typeof ok !== 'string' && ok.info.width === 64);
  assert.match(String(await readImageFile(join(dir, 'fake.png'))), /is not an image/);
  assert.match(String(await readImageFile(join(dir, 'none.png'))), /ENOENT/);
});

test('path_paste puts each image\'s path in a paste of its own, where the image was', () => {
  const written: string[] = [];
  const pieces = renderPieces([words('compare '), image(1), words(' with '), image(2), words(' please')], {
    text: () => (assert.unreachable('no block here'), ''),
    image: (p) => (written.push(`img${p.n}`), `/run/paste/img${p.n}.png`),
  });
  assert.equal(written, ['img1', 'img2']);
  assert.equal(pastesOf(pieces, true), ['compare ', '/run/paste/img1.png', ' with ', '/run/paste/img2.png', ' please']);
  // No bracketed paste, or path_text: the paths in the text, one paste.
  assert.equal(pastesOf(pieces, false), ['compare /run/paste/img1.png with /run/paste/img2.png please']);
  // An image alone, or first: no empty paste around it.
  assert.equal(pastesOf(renderPieces([image(1)], { text: () => '', image: () => '/p.png' }), true), ['/p.png']);
});

test('paste blocks keep their placing beside images: inline up to 12 KB, labelled files past it', () => {
  const small = renderPieces([words('log: '), { kind: 'paste', text: 'a\nb\nc\nd', n: 1 }, image(1)], { text: () => (assert.unreachable('inline'), ''), image: () => '/i.png' });
  assert.equal(small, [{ text: 'log: a\nb\nc\nd' }, { text: '/i.png', own: true }]);
  const big = 'x'.repeat(PASTE_INLINE_MAX_BYTES);
  const files: string[] = [];
  const large = renderPieces([words('log: '), { kind: 'paste', text: big, n: 1 }, image(1, IMAGE_MAX_BYTES)], { text: (_t, n) => (files.push(String(n)), '/run/paste/p1.txt'), image: () => '/i.png' });
  assert.equal(files, ['1'], 'the images do not count toward the 12 KB');
  assert.match(large[0]!.text, /^log: \[Pasted text #1: \/run\/paste\/p1\.txt, 1 lines\]$/);
  assert.equal(large[1], { text: '/i.png', own: true });
});

test('the queue shows an image as its label', () => {
  assert.is(partsSummary([words('see '), image(1)]), 'see [Image #1 · 1280×720 png]');
});

test('an image is written to the paste folder, 0600, named for its format, and removed with the rest', async () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'tuios-pf-')), 'paste');
  const f = new PasteFolder(dir, log as never);
  const b = await png(8, 8);
  const p = f.writeImage(b, 'png');
  assert.match(p, /\/tuios-paste-image-\d{8}-\d{6}-[0-9a-f]{6}\.png$/);
  assert.equal(readFileSync(p), b);
  assert.is(statSync(p).mode & 0o777, 0o600);
  assert.match(f.writeImage(b, 'jpeg'), /\.jpg$/);
  f.dispose();
  assert.is(f.sweep(Date.now(), 0), 0, 'nothing left after the daemon stops');
});

test('a harness whose manifest says images = "none" refuses a message with an image, in the spec\'s words', () => {
  const manifests = new Map([
    ['noimg', { rules: {}, input: { submit: 'cr', bracketed_paste: true, focus_before_submit: false, images: 'none' } }],
    ['claude-code', { rules: {}, input: { submit: 'cr', bracketed_paste: true, focus_before_submit: false, images: 'path_paste' } }],
  ]);
  let harness = 'noimg';
  const svc = {
    bus: new Bus(log as never),
    log,
    config: { current: { agents: { queue: { max: 8 }, mail: { wake: false } } } },
    model: { windows: new Map(), sessions: new Map() },
    agents: { stateOf: () => 'needs_input', harnessOf: () => harness, recordOf: () => null },
    manifests: { byId: manifests },
    pastes: { write: () => '/nowhere', writeImage: () => '/nowhere.png' },
  };
  const q = new DeliveryQueue(svc as never);
  const w = { id: 'w1', name: 'api', sessionId: 's1', shortId: 'w1', lastOutputAt: 0, closed: false } as never;
  const e = refused(() => q.add(w, '', 'human', null, { parts: [words('see '), image(1)] }));
  assert.is(e.message, IMAGES_REFUSED);
  assert.is(e.code, 'unsupported');
  q.add(w, '', 'human', null, { parts: [words('no image here')] });
  harness = 'claude-code';
  const m = q.add(w, '', 'human', null, { parts: [words('see '), image(1)] });
  assert.is(m.text, 'see [Image #1 · 1280×720 png]');
  q.dispose();
});

test('an image sent ahead to another machine travels in pieces as base64, held to its own size', async () => {
  const calls: Array<[string, Record<string, unknown>]> = [];
  const big = Buffer.alloc(IMAGE_MAX_BYTES, 5).toString('base64');
  await callWithParts(async (verb, params) => (calls.push([verb, params]), { id: 'q1' }), 'peer', 'queue-prompt', { window: 'api:w', parts: [{ text: 'see ' }, { image: big, n: 1 }] });
  const staged = calls.filter(([v]) => v === 'stage-paste');
  assert.ok(staged.length > 1, 'in pieces');
  assert.ok(staged.every(([, p]) => p.image === true && (p.text as string).length <= PASTE_STAGE_CHUNK_CHARS));
  assert.is(staged.map(([, p]) => p.text).join(''), big);
  const [verb, sent] = calls.at(-1)!;
  assert.is(verb, 'queue-prompt');
  assert.equal(sent.parts, [{ text: 'see ' }, { staged: staged[0]![1].id, image: true, n: 1 }]);
  // The stage holds an image of 8 MB in base64, which passes the 8 MB of a paste block.
  const st = new StagedPastes();
  for (const piece of pieces(big)) st.append('h', 'img', piece, IMAGE_BASE64_MAX_CHARS);
  assert.is(st.take('h', 'img'), big);
  assert.match(refused(() => pieces(big).forEach((piece) => st.append('h', 'paste', piece))).message, /larger than 8 MB/);
});

test.run();
