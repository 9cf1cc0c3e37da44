// The images a reply draft holds (spec: Replying to an agent, Images): each one's bytes, what it
// is, and its thumbnail for the strip above the draft, made once with sharp. The bytes stay in the
// client's memory until the reply is sent. What attaches one: a paste that is only an image
// file's path, an empty paste, and ctrl+v on a client on the person's machine (clipboard.ts).
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import type { ImageInfo } from '../core/delivery/images.js';
import { imagePathOf } from '../core/delivery/images.js';
import { readImageFile, readImageInfo } from '../core/delivery/image-read.js';
import { readClipboardImage } from './clipboard.js';

/** Rows of the strip an image takes (spec: 3 rows high), and at most this many columns. */
export const THUMB_ROWS = 3;
export const THUMB_MAX_COLS = 24;
/** Images the strip shows; the rest are `+N more`. */
export const STRIP_MAX = 4;

export interface Thumb {
  cols: number;
  /** RGB of each half-cell pixel, THUMB_ROWS * 2 rows of `cols`, row by row. */
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
}

export function editorImage(data: Buffer, info: ImageInfo): EditorImage {
  return { data, info, hash: createHash('sha256').update(data).digest('hex'), thumb: null };
}

/** Columns a thumbnail takes for the image's shape: a half-block pixel is about square. */
export function thumbCols(info: Pick<ImageInfo, 'width' | 'height'>): number {
  return Math.max(1, Math.min(THUMB_MAX_COLS, Math.round((THUMB_ROWS * 2 * info.width) / info.height)));
}

/** Makes the image's thumbnail (once); `done` runs when it is there. */
export async function makeThumb(img: EditorImage): Promise<void> {
  if (img.thumb) return;
  const cols = thumbCols(img.info);
  const src = () => sharp(img.data, { animated: false }).flatten({ background: '#000000' });
  const rgb = await src().resize(cols, THUMB_ROWS * 2, { fit: 'fill' }).removeAlpha().raw().toBuffer();
  const png = await src().resize(cols * 10, THUMB_ROWS * 20, { fit: 'inside' }).png().toBuffer();
  img.thumb = { cols, rgb, png };
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

