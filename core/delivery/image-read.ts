// Reading an image (spec: Replying to an agent, Images) with sharp: its format and size, checked
// by decoding its header the way libvips does, so a file named .png that is not one is refused.
// The daemon reads each image a message brings; the editor reads each image it attaches.
import { readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import type { Sharp, SharpOptions } from 'sharp';
import { sniffFormat, type ImageFormat, type ImageInfo } from './images.js';
import { IMAGE_MAX_BYTES } from '../limits.js';

type SharpFn = (input: Buffer, options?: SharpOptions) => Sharp;
let loaded: Promise<SharpFn> | null = null;

/**
 * sharp, loaded the first time an image is read: libvips is a large native library, and the
 * processes that only describe the verbs (the CLI, the MCP server) never need it.
 */
export function loadSharp(): Promise<SharpFn> {
  loaded ??= import('sharp').then((m) => (m.default ?? m) as unknown as SharpFn);
  return loaded;
}

const FORMATS: ReadonlySet<string> = new Set(['png', 'jpeg', 'gif', 'webp']);

/** The image's format, width and height; null when the bytes are not an image of a known format. */
export async function readImageInfo(data: Buffer): Promise<ImageInfo | null> {
  if (!sniffFormat(data)) return null;
  try {
    const sharp = await loadSharp();
    const m = await sharp(data, { animated: false }).metadata();
    if (!m.format || !FORMATS.has(m.format) || !m.width || !m.height) return null;
    return { format: m.format as ImageFormat, width: m.width, height: m.height, bytes: data.length };
  } catch {
    return null; // libvips could not read it: not an image
  }
}

/** An image file's bytes and what they are; a string says why not (no such file, too large, not an image). */
export async function readImageFile(path: string): Promise<{ data: Buffer; info: ImageInfo } | string> {
  const p = path.startsWith('~/') ? homedir() + path.slice(1) : path;
  try {
    const st = await stat(p);
    if (!st.isFile()) return `${path} is not a file.`;
    if (st.size > IMAGE_MAX_BYTES) return `The image is larger than ${IMAGE_MAX_BYTES / (1024 * 1024)} MB.`;
    const data = await readFile(p);
    const info = await readImageInfo(data);
    return info ? { data, info } : `${path} is not an image tuios reads (png, jpeg, gif, webp).`;
  } catch (e) {
    return `The image could not be read: ${(e as NodeJS.ErrnoException).code ?? String(e)}.`;
  }
}
