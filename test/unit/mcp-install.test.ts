// `tuios integration install HARNESS --mcp | --mcp-write` (core/integrations/setup/mcp-servers.ts):
// the `tuios` server entry in each of the four files of the spec's table, marked with
// `--integration <version>`; a user's own `tuios` server is refused, never replaced, and uninstall
// removes only ours.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installMcp, uninstallMcp, mcpFile, MCP_HARNESSES, MCP_INTEGRATION_VERSION, CODEX_MCP_BEGIN, type McpHarness } from '../../core/integrations/setup/mcp-servers.js';
import { IntegrationError } from '../../core/integrations/setup/install.js';

const dirs: string[] = [];
function env(): { HOME: string; XDG_CONFIG_HOME: string } {
  const home = mkdtempSync(join(tmpdir(), 'tuios-mcp-install-'));
  dirs.push(home);
  return { HOME: home, XDG_CONFIG_HOME: join(home, '.config') };
}
test.after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const read = (p: string) => readFileSync(p, 'utf8');

test('the files of the spec\'s table', () => {
  const e = env();
  assert.is(mcpFile('claude-code', e), join(e.HOME, '.claude.json'));
  assert.is(mcpFile('claude-code', { ...e, CLAUDE_CONFIG_DIR: '/c' }), '/c/.claude.json');
  assert.is(mcpFile('codex', e), join(e.HOME, '.codex', 'config.toml'));
  assert.is(mcpFile('gemini-cli', e), join(e.HOME, '.gemini', 'settings.json'));
  assert.is(mcpFile('opencode', e), join(e.HOME, '.config', 'opencode', 'opencode.json'));
});

test('JSON harnesses: our entry beside the user\'s keys and servers; again is unchanged; --mcp-write adds --write; uninstall removes ours only', () => {
  for (const h of ['claude-code', 'gemini-cli', 'opencode'] as McpHarness[]) {
    const e = env();
    const file = mcpFile(h, e);
    mkdirSync(join(file, '..'), { recursive: true });
    const key = h === 'opencode' ? 'mcp' : 'mcpServers';
    const before = JSON.stringify({ theme: 'dark', [key]: { other: { command: 'x' } } }, null, 4) + '\n';
    writeFileSync(file, before);
    assert.is(installMcp(h, e, '/usr/bin/tuios', false).action, 'written', h);
    const doc = JSON.parse(read(file));
    assert.is(doc.theme, 'dark');
    assert.equal(doc[key].other, { command: 'x' });
    const entry = doc[key].tuios;
    const words = h === 'opencode' ? entry.command : [entry.command, ...entry.args];
    assert.equal(words, ['/usr/bin/tuios', 'mcp', '--integration', String(MCP_INTEGRATION_VERSION)], h);
    if (h === 'opencode') assert.equal({ type: entry.type, enabled: entry.enabled }, { type: 'local', enabled: true });
    assert.ok(read(file).includes('\n    "theme"'), `${h}: the file keeps its indent`);
    assert.is(installMcp(h, e, '/usr/bin/tuios', false).action, 'unchanged', h);
    installMcp(h, e, '/usr/bin/tuios', true);
    const w = JSON.parse(read(file))[key].tuios;
    assert.ok((h === 'opencode' ? w.command : w.args).includes('--write'), h);
    assert.is(uninstallMcp(h, e).action, 'written');
    assert.equal(JSON.parse(read(file)), JSON.parse(before), `${h}: uninstall leaves the file as it was`);
    assert.is(uninstallMcp(h, e).action, 'unchanged');
  }
});

test('a tuios server the user wrote is refused by install and left by uninstall', () => {
  for (const h of ['claude-code', 'gemini-cli', 'opencode'] as McpHarness[]) {
    const e = env();
    const file = mcpFile(h, e);
    mkdirSync(join(file, '..'), { recursive: true });
    const key = h === 'opencode' ? 'mcp' : 'mcpServers';
    const mine = JSON.stringify({ [key]: { tuios: { command: 'tuios', args: ['mcp', '--write'] } } }, null, 2) + '\n';
    writeFileSync(file, mine);
    assert.throws(() => installMcp(h, e, 'tuios', false), (err: unknown) => err instanceof IntegrationError && /did not write/.test((err as Error).message));
    assert.is(read(file), mine);
    assert.is(uninstallMcp(h, e).action, 'unchanged');
    assert.is(read(file), mine);
  }
});

test('Codex: a marked [mcp_servers.tuios] block at the end of config.toml; a user\'s own table refused; uninstall restores the file', () => {
  const e = env();
  const file = mcpFile('codex', e);
  mkdirSync(join(file, '..'), { recursive: true });
  const before = 'model = "o3"\n\n[mcp_servers.other]\ncommand = "x"\n';
  writeFileSync(file, before);
  assert.is(installMcp('codex', e, 'tuios', true).action, 'written');
  const text = read(file);
  assert.ok(text.startsWith(before), text);
  assert.ok(text.includes(`${CODEX_MCP_BEGIN}\n[mcp_servers.tuios]\ncommand = "tuios"\nargs = ["mcp", "--write", "--integration", "${MCP_INTEGRATION_VERSION}"]\n`), text);
  assert.is(installMcp('codex', e, 'tuios', true).action, 'unchanged');
  installMcp('codex', e, 'tuios', false);
  assert.is(read(file).split(CODEX_MCP_BEGIN).length, 2, 'one block, replaced');
  assert.is(uninstallMcp('codex', e).action, 'written');
  assert.is(read(file), before);
  assert.is(uninstallMcp('codex', e).action, 'unchanged');
  const theirs = before + '\n[mcp_servers.tuios]\ncommand = "tuios"\n';
  writeFileSync(file, theirs);
  assert.throws(() => installMcp('codex', e, 'tuios', false), (err: unknown) => err instanceof IntegrationError);
  assert.is(read(file), theirs);
  assert.is(uninstallMcp('codex', e).action, 'unchanged');
});

test('a file that is not there is created by install and not by uninstall', () => {
  for (const h of MCP_HARNESSES) {
    const e = env();
    assert.is(uninstallMcp(h, e).action, 'unchanged');
    assert.not.ok(existsSync(mcpFile(h, e)));
    installMcp(h, e, 'tuios', false);
    assert.ok(read(mcpFile(h, e)).includes('--integration'), h);
  }
});

test.run();
