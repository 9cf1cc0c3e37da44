// A message in parts to another machine (spec: Replying to an agent): that machine writes its own
// paste files, so the blocks travel, and one call over a link is one 1 MiB frame while a message
// may hold 8 MB. A message larger than one piece sends each block ahead with stage-paste, in
// pieces, and then the message naming them. A daemon there from before parts takes the message
// whole as text when it fits in 16 KB; a larger one is refused with what to do.
import { randomBytes } from 'node:crypto';
import { TuiosError } from '../errors.js';
import type { PartParam } from '../delivery/parts.js';
import { PASTE_STAGE_CHUNK_CHARS, QUEUE_MESSAGE_MAX_BYTES } from '../limits.js';

export type RemoteCall = (verb: string, params: Record<string, unknown>) => Promise<unknown>;

/** The pieces of a block, none over `max` characters, a surrogate pair never cut. */
export function pieces(text: string, max = PASTE_STAGE_CHUNK_CHARS): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; ) {
    let end = Math.min(text.length, i + max);
    const c = text.charCodeAt(end - 1);
    if (end < text.length && c >= 0xd800 && c <= 0xdbff) end--;
    out.push(text.slice(i, end));
    i = end;
  }
  return out;
}

function partsChars(parts: PartParam[]): number {
  return parts.reduce((n, p) => n + ('text' in p ? p.text.length : 'paste' in p ? p.paste.length : 'image' in p && typeof p.image === 'string' ? p.image.length : 0), 0);
}

function inline(parts: PartParam[]): string {
  return parts.map((p) => ('text' in p ? p.text : 'paste' in p ? p.paste : '')).join('');
}

function tooOld(host: string): TuiosError {
  return new TuiosError(
    'unsupported',
    `The daemon on ${host} is from before this release: it takes a message with paste blocks only when the whole message fits in 16 KB.`,
    `Restart it with \`tuios kill-server\` on ${host} (the next tuios command starts the new one), then send the reply again.`,
  );
}

/** Calls `verb` there with `params.parts`, sending large blocks ahead; `window` names the pane there. */
export async function callWithParts(call: RemoteCall, host: string, verb: string, params: Record<string, unknown>): Promise<unknown> {
  const parts = params.parts as PartParam[];
  let sent = parts;
  if (partsChars(parts) > PASTE_STAGE_CHUNK_CHARS) {
    sent = [];
    for (const p of parts) {
      // An image travels as its base64, sent ahead the same way; the machine there writes its file.
      const image = 'image' in p && typeof p.image === 'string' ? p.image : null;
      if (!('paste' in p) && image === null) {
        sent.push(p);
        continue;
      }
      const id = randomBytes(12).toString('base64url');
      for (const text of pieces('paste' in p ? p.paste : image!)) {
        try {
          await call('stage-paste', { window: params.window, id, text, ...(image !== null ? { image: true } : {}) });
        } catch (e) {
          if (e instanceof TuiosError && e.code === 'unknown_verb') return old();
          throw e;
        }
      }
      sent.push({ staged: id, ...(image !== null ? { image: true as const } : {}), ...('n' in p && p.n !== undefined ? { n: p.n } : {}) });
    }
  }
  try {
    return await call(verb, { ...params, parts: sent });
  } catch (e) {
    // A daemon from before parts drops the unknown field and finds no text.
    if (e instanceof TuiosError && e.code === 'invalid_params' && /text/i.test(e.message)) return old();
    throw e;
  }

  function old(): Promise<unknown> {
    // An image cannot become text: a daemon from before images takes no message with one.
    if (parts.some((p) => 'image' in p)) throw tooOld(host);
    const text = inline(parts);
    if (Buffer.byteLength(text) > QUEUE_MESSAGE_MAX_BYTES) throw tooOld(host);
    const { parts: _, ...rest } = params;
    return call(verb, { ...rest, text });
  }
}
