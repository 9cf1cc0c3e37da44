// core/detection/harness-version.ts: the running harness's release, read from its package.json or its
// path without running it, cached per process; the order of releases and the coverage rule.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import {
  compareVersions,
  isVersionText,
  versionCoverage,
  versionFromPackage,
  versionFromPath,
  readHarnessVersion,
  VersionCache,
} from '../../core/detection/harness-version.js';
import { PACKAGE_JSON_MAX_BYTES, VERSION_CACHE_MAX } from '../../core/limits.js';

test('releases in order: numbers part by part, a release above its pre-release', () => {
  const sorted = ['0.9.0', '1.0.0-rc.1', '1.0.0', '1.0.0+build.5', '1.2', '1.10.0', '2.1.197', '2.1.332', 'v3.0.0'];
  assert.equal([...sorted].reverse().sort(compareVersions), sorted);
  assert.is(compareVersions('0.0.1790142911-g7618fb', '0.0.1790712063-gb89205'), -1, 'amp\'s timestamped releases');
  assert.is(compareVersions('1.2.0', '1.2'), 0);
  for (const v of ['2.1.332', 'v0.61.0', '0.0.1790142911-g7618fb', '1.2', '1.0.0+x']) assert.ok(isVersionText(v), v);
  for (const v of ['latest', '1', '', 'node', '1.2.3.4.5', '2.x']) assert.not.ok(isVersionText(v), v);
});

test('coverage: inside the captured releases is covered, newer or older is not, unknown is null', () => {
  const cap = ['2.1.197', '2.1.332'];
  assert.equal(versionCoverage('2.1.332', cap, 'Claude Code').covered, true);
  assert.equal(versionCoverage('2.1.250', cap, 'Claude Code'), { covered: true, note: 'Claude Code 2.1.250 lies within the versions its rules were captured from (2.1.197 to 2.1.332).' });
  const newer = versionCoverage('2.2.0', cap, 'Claude Code');
  assert.is(newer.covered, false);
  assert.match(newer.note, /newer than the newest version its rules were captured from \(2\.1\.197 to 2\.1\.332\)/);
  assert.match(versionCoverage('1.0.0', ['2.1.332'], 'X').note, /older than the oldest version its rules were captured from \(2\.1\.332\)/);
  assert.is(versionCoverage('1.0.0', ['2.1.332']).covered, false);
  assert.is(versionCoverage(null, cap).covered, null);
  assert.is(versionCoverage('1.0.0', []).covered, null, 'nothing captured to compare with');
  assert.is(versionCoverage('1.0.0', undefined).covered, null);
});

test('the package.json of the package an entry point sits in, and no other', () => {
  const root = mkdtempSync(join(tmpdir(), 'tuios-hv-'));
  try {
    const scoped = join(root, 'lib', 'node_modules', '@anthropic-ai', 'claude-code');
    mkdirSync(join(scoped, 'bin'), { recursive: true });
    writeFileSync(join(scoped, 'package.json'), JSON.stringify({ name: '@anthropic-ai/claude-code', version: '2.1.400' }));
    const native = join(scoped, 'bin', 'claude.exe');
    const js = join(scoped, 'cli.js');
    assert.equal(versionFromPackage(native), { version: '2.1.400', from: `package.json ${join(scoped, 'package.json')}` });
    assert.equal(versionFromPackage(js)?.version, '2.1.400');
    assert.equal(readHarnessVersion({ pid: 1, exe: native, script: null, interpreter: false })?.version, '2.1.400', 'a native program: its executable');
    assert.equal(readHarnessVersion({ pid: 1, exe: '/home/u/.nvm/versions/node/v20.1.0/bin/node', script: js, interpreter: true })?.version, '2.1.400', 'an interpreter: its script, never node\'s own folder');
    assert.is(readHarnessVersion({ pid: 1, exe: '/home/u/.nvm/versions/node/v20.1.0/bin/node', script: null, interpreter: true }), null);

    const plain = join(root, 'node_modules', 'opencode-ai');
    mkdirSync(join(plain, 'bin'), { recursive: true });
    writeFileSync(join(plain, 'package.json'), JSON.stringify({ name: 'opencode-ai', version: '1.18.40' }));
    assert.equal(versionFromPackage(join(plain, 'bin', 'opencode.exe'))?.version, '1.18.40');

    // A project's package.json above a binary is not the program's.
    const project = join(root, 'project');
    mkdirSync(join(project, 'bin'), { recursive: true });
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'my-app', version: '9.9.9' }));
    assert.is(versionFromPackage(join(project, 'bin', 'claude')), null);
    // A package folder whose package.json names another package, a version that is not one, JSON that is not.
    const lying = join(root, 'node_modules', 'codex');
    mkdirSync(lying, { recursive: true });
    writeFileSync(join(lying, 'package.json'), JSON.stringify({ name: 'something-else', version: '1.0.0' }));
    assert.is(versionFromPackage(join(lying, 'codex.js')), null);
    writeFileSync(join(lying, 'package.json'), JSON.stringify({ name: 'codex', version: 'latest' }));
    assert.is(versionFromPackage(join(lying, 'codex.js')), null);
    writeFileSync(join(lying, 'package.json'), '{ not json');
    assert.is(versionFromPackage(join(lying, 'codex.js')), null);
    // Bounded: a package.json past the limit is not read.
    writeFileSync(join(lying, 'package.json'), JSON.stringify({ name: 'codex', version: '1.0.0', pad: 'x'.repeat(PACKAGE_JSON_MAX_BYTES) }));
    assert.is(versionFromPackage(join(lying, 'codex.js')), null);
    // Too deep under the package (more folders than the walk climbs) is not read either.
    assert.is(versionFromPackage(join(plain, 'a', 'b', 'c', 'd', 'e', 'f', 'x.js')), null);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a release folder in the executable\'s path, for a program that keeps one binary per release', () => {
  assert.equal(versionFromPath('/home/u/.local/share/claude/versions/2.1.332'), { version: '2.1.332', from: 'path /home/u/.local/share/claude/versions/2.1.332' });
  assert.equal(versionFromPath('/opt/tool/v1.4.0/bin/tool')?.version, '1.4.0');
  assert.is(versionFromPath('/usr/bin/claude'), null);
  assert.is(versionFromPath('/a/1.2.3/b/c/d/e/claude'), null, 'only the last components');
  assert.equal(readHarnessVersion({ pid: 1, exe: '/home/u/.local/share/claude/versions/2.1.332 (deleted)', script: null, interpreter: false })?.version, '2.1.332');
});

test('read once per process identity, bounded', () => {
  let reads = 0;
  const cache = new VersionCache(() => {
    reads++;
    return { version: '1.0.0', from: 'test' };
  });
  const e = { pid: 10, exe: '/x/claude', script: null, interpreter: false };
  for (let i = 0; i < 100; i++) cache.get(e);
  assert.is(reads, 1, 'one read for one process');
  cache.get({ ...e, pid: 11 });
  assert.is(reads, 2, 'another process is read');
  const none = new VersionCache(() => {
    reads++;
    return null;
  });
  none.get(e);
  none.get(e);
  assert.is(reads, 3, 'a failed read is remembered too');
  for (let i = 0; i < VERSION_CACHE_MAX * 2; i++) cache.get({ ...e, pid: 1000 + i });
  assert.ok((cache as unknown as { map: Map<string, unknown> }).map.size <= VERSION_CACHE_MAX, 'bounded');
});

test.run();
