// What the person sent to agents from the Inbox (spec: Replying to an agent): kept by the daemon,
// in memory only, under the agent's harness and folder, so a pane that opens again on the same
// folder keeps it, and it ends with the daemon. Only the attached client reads it (the TUI runs in
// the daemon). A message keeps at most 256 KB of pastes; a larger block is left out and counted.
import type { PartParam } from './parts.js';
import { REPLY_HISTORY_AGENTS, REPLY_HISTORY_PASTE_BYTES, REPLY_HISTORY_PER_AGENT } from '../limits.js';

export interface RememberedReply {
  /** The words and the blocks kept, in order. */
  parts: Array<{ text: string } | { paste: string; n?: number } | { image: string; n?: number }>;
  /** Blocks and images left out: the message's pastes and images passed 256 KB. */
  dropped: number;
  at: number;
}

export class ReplyHistory {
  private readonly byAgent = new Map<string, RememberedReply[]>();

  private key(harness: string | null, folder: string | null): string {
    return `${harness ?? ''}\u0000${folder ?? ''}`;
  }

  /** Remembers a message (newest first); one equal to the newest is not kept twice. */
  add(harness: string | null, folder: string | null, parts: readonly PartParam[], now = Date.now()): RememberedReply {
    let pastes = 0;
    let dropped = 0;
    const kept: RememberedReply['parts'] = [];
    for (const p of parts) {
      if ('text' in p) kept.push({ text: p.text });
      else if ('image' in p && typeof p.image === 'string') {
        // An image counts its bytes, not its base64 (spec: 256 KB of pastes and images).
        const b = Math.floor((p.image.length * 3) / 4);
        if (pastes + b > REPLY_HISTORY_PASTE_BYTES) dropped++;
        else {
          pastes += b;
          kept.push({ image: p.image, ...(p.n !== undefined ? { n: p.n } : {}) });
        }
      } else if ('paste' in p) {
        const b = Buffer.byteLength(p.paste);
        if (pastes + b > REPLY_HISTORY_PASTE_BYTES) dropped++;
        else {
          pastes += b;
          kept.push({ paste: p.paste, ...(p.n !== undefined ? { n: p.n } : {}) });
        }
      }
    }
    const entry: RememberedReply = { parts: kept, dropped, at: now };
    const k = this.key(harness, folder);
    const list = this.byAgent.get(k) ?? [];
    this.byAgent.delete(k); // most recently used last, for the bound below
    if (list[0] && JSON.stringify(list[0].parts) === JSON.stringify(kept)) list.shift();
    list.unshift(entry);
    if (list.length > REPLY_HISTORY_PER_AGENT) list.length = REPLY_HISTORY_PER_AGENT;
    this.byAgent.set(k, list);
    if (this.byAgent.size > REPLY_HISTORY_AGENTS) this.byAgent.delete(this.byAgent.keys().next().value!);
    return entry;
  }

  /** What was sent to agents of this harness in this folder, newest first. */
  list(harness: string | null, folder: string | null): readonly RememberedReply[] {
    return this.byAgent.get(this.key(harness, folder)) ?? [];
  }
}
