// Placing a message's images when it is typed (spec: Typing a prompt, `[input] images`): each
// image is written to a file of the paste folder, and its path goes where the image was, either
// in a paste of its own (`path_paste`: the harness attaches a pasted image path) or in the text
// (`path_text`). The words and paste blocks around it are placed as parts.ts places them. Pure:
// writing the files is the caller's.
import { fileLabel, partsBytes, type ImagePart, type MessagePart } from './parts.js';
import { PASTE_INLINE_MAX_BYTES } from '../limits.js';

/** One paste of what is typed; `own` marks an image's path, which goes in a paste of its own. */
export interface PromptPiece {
  text: string;
  own?: true;
}

export type ImagesMode = 'path_paste' | 'path_text' | 'none';

export interface PartWriters {
  /** Writes a paste block's text to a file; answers its path. */
  text(text: string, n: number): string;
  /** Writes an image to a file; answers its path. */
  image(p: ImagePart): string;
}

/**
 * What typing a message in parts types, as pieces. Paste blocks are placed as renderParts places
 * them (inline when the words and blocks are 12 KB or less, else each in a labelled file), judged
 * on the words and blocks without the images.
 */
export function renderPieces(parts: readonly MessagePart[], w: PartWriters): PromptPiece[] {
  const toFiles = partsBytes(parts).total > PASTE_INLINE_MAX_BYTES;
  const out: PromptPiece[] = [];
  let text = '';
  for (const p of parts) {
    if (p.kind === 'text') text += p.text;
    else if (p.kind === 'paste') text += toFiles ? fileLabel(p.n, w.text(p.text, p.n), p.text) : p.text;
    else {
      if (text) out.push({ text });
      text = '';
      out.push({ text: w.image(p), own: true });
    }
  }
  if (text) out.push({ text });
  return out;
}

/**
 * The pastes to type: with `own` allowed (path_paste, a pane taking bracketed paste) each image's
 * path alone and the text around it joined; otherwise all of it as one paste, paths in the text.
 */
export function pastesOf(pieces: readonly PromptPiece[], own: boolean): string[] {
  if (!own) return [pieces.map((p) => p.text).join('')];
  const out: string[] = [];
  let text = '';
  for (const p of pieces) {
    if (!p.own) {
      text += p.text;
      continue;
    }
    if (text) out.push(text);
    text = '';
    out.push(p.text);
  }
  if (text) out.push(text);
  return out;
}
