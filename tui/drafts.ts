// Reply drafts kept by pane (spec: Replying to an agent): esc closes the editor and keeps the
// draft, `r` on the same pane opens it again. A reply being sent is taken out of the drafts, so a
// reply opened while it is out starts a new draft; one the daemon refuses comes back, as the
// draft, or at the top of the new one. Drafts live in the client's memory and end with it.
import type { PartParam } from '../core/delivery/parts.js';

/** What the store needs of a draft (the Editor). */
export interface Draft {
  readonly empty: boolean;
  parts(): PartParam[];
  putOnTop(parts: readonly PartParam[]): void;
}

/** Takes the draft out as its reply is sent: answers it, and the key has no draft until the answer. */
export function takeForSending<K, D>(drafts: Map<K, D>, key: K): D | undefined {
  const d = drafts.get(key);
  drafts.delete(key);
  return d;
}

/**
 * A refused reply's draft back under its key: as the draft when there is none (or an empty one),
 * else at the top of the draft started while it was out. Answers the draft the key has now.
 */
export function giveBack<K, D extends Draft>(drafts: Map<K, D>, key: K, sent: D): D {
  const now = drafts.get(key);
  if (!now || now === sent || now.empty) {
    drafts.set(key, sent);
    return sent;
  }
  now.putOnTop(sent.parts());
  return now;
}
