// A fleet of linked daemons on one box, for the fleet bench and its e2e test: N peers, each a
// TestDaemon with its own SSH server on loopback and P agent panes, and a hub linked to every one
// with `hosts add --yes`, as a person links them. Each pane runs AGENT_PROGRAM, a shell loop that
// writes one OSC 7501 report per line it reads: typing a line into a pane (send-text) sets its
// state through the pane's own output, as a real agent's does, at the moment the driver chooses.
// A shell per pane is what lets 800 of them fit on a 2-core box (a node agent would take 40 MB each).
import type { RpcClient } from '../../core/rpc/client.js';
import { link, startHost, type Host } from './link.js';
import { waitFor } from './wait.js';

/** The pane's program: no echo (the screen stays still), then one OSC 7501 report per line read. */
export const AGENT_PROGRAM = `stty -echo; while read -r f; do printf '\\033]7501;%s\\007' "$f"; done`;

/** The session every peer's agents are in; window `aNN` is agent NN. */
export const FLEET_SESSION = 'fleet';

/**
 * Peers keep no scrollback (the panes print nothing) and take no turn checkpoints: the panes are
 * in no git work tree, so a checkpoint saves nothing, yet each turn's end would still start a git
 * to find that out, and 16 daemons forking one each on two cores are the box's cost, not the link's.
 */
const PEER_CONFIG = '[daemon]\nscrollback = 0\n\n[agents.checkpoints]\nenabled = false\n';

export interface FleetPeer extends Host {
  /** The window ids of its agent panes, in order. */
  windows: string[];
  /** One connection kept open for the reports, so a report costs one round trip. */
  rpc: RpcClient;
}

export interface Fleet {
  hub: Host;
  peers: FleetPeer[];
}

export interface FleetOptions {
  hosts: number;
  panes: number;
  /** Daemons started at once: more only makes a 2-core box slower at it. */
  parallel?: number;
  /** Progress lines (what is being started), for a long run to say where it is. */
  log?: (line: string) => void;
  /** More config.toml for every peer. */
  peerConfig?: string;
  /** More environment for every daemon. */
  env?: Record<string, string>;
  /** More config.toml for the hub, and more of its environment. */
  hubConfig?: string;
  hubEnv?: Record<string, string>;
  /** Called with the hub once it runs, before it links to anything (its memory before, say). */
  beforeLink?: (hub: Host) => void | Promise<void>;
}

/** `p01`, `p02`, ...: names that sort as the hosts are numbered. */
export function peerName(i: number, hosts: number): string {
  return `p${String(i + 1).padStart(Math.max(2, String(hosts).length), '0')}`;
}

/** The payload of one OSC 7501 report (docs/PROGRAM_STATUS.md), percent-encoded as it requires. */
export function statusFields(s: { state: string; message?: string; kind?: string }): string {
  const parts = [`state=${encodeURIComponent(s.state)}`];
  if (s.message) parts.push(`message=${encodeURIComponent(s.message)}`);
  if (s.kind) parts.push(`kind=${encodeURIComponent(s.kind)}`);
  return parts.join(';');
}

/** Has the pane report a state: one line typed into it, which its program turns into OSC 7501. */
export async function report(peer: FleetPeer, window: string, s: { state: string; message?: string; kind?: string }): Promise<void> {
  await peer.rpc.call('send-text', { window, text: `${statusFields(s)}\n` });
}

/** Runs `fn` over `items`, at most `n` at a time, in order of start. */
export async function inBatches<T, R>(items: T[], n: number, fn: (x: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
  return out;
}

/**
 * A daemon whose SSH server listens where the hub will dial it. startHost picks a free port and
 * lets it go for the daemon to take; on a busy box another process can take it first (the daemon
 * then runs without its server): try again on another. A config the daemon refused is no race.
 */
async function startListening(name: string, config: string, env?: Record<string, string>): Promise<Host> {
  for (let attempt = 1; ; attempt++) {
    const h = await startHost(name, { config, env });
    const info = await h.d.call<{ endpoints: { ssh?: { port: number } }; config_error: string | null }>('server-info');
    if (info.endpoints.ssh?.port === h.port) return h;
    await h.d.stop();
    if (info.config_error) throw new Error(`${name} refused its config.toml: ${info.config_error}`);
    if (attempt === 3) throw new Error(`${name}'s SSH server did not listen on a free port, 3 times`);
  }
}

/** A peer with `panes` agent panes, each reporting idle with the message `ready`. */
async function startPeer(name: string, panes: number, o: FleetOptions): Promise<FleetPeer> {
  const h = await startListening(name, `${PEER_CONFIG}${o.peerConfig ?? ''}`, o.env);
  const rpc = await h.d.client();
  const size = { cols: 60, rows: 5 };
  const first = await rpc.call<{ window: { id: string } }>('new-session', { name: FLEET_SESSION, window_name: 'a00', argv: ['sh', '-c', AGENT_PROGRAM], ...size });
  const windows = [first.window.id];
  for (let i = 1; i < panes; i++) {
    const w = await rpc.call<{ id: string }>('new-window', { session: FLEET_SESSION, name: `a${String(i).padStart(2, '0')}`, argv: ['sh', '-c', AGENT_PROGRAM], ...size });
    windows.push(w.id);
  }
  const peer: FleetPeer = { ...h, windows, rpc };
  for (const w of windows) await report(peer, w, { state: 'idle', message: 'ready' });
  await waitFor(async () => {
    const r = await rpc.call<{ agents: Array<{ state: string; message?: string }> }>('list-agents', { session: FLEET_SESSION });
    return r.agents.length === panes && r.agents.every((a) => a.state === 'idle' && a.message === 'ready');
  }, { timeout: 120_000, what: `${panes} agents of ${name} idle and ready` });
  return peer;
}

/** The hub's view of its hosts: each peer's link state and the agent rows it holds. */
export async function hubHosts(hub: Host): Promise<Map<string, { state: string; agents: number }>> {
  const r = await hub.d.call<{ hosts: Array<{ name: string; state: string; agents: number }> }>('list-hosts');
  return new Map(r.hosts.map((h) => [h.name, h]));
}

/** Starts the peers and the hub, links the hub to each, and waits until the hub holds every agent. */
export async function startFleet(o: FleetOptions): Promise<Fleet> {
  const log = o.log ?? (() => {});
  const names = Array.from({ length: o.hosts }, (_, i) => peerName(i, o.hosts));
  const started: FleetPeer[] = [];
  let hub: Host | null = null;
  try {
    await inBatches(names, o.parallel ?? 4, async (n) => {
      const p = await startPeer(n, o.panes, o);
      started.push(p);
      log(`${n} up with ${o.panes} agents (${started.length}/${o.hosts})`);
      return p;
    });
    const peers = names.map((n) => started.find((p) => p.name === n)!);
    hub = await startHost('hub', { config: o.hubConfig, env: { ...o.env, ...o.hubEnv } });
    await o.beforeLink?.(hub);
    for (const p of peers) await link(hub, p);
    log(`hub linked to ${peers.length} hosts`);
    const h = hub;
    await waitFor(async () => {
      const hosts = await hubHosts(h);
      return peers.every((p) => hosts.get(p.name)?.state === 'up' && hosts.get(p.name)?.agents === o.panes);
    }, { timeout: 60_000 + 2000 * o.hosts, what: `every host up on the hub with its ${o.panes} agents` });
    return { hub, peers };
  } catch (e) {
    await stopFleet({ hub: hub ?? null, peers: started });
    throw e;
  }
}

/** Cuts a peer off the way a pulled cable does: it stops answering, and no connection is closed. */
export function cut(peer: FleetPeer): void {
  process.kill(peer.d.pid!, 'SIGSTOP');
}

/** Puts a cut peer back: it answers again where it stopped. */
export function heal(peer: FleetPeer): void {
  process.kill(peer.d.pid!, 'SIGCONT');
}

/** Stops every daemon (a cut one is put back first, or it could not take SIGTERM). */
export async function stopFleet(f: { hub: Host | null; peers: FleetPeer[] }): Promise<void> {
  for (const p of f.peers) {
    try {
      heal(p);
    } catch {
      // already gone
    }
    p.rpc.close();
  }
  await Promise.all([f.hub?.d.stop(), ...f.peers.map((p) => p.d.stop())]);
}
