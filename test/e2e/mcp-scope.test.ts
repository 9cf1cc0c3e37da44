// The scope of `tuios mcp`, held by the daemon: every call's connection is restricted first with
// restrict-connection, the daemon finds the server's pane from the kernel's record of its process
// (not from what it says), and whatever lies outside the pane's reach answers `forbidden`, even for
// a pane holding admin. `--scope all` leaves the connection unrestricted.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/daemon.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { TestDaemon, BIN } from '../helpers/daemon.js';
import { startMcp, callTool, toolText, type ToolResult } from '../helpers/mcp-client.js';
import { waitFor } from '../helpers/wait.js';
import { RpcClient, RpcError } from '../../core/rpc/client.js';

let d: TestDaemon;
/** The server's pane and a second pane of its session; a pane of another session. */
let me: string;
let mate: string;
let stranger: string;
let mePid: number;
const clients: Client[] = [];

async function mcp(args: string[] = []): Promise<Client> {
  const c = await startMcp(d.env, me, d.home, args, 'tuios-e2e-scope');
  clients.push(c);
  return c;
}

const call = callTool;
const text = toolText;

function forbidden(r: ToolResult, what: string): void {
  assert.ok(r.isError, `${what} is refused`);
  assert.match(text(r), /"code":"forbidden"/, what);
}

async function refusedCode(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof RpcError) return e.code;
    throw e;
  }
  return 'ok';
}

test.before(async () => {
  d = await TestDaemon.start();
  await d.ok(['new-session', '-n', 'me', 'home']);
  await d.ok(['new-window', '-s', 'home', 'mate']);
  await d.ok(['new-session', '-n', 'stranger', 'elsewhere']);
  const rows = (await d.json<{ windows: Array<{ id: string; name: string; pid: number }> }>(['list-windows'])).windows;
  const byName = (n: string) => rows.find((w) => w.name === n)!;
  me = byName('me').id;
  mePid = byName('me').pid;
  mate = byName('mate').id;
  stranger = byName('stranger').id;
  // Even a pane that holds admin is held to its reach through tuios mcp.
  await d.ok(['set-pane-grants', '-w', me, '--grants', 'admin']);
});

test.after(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await d.stop();
});

test('restricted: its own session answers, another session is forbidden, lists keep to the reach', async () => {
  const c = await mcp();
  const own = await call(c, 'tuios_capture_pane', { window: mate });
  assert.not.ok(own.isError, text(own));
  forbidden(await call(c, 'tuios_capture_pane', { window: stranger }), 'a capture of another session');
  forbidden(await call(c, 'tuios_get_state', { window: stranger }), 'the state of another session');
  forbidden(await call(c, 'tuios_send_mail', { window: stranger, text: 'hi' }), 'mail to another session');
  forbidden(await call(c, 'tuios_list_agents', { select: 'harness:claude-code' }), 'a selector');
  const sent = await call(c, 'tuios_send_mail', { window: mate, text: 'hi mate' });
  assert.not.ok(sent.isError, text(sent));
  const panes = await call(c, 'tuios_list_panes');
  assert.not.ok(panes.isError, text(panes));
  assert.equal(panes.structuredContent!.windows.map((w: { id: string }) => w.id).sort(), [me, mate].sort());
});

test('restricted: tuios_events carries no event of another session', async () => {
  const c = await mcp();
  const first = await call(c, 'tuios_events', { types: ['window-created'] });
  assert.not.ok(first.isError, text(first));
  await d.ok(['new-window', '-s', 'elsewhere', 'far']);
  await d.ok(['new-window', '-s', 'home', 'near']);
  const seen: Array<{ name: string; session_id: string }> = [];
  await waitFor(async () => {
    const r = await call(c, 'tuios_events', { types: ['window-created'] });
    seen.push(...r.structuredContent!.events);
    return seen.some((e) => e.name === 'near');
  }, { timeout: 20_000, what: 'the window-created event of its own session' });
  assert.not.ok(seen.some((e) => e.name === 'far'), JSON.stringify(seen));
});

test('--scope all: the same server reaches the other session (the pane holds admin)', async () => {
  const c = await mcp(['--scope', 'all']);
  const r = await call(c, 'tuios_capture_pane', { window: stranger });
  assert.not.ok(r.isError, text(r));
  assert.is(r.structuredContent!.window, stranger);
});

test('restrict-connection: the pane comes from the kernel or its token, and nothing outside the tools passes', async () => {
  // From outside every pane, with nothing to prove a pane: refused.
  const outside = await RpcClient.connect(d.socket);
  assert.is(await refusedCode(outside.call('restrict-connection', {})), 'forbidden');
  // A pane id with a wrong token proves nothing.
  assert.is(await refusedCode(outside.call('restrict-connection', { pane: me, pane_token: 'x'.repeat(32) })), 'forbidden');
  outside.close();
  // The pane's own token (from its environment) proves it.
  const env = readFileSync(`/proc/${mePid}/environ`, 'utf8').split('\0');
  const token = env.find((l) => l.startsWith('TUIOS_PANE_TOKEN='))!.slice('TUIOS_PANE_TOKEN='.length);
  const c = await RpcClient.connect(d.socket);
  const r = await c.call<{ restricted: boolean; window_id: string }>('restrict-connection', { pane: me, pane_token: token });
  assert.is(r.window_id, me);
  assert.is(await refusedCode(c.call('capture-pane', { window: stranger })), 'forbidden');
  assert.is(await refusedCode(c.call('capture-pane', { window: mate })), 'ok');
  // A verb that is no tool, and a second restriction to another pane, are refused.
  assert.is(await refusedCode(c.call('kill-session', { session: 'elsewhere' })), 'forbidden');
  assert.is(await refusedCode(c.call('list-windows', { session: 'elsewhere' })), 'forbidden');
  assert.is(await refusedCode(c.call('restrict-connection', { pane: mate, pane_token: token })), 'forbidden');
  c.close();
  // The other session is still there: nothing above reached it.
  const rows = (await d.call<{ windows: Array<{ id: string }> }>('list-windows')).windows;
  assert.ok(rows.some((w) => w.id === stranger));
});

test('a harness that scrubs the environment (as Codex does): the daemon still finds the pane from the kernel', async () => {
  // A client in a pane starts the server with the SDK's default environment only (no TUIOS_*).
  const out = join(d.dir, 'scrubbed.json');
  const script = join(d.dir, 'scrubbed-client.mjs');
  const sdk = join(ROOT, 'node_modules/@modelcontextprotocol/sdk/dist/esm/client');
  writeFileSync(script, `
import { writeFileSync } from 'node:fs';
import { Client } from ${JSON.stringify(join(sdk, 'index.js'))};
import { StdioClientTransport } from ${JSON.stringify(join(sdk, 'stdio.js'))};
const t = new StdioClientTransport({ command: process.execPath, args: [${JSON.stringify(BIN)}, 'mcp', '--server', ${JSON.stringify(d.socket)}], env: {}, stderr: 'ignore' });
const c = new Client({ name: 'scrubbed', version: '1' });
await c.connect(t);
const own = await c.callTool({ name: 'tuios_get_state', arguments: {} });
const far = await c.callTool({ name: 'tuios_capture_pane', arguments: { window: ${JSON.stringify(stranger)} } });
writeFileSync(${JSON.stringify(out)}, JSON.stringify({ own, far, env: Object.keys(process.env).filter((k) => k.startsWith('TUIOS_')) }));
await c.close();
`);
  const made = await d.call<{ id: string }>('new-window', { session: 'home', name: 'inside', argv: [process.execPath, script] });
  const r = await waitFor(() => (existsSync(out) ? JSON.parse(readFileSync(out, 'utf8')) : null), { timeout: 30_000, what: 'the in-pane client to finish' });
  assert.ok(r.env.length > 0, 'the client itself runs in the pane, with its TUIOS_ variables');
  assert.not.ok(r.own.isError, JSON.stringify(r.own));
  assert.is(r.own.structuredContent.window_id, made.id, 'the server\'s own pane, found without TUIOS_PANE_ID');
  assert.ok(r.far.isError);
  assert.match(r.far.content[0].text, /"code":"forbidden"/);
});

test.run();
