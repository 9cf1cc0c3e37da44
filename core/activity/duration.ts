// A span of time as people write it: `30m`, `90s`, `2h`, `1d` (`agent-log --since`,
// `[agents.recap] away`). Pure.
import { TuiosError } from '../errors.js';

export const DURATION_RE = /^(\d{1,9})(ms|s|m|h|d)$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Milliseconds, or null for text that is not a duration. */
export function durationMs(text: string): number | null {
  const m = DURATION_RE.exec(text.trim());
  return m ? Number(m[1]) * UNIT_MS[m[2]!]! : null;
}

/** For a param: a typed error naming the field when the text is not a duration. */
export function durationParam(text: string, field: string): number {
  const ms = durationMs(text);
  if (ms === null) throw new TuiosError('invalid_params', `${field} takes a span like 30m, 90s, 2h or 1d, not ${JSON.stringify(text.slice(0, 40))}.`, undefined, { field });
  return ms;
}
