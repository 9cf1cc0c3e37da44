// The golden suite: every captured (or derived) screen under fixtures/screens runs through the
// engine and must decide exactly its expected state, and every bundled screen and title rule
// must decide at least one fixture. A rule no fixture justifies is a rule written against an
// imagined screen (ADR-0046, Tradeoffs), and this is where it fails loudly.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseFixture, type Fixture } from '../../core/agent/fixture.js';
import { loadManifests, findHarness } from '../../core/agent/manifest.js';
import { decideLook } from '../../core/agent/rules/look.js';
import { evaluateTitle } from '../../core/agent/rules/evaluate.js';
import { nullLogger } from '../../core/log.js';
import { ROOT } from '../helpers/daemon.js';

const manifests = loadManifests(join(ROOT, 'manifests'), null, nullLogger);
const dir = join(ROOT, 'fixtures', 'screens');

function walk(d: string): string[] {
  let names: string[];
  try {
    names = readdirSync(d);
  } catch {
    return [];
  }
  return names.flatMap((n) => {
    const p = join(d, n);
    return statSync(p).isDirectory() ? walk(p) : n.endsWith('.screen') ? [p] : [];
  });
}

const files = walk(dir).sort();
const fixtures: Array<{ file: string; f: Fixture }> = files.map((file) => ({ file: relative(ROOT, file), f: parseFixture(readFileSync(file, 'utf8'), file) }));
/** Rules that decided at least one fixture, by `harness/rule-id`. */
const decidedBy = new Set<string>();

test('the bundled manifests load without a failure', () => {
  assert.equal(manifests.failures, []);
});

for (const { file, f } of fixtures) {
  test(`${file} decides ${f.expect.state}${f.expect.kind ? ` (${f.expect.kind})` : ''}`, () => {
    const m = findHarness(manifests, f.harness);
    assert.ok(m, `a manifest for ${f.harness}`);
    assert.ok(f.provenance === 'measured' || f.provenance === 'derived');
    assert.ok(f.obtained.length > 0, 'the fixture says how it was obtained');
    const d = decideLook(m!.rules, f.lines, f.title);
    if (d.decided?.rule) decidedBy.add(`${m!.id}/${d.decided.rule.id}`);
    // Both tiers are credited when they agree with the look: each is applied as its own claim.
    for (const v of [d.applyScreen, d.applyTitle]) {
      if (v && v !== 'keep' && v.rule && v.state === d.decided?.state) decidedBy.add(`${m!.id}/${v.rule.id}`);
    }
    if (d.freeze && d.screen?.verdict.rule) decidedBy.add(`${m!.id}/${d.screen.verdict.rule.id}`);
    if (f.progress && m!.rules.title) {
      const p = evaluateTitle(m!.rules.title, f.progress, 'osc_progress').verdict;
      if (p.rule) decidedBy.add(`${m!.id}/${p.rule.id}`);
    }
    if (f.expect.freeze) {
      assert.ok(d.freeze, 'a skip-state rule freezes the state');
      return;
    }
    const got = d.decided?.state ?? 'none';
    assert.is(got, f.expect.state, `state (rule ${d.decided?.rule?.id ?? 'none'})`);
    if (f.expect.kind !== undefined) assert.is(d.decided?.kind ?? '', f.expect.kind, 'kind');
    if (f.expect.message !== undefined) assert.is(d.decided?.message ?? '', f.expect.message, 'message');
  });
}

test('every bundled screen and title rule decides at least one fixture', () => {
  const undecided: string[] = [];
  for (const m of manifests.list) {
    for (const block of [m.rules.screen, m.rules.title]) {
      for (const r of block?.rules ?? []) if (!decidedBy.has(`${m.id}/${r.id}`)) undecided.push(`${m.id}/${r.id}`);
    }
  }
  assert.equal(undecided, [], 'rules with no fixture that they decide must be deleted, not kept');
});

test.run();
