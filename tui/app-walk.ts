// ctrl+b o and O (spec: Many agents at once): a walk through what needs you, oldest first, and
// through the finished turns not seen, newest first; pressed again, each goes on to the next.
// nextNeedsYou and nextFinished take the rows and the walk so far and return where to go and the
// walk after it; Walker goes there.
import type { Item } from '../core/inbox/inbox.js';
import type { Services } from '../core/daemon/services.js';
import type { Window } from '../core/model/window.js';
import type { Dock } from './alerts.js';
import { needsYouRow, type AgentRow } from './rows.js';
import { WALK_AGAIN_MS } from './limits.js';

export type Walk = { kind: 'o' | 'O'; ids: string[]; at: number } | null;

const NEEDS_YOU_KINDS = ['approval', 'question', 'plan', 'ask', 'mail', 'errored', 'resume'];

/** The next stop of ctrl+b o: an Inbox item that needs you, or a linked host's agent (opened here); null when nothing does. */
export function nextNeedsYou(items: Item[], hostRows: AgentRow[], walk: Walk, now: number): { item: Item | null; row: AgentRow | null; walk: Walk } | null {
  const open = items.filter((i) => NEEDS_YOU_KINDS.includes(i.kind));
  // A linked host's agent that needs you is visited too; a down host's is skipped.
  const hosts = hostRows.filter((r) => !r.down && needsYouRow(r));
  const stops = [...open.map((i) => ({ id: String(i.id), at: i.opened_at, item: i as Item | null, row: null as AgentRow | null })), ...hosts.map((r) => ({ id: r.id, at: r.stateSince, item: null, row: r }))].sort((a, b) => a.at - b.at);
  if (stops.length === 0) return null;
  const ids = stops.map((s) => s.id);
  const prev = walk?.kind === 'o' ? walk.ids : [];
  const nextIdx = prev.length ? (ids.indexOf(prev[prev.length - 1]!) + 1) % ids.length : 0;
  const stop = stops[nextIdx]!;
  return { item: stop.item, row: stop.row, walk: { kind: 'o', ids: [...prev, stop.id], at: now } };
}

/** The next stop of ctrl+b O: the newest finished turn not seen; again within WALK_AGAIN_MS, the next older one. */
export function nextFinished(rows: AgentRow[], walk: Walk, now: number): { row: AgentRow; walk: Walk } | null {
  const done = rows.filter((r) => r.finishedUnread).sort((a, b) => b.stateSince - a.stateSince);
  if (done.length === 0) return null;
  const again = walk?.kind === 'O' && now - walk.at <= WALK_AGAIN_MS && walk.ids[0] === done[0]!.id;
  const seen = again ? walk!.ids : [];
  const row = done.find((r) => !seen.includes(r.id)) ?? done[0]!;
  return { row, walk: { kind: 'O', ids: again ? [...seen, row.id] : [row.id], at: now } };
}

/** What a walk goes to. */
export interface WalkHost {
  readonly svc: Services;
  readonly dock: Dock;
  visible(sessionId: string): boolean;
  agentRows(): AgentRow[];
  /** Linked hosts' agents this client may see. */
  hostRows(): AgentRow[];
  openRemotePane(row: AgentRow): void;
  openAgents(select?: string): void;
  closeOverlay(): void;
  goToWindow(w: Window): void;
}

export class Walker {
  private walk: Walk = null;

  constructor(private readonly host: WalkHost) {}

  /** ctrl+b o: the oldest item that needs you; again, the next (an ask opens the agents view). */
  needsYou(): void {
    const h = this.host;
    const items = h.svc.inbox.list().filter((i) => !i.session_id || h.visible(i.session_id));
    const next = nextNeedsYou(items, h.hostRows(), this.walk, Date.now());
    if (!next) return h.dock.say('Nothing needs you.');
    this.walk = next.walk;
    if (next.row) return h.openRemotePane(next.row);
    const item = next.item!;
    const w = item.window_id ? h.svc.model.windows.get(item.window_id) : undefined;
    if (item.kind === 'ask' || !w) return h.openAgents(w ? w.id : `item:${item.id}`);
    h.closeOverlay();
    h.goToWindow(w);
  }

  /** ctrl+b O: the newest finished turn not seen; again within 5 s, the next older one. */
  finished(): void {
    const h = this.host;
    const next = nextFinished(h.agentRows(), this.walk, Date.now());
    if (!next) return h.dock.say('No finished turn waits to be seen.');
    this.walk = next.walk;
    h.closeOverlay();
    if (next.row.w) h.goToWindow(next.row.w);
  }
}
