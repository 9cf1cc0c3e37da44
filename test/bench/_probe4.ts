import { spawnSync } from 'node:child_process';
import { TestDaemon, BIN } from '../helpers/daemon.js';
const d = await TestDaemon.start();
try {
  await d.ok(['new-session', '-n', 'claude', 'bench']);
  const pane = (await d.json<{ windows: Array<{ id: string }> }>(['list-windows'])).windows[0]!.id;
  const env = { ...d.env, TUIOS_PANE_ID: pane };
  const pl = (m: string, c: number) => JSON.stringify({ session_id: 's1', model: { display_name: m }, cost: { total_cost_usd: c }, context_window: { used_percentage: 42 } });
  const run = (args: string[], input: string) => {
    const r = spawnSync(process.execPath, args, { env, input, encoding: 'utf8' });
    const m = /after (\d+) ms \(cpu ([\d.]+) ms\)/.exec(r.stderr) ?? /^([\d.]+) ([\d.]+)$/.exec(r.stderr.trim());
    return m ? [Number(m[1]), Number(m[2])] : [NaN, NaN];
  };
  const res: Record<string, number[][]> = { boot: [], unchanged: [], held: [], sent: [] };
  let flip = false; let cost = 1;
  const W = [BIN, 'agent-statusline', 'claude-code', '--explain'];
  for (let i = 0; i < 60; i++) {
    res.boot!.push(run(['-e', 'const c=process.cpuUsage();process.stderr.write(Math.round(performance.now())+" "+((c.user+c.system)/1000).toFixed(1))'], ''));
    res.unchanged!.push(run(W, pl(flip ? 'A' : 'B', cost)));
    cost += 0.01;
    res.held!.push(run(W, pl(flip ? 'A' : 'B', cost)));
    flip = !flip;
    res.sent!.push(run(W, pl(flip ? 'A' : 'B', cost)));
  }
  const q = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!; };
  for (const [k, xs] of Object.entries(res)) {
    const wall = xs.map((x) => x[0]!); const cpu = xs.map((x) => x[1]!);
    console.log(k.padEnd(10), `in-process to exit p50 ${q(wall, 50)} p90 ${q(wall, 90)} ms; cpu p50 ${q(cpu, 50).toFixed(1)} p90 ${q(cpu, 90).toFixed(1)} p99 ${q(cpu, 99).toFixed(1)} ms`);
  }
} finally { await d.stop(); }
