// Paste blocks sent ahead of their message (stage-paste): a reply's block may be 8 MB, and one
// call over a link is at most a 1 MiB frame, so the machine that sends the reply sends each large
// block first, in pieces, and the message then names it. Held here, per whoever sent it, until
// the message takes it or it waits too long. Bounded in count, per block and in all.
import { TuiosError } from '../errors.js';
import { MESSAGE_PARTS_MAX_BYTES, PASTE_STAGES_MAX, PASTE_STAGES_TOTAL_BYTES, PASTE_STAGE_TTL_MS } from '../limits.js';


interface Stage {
  chunks: string[];
  bytes: number;
  at: number;
}

export class StagedPastes {
  private readonly stages = new Map<string, Stage>();
  private total = 0;

  constructor(private readonly now: () => number = Date.now) {}

  private key(owner: string, id: string): string {
    return `${owner}\u0000${id}`;
  }

  private expire(): void {
    const now = this.now();
    for (const [k, s] of this.stages) {
      if (now - s.at <= PASTE_STAGE_TTL_MS) continue;
      this.stages.delete(k);
      this.total -= s.bytes;
    }
  }

  /** Adds a piece to `owner`'s block `id` (at most `max` bytes in all); answers the block's bytes so far. */
  append(owner: string, id: string, text: string, max = MESSAGE_PARTS_MAX_BYTES): number {
    this.expire();
    const k = this.key(owner, id);
    let s = this.stages.get(k);
    const bytes = Buffer.byteLength(text);
    if (!s) {
      if (this.stages.size >= PASTE_STAGES_MAX) throw new TuiosError('limit_reached', `At most ${PASTE_STAGES_MAX} paste blocks wait for their message at once.`, 'Send the messages they belong to, or wait a minute.');
      s = { chunks: [], bytes: 0, at: this.now() };
      this.stages.set(k, s);
    }
    if (s.bytes + bytes > max) throw new TuiosError('queue_full', 'The message is larger than 8 MB. Remove a paste to send.', `A paste block is at most ${MESSAGE_PARTS_MAX_BYTES} bytes.`);
    if (this.total + bytes > PASTE_STAGES_TOTAL_BYTES) throw new TuiosError('queue_full', 'The paste blocks waiting for their messages are too large together.', 'Send those messages first.');
    s.chunks.push(text);
    s.bytes += bytes;
    s.at = this.now();
    this.total += bytes;
    return s.bytes;
  }

  /** The whole block, removed from here; not_found when it was never sent or waited too long. */
  take(owner: string, id: string): string {
    this.expire();
    const k = this.key(owner, id);
    const s = this.stages.get(k);
    if (!s) throw new TuiosError('not_found', `The paste block ${id.slice(0, 32)} was not sent ahead, or waited too long for its message.`, 'Send the reply again.');
    this.stages.delete(k);
    this.total -= s.bytes;
    return s.chunks.join('');
  }

  get size(): number {
    return this.stages.size;
  }

  get bytes(): number {
    return this.total;
  }
}
