// The folder tuios is installed in (the one holding its package.json): bundled manifests live
// there. Found by walking up from this module, which works from source and from the bundle.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | null = null;

export function packageRoot(): string {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i++) {
    const pj = join(dir, 'package.json');
    if (existsSync(pj)) {
      try {
        if ((JSON.parse(readFileSync(pj, 'utf8')) as { name?: string }).name === 'tuios') return (cached = dir);
      } catch {
        // keep walking
      }
    }
    dir = dirname(dir);
  }
  return (cached = process.cwd());
}
