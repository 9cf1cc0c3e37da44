// `tuios integration install HARNESS --mcp | --mcp-write` through the built CLI: the hooks and the
// MCP server entry in one install, the entry removed with the hooks by uninstall, and --mcp refused
// for a harness whose MCP servers tuios does not edit.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN } from '../helpers/daemon.js';

const home = mkdtempSync(join(tmpdir(), 'tuios-mcp-cli-'));
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_RUNTIME_DIR: join(home, 'run') };
test.after(() => rmSync(home, { recursive: true, force: true }));

function tuios(...args: string[]) {
  return spawnSync(process.execPath, [BIN, ...args], { env, encoding: 'utf8', timeout: 30_000 });
}

test('claude-code --mcp: hooks and the read-only server; uninstall removes both', () => {
  mkdirSync(join(home, '.claude'), { recursive: true });
  const r = tuios('integration', 'install', 'claude-code', '--mcp', '--command', '/opt/tuios');
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stdout, /\.claude\.json/);
  const servers = JSON.parse(readFileSync(join(home, '.claude.json'), 'utf8')).mcpServers;
  assert.equal(servers.tuios, { type: 'stdio', command: '/opt/tuios', args: ['mcp', '--integration', '1'], env: {} });
  assert.ok(existsSync(join(home, '.claude', 'settings.json')));
  const u = tuios('integration', 'uninstall', 'claude-code');
  assert.is(u.status, 0, u.stderr);
  assert.is(JSON.parse(readFileSync(join(home, '.claude.json'), 'utf8')).mcpServers, undefined);
});

test('codex --mcp-write: the write tools in the marked block', () => {
  mkdirSync(join(home, '.codex'), { recursive: true });
  const r = tuios('integration', 'install', 'codex', '--mcp-write');
  assert.is(r.status, 0, r.stderr);
  assert.match(readFileSync(join(home, '.codex', 'config.toml'), 'utf8'), /\[mcp_servers\.tuios\]\ncommand = "tuios"\nargs = \["mcp", "--write", "--integration", "1"\]/);
});

test('--mcp is refused for a harness tuios edits no MCP file of, and with uninstall', () => {
  mkdirSync(join(home, '.qwen'), { recursive: true });
  const r = tuios('integration', 'install', 'qwen', '--mcp');
  assert.is(r.status, 1);
  assert.match(r.stderr, /reads no MCP server file/);
  assert.is(tuios('integration', 'uninstall', 'codex', '--mcp').status, 2);
});

test.run();
