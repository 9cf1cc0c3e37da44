// The fleet bench's cut: some hosts cut off at once (SIGSTOP: they answer nothing and close
// nothing, as a pulled cable) while the rest go on changing states, then put back, each of their
// agents reporting a new state at once. What it costs the rest, how soon the hub shows the cut
// ones down, and how soon, once they answer, it is up and holds what their agents say now.
import { performance } from 'node:perf_hooks';
import { cut, heal, report, type Fleet, type FleetPeer } from '../helpers/fleet.js';
import { waitFor } from '../helpers/wait.js';
import { drive, latencies, type FleetEvents, type Latencies } from './fleet-load.js';
import { HostLinks } from './fleet-links.js';
import { cpuSeconds } from './helpers.js';

export interface CutFigures {
  rest: FleetPeer[];
  /** The rest's changes while the cut ones went down, and while they came back. */
  during: Latencies;
  after: Latencies;
  /** Per cut host, ms: from the cut to shown down; from the return to up, and to every agent current. */
  down: number[];
  up: number[];
  current: number[];
  /** The hub's own event loop in each phase: what of the rest's wait was the hub's doing. */
  hubLoop: { during: LoopDelay; after: LoopDelay };
}

/** The hub's event loop over a phase (wall time: on a shared box it counts the time the kernel gave others), and the CPU it used. */
type LoopDelay = { p99_ms: number; max_ms: number; cpu_s: number };
async function hubLoop(f: Fleet, cpuBefore: number): Promise<LoopDelay> {
  const loop = (await f.hub.d.call<{ event_loop: LoopDelay }>('server-info', { reset_loop: true })).event_loop;
  return { ...loop, cpu_s: cpuSeconds(f.hub.d.pid!) - cpuBefore };
}

export async function cutAndBack(f: Fleet, ev: FleetEvents, o: { cut: number; rate: number; downFor: number; backFor: number }): Promise<CutFigures> {
  // Spread over the fleet, not its first or last few.
  const cutOff = Array.from({ length: o.cut }, (_, i) => f.peers[Math.floor(((i + 0.5) * f.peers.length) / o.cut)]!);
  const rest = f.peers.filter((x) => !cutOff.includes(x));
  const links = await HostLinks.follow(f.hub);
  try {
    await hubLoop(f, 0);
    const cpu0 = cpuSeconds(f.hub.d.pid!);
    const t0 = performance.now();
    for (const x of cutOff) cut(x);
    const driving = drive(rest, o.rate, o.downFor);
    const down = await Promise.all(cutOff.map((x) => links.when(x.name, 'down', t0, 60_000)));
    const during = await latencies(await driving, ev);
    const loopDuring = await hubLoop(f, cpu0);
    const cpu1 = cpuSeconds(f.hub.d.pid!);
    const t1 = performance.now();
    const healing = drive(rest, o.rate, o.backFor);
    const back = await Promise.all(cutOff.map(async (x) => {
      heal(x);
      const tags = x.windows.map((w) => `back ${x.name} ${w}`);
      for (const [i, w] of x.windows.entries()) await report(x, w, { state: 'working', message: tags[i] });
      const up = await links.when(x.name, 'up', t1, 120_000);
      // Current: the hub has published each agent's new state (its events, not a poll of
      // list-agents, which would load the hub whose cost to the rest is being measured).
      await waitFor(() => tags.every((t) => ev.arrived.has(t)), { timeout: 120_000, interval: 10, what: `${x.name}'s agents current on the hub` });
      return { up, current: Math.max(...tags.map((t) => ev.arrived.get(t)!)) - (performance.timeOrigin + t1) };
    }));
    const after = await latencies(await healing, ev);
    const loopAfter = await hubLoop(f, cpu1);
    await hubHoldsThem(f, cutOff);
    return { rest, during, after, down, up: back.map((b) => b.up), current: back.map((b) => b.current), hubLoop: { during: loopDuring, after: loopAfter } };
  } finally {
    links.close();
  }
}

/** What the hub answers now: every agent of the cut hosts live again, with its new state. */
async function hubHoldsThem(f: Fleet, cutOff: FleetPeer[]): Promise<void> {
  const rows = (await f.hub.d.call<{ agents: Array<{ host: string; window_id: string; message: string; down: boolean }> }>('list-agents', { all_hosts: true })).agents;
  for (const x of cutOff) {
    const mine = rows.filter((a) => a.host === x.name);
    if (mine.length !== x.windows.length || !mine.every((a) => !a.down && a.message === `back ${x.name} ${a.window_id}`)) throw new Error(`${x.name}'s rows on the hub are not current: ${JSON.stringify(mine.slice(0, 2))}`);
  }
}
