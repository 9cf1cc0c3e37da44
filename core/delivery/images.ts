// Images in a reply (spec: Replying to an agent, Images): the label and the words a person sees,
// the limits both the editor and the daemon hold a message to, the refusals in the spec's words,
// and what a paste that is only the path of an image file names. Pure; reading an image's size is
// image-read.ts's (sharp).
import { IMAGE_MAX_BYTES, IMAGES_MAX, IMAGES_TOTAL_BYTES } from '../limits.js';

export type ImageFormat = 'png' | 'jpeg' | 'gif' | 'webp';

export interface ImageInfo {
  format: ImageFormat;
  width: number;
  height: number;
  bytes: number;
}

/** The spec's refusal for a harness whose manifest says `images = "none"`. */
export const IMAGES_REFUSED = 'This agent cannot take images. Remove the image to send.';

export function alreadyInMessage(n: number): string {
  return `Image #${n} is already in the message.`;
}

/** The file extensions a paste of a path is taken as an image by. */
const IMAGE_EXT = /\.(png|jpe?g|gif|webp)$/i;

/** The format the bytes start as, from their magic numbers; null for anything else. */
export function sniffFormat(b: Uint8Array): ImageFormat | null {
  if (b.length >= 8 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) return 'png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (b.length >= 6 && b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x38) return 'gif';
  if (b.length >= 12 && String.fromCharCode(...b.subarray(0, 4)) === 'RIFF' && String.fromCharCode(...b.subarray(8, 12)) === 'WEBP') return 'webp';
  return null;
}

/** `[Image #1 · 1280×720 png]`: the block in the draft. */
export function imageLabel(n: number, i: Pick<ImageInfo, 'format' | 'width' | 'height'>, ascii = false): string {
  return `[Image #${n} ${ascii ? '-' : '·'} ${i.width}${ascii ? 'x' : '×'}${i.height} ${i.format}]`;
}

/** `Image #1 · 1280×720 png · 412 KB`: an image as a line of words (a terminal of 16 colours). */
export function imageWords(n: number, i: ImageInfo, ascii = false): string {
  const dot = ascii ? '-' : '·';
  return `Image #${n} ${dot} ${i.width}${ascii ? 'x' : '×'}${i.height} ${i.format} ${dot} ${sizeWords(i.bytes)}`;
}

/** 412 KB, 1.3 MB: sizes as a person reads them (1000s, as a file manager shows them). */
export function sizeWords(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${Math.round(bytes / 1000)} KB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

/**
 * Why one more image of `bytes` cannot join a message already holding images of `held` bytes
 * each; null when it can. The words of the limits: 8 images, 8 MB each, 8 MB in all.
 */
export function imageRefusal(held: readonly number[], bytes: number): string | null {
  if (held.length >= IMAGES_MAX) return `A message takes at most ${IMAGES_MAX} images.`;
  if (bytes > IMAGE_MAX_BYTES) return `The image is larger than ${IMAGE_MAX_BYTES / (1024 * 1024)} MB.`;
  if (held.reduce((a, b) => a + b, 0) + bytes > IMAGES_TOTAL_BYTES) return `The images together would pass ${IMAGES_TOTAL_BYTES / (1024 * 1024)} MB. Remove one to add this.`;
  return null;
}

/**
 * The path a paste names when it is only the path of an image file: what a terminal pastes for a
 * file dropped on it (quoted, with backslash-escaped spaces, or as a file:// URL). Null for any
 * other paste. Whether the file is there is the caller's to find out.
 */
export function imagePathOf(paste: string): string | null {
  let s = paste.trim();
  if (s === '' || s.length > 4096 || /[\r\n\0]/.test(s)) return null;
  if ((s.startsWith("'") && s.endsWith("'")) || (s.startsWith('"') && s.endsWith('"'))) s = s.slice(1, -1);
  else if (s.startsWith('file://')) {
    try {
      s = decodeURIComponent(new URL(s).pathname);
    } catch {
      return null; // not a URL after all
    }
  } else s = s.replace(/\\(.)/g, '$1');
  if (!s.startsWith('/') && !s.startsWith('~/')) return null;
  return IMAGE_EXT.test(s) ? s : null;
}
