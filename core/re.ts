// Every pattern from a caller, a manifest or the config is compiled with RE2: linear time, no
// backtracking, so no text a pane prints can stall the daemon.
import RE2 from 're2';
import { TuiosError } from './errors.js';
import { MAX_PATTERN_BYTES } from './limits.js';

export type Pattern = InstanceType<typeof RE2>;

/**
 * Compiles a pattern with `^`/`$` anchoring lines. Case handling is the pattern's own (`(?i)`).
 * Throws an invalid_params TuiosError naming `field` for a pattern RE2 refuses.
 */
export function compilePattern(source: string, field = 'pattern', flags = 'm'): Pattern {
  if (Buffer.byteLength(source) > MAX_PATTERN_BYTES) {
    throw new TuiosError('invalid_params', `A pattern is at most ${MAX_PATTERN_BYTES} bytes.`, undefined, { field });
  }
  try {
    return new RE2(source, flags);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new TuiosError('invalid_params', `The pattern ${JSON.stringify(source)} is not valid RE2: ${why}.`, 'RE2 has no lookahead or backreferences; use (?i) for case.', { field });
  }
}
