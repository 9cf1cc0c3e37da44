// Issue 22's MCP figure: one tool call's round trip through `tuios mcp` (an SDK client over stdio,
// the server's connection restricted with restrict-connection, the verb on the socket) against
// the socket verb it wraps (goal: at most 5 ms over it). Medians of N calls after a warm-up.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { TestDaemon, BIN } from '../helpers/daemon.js';
import { RpcClient } from '../../core/rpc/client.js';
import { median, percentile, timeCalls } from './helpers.js';

const N = Number(process.env.BENCH_CALLS ?? 300);
const d = await TestDaemon.start();
try {
  await d.ok(['new-session', '-n', 'me', 'bench']);
  const me = (await d.json<{ windows: Array<{ id: string }> }>(['list-windows'])).windows[0]!.id;

  const time = (fn: () => Promise<unknown>): Promise<number[]> => timeCalls(fn, N, 30);

  // The socket verb as a one-shot caller makes it: connect, call, close.
  const socket = await time(async () => {
    const c = await RpcClient.connect(d.socket, { pane: me });
    await c.call('get-agent-state', { window: me });
    c.close();
  });

  const rows: Array<[string, number[]]> = [['socket get-agent-state (connect, call, close)', socket]];
  for (const args of [[], ['--scope', 'all']]) {
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', ...args], env: { ...d.env, TUIOS_PANE_ID: me }, cwd: d.home });
    const c = new Client({ name: 'bench', version: '1' });
    await c.connect(transport);
    rows.push([`mcp tuios_get_state${args.length ? ' --scope all' : ' (restricted)'}`, await time(() => c.callTool({ name: 'tuios_get_state', arguments: {} }))]);
    await c.close();
  }
  const base = median(socket);
  for (const [name, xs] of rows) {
    console.log(`${name.padEnd(48)} median ${median(xs).toFixed(2)} ms  p95 ${percentile(xs, 95).toFixed(2)} ms  over the socket verb ${(median(xs) - base).toFixed(2)} ms`);
  }
} finally {
  await d.stop();
}
