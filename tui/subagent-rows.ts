// Which subagent rows the rail's agents section draws under their leads (spec: Subagents on the
// rail). With room, every subagent gets two lines (its mark and description, then its tool or how
// it ended). With less, the rows go short (one line), then the finished ones are left out, then
// each lead with subagents at work gets one row (the focused pane first, then the lead that
// started one last) ending in `+N more`, then none. An agent row is never hidden for a subagent
// row. Pure.
import type { SubagentInfo } from '../core/agent-state/subagents.js';

export interface SubagentLead {
  id: string;
  list: readonly SubagentInfo[];
}

export interface SubagentPlan {
  /** Two lines a subagent (false: one). */
  tall: boolean;
  /** By lead id: the subagents drawn, and how many left out (a `+N more` line when > 0). */
  rows: Map<string, { shown: SubagentInfo[]; more: number }>;
}

function lines(plan: SubagentPlan): number {
  let n = 0;
  for (const r of plan.rows.values()) n += r.shown.length * (plan.tall ? 2 : 1) + (r.more > 0 ? 1 : 0);
  return n;
}

/** The plan for `room` lines left after every agent row. */
export function planSubagentRows(leads: readonly SubagentLead[], room: number, focused: string | null): SubagentPlan {
  const withList = leads.filter((l) => l.list.length > 0);
  const all = (tall: boolean, keep: (s: SubagentInfo) => boolean): SubagentPlan => ({
    tall,
    rows: new Map(withList.map((l) => {
      const shown = l.list.filter(keep);
      return [l.id, { shown, more: 0 }] as const;
    }).filter(([, r]) => r.shown.length > 0)),
  });
  for (const p of [all(true, () => true), all(false, () => true), all(false, (s) => s.state === 'running')]) {
    if (lines(p) <= room) return p;
  }
  // One row each for the leads with subagents at work, in the order the spec gives, while room lasts.
  const running = withList
    .map((l) => ({ l, run: l.list.filter((s) => s.state === 'running') }))
    .filter((x) => x.run.length > 0)
    .sort((a, b) => Number(b.l.id === focused) - Number(a.l.id === focused) || Math.max(...b.run.map((s) => s.started_at)) - Math.max(...a.run.map((s) => s.started_at)));
  const rows = new Map<string, { shown: SubagentInfo[]; more: number }>();
  let left = room;
  for (const { l, run } of running) {
    const newest = run.reduce((m, s) => (s.started_at > m.started_at ? s : m));
    const need = 1 + (run.length > 1 ? 1 : 0);
    if (need > left) continue;
    rows.set(l.id, { shown: [newest], more: run.length - 1 });
    left -= need;
  }
  return { tall: false, rows };
}

/** What a subagent's second line says: the tool it runs, the one it ran last, or how it ended. */
export function subagentDetail(s: SubagentInfo): string {
  if (s.state === 'running') return s.now ?? s.last ?? '';
  if (s.state === 'done') return `done · ${s.tools} tool${s.tools === 1 ? '' : 's'}`;
  if (s.state === 'failed') return s.result ? `failed · ${s.result}` : 'failed';
  return 'stopped';
}

