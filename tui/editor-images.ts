// The images a reply draft holds (spec: Replying to an agent, Images): each one's bytes, what it
// is, and its thumbnail for the strip above the draft, made once with sharp. The bytes stay in the
// client's memory until the reply is sent. What attaches one: a paste that is only an image
// file's path, an empty paste, and ctrl+v on a client on the person's machine (clipboard.ts).
import { createHash } from 'node:crypto';
import type { ImageInfo } from '../core/delivery/images.js';
import { imagePathOf } from '../core/delivery/images.js';
import { loadSharp, readImageFile, readImageInfo } from '../core/delivery/image-read.js';
import { readClipboardImage } from './clipboard.js';
import { LARGE_MAX_COLS, THUMB_MAX_COLS, THUMB_ROWS } from './limits.js';

export { STRIP_MAX, THUMB_ROWS } from './limits.js';



export interface Thumb {
  cols: number;
  rows: number;
  /** RGB of each half-cell pixel, `rows` * 2 rows of `cols`, row by row. */
  rgb: Buffer;
  /** A small PNG of the image for kitty graphics. */
  png: Buffer;
}

export interface EditorImage {
  data: Buffer;
  info: ImageInfo;
  /** The bytes' digest: the same image twice is refused. */
  hash: string;
  thumb: Thumb | null;
  /** The larger picture ctrl+o shows, made when first asked for. */
  large: Thumb | null;
}

export function editorImage(data: Buffer, info: ImageInfo): EditorImage {
  return { data, info, hash: createHash('sha256').update(data).digest('hex'), thumb: null, large: null };
}

/** Columns a thumbnail takes for the image's shape: a half-block pixel is about square. */
export function thumbCols(info: Pick<ImageInfo, 'width' | 'height'>, rows = THUMB_ROWS, max = THUMB_MAX_COLS): number {
  return Math.max(1, Math.min(max, Math.round((rows * 2 * info.width) / info.height)));
}

/** The image scaled to `rows` of half-block pixels pairs, and as a small PNG for kitty graphics. */
async function scaled(img: EditorImage, rows: number, max: number): Promise<Thumb> {
  const cols = thumbCols(img.info, rows, max);
  const sharp = await loadSharp();
  const src = () => sharp(img.data, { animated: false }).flatten({ background: '#000000' });
  const rgb = await src().resize(cols, rows * 2, { fit: 'fill' }).removeAlpha().raw().toBuffer();
  const png = await src().resize(cols * 10, rows * 20, { fit: 'inside' }).png().toBuffer();
  return { cols, rows, rgb, png };
}

/** Makes the image's thumbnail for the strip (once). */
export async function makeThumb(img: EditorImage): Promise<void> {
  img.thumb ??= await scaled(img, THUMB_ROWS, THUMB_MAX_COLS);
}

/** Makes the larger picture ctrl+o shows, `rows` high (once). */
export async function makeLarge(img: EditorImage, rows: number): Promise<void> {
  if (img.large?.rows === rows) return;
  img.large = await scaled(img, rows, LARGE_MAX_COLS);
}

export type Attached = { image: EditorImage } | { refused: string } | null;

/**
 * What a paste attaches: the image a path names, or (an empty paste, on the person's machine)
 * the clipboard's image. Null: the paste is text, to paste as text.
 */
export async function imageFromPaste(text: string, local: boolean): Promise<Attached> {
  if (text === '') return local ? clipboardImage() : null;
  const path = imagePathOf(text);
  if (!path) return null;
  const r = await readImageFile(path);
  if (typeof r === 'string') return { refused: r };
  return { image: editorImage(r.data, r.info) };
}

/** The clipboard's image (ctrl+v, an empty paste); null when it holds none. */
export async function clipboardImage(): Promise<Attached> {
  const data = await readClipboardImage();
  if (!data) return null;
  const info = await readImageInfo(data);
  if (!info) return { refused: 'The clipboard holds an image tuios does not read (png, jpeg, gif, webp).' };
  return { image: editorImage(data, info) };
}

