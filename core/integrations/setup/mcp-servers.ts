// `tuios integration install HARNESS --mcp | --mcp-write`: a `tuios` MCP server entry in the file
// each of the four harnesses that read MCP servers from a file reads them from (spec: The MCP
// server). The entry runs `tuios mcp --integration <version>`; that marker tells ours from a server
// the user named `tuios` themselves, which install refuses to overwrite and uninstall leaves alone.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { edit, IntegrationError, type Change } from './install.js';
import { integrationFor, type Env } from './table.js';
import { parseJsonObject, styleOf, writeJsonText } from './json-text.js';

/** The entry's version, in its `--integration` marker. */
export const MCP_INTEGRATION_VERSION = 1;

export type McpHarness = 'claude-code' | 'codex' | 'gemini-cli' | 'opencode';
export const MCP_HARNESSES: McpHarness[] = ['claude-code', 'codex', 'gemini-cli', 'opencode'];

export const CODEX_MCP_BEGIN = '# >>> tuios mcp server (tuios integration install codex --mcp; do not edit) >>>';
export const CODEX_MCP_END = '# <<< tuios mcp server <<<';

const home = (env: Env) => env.HOME || '/';

export function isMcpHarness(h: string): h is McpHarness {
  return (MCP_HARNESSES as string[]).includes(h);
}

/** The file each harness reads its MCP servers from. */
export function mcpFile(h: McpHarness, env: Env): string {
  if (h === 'claude-code') return env.CLAUDE_CONFIG_DIR ? join(env.CLAUDE_CONFIG_DIR, '.claude.json') : join(home(env), '.claude.json');
  const dir = integrationFor(h)!.dir(env);
  if (h === 'codex') return join(dir, 'config.toml');
  if (h === 'gemini-cli') return join(dir, 'settings.json');
  return join(dir, 'opencode.json');
}

/** The arguments after the program: `mcp [--write] --integration VERSION`. */
export function mcpArgs(write: boolean): string[] {
  return ['mcp', ...(write ? ['--write'] : []), '--integration', String(MCP_INTEGRATION_VERSION)];
}

function jsonEntry(h: McpHarness, program: string, write: boolean): Record<string, unknown> {
  if (h === 'opencode') return { type: 'local', command: [program, ...mcpArgs(write)], enabled: true };
  if (h === 'claude-code') return { type: 'stdio', command: program, args: mcpArgs(write), env: {} };
  return { command: program, args: mcpArgs(write) };
}

/** Where the servers live in the harness's JSON file. */
const tableKey = (h: McpHarness) => (h === 'opencode' ? 'mcp' : 'mcpServers');

/** An entry tuios wrote: its command line carries the `--integration` marker after `mcp`. */
function ours(entry: unknown): boolean {
  if (!entry || typeof entry !== 'object') return false;
  const e = entry as { command?: unknown; args?: unknown };
  const words = [...(Array.isArray(e.command) ? e.command : [e.command]), ...(Array.isArray(e.args) ? e.args : [])].filter((w): w is string => typeof w === 'string');
  return words.includes('mcp') && words.includes('--integration');
}

function editJson(h: McpHarness, file: string, change: (servers: Record<string, unknown>) => Record<string, unknown> | 'same'): (text: string | null) => string | null {
  return (text) => {
    const p = parseJsonObject(text ?? '');
    if (!p.ok) throw new IntegrationError(`${file} is not changed: ${p.why}. Fix it by hand, then install again.`);
    const key = tableKey(h);
    const table = p.value[key];
    if (table !== undefined && (typeof table !== 'object' || table === null || Array.isArray(table))) throw new IntegrationError(`${file} is not changed: its ${key} is not an object.`);
    const next = change({ ...((table as Record<string, unknown>) ?? {}) });
    if (next === 'same') return text;
    const doc = { ...p.value };
    if (Object.keys(next).length === 0) delete doc[key];
    else doc[key] = next;
    return writeJsonText(doc, styleOf(text ?? ''));
  };
}

const TOML_TABLE = /^\s*\[\s*mcp_servers\s*\.\s*(?:tuios|"tuios")\s*\]/m;

/** Codex's config.toml less our block, and whether it held one. */
function withoutCodexBlock(text: string): { text: string; had: boolean } {
  const a = text.indexOf(CODEX_MCP_BEGIN);
  if (a < 0) return { text, had: false };
  const b = text.indexOf(CODEX_MCP_END, a);
  if (b < 0) throw new IntegrationError(`its ${CODEX_MCP_BEGIN} line has no end marker; fix it by hand.`);
  const head = text.slice(0, a).replace(/\n+$/, '');
  const rest = text.slice(b + CODEX_MCP_END.length).replace(/^\n+/, '');
  return { text: (head ? head + '\n' : '') + (rest ? (head ? '\n' : '') + rest : ''), had: true };
}

function codexBlock(program: string, write: boolean): string {
  const q = (s: string) => JSON.stringify(s);
  return [CODEX_MCP_BEGIN, '[mcp_servers.tuios]', `command = ${q(program)}`, `args = [${mcpArgs(write).map(q).join(', ')}]`, CODEX_MCP_END].join('\n');
}

function refuseTheirs(file: string, h: McpHarness): never {
  throw new IntegrationError(`${file} has a tuios MCP server that tuios did not write (no --integration marker); it is not replaced. Remove or rename it by hand, then install again (tuios integration install ${h} --mcp).`);
}

/** Writes (or updates) our entry; a user's own `tuios` server is refused, never replaced. */
export function installMcp(h: McpHarness, env: Env, program: string, write: boolean): Change {
  const file = mcpFile(h, env);
  if (h === 'codex') {
    return edit(file, (text) => {
      const { text: rest } = withoutCodexBlock(text ?? '');
      if (TOML_TABLE.test(rest)) refuseTheirs(file, h);
      const next = (rest ? rest.replace(/\n*$/, '\n\n') : '') + codexBlock(program, write) + '\n';
      return next === text ? text : next;
    }, { backup: true });
  }
  return edit(file, editJson(h, file, (servers) => {
    const had = servers.tuios;
    if (had !== undefined && !ours(had)) refuseTheirs(file, h);
    const entry = jsonEntry(h, program, write);
    if (had !== undefined && JSON.stringify(had) === JSON.stringify(entry)) return 'same';
    return { ...servers, tuios: entry };
  }), { backup: true });
}

/** Removes our entry only; a user's own `tuios` server and everything else stay. */
export function uninstallMcp(h: McpHarness, env: Env): Change {
  const file = mcpFile(h, env);
  if (h === 'codex') {
    return edit(file, (text) => {
      if (text === null) return null;
      const { text: rest, had } = withoutCodexBlock(text);
      return had ? rest : text;
    }, { backup: false });
  }
  return edit(file, (text) => {
    if (text === null) return null;
    return editJson(h, file, (servers) => {
      if (!ours(servers.tuios)) return 'same';
      const { tuios: _gone, ...rest } = servers;
      return rest;
    })(text);
  }, { backup: false });
}

/** `integration status`: our MCP server entry, read-only or with --write, or a user's own. */
export function mcpStatus(h: McpHarness, env: Env): { file: string; state: 'read-only' | 'write' | 'not installed' | 'not ours' | 'cannot read' } {
  const file = mcpFile(h, env);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { file, state: 'not installed' };
  }
  if (h === 'codex') {
    const a = text.indexOf(CODEX_MCP_BEGIN);
    if (a < 0) return { file, state: TOML_TABLE.test(text) ? 'not ours' : 'not installed' };
    const b = text.indexOf(CODEX_MCP_END, a);
    const block = text.slice(a, b < 0 ? text.length : b);
    return { file, state: /"--write"/.test(block) ? 'write' : 'read-only' };
  }
  const p = parseJsonObject(text);
  if (!p.ok) return { file, state: 'cannot read' };
  const table = p.value[tableKey(h)];
  const entry = table && typeof table === 'object' ? (table as Record<string, unknown>).tuios : undefined;
  if (entry === undefined) return { file, state: 'not installed' };
  if (!ours(entry)) return { file, state: 'not ours' };
  const e = entry as { command?: unknown; args?: unknown };
  const words = [...(Array.isArray(e.command) ? e.command : []), ...(Array.isArray(e.args) ? e.args : [])];
  return { file, state: words.includes('--write') ? 'write' : 'read-only' };
}
