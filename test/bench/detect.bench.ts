// Issue 4's benchmark: 200 idle panes (100 shells at their prompt, 100 stand-in agents at rest)
// for 60 s after a 30 s start-up tail (printed on its own): the daemon's CPU (goal: under 1% of one
// core), the agent-state events published (goal: zero), and the time of one identification.
import { readFileSync, mkdirSync, copyFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { TestDaemon } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { identify } from '../../core/detection/identify.js';
import { loadManifests, findHarness } from '../../core/detection/manifest.js';
import { procReader } from '../../core/detection/proc-reader.js';
import { nullLogger } from '../../core/log.js';
import { ROOT } from '../helpers/daemon.js';
import { fmt, median } from './helpers.js';

const PANES = Number(process.env.BENCH_PANES ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const SETTLE_SECONDS = Number(process.env.BENCH_SETTLE_SECONDS ?? 30);

function cpuSeconds(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const x = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(x[11]) + Number(x[12])) / 100;
}

const d = await TestDaemon.start({ env: { TUIOS_AGENT_STALL_SECONDS: '0', ...(process.env.BENCH_NO_DETECT ? { TUIOS_AGENT_AUTODETECT: '0' } : {}) } });
try {
  const bin = join(d.dir, 'bin');
  mkdirSync(bin);
  copyFileSync('/usr/bin/sleep', join(bin, 'claude'));
  chmodSync(join(bin, 'claude'), 0o755);
  await d.ok(['new-session', 'idle', 'sleep', '3600']);
  const agentIds: string[] = [];
  for (let i = 0; i < PANES; i++) {
    const agent = i % 2 === 1;
    const w = await d.call<{ id: string }>('new-window', { session: 'idle', name: agent ? `a${i}` : `s${i}`, argv: agent ? [join(bin, 'claude'), '3600'] : ['sh'] });
    if (agent) agentIds.push(w.id);
  }
  if (!process.env.BENCH_NO_DETECT) await waitFor(async () => (await d.call<{ agents: unknown[] }>('list-agents')).agents.length === agentIds.length, { timeout: 60_000, what: 'every stand-in attributed' });
  // Start-up is not idle: after starting 200 panes V8's memory reducer runs its collections (up to
  // three, about 8 s apart, marking the whole heap of 200 emulators), which cost more than all the
  // idle ticks of a minute. The first SETTLE_SECONDS are measured and printed on their own.
  const settle0 = cpuSeconds(d.pid!);
  const s0 = Date.now();
  await waitFor(() => Date.now() - s0 >= SETTLE_SECONDS * 1000, { timeout: SETTLE_SECONDS * 1000 + 5000, interval: 1000 });
  const settleCpu = cpuSeconds(d.pid!) - settle0;
  const settleWall = (Date.now() - s0) / 1000;
  const c = await d.client();
  const events: unknown[] = [];
  await c.stream('subscribe', { types: ['agent-state', 'agent-meta'] }, (e) => {
    if ((e as { type: string }).type.startsWith('agent-')) events.push(e);
  });
  const cpu0 = cpuSeconds(d.pid!);
  const t0 = Date.now();
  await waitFor(() => Date.now() - t0 >= SECONDS * 1000, { timeout: SECONDS * 1000 + 5000, interval: 1000 });
  const cpu = cpuSeconds(d.pid!) - cpu0;
  const wall = (Date.now() - t0) / 1000;
  c.close();

  // One identification, in this process, on a live stand-in.
  const set = loadManifests(join(ROOT, 'manifests'), null, nullLogger);
  const ws = await d.call<{ windows: Array<{ id: string; pid: number }> }>('list-windows');
  const pid = ws.windows.find((w) => w.id === agentIds[0])!.pid;
  const times: number[] = [];
  for (let i = 0; i < 200; i++) {
    const t = performance.now();
    identify(pid, -1, procReader, { manifests: set.list, extraBinaries: [], findByName: (n) => findHarness(set, n) });
    times.push(performance.now() - t);
  }
  console.log(`${PANES} panes just started, the first ${fmt(settleWall, 0)} s: daemon CPU ${fmt((settleCpu / settleWall) * 100, 2)}% of one core (start-up, not idle)`);
  console.log(`${PANES} idle panes for the next ${fmt(wall, 0)} s: daemon CPU ${fmt((cpu / wall) * 100, 2)}% of one core (goal < 1%), agent-state and meta events ${events.length} (goal 0); one identification ${fmt(median(times) * 1000, 0)} us median`);
} finally {
  await d.stop();
}
process.exit(0);
