// The rail's own state kept across attaches (spec: Before the first agent): once an agent has
// been seen, the agents controls stay. `sidebar.json` in the state folder, read once per client.
import { join } from 'node:path';
import { readJson, writeJsonAtomic } from '../core/store/atomic.js';
import type { Services } from '../core/daemon/services.js';

interface RailState {
  agents_seen?: boolean;
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

export function rememberAgentsSeen(svc: Services): void {
  try {
    const cur = ((): RailState => {
      try {
        return (readJson(file(svc)) as RailState | null) ?? {};
      } catch {
        return {};
      }
    })();
    writeJsonAtomic(file(svc), { ...cur, agents_seen: true });
  } catch (e) {
    svc.log.warn('rail state not saved', { error: String(e) });
  }
}
