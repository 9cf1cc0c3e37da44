// One linked host's agents and Inbox as this machine holds them: what that host said last,
// cleaned and cut on arrival, at most LINK_MAX_ROWS_PER_HOST of each (spec: a host holds at most
// 256 rows apart from this machine's). A snapshot replaces the rows once its last chunk is in;
// a delta changes one row. The boot and sequence are what a reconnect resumes from.
import type { AgentRow, Bodies, ItemRow } from '../codec/schema.js';
import { cleanAgentRow, cleanItemRow } from '../clean.js';
import { LINK_JOURNAL_ENTRIES, LINK_MAX_ROWS_PER_HOST } from '../../core/limits.js';

export type RowChange =
  | { what: 'agent'; key: string; row: AgentRow | null; old: AgentRow | null }
  | { what: 'item'; key: string; row: ItemRow | null; old: ItemRow | null };

export class HostMirror {
  bootId = '';
  seq = 0;
  readonly agents = new Map<string, AgentRow>();
  readonly items = new Map<number, ItemRow>();
  /** Rows the host has past the limit, not held, by key (bounded: it counts, it does not grow). */
  private readonly overAgents = new Set<string>();
  private readonly overItems = new Set<number>();
  private agentSnap: Map<string, AgentRow> | null = null;

  /** Rows the host sent past the limit, not held (for hosts ls). */
  get dropped(): number {
    return this.overAgents.size + this.overItems.size;
  }
  private itemSnap: Map<number, ItemRow> | null = null;

  /** Applies a following frame; returns the rows that changed, for the events. */
  apply(f: { kind: 'AgentSnapshot'; body: Bodies['AgentSnapshot'] } | { kind: 'AgentDelta'; body: Bodies['AgentDelta'] } | { kind: 'InboxSnapshot'; body: Bodies['InboxSnapshot'] } | { kind: 'InboxDelta'; body: Bodies['InboxDelta'] }): RowChange[] {
    switch (f.kind) {
      case 'AgentSnapshot': {
        if (!this.agentSnap) this.overAgents.clear();
        this.agentSnap ??= new Map();
        for (const r of f.body.rows) this.put(this.agentSnap, this.overAgents, r.window_id, cleanAgentRow(r));
        if (!f.body.last) return [];
        const next = this.agentSnap;
        this.agentSnap = null;
        this.at(f.body.boot_id, f.body.seq);
        return this.replace('agent', this.agents, next);
      }
      case 'InboxSnapshot': {
        if (!this.itemSnap) this.overItems.clear();
        this.itemSnap ??= new Map();
        for (const r of f.body.items) this.put(this.itemSnap, this.overItems, r.id, cleanItemRow(r));
        if (!f.body.last) return [];
        const next = this.itemSnap;
        this.itemSnap = null;
        this.at(f.body.boot_id, f.body.seq);
        return this.replace('item', this.items, next);
      }
      case 'AgentDelta': {
        this.seq = Math.max(this.seq, f.body.seq);
        const key = f.body.window_id.slice(0, 64);
        const old = this.agents.get(key) ?? null;
        const row = f.body.row ? cleanAgentRow(f.body.row) : null;
        if (row) this.put(this.agents, this.overAgents, key, row);
        else {
          this.agents.delete(key);
          this.overAgents.delete(key);
        }
        return old || row ? [{ what: 'agent', key, row: this.agents.get(key) ?? null, old }] : [];
      }
      case 'InboxDelta': {
        this.seq = Math.max(this.seq, f.body.seq);
        const key = f.body.item_id;
        const old = this.items.get(key) ?? null;
        const row = f.body.item ? cleanItemRow(f.body.item) : null;
        if (row) this.put(this.items, this.overItems, key, row);
        else {
          this.items.delete(key);
          this.overItems.delete(key);
        }
        return old || row ? [{ what: 'item', key: String(key), row: this.items.get(key) ?? null, old }] : [];
      }
    }
  }

  private at(bootId: string, seq: number): void {
    this.bootId = bootId.slice(0, 64);
    this.seq = seq;
  }

  /** Holds a row unless the map is full and the row is new: past the limit it is counted, not kept. */
  private put<K, V>(m: Map<K, V>, over: Set<K>, k: K, v: V): void {
    if (!m.has(k) && m.size >= LINK_MAX_ROWS_PER_HOST) {
      if (over.size < LINK_JOURNAL_ENTRIES) over.add(k);
      return;
    }
    m.set(k, v);
  }

  private replace<K, V>(what: 'agent' | 'item', cur: Map<K, V>, next: Map<K, V>): RowChange[] {
    const out: RowChange[] = [];
    for (const [k, old] of cur) if (!next.has(k)) out.push({ what, key: String(k), row: null, old } as RowChange);
    for (const [k, row] of next) {
      const old = cur.get(k) ?? null;
      if (!old || JSON.stringify(old) !== JSON.stringify(row)) out.push({ what, key: String(k), row, old } as RowChange);
    }
    cur.clear();
    for (const [k, v] of next) cur.set(k, v);
    return out;
  }
}
