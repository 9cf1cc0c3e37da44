// Invisible characters a reply must not carry unseen (spec: Large pastes, before it sends): Unicode
// tags, bidi controls and zero-width characters. Text pasted from a web page can hide instructions
// in them that the agent reads and the person never saw. The list is the fence's (core/mail/fence.ts).
import { INVISIBLE_CLASS } from '../core/mail/fence.js';

const INVISIBLE = new RegExp(`[${INVISIBLE_CLASS}]`, 'gu');

/** The text without its invisible characters, and how many there were. */
export function removeInvisible(text: string): { text: string; removed: number } {
  let removed = 0;
  const out = text.replace(INVISIBLE, () => {
    removed++;
    return '';
  });
  return { text: out, removed };
}

/** The spec's words when some were removed: the message is not sent, the person reads it first. */
export function invisibleNotice(n: number): string {
  return `Removed ${n} invisible character${n === 1 ? '' : 's'}. Read the message and press enter to send.`;
}
