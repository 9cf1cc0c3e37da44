// The events the link publishes on the daemon's bus, for `subscribe`, the TUI and tests: a linked
// host's agent changed state, one of its Inbox rows opened, changed or closed, its link went up
// or down. They carry the host's own ids, never a session id of this machine.
import type { AgentRow, ItemRow } from './codec/schema.js';
import type { PeerStatus } from './peer.js';
import type { HostAgentStateEvent } from '../core/hosts/remote.js';

// host-agent-state is declared in core (core/hosts/remote.ts): the after-agent-state hook reads it too.
declare module '../core/bus.js' {
  interface EventMap {
    'host-attention': { host: string; op: 'open' | 'update' | 'close'; id: string; item: ItemRow | null };
    'host-link': { host: string; state: PeerStatus['state']; reason: string | null };
  }
}

export function agentEvent(host: string, row: AgentRow | null, old: AgentRow | null): HostAgentStateEvent {
  const r = row ?? old!;
  return { host, window_id: r.window_id, name: r.name, session: r.session, harness: r.harness, state: row ? row.state : 'none', old_state: old ? old.state : 'none', kind: row?.kind ?? '', message: row?.message ?? '', needs_you: !!row?.needs_you, gone: !row };
}
