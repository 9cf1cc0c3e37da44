// Runs every benchmark under test/bench (or those matching an argument) and prints their figures.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..');
const filter = process.argv[2];
const files = readdirSync(join(root, 'test/bench'))
  .filter((f) => f.endsWith('.bench.ts') && (!filter || f.includes(filter)))
  .sort();
let failed = 0;
for (const f of files) {
  console.log(`# ${f}`);
  const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', join(root, 'test/bench', f), ...process.argv.slice(3)], { stdio: 'inherit', cwd: root });
  if (r.status !== 0) failed++;
}
process.exitCode = failed ? 1 : 0;
