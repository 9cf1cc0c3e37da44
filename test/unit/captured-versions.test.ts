// Each bundled manifest says which releases its rules were captured from (captured_versions), and
// that list is exactly the releases of its screens: every version folder and every program_version
// under fixtures/screens/<harness>/ is listed, and every listed version has a screen. A harness
// with no screens lists none. A new version's captures therefore come with its manifest's line.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { loadManifests, compileManifest } from '../../core/detection/manifest.js';
import { fixtureFiles, parseFixture } from '../../core/detection/fixture.js';
import { compareVersions } from '../../core/detection/harness-version.js';
import { nullLogger } from '../../core/log.js';
import { ROOT } from '../helpers/daemon.js';

const manifests = loadManifests(join(ROOT, 'manifests'), null, nullLogger);
const screensDir = join(ROOT, 'fixtures', 'screens');


test('the bundled manifests load', () => {
  assert.equal(manifests.failures, []);
});

for (const m of manifests.list) {
  test(`${m.id}: captured_versions is exactly the releases of fixtures/screens/${m.id}`, () => {
    assert.ok(Array.isArray(m.captured_versions), `manifests/${m.id}.toml has a captured_versions line`);
    const dir = join(screensDir, m.id);
    const files = fixtureFiles(dir);
    const fromHeaders = new Set(files.map((f) => parseFixture(readFileSync(f, 'utf8'), f).program_version));
    let folders: string[] = [];
    try {
      folders = readdirSync(dir).filter((n) => statSync(join(dir, n)).isDirectory());
    } catch {
      // no screens
    }
    const listed = m.captured_versions!;
    for (const v of fromHeaders) assert.ok(listed.includes(v), `program_version ${v} of a ${m.id} screen is listed`);
    for (const f of folders) assert.ok(listed.includes(f), `the version folder ${m.id}/${f} is listed`);
    for (const v of listed) assert.ok(fromHeaders.has(v), `${v} is listed and some ${m.id} screen was captured from it`);
    assert.equal(listed, [...listed].sort(compareVersions), 'listed oldest first');
  });
}

test('there is no screen folder without a manifest', () => {
  const dirs = readdirSync(screensDir).filter((n) => statSync(join(screensDir, n)).isDirectory());
  assert.equal(dirs.filter((d) => !manifests.byId.has(d)), []);
});

test('captured_versions is validated: release numbers, listed once, optional', () => {
  const base = 'id = "x"\nname = "X"\n';
  assert.equal(compileManifest(`${base}captured_versions = ["1.2.3", "0.0.1790142911-g7618fb", "2.0"]\n`, 'x.toml', 'bundled').captured_versions, ['1.2.3', '0.0.1790142911-g7618fb', '2.0']);
  assert.is(compileManifest(base, 'x.toml', 'bundled').captured_versions, undefined, 'absent: the manifest does not say');
  assert.equal(compileManifest(`${base}captured_versions = []\n`, 'x.toml', 'bundled').captured_versions, []);
  assert.throws(() => compileManifest(`${base}captured_versions = ["latest"]\n`, 'x.toml', 'bundled'), /captured_versions.*release number/);
  assert.throws(() => compileManifest(`${base}captured_versions = ["1.2.3", "1.2.3"]\n`, 'x.toml', 'bundled'), /listed once/);
  assert.throws(() => compileManifest(`${base}captured_versions = "1.2.3"\n`, 'x.toml', 'bundled'), /captured_versions/);
  assert.throws(() => compileManifest(`${base}captured_versions = [${Array.from({ length: 257 }, (_, i) => `"1.0.${i}"`).join(',')}]\n`, 'x.toml', 'bundled'), /captured_versions/);
});

test.run();
