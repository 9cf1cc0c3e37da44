// Installs the agent CLIs the e2e suite runs (test/helpers/agents.ts SUITE_AGENTS, or the ids
// given) into .cache/agents/, ahead of the suite, and shows each failure whole: .ci/run calls it
// so that a missing agent is an install error on the log, not a test that quietly did not run.
// Exit 1 when any could not be installed.
//
//   node --import tsx scripts/install-agents.ts [ID ...]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AGENTS, AGENTS_DIR, SUITE_AGENTS, ensureAgent } from '../test/helpers/agents.js';

const ids = process.argv.slice(2).length ? process.argv.slice(2) : [...SUITE_AGENTS];
let failed = 0;
for (const id of ids) {
  const spec = AGENTS[id];
  const started = Date.now();
  process.stdout.write(`install-agents: ${id} (${spec ? `${spec.pkg}@${spec.version}` : 'unknown'}) ... `);
  const r = ensureAgent(id);
  if ('skip' in r) {
    failed++;
    process.stdout.write(`FAILED: ${r.skip}\n`);
    try {
      process.stdout.write(`--- ${join(AGENTS_DIR, id, 'install.log')} ---\n${readFileSync(join(AGENTS_DIR, id, 'install.log'), 'utf8')}\n---\n`);
    } catch {
      // no install was tried (an unknown or unavailable agent): the line above says why
    }
    continue;
  }
  process.stdout.write(`ok ${r.version} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}
process.exitCode = failed ? 1 : 0;
