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

/** A linked host's agent row as list-agents answers it. */
export interface RemoteAgentJson extends RemoteAgentRow {
  /** `HOST:SESSION:WINDOW`, what -w takes. */
  target: string;
  seen_ms: number;
  counted: boolean;
}

// The JSON rows below are written out field by field. `{ ...r, more }` on a row of this many fields
// costs V8 a new hidden class per object: 800 agents took 2.5 ms a call and 45-65 ms at the 99th
// percentile (the maps' garbage), where the same rows written out take 0.02 ms. The types make a
// field added to the row a compile error here until it is listed.

/** A linked host's agent row as list-agents answers it: what that host said last, tagged with it. */
export function remoteAgentJson(r: RemoteAgentRow, now = Date.now()): RemoteAgentJson {
  return {
    host: r.host,
    window_id: r.window_id,
    short_id: r.short_id,
    name: r.name,
    session: r.session,
    session_id: r.session_id,
    harness: r.harness,
    state: r.state,
    kind: r.kind,
    message: r.message,
    needs_you: r.needs_you,
    state_since: r.state_since,
    finished_unread: r.finished_unread,
    group: r.group,
    cwd: r.cwd,
    down: r.down,
    seen_at: r.seen_at,
    target: `${r.host}:${r.session}:${r.name}`,
    seen_ms: Math.max(0, now - r.seen_at),
    counted: !r.down,
  };
}

/** A linked host's Inbox row as a selector reads it; `cwd:` is not known for an Inbox row. */
export function remoteItemSelectorRow(r: RemoteItemRow, svc: Services): SelectorRow {
  return { harness: r.harness, harnessNames: r.harness ? svc.harnessNames(r.harness) : [], state: stateOfKind(r.kind), session: r.session ?? undefined, host: r.host, name: r.name ?? undefined, cwd: undefined, group: null };
}

/** A linked host's Inbox row as list-attention answers it. */
export interface RemoteItemJson extends Omit<RemoteItemRow, 'id'> {
  /** `HOST:ID`. */
  id: string;
  host_item_id: number;
  label: string;
  waited_ms: number;
  seen_ms: number;
  muted: boolean;
  counted: boolean;
  display_only: true;
}

/**
 * A linked host's Inbox row as list-attention answers it: `build:17`, `build:api/claude`. It is
 * display-only here; a row of a host whose link is down is muted and not counted.
 */
export function remoteItemJson(r: RemoteItemRow, now = Date.now()): RemoteItemJson {
  return {
    host: r.host,
    id: `${r.host}:${r.id}`,
    kind: r.kind,
    window_id: r.window_id,
    session: r.session,
    name: r.name,
    harness: r.harness,
    summary: r.summary,
    opened_at: r.opened_at,
    updated_at: r.updated_at,
    options: r.options,
    held: r.held,
    unread: r.unread,
    down: r.down,
    seen_at: r.seen_at,
    host_item_id: r.id,
    label: `${r.host}:${r.session ?? '-'}/${r.harness ?? r.name ?? '-'}`,
    waited_ms: Math.max(0, now - r.opened_at),
    seen_ms: Math.max(0, now - r.seen_at),
    muted: r.down,
    counted: !r.down,
    display_only: true,
  };
}
