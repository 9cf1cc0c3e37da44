// The parts of a message (spec: Queued messages, Large pastes): queue-prompt's `parts`, and
// stage-paste, which sends a large paste block ahead of its message in pieces (a call over a link
// is one 1 MiB frame; a block may be 8 MB). A block sent ahead is held for whoever sent it, and
// only their message can take it.
import { z } from 'zod';
import { defineVerb } from '../rpc/verb.js';
import { TuiosError } from '../errors.js';
import type { Services } from '../daemon/services.js';
import type { Caller } from '../rpc/caller.js';
import type { MessagePart, PartParam } from '../delivery/parts.js';
import { IMAGE_BASE64_MAX_CHARS, IMAGE_MAX_BYTES, IMAGES_MAX, PASTE_BLOCKS_MAX, PASTE_STAGE_CHUNK_CHARS } from '../limits.js';
import { readImageInfo } from '../delivery/image-read.js';

const stageId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);
const imageNo = z.number().int().min(1).max(IMAGES_MAX).optional().describe('The image\'s number in its label (#N); default its place among the images');
const blockNo = z.number().int().min(1).max(999).optional().describe('The block\'s number in the label (#N); default its place among the blocks');

/** One part of a message: typed words, a pasted block, or a block sent ahead with stage-paste. */
export const partSchema = z.union([
  z.object({ text: z.string() }).strict(),
  z.object({ paste: z.string(), n: blockNo }).strict(),
  z.object({ staged: stageId, n: blockNo }).strict(),
  // An image: its bytes in base64, or sent ahead with stage-paste as base64 and named here.
  z.object({ image: z.string().max(IMAGE_BASE64_MAX_CHARS).regex(/^[A-Za-z0-9+/]*={0,2}$/), n: imageNo }).strict(),
  z.object({ staged: stageId, image: z.literal(true), n: imageNo }).strict(),
]);


/** Words and blocks alternate at most: a block, the words after it, and the words before the first. */
export const partsParam = z.array(partSchema).min(1).max(2 * (PASTE_BLOCKS_MAX + IMAGES_MAX) + 1);

/**
 * The message's parts as the queue holds them, blocks sent ahead taken from the stage. A linked
 * machine's blocks become files here, which its [hosts] policy must allow (`files`).
 */
export async function messageParts(svc: Services, caller: Caller, by: string, parts: PartParam[]): Promise<MessagePart[]> {
  const blocks = parts.filter((p) => !('text' in p)).length;
  if (blocks > 0 && caller.channel === 'link') {
    const host = caller.host ?? '?';
    if (svc.config.current.hosts[host]?.files !== true) {
      throw new TuiosError('forbidden', `A reply with a paste block or an image is refused: the linked host ${host} may not write files here.`, `On this machine, [hosts.${host}] files = true allows it.`);
    }
  }
  let n = 0;
  let images = 0;
  const out: MessagePart[] = [];
  for (const p of parts) {
    if ('text' in p) {
      out.push({ kind: 'text', text: p.text });
      continue;
    }
    if ('image' in p) {
      images++;
      const b64 = p.image === true && 'staged' in p ? svc.pasteStage.take(by, p.staged) : String(p.image);
      const data = Buffer.from(b64, 'base64');
      if (data.length > IMAGE_MAX_BYTES) throw new TuiosError('queue_full', `The image is larger than ${IMAGE_MAX_BYTES / (1024 * 1024)} MB.`, 'Remove it to send.');
      const info = await readImageInfo(data);
      if (!info) throw new TuiosError('invalid_params', `Image #${p.n ?? images} is not an image tuios reads (png, jpeg, gif, webp).`, 'Remove it to send.', { field: 'parts' });
      out.push({ kind: 'image', text: '', data, n: p.n ?? images, info });
      continue;
    }
    n++;
    const text = 'paste' in p ? p.paste : svc.pasteStage.take(by, p.staged);
    out.push({ kind: 'paste', text, n: p.n ?? n });
  }
  return out;
}

export function makeStagePaste(whoQueues: (svc: Services, caller: Caller, nonce: string | undefined) => string) {
  return defineVerb({
    name: 'stage-paste',
    summary: 'Send a large paste block ahead of the message that holds it, in pieces (queue-prompt parts name it as staged)',
    target: 'window',
    mutates: true,
    link: { right: 'files' },
    params: z.object({
      id: stageId.describe('The block\'s id, chosen by the sender; the message names it'),
      text: z.string().max(PASTE_STAGE_CHUNK_CHARS).describe('The next piece of the block'),
      nonce: z.string().max(128).optional().describe('The attach nonce (sent as human)'),
      image: z.boolean().optional().describe('The block is an image in base64 (its own size limit)'),
    }),
    result: z.object({ id: z.string(), bytes: z.number().int() }),
    print: (r) => `${r.id} ${r.bytes}`,
    run({ params, svc, caller }) {
      const by = whoQueues(svc, caller, params.nonce);
      return { id: params.id, bytes: svc.pasteStage.append(by, params.id, params.text, params.image ? IMAGE_BASE64_MAX_CHARS : undefined) };
    },
  });
}
