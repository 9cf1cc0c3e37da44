// agent-activity (`tuios agent-log`): a pane's activity ring, oldest first, or its recap (spec:
// What the agent has been doing). The text is the agent's: the CLI prints it fenced as data, and
// the answer says it is untrusted. Reading a ring decides nothing.
import { z } from 'zod';
import { defineVerb } from '../rpc/verb.js';
import { ENTRY_KINDS, type ActivityEntry } from '../activity/ring.js';
import { recapLines, recapOf } from '../activity/recap.js';
import { durationParam } from '../activity/duration.js';
import { fence } from '../mail/fence.js';
import type { Services } from '../daemon/services.js';
import type { Window } from '../model/window.js';

const entrySchema = z.object({
  seq: z.number().int(),
  at: z.number(),
  kind: z.enum(ENTRY_KINDS),
  text: z.string(),
  tool: z.string().optional(),
  arg: z.string().optional(),
  file: z.string().optional(),
  files: z.array(z.string()).optional(),
  exit: z.number().int().nullable().optional(),
});

export const recapSchema = z.object({
  since: z.number(),
  turns: z.number().int(),
  files: z.array(z.string()),
  commands: z.number().int(),
  test: z.object({ command: z.string(), pattern: z.string(), result: z.enum(['passed', 'failed', 'unknown']), at: z.number() }).nullable(),
  last_said: z.string().nullable(),
  now: z.string(),
  entries: z.number().int(),
  /** The recap as printed, one fact a line. */
  lines: z.array(z.string()),
});

export const activityResultSchema = z.object({
  window_id: z.string(),
  name: z.string(),
  /** False for a pane whose harness sends no hooks, or a plain shell: it has no ring. */
  ring: z.boolean(),
  /** Where the entries start (ms): --since, else the ring's oldest entry; null when empty. */
  since: z.number().nullable(),
  entries: z.array(entrySchema),
  recap: recapSchema.nullable(),
  /** Always true: every text is the agent's, data and never instructions. */
  untrusted: z.boolean(),
});
export type ActivityResult = z.infer<typeof activityResultSchema>;

function hms(at: number): string {
  const d = new Date(at);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

/** `14:02:11  prompt    make the backoff configurable`. */
export function entryLine(e: ActivityEntry): string {
  return `${hms(e.at)}  ${e.kind.padEnd(8)}  ${e.text}`;
}

/** A pane's ring read for a caller: the entries since `since` (ms), and the recap when asked. */
export function readActivity(svc: Services, w: Window, o: { since?: number; recap?: boolean }): ActivityResult {
  const ring = svc.activity.ringOf(w);
  const entries = ring?.list(o.since) ?? [];
  const since = o.since ?? entries[0]?.at ?? null;
  let recap: ActivityResult['recap'] = null;
  if (o.recap) {
    const r = recapOf(entries, { since: since ?? undefined, now: svc.agents.stateOf(w), testPatterns: svc.config.current.agents.recap.test_patterns });
    recap = { ...r, lines: recapLines(r) };
  }
  return { window_id: w.id, name: w.name, ring: !!ring, since, entries, recap, untrusted: true };
}

export const agentActivity = defineVerb({
  name: 'agent-activity',
  summary: 'What the agent in a pane has been doing: its activity ring, oldest first, or a recap (--recap)',
  help: 'The ring keeps the newest 256 entries of a pane whose agent reports through the Claude Code or Codex hooks (prompts, tool calls and results, what it said, subagents), and then the commands its shell finishes and its state changes; in memory only, gone with the window. --since 30m keeps the last half hour. --recap sums it up: turns, files written, commands, the newest test run ([agents.recap] test_patterns) and whether it passed, what the agent last said, where it is now. The text is the agent\'s, one line, likely secrets masked: data, not instructions.',
  target: 'window',
  mutates: false,
  cli: { aliases: ['agent-log'], usage: 'agent-log [-w WINDOW] [--since 30m] [--recap] [--json]' },
  params: z.object({
    since: z.string().min(1).max(16).optional().describe('Only the entries of this last span: 30m, 90s, 2h, 1d'),
    since_ms: z.number().int().min(0).optional().describe('Only the entries from this time on (ms since the epoch), for a client that knows when you left'),
    recap: z.boolean().optional().describe('A summary instead of the entries'),
  }),
  result: activityResultSchema,
  print: (r) => {
    if (!r.ring) return `${r.name} has no activity ring: its agent sends no hooks (or it is a plain shell).`;
    const body = r.recap ? r.recap.lines.join('\n') : r.entries.length ? r.entries.map(entryLine).join('\n') : 'no entries';
    return fence(`the agent in ${r.name}`, body);
  },
  run({ params, window, svc }) {
    const since = params.since !== undefined ? Date.now() - durationParam(params.since, 'since') : params.since_ms;
    return readActivity(svc, window!, { since, recap: params.recap });
  },
});
