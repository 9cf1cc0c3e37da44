// `tuios integration install` writes the `tuios` skill (a SKILL.md that sends the agent to
// `tuios --skill`) for Claude Code, Codex, opencode and Pi, through the built CLI; `integration
// status` reports it and the MCP server entry; a skill the user named `tuios` is refused and kept;
// uninstall removes ours only. A real opencode from npm lists the skill install wrote.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN } from '../helpers/daemon.js';
import { ensureAgent } from '../helpers/agents.js';
import { prerequisite } from '../helpers/prereq.js';

const home = mkdtempSync(join(tmpdir(), 'tuios-skill-cli-'));
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_RUNTIME_DIR: join(home, 'run') };
test.after(() => rmSync(home, { recursive: true, force: true }));

function tuios(...args: string[]) {
  return spawnSync(process.execPath, [BIN, ...args], { env, encoding: 'utf8', timeout: 30_000 });
}

/** Each harness's own folder (made, as running it once would) and where it reads a user's skills. */
const HARNESSES: Array<{ id: string; dir: string; skill: string }> = [
  { id: 'claude-code', dir: join(home, '.claude'), skill: join(home, '.claude', 'skills', 'tuios', 'SKILL.md') },
  { id: 'codex', dir: join(home, '.codex'), skill: join(home, '.codex', 'skills', 'tuios', 'SKILL.md') },
  { id: 'opencode', dir: join(home, '.config', 'opencode'), skill: join(home, '.config', 'opencode', 'skills', 'tuios', 'SKILL.md') },
  { id: 'pi', dir: join(home, '.pi', 'agent'), skill: join(home, '.pi', 'agent', 'skills', 'tuios', 'SKILL.md') },
];

for (const h of HARNESSES) {
  test(`${h.id}: install writes the skill, status reports it, uninstall removes it and its folder`, () => {
    mkdirSync(h.dir, { recursive: true });
    const r = tuios('integration', 'install', h.id);
    assert.is(r.status, 0, r.stderr);
    assert.match(r.stdout, /wrote the tuios skill/);
    const text = readFileSync(h.skill, 'utf8');
    // The Agent Skills frontmatter every one of the four reads: name matches the folder.
    assert.match(text, /^---\nname: tuios\ndescription: [^\n]{20,1024}\n---\n/);
    assert.match(text, /`tuios --skill`/);
    assert.match(text, new RegExp(`tuios integration install ${h.id}; --integration 1`));
    const s = JSON.parse(tuios('integration', 'status', h.id, '--json').stdout);
    assert.equal(s.integrations[0].skill, { file: h.skill, state: 'installed' });
    assert.match(tuios('integration', 'status', h.id).stdout, /skill installed/);
    // A second install changes nothing.
    assert.not.match(tuios('integration', 'install', h.id).stdout, /wrote the tuios skill/);
    const u = tuios('integration', 'uninstall', h.id);
    assert.is(u.status, 0, u.stderr);
    assert.match(u.stdout, /removed the tuios skill/);
    assert.not.ok(existsSync(join(h.skill, '..')), 'the skill folder goes with the file');
  });
}

test('a tuios skill the user wrote is refused, kept byte for byte, and left by uninstall', () => {
  const h = HARNESSES[0]!;
  mkdirSync(join(h.skill, '..'), { recursive: true });
  const mine = '---\nname: tuios\ndescription: my own notes about tuios\n---\nmine\n';
  writeFileSync(h.skill, mine);
  const r = tuios('integration', 'install', h.id);
  assert.is(r.status, 1);
  assert.match(r.stderr, /exists and tuios did not write it/);
  assert.is(readFileSync(h.skill, 'utf8'), mine);
  assert.is(JSON.parse(tuios('integration', 'status', h.id, '--json').stdout).integrations[0].skill.state, 'not ours');
  assert.is(tuios('integration', 'uninstall', h.id).status, 0);
  assert.is(readFileSync(h.skill, 'utf8'), mine);
  rmSync(join(h.skill, '..'), { recursive: true });
});

test('status reports the MCP server entry: read-only, with --write, or the user\'s own', () => {
  mkdirSync(join(home, '.codex'), { recursive: true });
  assert.is(tuios('integration', 'install', 'codex', '--mcp').status, 0);
  const mcpOf = (id: string) => JSON.parse(tuios('integration', 'status', id, '--json').stdout).integrations[0].mcp;
  assert.is(mcpOf('codex').state, 'read-only');
  assert.is(tuios('integration', 'install', 'codex', '--mcp-write').status, 0);
  assert.is(mcpOf('codex').state, 'write');
  assert.match(tuios('integration', 'status', 'codex').stdout, /MCP server write/);
  assert.is(tuios('integration', 'uninstall', 'codex').status, 0);
  assert.is(mcpOf('codex').state, 'not installed');
  mkdirSync(join(home, '.gemini'), { recursive: true });
  writeFileSync(join(home, '.gemini', 'settings.json'), JSON.stringify({ mcpServers: { tuios: { command: 'my-tuios-wrapper' } } }));
  assert.is(mcpOf('gemini-cli').state, 'not ours');
});

const opencode = prerequisite('opencode from npm');
let opencodeBin = '';
test.before(() => {
  const a = ensureAgent('opencode');
  if ('skip' in a) opencode.missing(a.skip);
  else opencodeBin = a.bin;
});
opencode.gate(test)('a real opencode lists the skill install wrote', () => {
  const h = HARNESSES.find((x) => x.id === 'opencode')!;
  mkdirSync(h.dir, { recursive: true });
  assert.is(tuios('integration', 'install', 'opencode').status, 0);
  const cwd = mkdtempSync(join(home, 'project-'));
  const r = spawnSync(opencodeBin, ['debug', 'skill'], { cwd, env: { ...env, OPENCODE_DISABLE_AUTOUPDATE: '1' }, encoding: 'utf8', timeout: 120_000 });
  assert.is(r.status, 0, r.stderr);
  const skills = JSON.parse(r.stdout.slice(r.stdout.indexOf('['))) as Array<{ name: string; location: string }>;
  const ours = skills.find((s) => s.name === 'tuios');
  assert.ok(ours, `opencode lists: ${skills.map((s) => s.name).join(', ')}`);
  assert.is(ours!.location, h.skill);
});

test.run();
