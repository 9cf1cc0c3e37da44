// The reply editor holding images (spec: Replying to an agent, Images): one block per image at the
// cursor, the same image twice and the limits refused in the spec's words, backspace and undo, the
// message sent in parts with each image in its place; and the strip above the draft, drawn with
// kitty graphics, half blocks in the 256 colours, or a line of words at 16 colours.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import sharp from 'sharp';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { wireImages } from '../../tui/image-paste.js';
import { waitFor } from '../helpers/wait.js';
import { join } from 'node:path';
import { Editor, editorHint } from '../../tui/editor.js';
import { ImageViewer, opener } from '../../tui/image-viewer.js';
import { editorImage, makeThumb, thumbCols, type EditorImage } from '../../tui/editor-images.js';
import { drawImageLarge, drawImageStrip, graphicsFor, KittyImages, rgbTo256, setGraphics, stripRows } from '../../tui/image-strip.js';
import { imageType } from '../../tui/clipboard.js';
import { Canvas } from '../../tui/canvas.js';
import { openStreamTerminal } from '../../tui/terminal.js';
import { IMAGE_MAX_BYTES } from '../../core/limits.js';
import { ReplyHistory } from '../../core/delivery/reply-history.js';

const key = (name: string) => ({ t: 'key' as const, raw: name, name });
const paste = (text: string) => ({ t: 'paste' as const, raw: `\x1b[200~${text}\x1b[201~`, text });
const type = (e: Editor, s: string) => [...s].forEach((ch) => e.key(key(ch)));
/** An image of `bytes` distinct bytes, said to be `w`×`h` png. */
const img = (seed: number, w = 1280, h = 720, bytes = 1000): EditorImage => editorImage(Buffer.alloc(bytes, seed), { format: 'png', width: w, height: h, bytes });

test('an image is one block at the cursor, sent in parts in its place', () => {
  const e = new Editor();
  type(e, 'what is ');
  assert.is(e.attachImage(img(1)), null);
  type(e, ' here');
  assert.is(e.view().lines[0], 'what is [Image #1 · 1280×720 png] here');
  assert.equal(e.message(), { parts: [{ text: 'what is ' }, { image: Buffer.alloc(1000, 1).toString('base64'), n: 1 }, { text: ' here' }] });
  assert.equal(e.shownImages().map((s) => s.n), [1]);
  // The cursor steps over it in one move; right after it, it is selected.
  for (let i = 0; i < 5; i++) e.key(key('Left'));
  assert.is(e.keyState().block, true, 'selected with the cursor right after it');
  e.key(key('Left'));
  assert.is(e.view().cursor.x, 'what is '.length, 'one step over the block');
  assert.is(e.keyState().block, false);
  e.key(key('Right'));
  assert.is(e.view().selectedCols, '[Image #1 · 1280×720 png]'.length);
});

test('the same image twice is refused with the spec\'s words; the limits too', () => {
  const e = new Editor();
  assert.is(e.attachImage(img(1)), null);
  assert.is(e.attachImage(img(1)), 'Image #1 is already in the message.');
  for (let i = 2; i <= 8; i++) assert.is(e.attachImage(img(i)), null);
  assert.is(e.attachImage(img(9)), 'A message takes at most 8 images.');
  assert.is(e.shownImages().length, 8);
  const f = new Editor();
  assert.match(f.attachImage(img(1, 10, 10, IMAGE_MAX_BYTES + 1)) ?? '', /larger than 8 MB/);
  assert.is(f.attachImage(img(2, 10, 10, 5 * 1024 * 1024)), null);
  assert.match(f.attachImage(img(3, 10, 10, 4 * 1024 * 1024)) ?? '', /together would pass 8 MB/);
});

test('backspace removes the selected image, and undo brings it back', () => {
  const e = new Editor();
  type(e, 'see ');
  e.attachImage(img(1));
  e.key(key('BSpace'));
  assert.is(e.view().lines[0], 'see ');
  assert.equal(e.shownImages(), []);
  assert.equal(e.message(), { text: 'see ' }, 'no image: text again');
  // A removed image no longer counts: the same one may come back.
  e.key(key('C-z'));
  assert.is(e.view().lines[0], 'see [Image #1 · 1280×720 png]');
  assert.is(e.attachImage(img(1)), 'Image #1 is already in the message.');
});

test('a paste goes to the image hook first; a path that named no image is pasted as text', () => {
  const e = new Editor();
  const seen: string[] = [];
  e.imagePaste = (t) => (seen.push(t), t.endsWith('.png'));
  e.key(paste('/tmp/x.png'));
  assert.equal(seen, ['/tmp/x.png']);
  assert.is(e.view().lines[0], '', 'taken by the hook');
  e.pasteText('/tmp/x.png');
  assert.is(e.view().lines[0], '/tmp/x.png', 'pasted as text, the hook passed over');
  e.key(paste(' more'));
  assert.is(e.view().lines[0], '/tmp/x.png more');
  let clip = 0;
  e.clipboard = () => clip++;
  e.key(key('C-v'));
  assert.is(clip, 1, 'ctrl+v asks the view for the clipboard');
});

test('the clipboard\'s image type: PNG first, then another image type, never text', () => {
  assert.is(imageType(['TARGETS', 'text/plain', 'image/jpeg', 'image/png']), 'image/png');
  assert.is(imageType(['image/webp', 'UTF8_STRING']), 'image/webp');
  assert.is(imageType(['text/plain', 'UTF8_STRING', 'image/bmp']), null);
});

test('a client\'s graphics come from its TERM: kitty\'s, 256 colours, or 16', () => {
  assert.is(graphicsFor('xterm-kitty'), 'kitty');
  assert.is(graphicsFor('xterm-ghostty'), 'kitty');
  assert.is(graphicsFor('wezterm'), 'kitty');
  assert.is(graphicsFor('xterm-256color'), 'blocks');
  assert.is(graphicsFor('tmux-256color'), 'blocks');
  assert.is(graphicsFor('xterm'), 'words');
  assert.is(graphicsFor('linux'), 'words');
  assert.is(rgbTo256(0, 0, 0), 16);
  assert.is(rgbTo256(255, 0, 0), 196);
  assert.is(rgbTo256(128, 128, 128), 244, 'a grey goes to the greys');
});

function canvas(cols: number, rows: number) {
  let out = '';
  const t = openStreamTerminal(cols, rows, (s) => (out += s));
  const cv = new Canvas(t.term, cols, rows);
  return { cv, take: () => ((s) => ((out = ''), s))(out), dispose: () => t.dispose() };
}

const shown = (n: number) => Array.from({ length: n }, (_, i) => ({ n: i + 1, image: img(i + 1, 1280, 720, 412_000) }));

test('at 16 colours each image is a line of words, at most 4, then +N more', () => {
  const { cv, take, dispose } = canvas(80, 10);
  try {
    setGraphics(cv, 'words');
    const five = shown(5);
    assert.is(stripRows(cv, five), 5);
    assert.is(drawImageStrip(cv, 0, 0, 80, five, false), 5);
    cv.draw();
    const s = take();
    assert.match(s, /Image #1 · 1280×720 png · 412 KB/);
    assert.match(s, /Image #4 · 1280×720 png · 412 KB/);
    assert.not.match(s, /Image #5/);
    assert.match(s, /\+1 more/);
    assert.is(stripRows(cv, []), 0, 'no image, no strip');
  } finally {
    dispose();
  }
  // An ASCII-only client gets the words too, whatever its terminal draws.
  const a = canvas(80, 10);
  try {
    setGraphics(a.cv, 'blocks');
    a.cv.ascii = true;
    assert.is(stripRows(a.cv, shown(5)), 5);
    drawImageStrip(a.cv, 0, 0, 80, shown(5), true);
    a.cv.draw();
    assert.match(a.take(), /Image #2 - 1280x720 png - 412 KB/);
  } finally {
    a.dispose();
  }
});

test('with 256 colours each image is 3 rows of half blocks, its colours from the image', async () => {
  const { cv, take, dispose } = canvas(80, 10);
  try {
    setGraphics(cv, 'blocks');
    const data = await sharp({ create: { width: 64, height: 32, channels: 3, background: '#ff0000' } }).png().toBuffer();
    const i = editorImage(data, { format: 'png', width: 64, height: 32, bytes: data.length });
    assert.is(thumbCols(i.info), 12, 'twice as wide as high: 12 columns for 6 half rows');
    await makeThumb(i);
    assert.is(drawImageStrip(cv, 0, 0, 80, [{ n: 1, image: i }], false), 3);
    cv.draw();
    const s = take();
    assert.is((s.match(/▀/g) ?? []).length, 36, '12 columns by 3 rows');
    assert.match(s, /38;5;196/, 'red, the nearest of the 256');
  } finally {
    dispose();
  }
});

test('kitty graphics: an image is sent once, placed where the strip drew it, and deleted when no frame draws it', async () => {
  const data = await sharp({ create: { width: 20, height: 10, channels: 3, background: '#00ff00' } }).png().toBuffer();
  const i = editorImage(data, { format: 'png', width: 20, height: 10, bytes: data.length });
  await makeThumb(i);
  const k = new KittyImages();
  k.begin();
  k.want(i, 1, 4, 2, 12, 3);
  const first = k.end();
  assert.match(first, /\x1b_Ga=t,f=100,i=1,q=2,m=0;[A-Za-z0-9+/=]+\x1b\\/, 'sent as PNG');
  assert.match(first, /\x1b\[3;5H\x1b_Ga=p,i=1,p=1,c=12,r=3,C=1,q=2\x1b\\/, 'placed at its cells');
  k.begin();
  k.want(i, 1, 4, 2, 12, 3);
  assert.is(k.end(), '', 'drawn again where it is: nothing sent');
  k.begin();
  k.want(i, 1, 4, 5, 12, 3);
  const moved = k.end();
  assert.not.match(moved, /a=t/, 'moved: placed again, not sent again');
  assert.match(moved, /\x1b\[6;5H\x1b_Ga=p,i=1/);
  k.begin();
  assert.match(k.end(), /\x1b_Ga=d,d=I,i=1,q=2\x1b\\/, 'gone from the frame: deleted');
  const { cv, dispose } = canvas(80, 10);
  try {
    const kitty = setGraphics(cv, 'kitty')!;
    kitty.begin();
    drawImageStrip(cv, 2, 1, 70, [{ n: 1, image: i }], false);
    assert.match(kitty.end(), /a=p,i=1,p=1,c=12,r=3/, 'the strip places it through the canvas\'s kitty images');
  } finally {
    dispose();
  }
});

test('ctrl+o shows the selected image larger; o opens it in the desktop\'s viewer; esc goes back', () => {
  const e = new Editor();
  type(e, 'see ');
  e.attachImage(img(1));
  assert.equal(e.keyState(), { block: true, reading: false, searching: false, image: true });
  assert.is(editorHint(true, e.keyState()), 'ctrl+o view it  backspace remove it  enter send  ctrl+j new line  ctrl+z undo  esc close');
  const calls: string[] = [];
  e.imageView = { shown: () => calls.push('shown'), open: () => calls.push('open'), close: () => calls.push('close') };
  e.key(key('C-o'));
  assert.equal(e.viewedImage()?.n, 1);
  assert.is(editorHint(true, e.keyState()), 'o open in your image viewer  esc back to the draft');
  e.key(key('x'));
  e.key(key('o'));
  e.key(key('Esc'));
  assert.equal(calls, ['shown', 'open', 'close']);
  assert.is(e.viewedImage(), null);
  assert.is(e.view().lines[0], 'see [Image #1 · 1280×720 png]', 'nothing typed while it was open');
});

test('the larger view at 16 colours is the image\'s words and where to see it', () => {
  const { cv, take, dispose } = canvas(80, 10);
  try {
    setGraphics(cv, 'words');
    assert.is(drawImageLarge(cv, 0, 0, 80, 8, { n: 2, image: img(2, 640, 480, 90_000) }, false), 2);
    cv.draw();
    const s = take();
    assert.match(s, /Image #2 · 640×480 png · 90 KB/);
    assert.match(s, /o opens it in your image viewer/);
  } finally {
    dispose();
  }
});

test('the viewer gets a private copy, removed when the view closes', () => {
  const v = new ImageViewer();
  const i = img(3, 10, 10, 50);
  const path = process.env.PATH;
  process.env.PATH = '/nonexistent'; // no opener runs here
  try {
    assert.is(v.open(i, 3), null);
  } finally {
    process.env.PATH = path;
  }
  const dir = v.copy!;
  assert.is(statSync(dir).mode & 0o777, 0o700);
  assert.equal(readdirSync(dir), ['image-3.png']);
  assert.is(statSync(join(dir, 'image-3.png')).mode & 0o777, 0o600);
  assert.equal(readFileSync(join(dir, 'image-3.png')), i.data);
  v.close();
  assert.not.ok(existsSync(dir));
  assert.equal(opener('linux'), ['xdg-open', []]);
  assert.equal(opener('darwin'), ['open', []]);
});

test('what was sent keeps its images within 256 KB, and up brings one back to send again', () => {
  const h = new ReplyHistory();
  const small = Buffer.alloc(100_000, 7).toString('base64');
  const big = Buffer.alloc(200_000, 8).toString('base64');
  const r = h.add('claude-code', '/p', [{ text: 'see ' }, { image: small, n: 1 }, { image: big, n: 2 }]);
  assert.equal(r.parts, [{ text: 'see ' }, { image: small, n: 1 }], 'the second image passed 256 KB');
  assert.is(r.dropped, 1);
  const e = new Editor();
  const restored: EditorImage[] = [];
  e.restored = (i) => restored.push(i);
  e.history = () => h.list('claude-code', '/p');
  e.key(key('Up'));
  assert.is(restored.length, 1, 'its size is read again');
  assert.is(e.shownImages().length, 1);
  assert.equal(e.message(), { parts: [{ text: 'see ' }, { image: small, n: 1 }] });
});

test('a draft wired for images: a PNG path attaches it, a path to no file is text, and a client elsewhere reads no clipboard', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tuios-wire-'));
  const file = join(dir, 'a b.png');
  writeFileSync(file, await sharp({ create: { width: 12, height: 8, channels: 3, background: '#123456' } }).png().toBuffer());
  const said: string[] = [];
  let frames = 0;
  const e = new Editor();
  wireImages(e, { say: (t) => said.push(t), redraw: () => frames++, local: false });
  e.key(paste(file.replace(/ /g, '\\ ')));
  await waitFor(() => e.shownImages()[0]?.image.thumb ?? null, { timeout: 10_000, what: 'the image and its thumbnail' });
  assert.is(e.view().lines[0], '[Image #1 · 12×8 png]');
  assert.ok(frames >= 2, 'drawn when attached and when its thumbnail is there');
  e.key(paste(' /no/such.png'));
  await waitFor(() => (e.view().lines[0]!.endsWith('/no/such.png') ? true : null), { timeout: 10_000, what: 'the path as text' });
  e.key(paste(''));
  assert.equal(said, [], 'an empty paste on a client elsewhere reads no clipboard');
  e.key(key('C-v'));
  assert.equal(said, ['This client runs on another machine and cannot read your clipboard: paste with your terminal.']);
});


test('ctrl+g\'s file holds an image as its label; the label back whole brings the image back, taken out removes it', () => {
  const e = new Editor();
  type(e, 'what is ');
  assert.is(e.attachImage(img(7, 320, 200)), null);
  type(e, ' here');
  const file = e.fileText();
  assert.is(file, 'what is [Image #1 · 320×200 png] here');
  assert.is(e.fromFile(file.replace('what is', 'and what is')), null);
  assert.equal(e.message(), { parts: [{ text: 'and what is ' }, { image: Buffer.alloc(1000, 7).toString('base64'), n: 1 }, { text: ' here' }] });
  assert.is(e.fromFile('just words'), null);
  assert.equal(e.message(), { text: 'just words' }, 'no image left behind the words');
});

test.run();
