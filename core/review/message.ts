// The one message send-review types into the agent (pure; spec: Reviewing an agent's changes,
// "Sending"). Notes ordered by file, then line; a quoted line cut to 120 characters, control
// characters out and secrets masked; a note's text keeps its lines and loses every other control
// character, so nothing in it can end the paste it is typed in. Past 16 KiB it is refused.
import { TuiosError } from '../errors.js';
import { cleanUntrusted } from '../mail/fence.js';
import { maskSecrets } from '../integrations/hooks/text.js';
import { REVIEW_MESSAGE_MAX_BYTES, REVIEW_QUOTE_MAX } from '../limits.js';

export interface MessageNote {
  file: string;
  line: number | null;
  side: 'new' | 'old';
  /** The hunk header of a note on a hunk, and the range it covers now. */
  hunk: string | null;
  range: { start: number; end: number } | null;
  quote: string;
  text: string;
  /** The author as the message names it ("pane api-2"), null when the sender wrote it. */
  otherAuthor: string | null;
}

/** One line from a file or a note's place: control characters out, tabs as spaces, cut. */
export function quoteLine(s: string, max = REVIEW_QUOTE_MAX): string {
  const one = cleanUntrusted(s.replace(ESCAPES, '')).replace(/[\n\t]+/g, ' ').trim();
  const masked = maskSecrets(one);
  const chars = [...masked];
  return chars.length > max ? chars.slice(0, max - 3).join('') + '...' : masked;
}

// Whole escape sequences (CSI, OSC, a lone ESC and its one byte) go before the characters do, so
// no "[31m" is left behind where a colour was.
// eslint-disable-next-line no-control-regex
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]?/g;

/** A note's text: its lines kept, every other control character (a tab too) left out. */
export function noteText(s: string): string {
  return cleanUntrusted(s.replace(ESCAPES, '')).replace(/\t/g, ' ').replace(/\n+$/, '');
}

export function byPlace<T extends { file: string; line: number | null; range?: { start: number } | null }>(a: T, b: T): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  const la = a.line ?? a.range?.start ?? 0;
  const lb = b.line ?? b.range?.start ?? 0;
  return la - lb;
}

/** The message, or limit_reached when it is longer than 16 KiB. */
export function composeReview(o: { base: string; sender: string; notes: MessageNote[]; max?: number }): string {
  const notes = [...o.notes].sort(byPlace);
  const parts = [`Review notes on your changes (vs ${quoteLine(o.base, 200)}), from ${o.sender}:`, ''];
  notes.forEach((n, i) => {
    const file = quoteLine(n.file, 4096);
    const where = n.hunk
      ? `${file}${n.range ? `:${n.range.start}-${n.range.end}` : ''} (hunk "${quoteLine(n.hunk)}")`
      : `${file}:${n.line ?? '?'}${n.side === 'old' ? ' (removed line)' : ''}, on "${quoteLine(n.quote)}"`;
    parts.push(`${i + 1}. ${where}`);
    if (n.otherAuthor) parts.push(`   (written by ${n.otherAuthor}, not by ${o.sender})`);
    for (const l of noteText(n.text).split('\n')) parts.push(`   ${l}`);
  });
  parts.push('', 'Address each note, then say which you changed.');
  const text = parts.join('\n');
  const max = o.max ?? REVIEW_MESSAGE_MAX_BYTES;
  if (Buffer.byteLength(text) > max) {
    throw new TuiosError('limit_reached', `The review message would be ${Buffer.byteLength(text)} bytes; at most ${max} are sent at once.`, 'Send fewer notes at a time with --ids.', { bytes: Buffer.byteLength(text), max });
  }
  return text;
}
