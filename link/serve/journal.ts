// What this machine tells the hosts that follow it: one row per agent pane and per Inbox item,
// and a journal of which rows changed at which sequence number. A row is derived from the live
// state each time something about it changes (level-triggered), and goes out only when it differs
// from the last one sent. A follower that resumes from a sequence the journal still covers gets
// the current rows of what changed since; an older one, or one of another boot, gets a snapshot.
import type { Services } from '../../core/daemon/services.js';
import type { Disposable } from '../../core/bus.js';
import type { Window } from '../../core/model/window.js';
import type { Item } from '../../core/inbox/inbox.js';
import { agentPanes } from '../../core/verbs/agents.js';
import type { AgentRow, ItemRow, Bodies } from '../codec/schema.js';
import { LINK_JOURNAL_ENTRIES, LINK_SNAPSHOT_CHUNK_ROWS } from '../../core/limits.js';

type RowKind = 'agent' | 'item';

export type JournalFrame =
  | { kind: 'AgentDelta'; body: Bodies['AgentDelta'] }
  | { kind: 'InboxDelta'; body: Bodies['InboxDelta'] }
  | { kind: 'AgentSnapshot'; body: Bodies['AgentSnapshot'] }
  | { kind: 'InboxSnapshot'; body: Bodies['InboxSnapshot'] };

interface Entry {
  seq: number;
  kind: RowKind;
  key: string;
}

/** The row a follower sees for an agent pane. */
export function agentRowOf(svc: Services, w: Window): AgentRow {
  const i = svc.agents.info(w) as Record<string, unknown>;
  const s = svc.model.sessions.get(w.sessionId);
  return {
    window_id: w.id,
    short_id: w.shortId,
    name: w.name,
    session: s?.name ?? '',
    session_id: w.sessionId,
    workspace: w.workspace,
    harness: (i.harness_id as string | null) ?? null,
    state: String(i.state),
    kind: String(i.kind ?? ''),
    message: String(i.message ?? ''),
    source: (i.source as string | null) ?? null,
    needs_you: !!i.needs_you,
    state_since: typeof i.state_since === 'number' ? i.state_since : 0,
    completion_seq: Number(i.completion_seq ?? 0),
    finished_unread: !!i.finished_unread,
    group: (s?.attrs.get('group') as string | undefined) ?? null,
    cwd: w.currentCwd(),
  };
}

export function itemRowOf(i: Item): ItemRow {
  return {
    id: i.id,
    kind: i.kind,
    window_id: i.window_id,
    session_id: i.session_id,
    session: i.session,
    name: i.name,
    harness: i.harness,
    summary: i.summary,
    opened_at: i.opened_at,
    updated_at: i.updated_at,
    options: i.options ?? [],
    held: !!i.held,
    unread: i.unread,
  };
}

/** Items a follower mirrors: what waits for the person, not this machine's own mail for other hosts. */
function exported(i: Item): boolean {
  return i.kind !== 'waiting';
}

export class Journal implements Disposable {
  seq = 0;
  private readonly agents = new Map<string, { row: AgentRow; text: string }>();
  private readonly items = new Map<string, { row: ItemRow; text: string }>();
  private readonly log: Entry[] = [];
  private readonly listeners = new Set<(f: JournalFrame) => void>();
  private readonly subs: Disposable[] = [];

  constructor(private readonly svc: Services) {
    for (const w of agentPanes(svc, {})) this.agent(w.id);
    for (const i of svc.inbox.list()) this.item(String(i.id));
    const bus = svc.bus;
    this.subs.push(
      bus.on('agent-state', (ev) => this.agent(ev.window_id)),
      bus.on('window-closed', (ev) => this.agent(ev.window_id)),
      bus.on('window-renamed', (ev) => this.agent(ev.window_id)),
      bus.on('session-renamed', (ev) => {
        for (const w of svc.model.windows.values()) if (w.sessionId === ev.session_id) this.agent(w.id);
      }),
      bus.on('attention', (ev) => this.item(String(ev.item.id))),
    );
  }

  get bootId(): string {
    return this.svc.bootId;
  }

  /** Live deltas, in order, until the returned function is called. */
  follow(fn: (f: JournalFrame) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private agent(id: string): void {
    const w = this.svc.model.windows.get(id);
    const eligible = w && !w.closed && this.svc.agents.holdsAgent(w) && (this.svc.agents.stateOf(w) !== 'none' || this.svc.agents.harnessOf(w) !== null);
    this.change('agent', id, eligible ? agentRowOf(this.svc, w) : null);
  }

  private item(id: string): void {
    const i = this.svc.inbox.items.get(Number(id));
    this.change('item', id, i && exported(i) ? itemRowOf(i) : null);
  }

  private change(kind: RowKind, key: string, row: AgentRow | ItemRow | null): void {
    const map = kind === 'agent' ? this.agents : this.items;
    const prev = map.get(key);
    const text = row ? JSON.stringify(row) : '';
    if ((prev?.text ?? '') === text) return;
    if (row) (map as Map<string, { row: unknown; text: string }>).set(key, { row, text });
    else map.delete(key);
    const seq = ++this.seq;
    this.log.push({ seq, kind, key });
    if (this.log.length > LINK_JOURNAL_ENTRIES) this.log.splice(0, this.log.length - LINK_JOURNAL_ENTRIES);
    const f = this.delta(kind, key, seq);
    for (const fn of [...this.listeners]) fn(f);
  }

  private delta(kind: RowKind, key: string, seq: number): JournalFrame {
    if (kind === 'agent') return { kind: 'AgentDelta', body: { seq, window_id: key, row: this.agents.get(key)?.row ?? null } };
    return { kind: 'InboxDelta', body: { seq, item_id: Number(key), item: this.items.get(key)?.row ?? null } };
  }

  /**
   * What a follower needs to be current, from the boot and sequence it last applied: the rows
   * changed since (current values, each at its latest sequence), or the whole state in chunks.
   */
  resume(bootId: string, from: number): JournalFrame[] {
    const oldest = this.log.length ? this.log[0]!.seq : this.seq + 1;
    if (bootId === this.bootId && from <= this.seq && from >= oldest - 1) {
      const latest = new Map<string, Entry>();
      for (const e of this.log) if (e.seq > from) latest.set(`${e.kind}:${e.key}`, e);
      return [...latest.values()].sort((a, b) => a.seq - b.seq).map((e) => this.delta(e.kind, e.key, e.seq));
    }
    return this.snapshot();
  }

  snapshot(): JournalFrame[] {
    const out: JournalFrame[] = [];
    const agents = [...this.agents.values()].map((v) => v.row);
    const items = [...this.items.values()].map((v) => v.row);
    const chunks = <T>(xs: T[]): T[][] => {
      const cs: T[][] = [];
      for (let i = 0; i < xs.length; i += LINK_SNAPSHOT_CHUNK_ROWS) cs.push(xs.slice(i, i + LINK_SNAPSHOT_CHUNK_ROWS));
      return cs.length ? cs : [[]];
    };
    const a = chunks(agents);
    a.forEach((rows, i) => out.push({ kind: 'AgentSnapshot', body: { boot_id: this.bootId, seq: this.seq, rows, last: i === a.length - 1 } }));
    const b = chunks(items);
    b.forEach((rows, i) => out.push({ kind: 'InboxSnapshot', body: { boot_id: this.bootId, seq: this.seq, items: rows, last: i === b.length - 1 } }));
    return out;
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
    this.listeners.clear();
  }
}
