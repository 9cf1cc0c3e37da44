// `tuios integration install|uninstall|status` on real files in a temp HOME: the user's text and
// order kept, one .tuios.bak, a symlink followed, a file it cannot parse refused, a missing config
// folder refused, uninstall restoring the file byte for byte, files tuios owns whole.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { integrationFor } from '../../core/integrations/setup/table.js';
import { install, uninstall, status } from '../../core/integrations/setup/install.js';

function home(): { env: Record<string, string>; dir: string; done(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'tuios-integ-'));
  return { env: { HOME: dir }, dir, done: () => rmSync(dir, { recursive: true, force: true }) };
}
const cc = integrationFor('claude')!;

test('Claude Code: install keeps the user\'s hooks, order and indent; again changes nothing; uninstall restores the bytes', () => {
  const h = home();
  mkdirSync(join(h.dir, '.claude'));
  const file = join(h.dir, '.claude', 'settings.json');
  const before = '{\n\t"model": "opus",\n\t"hooks": {\n\t\t"Stop": [{ "hooks": [{ "type": "command", "command": "make && say done > /dev/null < /dev/null" }] }]\n\t}\n}';
  writeFileSync(file, before);
  assert.is(install(cc, h.env).action, 'written');
  const text = readFileSync(file, 'utf8');
  assert.match(text, /\n\t"model"/, 'the tab indent is kept');
  assert.match(text, /make && say done > \/dev\/null < \/dev\/null/, '&&, < and > are not escaped');
  const doc = JSON.parse(text);
  assert.equal(Object.keys(doc), ['model', 'hooks'], 'key order kept');
  assert.is(doc.hooks.Stop[0].hooks[0].command, 'make && say done > /dev/null < /dev/null', 'the user\'s entry comes first');
  assert.match(doc.hooks.Stop[1].hooks[0].command, /agent-hook claude-code --integration 3$/);
  assert.is(doc.hooks.PermissionRequest[0].hooks[0].timeout, 310);
  assert.is(readFileSync(`${file}.tuios.bak`, 'utf8'), before);
  assert.is(install(cc, h.env).action, 'unchanged', 'nothing changed: nothing written');
  assert.is(status(cc, h.env).state, 'installed');
  assert.is(uninstall(cc, h.env).action, 'written');
  assert.is(readFileSync(file, 'utf8'), before);
  h.done();
});

test('an older version reads as out of date and is replaced; --command is kept by status', () => {
  const h = home();
  mkdirSync(join(h.dir, '.claude'));
  const file = join(h.dir, '.claude', 'settings.json');
  writeFileSync(file, JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'tuios agent-hook claude-code --integration 2' }] }] } }, null, 2));
  assert.is(status(cc, h.env).state, 'out of date');
  install(cc, h.env, '/opt/my tuios/bin/tuios');
  const st = status(cc, h.env);
  assert.is(st.state, 'installed');
  assert.is(st.program, '/opt/my tuios/bin/tuios');
  const doc = JSON.parse(readFileSync(file, 'utf8'));
  assert.is(doc.hooks.Stop.length, 1, 'the version 2 entry was replaced, not kept beside');
  h.done();
});

test('refusals: a file it cannot parse, a missing config folder, a symlink to nothing', () => {
  const h = home();
  assert.throws(() => install(cc, h.env), /does not exist yet/);
  mkdirSync(join(h.dir, '.claude'));
  const file = join(h.dir, '.claude', 'settings.json');
  writeFileSync(file, '{ "a": 1, }');
  assert.throws(() => install(cc, h.env), /not valid JSON/);
  assert.is(readFileSync(file, 'utf8'), '{ "a": 1, }', 'left as it was');
  assert.is(status(cc, h.env).state, 'cannot read');
  rmSync(file);
  symlinkSync(join(h.dir, 'nowhere.json'), file);
  assert.throws(() => install(cc, h.env), /symlink to a file that does not exist/);
  h.done();
});

test('a symlinked settings file stays a symlink: its target is rewritten', () => {
  const h = home();
  mkdirSync(join(h.dir, '.claude'));
  mkdirSync(join(h.dir, 'dotfiles'));
  const target = join(h.dir, 'dotfiles', 'claude.json');
  writeFileSync(target, '{}\n');
  const file = join(h.dir, '.claude', 'settings.json');
  symlinkSync(target, file);
  install(cc, h.env);
  assert.ok(lstatSync(file).isSymbolicLink());
  assert.match(readFileSync(target, 'utf8'), /agent-hook claude-code/);
  uninstall(cc, h.env);
  assert.is(readFileSync(target, 'utf8'), '{}\n');
  h.done();
});

test('a settings file tuios made goes again on uninstall', () => {
  const h = home();
  mkdirSync(join(h.dir, '.gemini'));
  const g = integrationFor('gemini')!;
  install(g, h.env);
  assert.ok(existsSync(join(h.dir, '.gemini', 'settings.json')));
  uninstall(g, h.env);
  assert.not.ok(existsSync(join(h.dir, '.gemini', 'settings.json')));
  h.done();
});

test('Qwen Code timeouts are 1000 or more; Codex writes hooks.json; Cursor its flat entries', () => {
  const h = home();
  for (const d of ['.qwen', '.codex', '.cursor']) mkdirSync(join(h.dir, d));
  install(integrationFor('qwen')!, h.env);
  const q = JSON.parse(readFileSync(join(h.dir, '.qwen', 'settings.json'), 'utf8'));
  const timeouts = Object.values(q.hooks as Record<string, Array<{ hooks: Array<{ timeout: number }> }>>).flatMap((l) => l.flatMap((e) => e.hooks.map((x) => x.timeout)));
  assert.ok(timeouts.every((t) => t >= 1000));
  assert.is(q.hooks.PermissionRequest[0].hooks[0].timeout, 310000);
  install(integrationFor('codex')!, h.env);
  assert.match(readFileSync(join(h.dir, '.codex', 'hooks.json'), 'utf8'), /agent-hook codex --integration 1/);
  writeFileSync(join(h.dir, '.codex', 'config.toml'), '[features]\nhooks = false\n');
  assert.match(status(integrationFor('codex')!, h.env).note ?? '', /hooks off/);
  install(integrationFor('cursor')!, h.env);
  const c = JSON.parse(readFileSync(join(h.dir, '.cursor', 'hooks.json'), 'utf8'));
  assert.is(c.version, 1);
  assert.ok(!('preToolUse' in c.hooks), 'no permission hook is registered for Cursor');
  uninstall(integrationFor('cursor')!, h.env);
  assert.not.ok(existsSync(join(h.dir, '.cursor', 'hooks.json')));
  h.done();
});

test('files tuios owns whole: Copilot\'s hook file and the opencode plugin; a file of the same name it did not write is refused', () => {
  const h = home();
  mkdirSync(join(h.dir, '.copilot', 'hooks'), { recursive: true });
  mkdirSync(join(h.dir, '.config', 'opencode', 'plugins'), { recursive: true });
  const cp = integrationFor('copilot')!;
  install(cp, h.env);
  const f = JSON.parse(readFileSync(join(h.dir, '.copilot', 'hooks', 'tuios.json'), 'utf8'));
  assert.match(f.hooks.agentStop[0].bash, /agent-hook copilot --event agentStop --integration 1/);
  assert.ok(!('permissionRequest' in f.hooks));
  assert.is(status(cp, h.env).state, 'installed');
  uninstall(cp, h.env);
  assert.not.ok(existsSync(join(h.dir, '.copilot', 'hooks', 'tuios.json')));
  const plugin = join(h.dir, '.config', 'opencode', 'plugins', 'tuios-agent-state.js');
  writeFileSync(plugin, '// mine\n');
  assert.throws(() => install(integrationFor('opencode')!, h.env), /did not write it/);
  assert.is(readFileSync(plugin, 'utf8'), '// mine\n');
  uninstall(integrationFor('opencode')!, h.env);
  assert.ok(existsSync(plugin), 'never removed');
  rmSync(plugin);
  install(integrationFor('opencode')!, h.env);
  assert.match(readFileSync(plugin, 'utf8'), /TUIOS_ENV/, 'the plugin does nothing outside tuios');
  h.done();
});

test('Kimi: a marked block at the end of config.toml, removed exactly', () => {
  const h = home();
  mkdirSync(join(h.dir, '.kimi-code'));
  const file = join(h.dir, '.kimi-code', 'config.toml');
  const before = 'model = "k2"\n\n[ui]\ntheme = "dark"\n';
  writeFileSync(file, before);
  const k = integrationFor('kimi')!;
  install(k, h.env);
  const text = readFileSync(file, 'utf8');
  assert.ok(text.startsWith(before));
  assert.match(text, /\[\[hooks\]\]\nevent = "Stop"/);
  assert.is(status(k, h.env).state, 'installed');
  uninstall(k, h.env);
  assert.is(readFileSync(file, 'utf8'), before);
  h.done();
});

test.run();
