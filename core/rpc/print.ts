// Printing a verb's result as text, from its record's `print` (core/rpc/verb.ts). The daemon prints
// for the CLI and for ssh exec, so the CLI stays a thin client that takes in no handler, as tmux's
// client prints what its server formats. Its helpers are in print-helpers.ts.
import type { VerbInfo } from './verb-info.js';
import { fields } from './print-helpers.js';

/** The text the CLI prints for a verb's result without --json. */
export function printResult(verb: VerbInfo, result: unknown): string {
  if (result === null || result === undefined) return '';
  const p = verb.print;
  if (p === 'none') return '';
  if (typeof p === 'function') return p(result);
  return fields(result);
}
