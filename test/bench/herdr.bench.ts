// Issue 22's herdr figure: herdr's `ping` on the `<socket>.herdr` socket (herdr's wire: one JSON
// line per connection, answered and closed) against the native `server-info` on the verb socket,
// each as a one-shot caller makes it (connect, call, close). Goal: ping at most 1 ms over
// server-info. Medians of N calls after a warm-up.
import { TestDaemon } from '../helpers/daemon.js';
import { RpcClient } from '../../core/rpc/client.js';
import { herdrCall, herdrSocketOf } from '../helpers/herdr-client.js';
import { median, percentile, timeCalls } from './helpers.js';

const N = Number(process.env.BENCH_CALLS ?? 500);
const d = await TestDaemon.start();
try {
  const time = (fn: () => Promise<unknown>): Promise<number[]> => timeCalls(fn, N, 50);
  const native = await time(async () => {
    const c = await RpcClient.connect(d.socket);
    await c.call('server-info', {});
    c.close();
  });
  const ping = await time(async () => {
    const a = await herdrCall(herdrSocketOf(d), 'ping');
    if (!a.result) throw new Error(`ping answered ${JSON.stringify(a)}`);
  });
  const over = median(ping) - median(native);
  console.log(`socket server-info (connect, call, close)  median ${median(native).toFixed(2)} ms  p95 ${percentile(native, 95).toFixed(2)} ms`);
  console.log(`herdr ping (connect, line, answer, close)   median ${median(ping).toFixed(2)} ms  p95 ${percentile(ping, 95).toFixed(2)} ms  over server-info ${over.toFixed(2)} ms (goal <= 1 ms): ${over <= 1 ? 'met' : 'NOT met'}`);
} finally {
  await d.stop();
}
