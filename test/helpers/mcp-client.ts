// A real MCP client from the SDK (Client + StdioClientTransport) running `node bin/tuios.cjs mcp`
// as a process of a pane would (TUIOS_PANE_ID in its environment), and the shape of a tool's answer.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN } from './daemon.js';

export interface ToolResult {
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, any>;
  isError?: boolean;
}

/** Starts `tuios mcp ARGS` for the pane `pane` of the daemon whose environment is `env`. */
export async function startMcp(env: Record<string, string>, pane: string, cwd: string, args: string[] = [], name = 'tuios-e2e'): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', ...args], env: { ...env, TUIOS_PANE_ID: pane }, cwd, stderr: 'inherit' });
  const c = new Client({ name, version: '1' });
  await c.connect(transport);
  return c;
}

export async function callTool(c: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  return (await c.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as ToolResult;
}

/** A tool answer's text parts, joined. */
export function toolText(r: ToolResult): string {
  return r.content.map((x) => x.text ?? '').join('\n');
}
