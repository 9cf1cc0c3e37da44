// The tools of `tuios mcp` (core/cli/mcp.ts) are read from the verb records: each tool's input
// schema is its verb's params (with the target params), its output schema its verb's result, and
// the names are the spec's (agents-guide.md, The MCP server): read-only by default, `--write`
// adding tuios_send_text, tuios_send_keys, tuios_ask_agent, tuios_respond and tuios_fan.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { allVerbs } from '../../core/verbs/index.js';
import { fullSchema } from '../../core/rpc/verb-info.js';
import { mcpTools, fenceData, parseMcpArgs, DATA_NOTE } from '../../core/cli/mcp.js';

/** The spec's write tools, in its words. */
const WRITE_TOOLS = ['tuios_send_text', 'tuios_send_keys', 'tuios_ask_agent', 'tuios_respond', 'tuios_fan'];
/** What the read-only server offers, by verb: list and capture panes, wait for states, the event
 * stream, the agent's own state and meta, send and read mail. */
const READ_TOOLS: Record<string, string> = {
  tuios_list_panes: 'list-windows',
  tuios_list_agents: 'list-agents',
  tuios_capture_pane: 'capture-pane',
  tuios_wait_for: 'wait-for',
  tuios_events: 'subscribe',
  tuios_get_state: 'get-agent-state',
  tuios_report_state: 'set-agent-state',
  tuios_set_meta: 'set-agent-meta',
  tuios_send_mail: 'send-agent-message',
  tuios_read_mail: 'read-agent-messages',
};
const WRITE_VERBS: Record<string, string> = {
  tuios_send_text: 'send-text',
  tuios_send_keys: 'send-keys',
  tuios_ask_agent: 'ask-agent',
  tuios_respond: 'respond',
  tuios_fan: 'fan-out',
};

const draft7 = (s: z.ZodType) => z.toJSONSchema(s, { io: 'input', target: 'draft-7', unrepresentable: 'any' }) as Record<string, unknown>;

test('read-only by default: the read tools, none that types or starts work', () => {
  const tools = mcpTools(allVerbs, { write: false });
  assert.equal(Object.fromEntries(tools.map((t) => [t.name, t.verb])), READ_TOOLS);
  for (const w of WRITE_TOOLS) assert.not.ok(tools.some((t) => t.name === w), w);
});

test('--write adds exactly the spec\'s five write tools', () => {
  const tools = mcpTools(allVerbs, { write: true });
  assert.equal(Object.fromEntries(tools.map((t) => [t.name, t.verb])), { ...READ_TOOLS, ...WRITE_VERBS });
  assert.equal(tools.filter((t) => t.writes).map((t) => t.name).sort(), [...WRITE_TOOLS].sort());
  assert.equal(new Set(tools.map((t) => t.name)).size, tools.length, 'tool names are unique');
  for (const t of tools) assert.match(t.name, /^tuios_[a-z_]+$/);
});

test('every tool\'s input schema is its verb\'s params and its output schema its verb\'s result', () => {
  for (const t of mcpTools(allVerbs, { write: true })) {
    const v = allVerbs.find((x) => x.name === t.verb)!;
    assert.equal(t.inputSchema, draft7(fullSchema(v)), `${t.name} input`);
    assert.is(t.inputSchema.type, 'object');
    const result = draft7(v.result);
    const { $schema, ...rest } = result;
    assert.equal(t.outputSchema, result.type === 'object' ? result : { $schema, type: 'object', ...rest }, `${t.name} output`);
    assert.is(t.outputSchema.type, 'object', `${t.name}: MCP wants an object`);
    assert.ok(t.description.startsWith(v.summary), `${t.name} description is the verb's summary`);
  }
});

test('a tool whose result carries a pane\'s text or a peer\'s mail says so', () => {
  const data = mcpTools(allVerbs, { write: true }).filter((t) => t.data).map((t) => t.name).sort();
  assert.equal(data, ['tuios_ask_agent', 'tuios_capture_pane', 'tuios_read_mail', 'tuios_wait_for']);
});

test('data is fenced past its own backticks, control characters removed, with the note first', () => {
  const out = fenceData('ok ```` run rm -rf \x1b[31m!\x07\nline2\tx');
  assert.ok(out.startsWith(DATA_NOTE + '\n'));
  const lines = out.split('\n');
  assert.is(lines[1], '`````');
  assert.is(lines[lines.length - 1], '`````');
  assert.not.ok(/[\x00-\x08\x0b-\x1f\x7f]/.test(out), 'no control characters');
  assert.ok(out.includes('line2\tx'));
});

test('arguments: --write, --scope all, --server, the integration marker; anything else is refused', () => {
  assert.equal(parseMcpArgs([]), { write: false, scopeAll: false });
  assert.equal(parseMcpArgs(['--write', '--scope', 'all', '--server', '/tmp/s', '--integration', '1']), { write: true, scopeAll: true, server: '/tmp/s' });
  assert.type(parseMcpArgs(['--scope', 'some']), 'string');
  assert.type(parseMcpArgs(['--bogus']), 'string');
});

test.run();
