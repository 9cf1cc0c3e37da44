// Installs the agent CLIs the e2e suite runs (test/helpers/agents.ts SUITE_AGENTS and
// SUITE_OTHER_VERSIONS, or the ids given) into .cache/agents/, ahead of the suite, and shows each failure whole: .ci/run calls it
// so that a missing agent is an install error on the log, not a test that quietly did not run.
// Exit 1 when any could not be installed.
//
//   node --import tsx scripts/install-agents.ts [ID ...]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AGENTS, AGENTS_DIR, SUITE_AGENTS, SUITE_OTHER_VERSIONS, ensureAgent } from '../test/helpers/agents.js';

const asked = process.argv.slice(2);
const wanted: Array<readonly [string, string | undefined]> = asked.length
  ? asked.map((id) => [id, undefined] as const)
  : [...SUITE_AGENTS.map((id) => [id, undefined] as const), ...SUITE_OTHER_VERSIONS];
let failed = 0;
for (const [id, version] of wanted) {
  const spec = AGENTS[id];
  const started = Date.now();
  process.stdout.write(`install-agents: ${id} (${spec ? `${spec.pkg}@${version ?? spec.version}` : 'unknown'}) ... `);
  const r = ensureAgent(id, version);
  if ('skip' in r) {
    failed++;
    process.stdout.write(`FAILED: ${r.skip}\n`);
    try {
      const log = join(AGENTS_DIR, version ? `${id}@${version}` : id, 'install.log');
      process.stdout.write(`--- ${log} ---\n${readFileSync(log, 'utf8')}\n---\n`);
    } catch {
      // no install was tried (an unknown or unavailable agent): the line above says why
    }
    continue;
  }
  process.stdout.write(`ok ${r.version} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}
process.exitCode = failed ? 1 : 0;
