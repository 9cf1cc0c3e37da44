// The rail's own state kept across attaches (spec: Before the first agent): once an agent has
// been seen, the agents controls stay. `sidebar.json` in the state folder, read once per client.
import { join } from 'node:path';
import { readJson, writeJsonAtomic } from '../core/store/atomic.js';
import type { Services } from '../core/daemon/services.js';
import { isRailOrder, type RailOrder } from './rail-order.js';

interface RailState {
  agents_seen?: boolean;
  /** The agents section's order, once the person picked one (spec: a rail that never picked moves to `you`). */
  agent_sort?: string;
}

function file(svc: Services): string {
  return join(svc.paths.stateDir, 'sidebar.json');
}

export function readAgentsSeen(svc: Services): boolean {
  try {
    return !!(readJson(file(svc)) as RailState | null)?.agents_seen;
  } catch {
    return false;
  }
}

function current(svc: Services): RailState {
  try {
    return (readJson(file(svc)) as RailState | null) ?? {};
  } catch {
    return {};
  }
}

function remember(svc: Services, patch: RailState): void {
  try {
    writeJsonAtomic(file(svc), { ...current(svc), ...patch });
  } catch (e) {
    svc.log.warn('rail state not saved', { error: String(e) });
  }
}

export function rememberAgentsSeen(svc: Services): void {
  remember(svc, { agents_seen: true });
}

/** The order the rail keeps: the one the person picked, else `you`. */
export function readRailOrder(svc: Services): RailOrder {
  const o = current(svc).agent_sort;
  return isRailOrder(o) ? o : 'you';
}

export function rememberRailOrder(svc: Services, order: RailOrder): void {
  remember(svc, { agent_sort: order });
}
