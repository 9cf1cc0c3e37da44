// The layer rules (.dependency-cruiser.cjs): dependency-cruiser over the product's folders. A
// violation not in .dependency-cruiser-known-violations.json fails, and so does a known one that
// no longer occurs (the list only shrinks: regenerate it with
// `npx depcruise core link tui ssh-server herdr app proto --config .dependency-cruiser.cjs --output-type baseline --output-to .dependency-cruiser-known-violations.json`).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/daemon.js';

interface Violation {
  type: string;
  from: string;
  to: string;
  rule: { name: string };
  cycle?: Array<{ name: string }>;
}

const key = (v: Violation) => `${v.rule.name}: ${v.from} -> ${v.to}`;

test('the layer rules hold, less the known violations, and every known one still occurs', () => {
  const r = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs'), 'core', 'link', 'tui', 'ssh-server', 'herdr', 'app', 'proto', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    timeout: 300_000,
  });
  assert.ok(r.stdout, `depcruise printed nothing: ${r.stderr}`);
  const result = JSON.parse(r.stdout) as { summary: { violations: Violation[]; totalCruised: number } };
  const now = new Map(result.summary.violations.map((v) => [key(v), v]));
  const known = new Set((JSON.parse(readFileSync(join(ROOT, '.dependency-cruiser-known-violations.json'), 'utf8')) as Violation[]).map(key));
  const added = [...now.keys()].filter((k) => !known.has(k));
  const gone = [...known].filter((k) => !now.has(k));
  assert.equal(added, [], `new layer violations (fix them; never add them to the known list):\n${added.map((k) => `  ${k}${now.get(k)!.cycle ? ` (cycle ${now.get(k)!.cycle!.map((c) => c.name).join(' -> ')})` : ''}`).join('\n')}`);
  assert.equal(gone, [], `known violations that no longer occur: take them off .dependency-cruiser-known-violations.json:\n${gone.map((k) => `  ${k}`).join('\n')}`);
  const byRule = new Map<string, number>();
  for (const v of now.values()) byRule.set(v.rule.name, (byRule.get(v.rule.name) ?? 0) + 1);
  console.log(`[tuios-test-note] layers: ${result.summary.totalCruised} modules cruised; known violations left: ${[...byRule].map(([n, c]) => `${n} ${c}`).join(', ') || 'none'}`);
});

test.run();
