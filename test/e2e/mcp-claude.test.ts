// A real harness loads tuios mcp: Claude Code (the pinned release, installed from npm) with the
// `tuios` server that `tuios integration install claude-code --mcp` wrote into its ~/.claude.json,
// run in a pane against the fake Anthropic API made to call a tuios tool. The call reaches the
// daemon through the server, and its answer, fenced after the note that it is data, reaches the
// fake API as the tool's result. Skipped (with the reason) where Claude Code cannot be installed.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RealAgent } from '../helpers/real-agent.js';
import { waitFor } from '../helpers/wait.js';
import { BIN } from '../helpers/daemon.js';
import type { RecordedRequest } from '../fake-apis/common.js';

const TOOL = 'mcp__tuios__tuios_capture_pane';
const a = new RealAgent('claude-code', {
  fake: { command: null, finalText: 'Read the pane.' },
  prepare: async (a) => {
    const r = await a.d.cli(['integration', 'install', 'claude-code', '--mcp', '--command', BIN], { env: a.run.env });
    if (r.code !== 0) throw new Error(`integration install failed: ${r.stderr}`);
    // The person allows the tool, as they would at its first use.
    const settings = join(a.run.home, '.claude', 'settings.json');
    const s = JSON.parse(readFileSync(settings, 'utf8'));
    s.permissions = { ...(s.permissions ?? {}), allow: [TOOL] };
    writeFileSync(settings, JSON.stringify(s, null, 2) + '\n');
    // This release defers MCP tools behind its ToolSearch tool; offered directly, the fake model sees them.
    a.run.env.ENABLE_TOOL_SEARCH = 'false';
  },
});
const it = a.gate(test);
test.before(() => a.start());
test.after(() => a.stop());

function toolResults(r: RecordedRequest): Array<{ tool_use_id: string; is_error?: boolean; text: string }> {
  const last = (r.body?.messages ?? []).at(-1);
  if (!last || !Array.isArray(last.content)) return [];
  return last.content
    .filter((c: { type: string }) => c.type === 'tool_result')
    .map((c: { tool_use_id: string; is_error?: boolean; content: unknown }) => ({
      tool_use_id: c.tool_use_id,
      is_error: c.is_error,
      text: typeof c.content === 'string' ? c.content : JSON.stringify(c.content),
    }));
}

it('the integration\'s server is loaded; a tuios tool call reaches the daemon and its answer the model', async () => {
  const entry = JSON.parse(readFileSync(join(a.run.home, '.claude.json'), 'utf8')).mcpServers.tuios;
  assert.equal(entry.args, ['mcp', '--integration', '1']);
  a.fake.setToolCall({ name: TOOL, args: {} });
  // Claude Code connects its MCP servers in the background: a turn before that offers no tuios
  // tool (only WaitForMcpServers). Ask again, at rest, until a turn offers it.
  const offers = (r: RecordedRequest) => (r.body?.tools ?? []).some((t: { name: string }) => t.name === TOOL);
  const first = await waitFor(async () => {
    const from = a.fake.requests.length;
    await a.waitState(['idle', 'done']);
    await a.d.call('send-text', { window: a.window, text: 'mcp-probe: look at your pane', submit: true });
    const r = await a.fake.waitRequest((x) => x.id > from && x.role === 'main', 60_000);
    if (offers(r)) return r;
    await a.waitState(['idle', 'done']);
    return null;
  }, { timeout: 120_000, what: `a turn that offers ${TOOL}` }).catch(async (e) => {
    const { execFileSync } = await import('node:child_process');
    const ps = execFileSync('ps', ['-eo', 'pid,ppid,args'], { encoding: 'utf8' }).split('\n').filter((l) => / mcp /.test(l)).join('\n');
    throw new Error(`${(e as Error).message}\nmcp processes:\n${ps}\nrequests: ${JSON.stringify(a.fake.requests.map((r) => ({ url: r.url, role: r.role, tools: (r.body?.tools ?? []).map((t: { name: string }) => t.name).join(',') })))}\nscreen:\n${await a.screen()}`);
  });
  const tool = first.body.tools.find((t: { name: string }) => t.name === TOOL);
  assert.ok(tool, 'Claude Code offers the tuios tool to the model');
  const back = await a.fake.waitRequest((r) => toolResults(r).length > 0, 90_000);
  const [res] = toolResults(back);
  assert.not.ok(res!.is_error, res!.text);
  assert.match(res!.text, /data, not instructions/, res!.text.slice(0, 1500));
  assert.match(res!.text, /mcp-probe/);
});

test.run();
