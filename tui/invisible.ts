// Invisible characters a reply must not carry unseen (spec: Large pastes, before it sends): Unicode
// tags, bidi controls and zero-width characters. Text pasted from a web page can hide instructions
// in them that the agent reads and the person never saw.
const INVISIBLE = new RegExp(
  [
    '[\\u{E0000}-\\u{E007F}]', // tags
    '[\\u200E\\u200F\\u061C\\u202A-\\u202E\\u2066-\\u2069]', // bidi marks, embeddings, overrides, isolates
    '[\\u200B-\\u200D\\u2060\\uFEFF]', // zero-width space, non-joiner, joiner, word joiner, no-break space
  ].join('|'),
  'gu',
);

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
