// The fleet bench's load: peers changing their agents' states at a fixed rate, and the events that
// say so matched to the changes that caused them. Each change carries a tag of its own in its
// message, so an event is matched to its change whatever order they come in. A change is timed
// from the peer's own agent-state event (its state changed there) to the hub's host-agent-state
// event reaching a subscriber, and also from the line typed into the pane. One machine, one
// clock: the daemons stamp their events with Date.now(), and this process reads the same clock.
import { performance } from 'node:perf_hooks';
import type { RpcClient } from '../../core/rpc/client.js';
import type { Host } from '../helpers/link.js';
import { report, type FleetPeer } from '../helpers/fleet.js';
import { waitFor } from '../helpers/wait.js';

/** Now on the daemons' clock (ms since the epoch), to a fraction of a ms. */
const now = () => performance.timeOrigin + performance.now();

/** For each tagged change: when the peer published its agent-state, and when the hub's event reached us. */
export class FleetEvents {
  readonly changed = new Map<string, number>();
  readonly arrived = new Map<string, number>();
  private readonly clients: RpcClient[] = [];

  static async follow(hub: Host, peers: FleetPeer[]): Promise<FleetEvents> {
    const ev = new FleetEvents();
    const h = await hub.d.client();
    ev.clients.push(h);
    await h.stream('subscribe', { types: ['host-agent-state'] }, (e) => {
      const m = (e as { message?: string }).message;
      if (m && !ev.arrived.has(m)) ev.arrived.set(m, now());
    });
    for (const p of peers) {
      const c = await p.d.client();
      ev.clients.push(c);
      await c.stream('subscribe', { types: ['agent-state'] }, (e) => {
        const x = e as { message?: string; ts: number };
        if (x.message && !ev.changed.has(x.message)) ev.changed.set(x.message, x.ts);
      });
    }
    return ev;
  }

  close(): void {
    for (const c of this.clients) c.close();
  }
}

/** The steps a pane goes through, one per change: a turn that asks one approval. */
const CYCLE: ReadonlyArray<{ state: string; kind?: string }> = [{ state: 'working' }, { state: 'needs_input', kind: 'approval' }, { state: 'working' }, { state: 'idle' }];

export interface Sent {
  host: string;
  tag: string;
  /** When the line was typed into the pane (the daemons' clock). */
  at: number;
}

/** Changes made per pane so far, so one run of drive() goes on where the last left each pane. */
const steps = new Map<string, number>();
let nextTag = 0;

/**
 * Has every peer change `rate` states a second for `seconds`, one pane after another, the peers'
 * changes spread evenly over each interval. Each change is sent when it is due, not after the
 * last one answered, so a slow answer does not lower the rate. Returns what was sent.
 */
export async function drive(peers: FleetPeer[], rate: number, seconds: number): Promise<Sent[]> {
  const sent: Sent[] = [];
  const pending: Array<Promise<void>> = [];
  const every = 1000 / rate;
  const per = Math.round(rate * seconds);
  const t0 = performance.now();
  await Promise.all(
    peers.map(async (p, i) => {
      for (let k = 0; k < per; k++) {
        const due = t0 + (i * every) / peers.length + k * every;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const window = p.windows[k % p.windows.length]!;
        const n = steps.get(window) ?? 0;
        steps.set(window, n + 1);
        const tag = `${p.name}#${nextTag++}`;
        sent.push({ host: p.name, tag, at: now() });
        pending.push(report(p, window, { ...CYCLE[n % CYCLE.length]!, message: tag }));
      }
    }),
  );
  await Promise.all(pending);
  return sent;
}

export interface Latencies {
  /** The peer's state change -> the hub's event at a subscriber, in ms, by host and all together. */
  byHost: Map<string, number[]>;
  all: number[];
  /** The line typed into the pane -> the hub's event: the pane, its program and the peer included. */
  typed: number[];
  lost: number;
}

/** Waits until every change sent reached the hub (or the deadline), and times each one. */
export async function latencies(sent: Sent[], ev: FleetEvents, timeout = 30_000): Promise<Latencies> {
  await waitFor(() => sent.every((s) => ev.arrived.has(s.tag) && ev.changed.has(s.tag)), { timeout, what: 'every change on the hub' }).catch(() => undefined);
  const out: Latencies = { byHost: new Map(), all: [], typed: [], lost: 0 };
  for (const s of sent) {
    const at = ev.arrived.get(s.tag);
    const changed = ev.changed.get(s.tag);
    if (at === undefined || changed === undefined) {
      out.lost++;
      continue;
    }
    // The peer's stamp is whole ms, taken after the change: never count less than nothing.
    const ms = Math.max(0, at - changed);
    out.all.push(ms);
    out.typed.push(at - s.at);
    const xs = out.byHost.get(s.host) ?? [];
    xs.push(ms);
    out.byHost.set(s.host, xs);
  }
  return out;
}
