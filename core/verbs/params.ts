// Param shapes and checks several verbs share.
import { z } from 'zod';
import { isAbsolute } from 'node:path';
import { statSync } from 'node:fs';
import { TuiosError } from '../errors.js';
import { isReservedEnvName } from '../pty/env.js';
import { MAX_ENV_VALUE_BYTES, MAX_ENV_VARS, MAX_WAIT_MS } from '../limits.js';

export const envParam = z
  .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a variable name is letters, digits and _'), z.string().max(MAX_ENV_VALUE_BYTES))
  .optional()
  .describe('Environment variables for the new pane (KEY=VALUE)');

export function checkEnv(env: Record<string, string> | undefined): void {
  if (!env) return;
  const keys = Object.keys(env);
  if (keys.length > MAX_ENV_VARS) {
    throw new TuiosError('invalid_params', `At most ${MAX_ENV_VARS} environment variables may be set.`, undefined, { field: 'env' });
  }
  for (const k of keys) {
    if (isReservedEnvName(k)) {
      throw new TuiosError('invalid_params', `The variable ${k} is set by tuios and cannot be given.`, 'Variables starting with TUIOS_, and TMUX or TMUX_PANE, are reserved.', { field: `env.${k}` });
    }
  }
}

/** A folder given by a caller: it must be absolute and exist. */
export function absoluteDir(dir: string): string {
  if (!isAbsolute(dir)) {
    throw new TuiosError('invalid_params', `The folder ${dir} is not an absolute path.`, 'The CLI sends absolute paths; over the socket, give one.', { field: 'cwd' });
  }
  try {
    if (statSync(dir).isDirectory()) return dir;
  } catch {
    // fall through
  }
  throw new TuiosError('invalid_params', `The folder ${dir} does not exist.`, 'Pass an existing folder.', { field: 'cwd' });
}

export const timeoutParam = z
  .number()
  .int()
  .min(0)
  .max(MAX_WAIT_MS)
  .optional()
  .describe('How long to wait, in milliseconds (at most 24 hours)');
