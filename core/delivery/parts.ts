// A message in parts (spec: Queued messages, Large pastes): the words a person typed and the
// blocks they pasted, in order. The daemon on the pane's machine decides, when it types the
// message, how each block reaches the agent: a message of 12 KB or less goes in one paste with
// each block's text in its place; a larger one puts each block in a file and types a label that
// names the file. Pure: writing a file is the caller's `write`.
import { TuiosError } from '../errors.js';
import { MESSAGE_PARTS_MAX_BYTES, PASTE_BLOCKS_MAX, PASTE_INLINE_MAX_BYTES, QUEUE_MESSAGE_MAX_BYTES } from '../limits.js';
import { imageLabel, imageRefusal, type ImageInfo } from './images.js';

/** An image (images.ts): its bytes, and its number in the message's images. `text` is empty. */
export type ImagePart = { kind: 'image'; text: ''; data: Buffer; n: number; info: ImageInfo };

export type MessagePart = { kind: 'text'; text: string } | { kind: 'paste'; text: string; n: number } | ImagePart;

/** A part as a caller sends it (queue-prompt `parts`): words, a block, a block sent ahead, an image (base64, or sent ahead). */
export type PartParam = { text: string } | { paste: string; n?: number } | { staged: string; n?: number; image?: true } | { image: string; n?: number };

/** The spec's refusals, word for word: the editor shows them and the daemon answers them. */
export const WORDS_TOO_LARGE = 'The message is larger than 16 KB. Make it shorter to send.';
export const PARTS_TOO_LARGE = 'The message is larger than 8 MB. Remove a paste to send.';

/** Lines of a block as a person counts them: a final line break does not start another. */
export function lineCount(text: string): number {
  if (text === '') return 0;
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return text.endsWith('\n') ? n - 1 : n;
}

export function partsBytes(parts: readonly MessagePart[]): { words: number; total: number; blocks: number } {
  let words = 0;
  let total = 0;
  let blocks = 0;
  for (const p of parts) {
    if (p.kind === 'image') continue; // held to the images' own limits (checkParts)
    const b = Buffer.byteLength(p.text);
    total += b;
    if (p.kind === 'text') words += b;
    else blocks++;
  }
  return { words, total, blocks };
}

/** Refuses a message whose words pass 16 KB, whose whole passes 8 MB, or with too many blocks. */
export function checkParts(parts: readonly MessagePart[]): void {
  const { words, total, blocks } = partsBytes(parts);
  if (words > QUEUE_MESSAGE_MAX_BYTES) throw new TuiosError('queue_full', WORDS_TOO_LARGE, `The typed words of a message are at most ${QUEUE_MESSAGE_MAX_BYTES} bytes; paste the rest as a block.`);
  if (total > MESSAGE_PARTS_MAX_BYTES) throw new TuiosError('queue_full', PARTS_TOO_LARGE, `A message in parts is at most ${MESSAGE_PARTS_MAX_BYTES} bytes.`);
  if (blocks > PASTE_BLOCKS_MAX) throw new TuiosError('queue_full', `A message holds at most ${PASTE_BLOCKS_MAX} paste blocks.`, 'Join some of them into one paste.');
  const held: number[] = [];
  for (const p of parts) {
    if (p.kind !== 'image') continue;
    const why = imageRefusal(held, p.data.length);
    if (why) throw new TuiosError('queue_full', why, 'Remove an image to send.');
    held.push(p.data.length);
  }
}

/** The label the editor shows for a block: `[Pasted text #1 · 42 lines]`. */
export function blockLabel(n: number, text: string, ascii = false): string {
  return `[Pasted text #${n} ${ascii ? '-' : '·'} ${lineCount(text)} lines]`;
}

/** The label typed in a block's place when it went to a file (spec: Large pastes). */
export function fileLabel(n: number, path: string, text: string): string {
  return `[Pasted text #${n}: ${path}, ${lineCount(text).toLocaleString('en-US')} lines]`;
}

/** The message as a list shows it: the words, each block as its editor label. */
export function partsSummary(parts: readonly MessagePart[]): string {
  return parts.map((p) => (p.kind === 'text' ? p.text : p.kind === 'image' ? imageLabel(p.n, p.info) : blockLabel(p.n, p.text))).join('');
}

/** Every block's text in its place: what a message of at most 12 KB types. */
export function partsInline(parts: readonly MessagePart[]): string {
  return parts.map((p) => p.text).join('');
}

/**
 * The text to type for a message in parts. At most 12 KB in all: one paste, blocks in place.
 * Larger: each block written by `write` (which answers the file's path) and its label typed.
 */
export function renderParts(parts: readonly MessagePart[], write: (text: string, n: number) => string): { text: string; files: string[] } {
  if (partsBytes(parts).total <= PASTE_INLINE_MAX_BYTES) return { text: partsInline(parts), files: [] };
  const files: string[] = [];
  const text = parts
    .map((p) => {
      if (p.kind === 'text') return p.text;
      const path = write(p.text, p.n);
      files.push(path);
      return fileLabel(p.n, path, p.text);
    })
    .join('');
  return { text, files };
}
