// A pane's subagents, from report-agent-activity (spec: Each subagent): started, updated and
// stopped by the harness's own hooks; never the pane's state. Bounded: past SUBAGENTS_MAX the
// oldest finished ones go first.
import { SUBAGENTS_MAX } from '../limits.js';

export interface Subagent {
  id: string;
  type: string;
  text: string;
  status: 'running' | 'done' | 'failed' | 'stopping';
  since: number;
}

export class SubagentList {
  private readonly list = new Map<string, Subagent>();
  private anon = 0;

  clear(): void {
    this.list.clear();
  }

  get running(): number {
    let n = 0;
    for (const s of this.list.values()) if (s.status === 'running' || s.status === 'stopping') n++;
    return n;
  }

  toJSON(): Subagent[] {
    return [...this.list.values()];
  }

  /** Applies one activity; true when the list changed. */
  apply(type: string, a: { agent_id?: string; agent_type?: string; text?: string; status?: Subagent['status'] }, now: number): boolean {
    if (type === 'session_start') {
      const had = this.list.size > 0;
      this.list.clear();
      return had;
    }
    if (type !== 'subagent_start' && type !== 'subagent_stop' && type !== 'subagent_update') return false;
    const id = a.agent_id ?? `launch-${++this.anon}`;
    const cur = this.list.get(id);
    if (type === 'subagent_stop') {
      if (!cur) return false;
      this.list.delete(id);
      return true;
    }
    const status = type === 'subagent_start' ? 'running' : (a.status ?? cur?.status ?? 'running');
    const next: Subagent = { id, type: a.agent_type || cur?.type || 'agent', text: a.text ?? cur?.text ?? '', status, since: cur?.since ?? now };
    if (next.status === 'done' || next.status === 'failed') {
      this.list.delete(id);
      return !!cur;
    }
    this.list.set(id, next);
    while (this.list.size > SUBAGENTS_MAX) this.list.delete(this.list.keys().next().value!);
    return true;
  }
}
