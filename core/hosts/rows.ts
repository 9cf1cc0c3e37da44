// Rows of linked hosts as the listing verbs answer them and as a selector reads them. What a host
// said is display data here: the link cleaned and cut it when it arrived.
import type { Services } from '../daemon/services.js';
import type { SelectorRow } from '../agent-state/selector.js';
import { stateOfKind } from '../inbox/inbox.js';
import type { RemoteAgentRow, RemoteItemRow } from './remote.js';

/** A linked host's agent row as a selector reads it (its harness names are this machine's manifests'). */
export function remoteAgentSelectorRow(r: RemoteAgentRow, svc: Services): SelectorRow {
  return { harness: r.harness, harnessNames: r.harness ? svc.harnessNames(r.harness) : [], state: r.state, session: r.session, group: r.group, host: r.host, name: r.name, cwd: r.cwd, task: null, stage: null };
}

/** A linked host's agent row as list-agents answers it: what that host said last, tagged with it. */
export function remoteAgentJson(r: RemoteAgentRow, now = Date.now()) {
  return { ...r, target: `${r.host}:${r.session}:${r.name}`, seen_ms: Math.max(0, now - r.seen_at), counted: !r.down };
}

/** A linked host's Inbox row as a selector reads it; `cwd:` is not known for an Inbox row. */
export function remoteItemSelectorRow(r: RemoteItemRow, svc: Services): SelectorRow {
  return { harness: r.harness, harnessNames: r.harness ? svc.harnessNames(r.harness) : [], state: stateOfKind(r.kind), session: r.session ?? undefined, host: r.host, name: r.name ?? undefined, cwd: undefined, group: null };
}

/**
 * A linked host's Inbox row as list-attention answers it: `build:17`, `build:api/claude`. It is
 * display-only here; a row of a host whose link is down is muted and not counted.
 */
export function remoteItemJson(r: RemoteItemRow, now = Date.now()) {
  return {
    ...r,
    id: `${r.host}:${r.id}`,
    host_item_id: r.id,
    label: `${r.host}:${r.session ?? '-'}/${r.harness ?? r.name ?? '-'}`,
    waited_ms: Math.max(0, now - r.opened_at),
    seen_ms: Math.max(0, now - r.seen_at),
    muted: r.down,
    counted: !r.down,
    display_only: true,
  };
}
