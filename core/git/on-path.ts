// Where a program is found on a PATH, as the daemon would run it.
import { access, constants } from 'node:fs/promises';
import { delimiter, isAbsolute, join } from 'node:path';

export async function onPath(program: string, env: Record<string, string | undefined>): Promise<string | null> {
  const dirs = isAbsolute(program) ? [''] : (env.PATH ?? '/usr/bin:/bin').split(delimiter).filter(Boolean);
  for (const d of dirs) {
    const p = d ? join(d, program) : program;
    try {
      await access(p, constants.X_OK);
      return p;
    } catch {
      // next folder
    }
  }
  return null;
}
