// The integrations for Amp, Pi, oh-my-pi and the seven session integrations (Antigravity, Crush,
// Devin, Droid, Grok, Hermes, Qoder), on real files in a temp HOME: each installs where the spec's
// table says, status reads it, again changes nothing, and uninstall puts the user's file back
// byte for byte. Files tuios owns whole refuse a file of the same name it did not write.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { integrationFor, INTEGRATIONS, NO_INTEGRATION } from '../../core/integrations/setup/table.js';
import { install, uninstall, status } from '../../core/integrations/setup/install.js';
import { hookHarness } from '../../core/integrations/hooks/harnesses.js';
import { withHermesEnabled, withoutHermesEnabled } from '../../core/integrations/setup/hermes.js';

function home(): { env: Record<string, string>; dir: string; done(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'tuios-integ-'));
  return { env: { HOME: dir }, dir, done: () => rmSync(dir, { recursive: true, force: true }) };
}

const NEW = ['amp', 'pi', 'omp', 'antigravity', 'crush', 'devin', 'droid', 'grok', 'hermes', 'qoder'];

test('every harness of the spec\'s table has an integration; none is "not in this build yet"', () => {
  for (const h of NEW) {
    const i = integrationFor(h);
    assert.ok(i, `${h} has an integration`);
    assert.ok(hookHarness(h), `agent-hook knows ${h}`);
    assert.is(hookHarness(h)!.reports, i!.reports);
    assert.ok(i!.source, `${h} says where its format comes from`);
  }
  assert.is(INTEGRATIONS.length, 19, 'nineteen integrations');
  assert.is(INTEGRATIONS.filter((i) => i.reports === 'session').length, 7, 'seven session integrations');
  for (const why of Object.values(NO_INTEGRATION)) assert.not.match(why, /not in this build/);
  assert.is(hookHarness('antigravity')!.stdoutJson, true, 'Antigravity parses stdout');
});

/** The JSON settings kinds: the user's file before, where the entries land. */
const JSON_CASES: Array<{ h: string; dir: string; file: string; key: string; events: string[] }> = [
  { h: 'droid', dir: '.factory', file: '.factory/settings.json', key: 'hooks', events: ['SessionStart'] },
  { h: 'qoder', dir: '.qoder', file: '.qoder/settings.json', key: 'hooks', events: ['SessionStart'] },
  { h: 'devin', dir: '.config/devin', file: '.config/devin/config.json', key: 'hooks', events: ['SessionStart', 'UserPromptSubmit'] },
  { h: 'crush', dir: '.config/crush', file: '.config/crush/crush.json', key: 'hooks', events: ['PreToolUse'] },
  { h: 'antigravity', dir: '.gemini/config', file: '.gemini/config/hooks.json', key: 'tuios', events: ['PreInvocation'] },
];

for (const c of JSON_CASES) {
  test(`${c.h}: ${c.file} keeps the user's text; status; uninstall restores the bytes`, () => {
    const h = home();
    const i = integrationFor(c.h)!;
    assert.throws(() => install(i, h.env), /does not exist yet/, 'a missing config folder is refused');
    mkdirSync(join(h.dir, c.dir), { recursive: true });
    const file = join(h.dir, c.file);
    const before = `{\n    "theme": "dark",\n    "hooks": {\n        "Stop": [{ "hooks": [{ "type": "command", "command": "make && notify > /dev/null" }] }]\n    },\n    "zz": 1\n}\n`;
    writeFileSync(file, before);
    assert.is(status(i, h.env).state, 'not installed');
    assert.is(install(i, h.env).action, 'written');
    const text = readFileSync(file, 'utf8');
    assert.match(text, /\n {4}"theme"/, 'the indent is kept');
    assert.match(text, /make && notify > \/dev\/null/);
    const doc = JSON.parse(text);
    assert.is(Object.keys(doc)[0], 'theme', 'key order kept');
    assert.is(doc.hooks.Stop[0].hooks[0].command, 'make && notify > /dev/null');
    for (const e of c.events) assert.match(doc[c.key][e][doc[c.key][e].length - 1].hooks[0].command, new RegExp(`agent-hook ${c.h} --integration 1$`));
    assert.is(readFileSync(`${file}.tuios.bak`, 'utf8'), before);
    const st = status(i, h.env);
    assert.is(st.state, 'installed');
    assert.is(st.reports, 'session');
    assert.is(install(i, h.env).action, 'unchanged');
    uninstall(i, h.env);
    assert.is(readFileSync(file, 'utf8'), before);
    writeFileSync(file, '{ "hooks": ');
    assert.throws(() => install(i, h.env), /not valid JSON/);
    assert.is(status(i, h.env).state, 'cannot read');
    h.done();
  });
}

test('a symlinked Droid settings file stays a link; its target is rewritten and restored', () => {
  const h = home();
  mkdirSync(join(h.dir, '.factory'));
  mkdirSync(join(h.dir, 'dots'));
  writeFileSync(join(h.dir, 'dots', 'droid.json'), '{"a": 1}');
  symlinkSync(join(h.dir, 'dots', 'droid.json'), join(h.dir, '.factory', 'settings.json'));
  const i = integrationFor('droid')!;
  install(i, h.env);
  assert.match(readFileSync(join(h.dir, 'dots', 'droid.json'), 'utf8'), /agent-hook droid/);
  uninstall(i, h.env);
  assert.is(readFileSync(join(h.dir, 'dots', 'droid.json'), 'utf8'), '{"a": 1}');
  h.done();
});

test('environment variables move the folders: QODER_CONFIG_DIR, ANTIGRAVITY_CLI_CONFIG_DIR, GROK_HOME, XDG_CONFIG_HOME, HERMES_HOME', () => {
  const env = { HOME: '/h', QODER_CONFIG_DIR: '/q', ANTIGRAVITY_CLI_CONFIG_DIR: '/a', GROK_HOME: '/g', XDG_CONFIG_HOME: '/x', HERMES_HOME: '/he', PI_CODING_AGENT_DIR: '/p' };
  assert.is(integrationFor('qoder')!.file(env), '/q/settings.json');
  assert.is(integrationFor('antigravity')!.file(env), '/a/hooks.json');
  assert.is(integrationFor('grok')!.file(env), '/g/hooks/tuios.json');
  assert.is(integrationFor('crush')!.file(env), '/x/crush/crush.json');
  assert.is(integrationFor('devin')!.file(env), '/x/devin/config.json');
  assert.is(integrationFor('amp')!.file(env), '/x/amp/plugins/tuios-agent-state.ts');
  assert.is(integrationFor('hermes')!.file(env), '/he/config.yaml');
  assert.is(integrationFor('pi')!.file(env), '/p/extensions/tuios-agent-state.ts');
  assert.is(integrationFor('omp')!.file(env), '/p/extensions/tuios-omp-agent-state.ts');
  assert.is(integrationFor('pi')!.file({ HOME: '/h' }), '/h/.pi/agent/extensions/tuios-agent-state.ts');
  assert.is(integrationFor('omp')!.file({ HOME: '/h' }), '/h/.omp/agent/extensions/tuios-omp-agent-state.ts');
});

/** Files tuios owns whole: written with the marker, refused when someone else's, removed on uninstall. */
const OWN: Array<{ h: string; dir: string; file: string; has: RegExp }> = [
  { h: 'grok', dir: '.grok', file: '.grok/hooks/tuios.json', has: /agent-hook grok --integration 1/ },
  { h: 'amp', dir: '.config/amp', file: '.config/amp/plugins/tuios-agent-state.ts', has: /amp\.on\("agent\.end"/ },
  { h: 'pi', dir: '.pi/agent', file: '.pi/agent/extensions/tuios-agent-state.ts', has: /on\("ui_prompt_start"/ },
  { h: 'omp', dir: '.omp/agent', file: '.omp/agent/extensions/tuios-omp-agent-state.ts', has: /on\("tool_approval_requested"/ },
  { h: 'opencode', dir: '.config/opencode', file: '.config/opencode/plugins/tuios-agent-state.js', has: /"chat\.message"/ },
  { h: 'kilo', dir: '.config/kilo', file: '.config/kilo/plugin/tuios-agent-state.js', has: /"chat\.message"/ },
];

for (const c of OWN) {
  test(`${c.h}: ${c.file} is a file tuios owns whole`, () => {
    const h = home();
    const i = integrationFor(c.h)!;
    assert.throws(() => install(i, h.env), /does not exist yet/);
    mkdirSync(join(h.dir, c.dir), { recursive: true });
    const file = join(h.dir, c.file);
    assert.is(install(i, h.env).action, 'written');
    const text = readFileSync(file, 'utf8');
    assert.match(text, c.has);
    if (c.h !== 'grok') assert.match(text, /TUIOS_ENV/, 'a plugin does nothing outside tuios');
    assert.match(text, /--integration/, 'the version marker');
    const st = status(i, h.env);
    assert.is(st.state, 'installed');
    assert.is(st.version, i.version);
    assert.is(st.program, 'tuios');
    assert.is(install(i, h.env).action, 'unchanged');
    install(i, h.env, '/opt/t b/tuios');
    assert.is(status(i, h.env).program, '/opt/t b/tuios', 'the program the hooks run');
    uninstall(i, h.env);
    assert.not.ok(existsSync(file));
    // A file an older tuios wrote: out of date, replaced by install, removed by uninstall.
    writeFileSync(file, '// tuios agent state (--integration 1).\nspawn("tuios", ["agent-hook", "x", "--integration", "1"]);\n');
    if (i.version > 1) assert.is(status(i, h.env).state, 'out of date');
    uninstall(i, h.env);
    assert.not.ok(existsSync(file), 'an older version is removed too');
    writeFileSync(file, '// mine\n');
    assert.throws(() => install(i, h.env), /did not write it/);
    uninstall(i, h.env);
    assert.is(readFileSync(file, 'utf8'), '// mine\n', 'never overwritten, never removed');
    assert.is(status(i, h.env).state, 'cannot read');
    h.done();
  });
}

test('the plugins run agent-hook in a child they do not wait on, and are valid JavaScript', async () => {
  const h = home();
  for (const c of OWN.slice(1)) {
    mkdirSync(join(h.dir, c.dir), { recursive: true });
    install(integrationFor(c.h)!, h.env);
    const text = readFileSync(join(h.dir, c.file), 'utf8');
    assert.match(text, /detached: true/);
    assert.match(text, /\.unref\(\)/);
    if (c.h === 'opencode' || c.h === 'kilo') continue; // opencode's plugin: test/unit/opencode-plugin-status.test.ts
    // Strip nothing: the text is plain JavaScript, which a .ts loader takes as is.
    const mjs = join(h.dir, `${c.h}.mjs`);
    writeFileSync(mjs, text);
    const mod = (await import(mjs)) as { default: (api: unknown) => void };
    assert.type(mod.default, 'function');
    const on: string[] = [];
    // Outside tuios it registers nothing.
    const saved = { e: process.env.TUIOS_ENV, a: process.env.TUIOS_AGENT };
    delete process.env.TUIOS_ENV;
    delete process.env.TUIOS_AGENT;
    mod.default({ on: (n: string) => on.push(n) });
    assert.equal(on, []);
    if (saved.e !== undefined) process.env.TUIOS_ENV = saved.e;
    if (saved.a !== undefined) process.env.TUIOS_AGENT = saved.a;
  }
  h.done();
});

test('Pi and omp: PI_CODING_AGENT_DIR names one folder; an explicit install refuses the other harness\'s', () => {
  const h = home();
  const omp = join(h.dir, '.omp', 'profiles', 'work', 'agent');
  mkdirSync(omp, { recursive: true });
  const env = { ...h.env, PI_CODING_AGENT_DIR: omp };
  assert.is(integrationFor('pi')!.skipInAll!(env) !== null, true, '--all skips pi with the variable set');
  assert.is(integrationFor('omp')!.skipInAll!(env) !== null, true, '--all skips omp with the variable set');
  assert.is(integrationFor('pi')!.skipInAll!(h.env), null);
  assert.throws(() => install(integrationFor('pi')!, env), /oh-my-pi/);
  install(integrationFor('omp')!, env);
  assert.ok(existsSync(join(omp, 'extensions', 'tuios-omp-agent-state.ts')));
  // Pi's extension left in an omp profile: omp refuses until it is uninstalled.
  const other = join(h.dir, 'agentdir');
  mkdirSync(join(other, 'extensions'), { recursive: true });
  const env2 = { ...h.env, PI_CODING_AGENT_DIR: other };
  install(integrationFor('pi')!, env2);
  assert.throws(() => install(integrationFor('omp')!, env2), /uninstall pi/);
  uninstall(integrationFor('pi')!, env2);
  install(integrationFor('omp')!, env2);
  h.done();
});

test('Hermes: the plugin folder and plugins.enabled in config.yaml, comments and order kept; uninstall restores the bytes', () => {
  const h = home();
  const i = integrationFor('hermes')!;
  assert.throws(() => install(i, h.env), /does not exist yet/);
  mkdirSync(join(h.dir, '.hermes'));
  const cfg = join(h.dir, '.hermes', 'config.yaml');
  const before = '# my hermes\nmodel: x  # the model\nplugins:\n  # mine first\n  enabled:\n    - memory   # keep\n    - "web"\n  dir: ~/p\ntools:\n  - a\n';
  writeFileSync(cfg, before);
  assert.is(install(i, h.env).action, 'written');
  const text = readFileSync(cfg, 'utf8');
  assert.is(text, '# my hermes\nmodel: x  # the model\nplugins:\n  # mine first\n  enabled:\n    - memory   # keep\n    - "web"\n    - tuios-agent-state\n  dir: ~/p\ntools:\n  - a\n');
  const plugin = join(h.dir, '.hermes', 'plugins', 'tuios-agent-state');
  assert.match(readFileSync(join(plugin, '__init__.py'), 'utf8'), /"agent-hook", "hermes", "--integration", "1"/);
  assert.match(readFileSync(join(plugin, '__init__.py'), 'utf8'), /timeout=2/, 'waits at most two seconds on session start');
  assert.ok(existsSync(join(plugin, 'plugin.yaml')));
  assert.is(readFileSync(`${cfg}.tuios.bak`, 'utf8'), before);
  assert.is(status(i, h.env).state, 'installed');
  assert.is(install(i, h.env).action, 'unchanged');
  uninstall(i, h.env);
  assert.is(readFileSync(cfg, 'utf8'), before);
  assert.not.ok(existsSync(plugin));
  assert.is(status(i, h.env).state, 'not installed');
  h.done();
});

test('Hermes refusals: an inline list with items, a plugin file it did not write; nothing is written', () => {
  const h = home();
  const i = integrationFor('hermes')!;
  mkdirSync(join(h.dir, '.hermes'));
  const cfg = join(h.dir, '.hermes', 'config.yaml');
  writeFileSync(cfg, 'plugins:\n  enabled: [memory, web]\n');
  assert.throws(() => install(i, h.env), /by hand: enabled: \[memory, web, tuios-agent-state\]/);
  assert.not.ok(existsSync(join(h.dir, '.hermes', 'plugins')), 'no file of the three is written');
  writeFileSync(cfg, 'model: x\n');
  mkdirSync(join(h.dir, '.hermes', 'plugins', 'tuios-agent-state'), { recursive: true });
  writeFileSync(join(h.dir, '.hermes', 'plugins', 'tuios-agent-state', '__init__.py'), 'print(1)\n');
  assert.throws(() => install(i, h.env), /did not write it/);
  assert.is(readFileSync(cfg, 'utf8'), 'model: x\n');
  h.done();
});

test('Hermes config.yaml edits: no plugins key, no enabled key, enabled: [], and an emptied list left as enabled: []', () => {
  assert.is(withHermesEnabled('model: x\n'), 'model: x\nplugins:\n  enabled:\n    - tuios-agent-state\n');
  assert.is(withHermesEnabled(''), 'plugins:\n  enabled:\n    - tuios-agent-state\n');
  assert.is(withHermesEnabled('plugins:\n    dir: a\n'), 'plugins:\n    enabled:\n      - tuios-agent-state\n    dir: a\n');
  assert.is(withHermesEnabled('plugins:\n  enabled: []  # none\n'), 'plugins:\n  enabled:  # none\n    - tuios-agent-state\n');
  assert.is(withoutHermesEnabled('plugins:\n  enabled:\n    - tuios-agent-state\nx: 1\n'), 'plugins:\n  enabled: []\nx: 1\n');
  assert.is(withoutHermesEnabled('plugins:\n  enabled:\n  - a\n  - tuios-agent-state\n'), 'plugins:\n  enabled:\n  - a\n');
  assert.is(withHermesEnabled('plugins:\n  enabled:\n  - a\n'), 'plugins:\n  enabled:\n  - a\n  - tuios-agent-state\n');
  assert.throws(() => withHermesEnabled('plugins: {}\n'), /inline/);
});

test.run();
