// Issue 28's figure: what `tuios agent-statusline claude-code` costs Claude Code per status line
// refresh, against Node's own start (`node -e 0`), the floor any Node program pays (goal: p99 at
// most 30 ms over it). Each call is a whole process, spawned with a real payload on stdin, timed
// from spawn to exit; the three kinds and the floor are interleaved so load on the machine falls
// on all of them alike. Kinds: `unchanged` (values as last written: no daemon call), `held` (the
// cost changed within the 15 s interval: held in the throttle file, no daemon call), `sent` (the
// model changed: one set-agent-meta). BENCH_CALLS sets the calls per kind (default 200).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestDaemon, BIN } from '../helpers/daemon.js';
import { median, percentile } from './helpers.js';

const N = Number(process.env.BENCH_CALLS ?? 200);
const WARM = 10;

function payload(model: string, cost: number): string {
  return JSON.stringify({
    session_id: '7aa59577-1f01-49cb-bae0-2c24d26d4142',
    hook_event_name: 'Status',
    model: { id: 'claude-opus-5-5', display_name: model },
    cost: { total_cost_usd: cost, total_duration_ms: 9162 },
    context_window: { total_input_tokens: 420000, context_window_size: 1000000, used_percentage: 42, remaining_percentage: 58 },
    workspace: { current_dir: '/tmp', project_dir: '/tmp', added_dirs: [] },
    version: '2.1.332',
  });
}

/**
 * GNU time, when the machine has it: the CPU a call used (user + system), which other work on a
 * loaded machine inflates far less than the wall time.
 */
const GNU_TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;
const cpuFile = join(mkdtempSync(join(tmpdir(), 'tuios-sl-bench-')), 'cpu');

/** One process, from spawn to exit: wall ms, and CPU ms when GNU time is there. */
function timed(args: string[], env: Record<string, string>, stdin: string): Promise<{ ms: number; cpu: number | null; code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const t = process.hrtime.bigint();
    const c = GNU_TIME
      ? spawn(GNU_TIME, ['-f', '%U %S', '-o', cpuFile, process.execPath, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] })
      : spawn(process.execPath, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    c.stdout.on('data', (b: Buffer) => (out += b.toString()));
    c.stderr.on('data', (b: Buffer) => (err += b.toString()));
    c.on('error', reject);
    // Timed at the exit; what it printed is all read at the close.
    let ms = 0;
    c.on('exit', () => (ms = Number(process.hrtime.bigint() - t) / 1e6));
    c.on('close', (code) => {
      const cpu = GNU_TIME ? readFileSync(cpuFile, 'utf8').trim().split(/\s+/).reduce((a, x) => a + Number(x) * 1000, 0) : null;
      resolve({ ms, cpu, code, out, err });
    });
    // A wrapper starved past its 300 ms budget exits before it reads: its stdin is then closed.
    c.stdin.on('error', () => undefined);
    c.stdin.end(stdin);
  });
}

const d = await TestDaemon.start();
try {
  await d.ok(['new-session', '-n', 'claude', 'bench']);
  const pane = (await d.json<{ windows: Array<{ id: string }> }>(['list-windows'])).windows[0]!.id;
  const env = { ...d.env, TUIOS_PANE_ID: pane };
  const wrapper = [BIN, 'agent-statusline', 'claude-code', '--integration', '1'];
  const kinds: Record<string, number[]> = { 'node -e 0': [], unchanged: [], held: [], sent: [] };
  const cpu: Record<string, number[]> = { 'node -e 0': [], unchanged: [], held: [], sent: [] };
  /** Each call less the floor of its own round: what the load of the moment adds falls on both. */
  const paired: Record<string, number[]> = { unchanged: [], held: [], sent: [] };
  let cost = 1;
  let flip = false;
  for (let i = 0; i < WARM + N; i++) {
    const floor = await timed(['-e', '0'], env, '');
    // The last write's values again: nothing to do but read the throttle file.
    const unchanged = await timed(wrapper, env, payload(flip ? 'Opus 5.5' : 'Sonnet 5', cost));
    // The cost moved within the interval: held.
    cost += 0.01;
    const held = await timed(wrapper, env, payload(flip ? 'Opus 5.5' : 'Sonnet 5', cost));
    // The model changed: it goes at once, one set-agent-meta.
    flip = !flip;
    const sent = await timed(wrapper, env, payload(flip ? 'Opus 5.5' : 'Sonnet 5', cost));
    for (const r of [unchanged, held, sent]) if (r.code !== 0 || r.out !== '') throw new Error(`the wrapper exited ${r.code} and printed ${JSON.stringify(r.out)}`);
    if (i < WARM) continue;
    for (const [k, r] of [['node -e 0', floor], ['unchanged', unchanged], ['held', held], ['sent', sent]] as const) {
      kinds[k]!.push(r.ms);
      if (r.cpu !== null) cpu[k]!.push(r.cpu);
      if (k !== 'node -e 0') paired[k]!.push(r.ms - floor.ms);
    }
  }
  const meta = (await d.call<{ meta: Record<string, string> }>('get-agent-state', { window: pane })).meta;
  if (meta.model !== (flip ? 'Opus 5.5' : 'Sonnet 5')) throw new Error(`the pane's model is ${meta.model}: the sent calls did not all land`);
  console.log(`${N} calls each, interleaved; pane meta at the end: ${JSON.stringify(meta)}; load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  const table = (title: string, set: Record<string, number[]>): number => {
    const floor = set['node -e 0']!;
    console.log(title);
    for (const [name, xs] of Object.entries(set)) {
      const over = name === 'node -e 0' ? '' : `  over node -e 0: p50 +${(median(xs) - median(floor)).toFixed(1)} ms, p99 +${(percentile(xs, 99) - percentile(floor, 99)).toFixed(1)} ms`;
      console.log(`  ${name.padEnd(10)} p50 ${median(xs).toFixed(1)} ms  p95 ${percentile(xs, 95).toFixed(1)} ms  p99 ${percentile(xs, 99).toFixed(1)} ms${over}`);
    }
    return Math.max(...['unchanged', 'held', 'sent'].map((k) => percentile(set[k]!, 99) - percentile(floor, 99)));
  };
  const worst = table('wall time, spawn to exit:', kinds);
  console.log(`goal: p99 at most 30 ms over node -e 0: ${worst <= 30 ? 'met' : 'NOT met'} (worst kind +${worst.toFixed(1)} ms, wall time)`);
  console.log('paired, each call less the floor of its round (the load of the moment falls on both):');
  for (const [name, xs] of Object.entries(paired)) console.log(`  ${name.padEnd(10)} p50 +${median(xs).toFixed(1)} ms  p95 +${percentile(xs, 95).toFixed(1)} ms  p99 +${percentile(xs, 99).toFixed(1)} ms`);
  // The CPU each process used, as it says at its exit (process.cpuUsage, microseconds): the
  // wrapper with --explain, the floor a `node -e` that prints its own. Load on the machine
  // stretches the wall time of both; it adds little to what either one computes.
  const own: Record<string, number[]> = { 'node -e 0': [], unchanged: [], held: [], sent: [] };
  const cpuOf = (r: { err: string }) => Number(/cpu ([\d.]+) ms\)?\s*$/.exec(r.err.trim())?.[1] ?? NaN);
  const floorCpu = ['-e', 'const c = process.cpuUsage(); process.stderr.write(`cpu ${((c.user + c.system) / 1000).toFixed(1)} ms`)'];
  const explained = [...wrapper, '--explain'];
  for (let i = 0; i < N; i++) {
    own['node -e 0']!.push(cpuOf(await timed(floorCpu, env, '')));
    own.unchanged!.push(cpuOf(await timed(explained, env, payload(flip ? 'Opus 5.5' : 'Sonnet 5', cost))));
    cost += 0.01;
    own.held!.push(cpuOf(await timed(explained, env, payload(flip ? 'Opus 5.5' : 'Sonnet 5', cost))));
    flip = !flip;
    own.sent!.push(cpuOf(await timed(explained, env, payload(flip ? 'Opus 5.5' : 'Sonnet 5', cost))));
  }
  if (Object.values(own).some((xs) => xs.some((x) => !Number.isFinite(x)))) throw new Error('a process did not say its CPU time');
  const worstOwn = table('CPU time each process says it used at its exit (process.cpuUsage):', own);
  console.log(`  worst kind p99 +${worstOwn.toFixed(1)} ms CPU over node -e`);
  if (cpu.sent!.length) {
    const worstCpu = table('CPU time (user + system, GNU time), which load inflates less:', cpu);
    console.log(`  worst kind p99 +${worstCpu.toFixed(1)} ms CPU over node -e 0`);
  }
} finally {
  await d.stop();
}
