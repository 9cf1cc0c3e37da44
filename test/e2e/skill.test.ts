// `tuios --skill [TOPIC]` through the built CLI: the texts come from the package's skills/ folder,
// an unknown topic is a usage error that lists the topics, and no daemon is reached or started.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = join(REPO, 'bin', 'tuios.cjs');
const runtime = mkdtempSync(join(tmpdir(), 'tuios-skill-'));

function tuios(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  // A runtime folder of its own and no pane variables: a daemon, if one were started, would show there.
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: runtime, XDG_RUNTIME_DIR: runtime, XDG_CONFIG_HOME: join(runtime, 'config') };
  const r = spawnSync(process.execPath, [BIN, ...args], { env, cwd: runtime, encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const file = (name: string) => readFileSync(join(REPO, 'skills', name + '.md'), 'utf8');

test.after(() => rmSync(runtime, { recursive: true, force: true }));

test('tuios --skill prints the core, from the package, with no daemon', () => {
  const r = tuios('--skill');
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout, file('core'));
  assert.ok(r.stdout.includes('tuios --skill mail'));
  assert.is(r.stderr, '');
  assert.equal(readdirSync(runtime), [], 'nothing was started or written');
});

test('tuios --skill TOPIC prints the topic', () => {
  for (const t of ['mail', 'fleet', 'recipes']) {
    const r = tuios('--skill', t);
    assert.is(r.code, 0, r.stderr);
    assert.is(r.stdout, file(t));
  }
});

test('an unknown topic exits 2 and lists the topics', () => {
  for (const t of ['nonsense', '../package', 'core']) {
    const r = tuios('--skill', t);
    assert.is(r.code, 2, t);
    assert.is(r.stdout, '');
    assert.match(r.stderr, /topics: fleet, mail, recipes/);
  }
  const two = tuios('--skill', 'mail', 'fleet');
  assert.is(two.code, 2);
  assert.match(two.stderr, /usage: tuios --skill \[TOPIC\]/);
});

test('the main usage names --skill', () => {
  const r = tuios('--help');
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /tuios --skill \[TOPIC\]/);
  const h = tuios('--skill', '--help');
  assert.is(h.code, 0);
  assert.match(h.stdout, /topics: fleet, mail, recipes/);
});

test.run();
