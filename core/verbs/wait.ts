// wait-for CONDITION: one verb, one schema, a condition per capability. `window-output` is here;
// agent-state and agent-message register themselves from their own modules.
import { z } from 'zod';
import { defineVerb, type VerbContext } from '../rpc/verb.js';
import { TuiosError } from '../errors.js';
import { compilePattern } from '../re.js';
import { timeoutParam } from './params.js';
import { DEFAULT_WAIT_MS, WAIT_OUTPUT_MAX_LINES, WAIT_OUTPUT_THROTTLE_MS } from '../limits.js';
import type { Window } from '../model/window.js';
import { STATES } from '../agent-state/state.js';

/** States a wait can end on; `unknown` and `none` are departures, not states to await (ADR-0076). */
const AWAITABLE = ['working', 'needs_input', 'idle', 'done', 'errored'] as const;

export const waitParams = z.object({
  condition: z.enum(['window-output', 'agent-state', 'agent-message']).describe('What to wait for'),
  pattern: z.string().optional().describe('window-output: an RE2 pattern matched against the screen and the output since the wait began'),
  until: z.array(z.enum(AWAITABLE)).max(8).optional().describe('agent-state: the states that end the wait (default idle,done,needs_input)'),
  select: z.string().max(1000).optional().describe('agent-state: a selector; waits across the panes it matches'),
  every: z.boolean().optional().describe('agent-state with --select: wait until every matched pane has moved'),
  from: z.string().max(300).optional().describe('agent-message: only mail from this sender'),
  timeout: timeoutParam,
});

export type WaitParams = z.infer<typeof waitParams>;

/** wait-for window-output: the line the pattern matched in. */
export const outputWaitSchema = z.object({ matched: z.literal(true), window: z.string(), line: z.string(), waited_ms: z.number().int() });

/** wait-for agent-state: the pane whose transition ended the wait (with --every, each pane that moved). */
export const stateWaitSchema = z.object({
  window_id: z.string(),
  name: z.string(),
  state: z.enum(STATES),
  baseline: z.enum(STATES),
  transition_observed: z.literal(true),
  matched_by: z.enum(['transition', 'poll']),
  waited_ms: z.number().int(),
  panes: z.array(z.object({ window_id: z.string(), name: z.string(), state: z.enum(STATES) })).optional(),
});

/** wait-for agent-message: the message that arrived, as read-agent-messages shows one. */
export const messageWaitSchema = z.object({
  message: z.object({
    id: z.number().int(),
    thread: z.number().int(),
    to: z.string(),
    to_session_id: z.string().nullable(),
    from: z.string(),
    from_pane: z.string().nullable(),
    from_kind: z.enum(['pane', 'shell', 'human', 'link']),
    verified_human: z.boolean(),
    claimed_human: z.boolean(),
    subject: z.string(),
    body: z.string(),
    at: z.number(),
    read: z.boolean(),
    reply_to: z.number().int().nullable(),
    announced: z.boolean(),
    host: z.string().optional(),
    held_for: z.object({ window_id: z.string(), name: z.string() }).optional(),
    released_from: z.number().int().optional(),
    from_window: z.object({ id: z.string(), short_id: z.string(), name: z.string() }).nullable(),
    fenced: z.string(),
  }),
  waited_ms: z.number().int(),
  untrusted: z.literal(true),
});

/** What wait-for answers: one shape per condition. */
export const waitResultSchema = z.union([outputWaitSchema, stateWaitSchema, messageWaitSchema]);

export type WaitResult = z.input<typeof waitResultSchema>;

export type WaitHandler = (ctx: VerbContext<WaitParams>, deadline: number) => Promise<WaitResult>;

const handlers = new Map<string, WaitHandler>();

/** Waits in progress per daemon: server-info reports it, so a caller can tell a wait is listening. */
const running = new WeakMap<object, number>();

export function waitsRunning(svc: object): number {
  return running.get(svc) ?? 0;
}

/** A capability adds its condition here (agent-state in core/agent, agent-message in core/mail). */
export function registerWaitCondition(name: WaitParams['condition'], h: WaitHandler): void {
  handlers.set(name, h);
}

export const waitFor = defineVerb({
  name: 'wait-for',
  hosted: 'wait',
  summary: 'Block until a condition holds: window-output PATTERN, agent-state --until S, agent-message',
  help: 'Exit 124 (error code timeout) when the time runs out first. A wait ends when its caller disconnects.',
  target: 'window-optional',
  mutates: false,
  humanMailbox: true,
  cli: { positionals: ['condition', 'pattern'], comma: ['until'], usage: 'wait-for window-output [-w WINDOW] PATTERN [--timeout MS]' },
  params: waitParams,
  result: waitResultSchema,
  print: (r) => ('line' in r ? r.line : 'state' in r ? r.state : ''),
  async run(ctx) {
    const h = handlers.get(ctx.params.condition);
    if (!h) {
      throw new TuiosError('unsupported', `This daemon cannot wait for ${ctx.params.condition} yet.`, 'Restart the daemon with a newer tuios: tuios kill-server');
    }
    const deadline = Date.now() + (ctx.params.timeout ?? DEFAULT_WAIT_MS);
    // Handlers subscribe before their first await, so a count another call reads is a wait
    // already listening.
    running.set(ctx.svc, waitsRunning(ctx.svc) + 1);
    try {
      return await h(ctx, deadline);
    } finally {
      running.set(ctx.svc, waitsRunning(ctx.svc) - 1);
    }
  },
});

/** Resolves when `check` returns a value, re-checking on output; rejects at the deadline. */
function waitWindowOutput(ctx: VerbContext<WaitParams>, deadline: number): Promise<WaitResult> {
  const w = ctx.window;
  if (!w) throw new TuiosError('window_not_found', 'wait-for window-output needs a window.', 'Name one with -w.');
  if (!ctx.params.pattern) {
    throw new TuiosError('invalid_params', 'wait-for window-output needs a pattern.', 'tuios wait-for window-output -w W PATTERN', { field: 'pattern' });
  }
  const re = compilePattern(ctx.params.pattern);
  const started = Date.now();
  // Reading starts where the cursor was when the wait began, and each later look starts a few
  // lines above where the last one ended, so a flood is read once, not rescanned per look.
  let from = w.screen.markCursorLine();
  let cost = 0;

  const check = (): { line: string } | null => {
    const t0 = performance.now();
    const e = w.screen;
    const end = e.viewportTop + e.rows;
    const start = Math.min(from && from.line >= 0 ? from.line : e.viewportTop, e.viewportTop);
    const text = e.rangeLines(Math.max(start, end - WAIT_OUTPUT_MAX_LINES), end).join('\n');
    const m = re.exec(text);
    from?.dispose();
    // The screen stays in every look (it can be redrawn); scrolled-off lines are read once.
    from = w.screen.markCursorLine();
    cost = performance.now() - t0;
    if (!m) return null;
    const s = text.lastIndexOf('\n', m.index) + 1;
    const nl = text.indexOf('\n', m.index);
    return { line: text.slice(s, nl < 0 ? undefined : nl) };
  };

  return new Promise((resolve, reject) => {
    let throttle: NodeJS.Timeout | null = null;
    const cleanup = () => {
      clearTimeout(timer);
      if (throttle) clearTimeout(throttle);
      out.dispose();
      closed.dispose();
      from?.dispose();
      ctx.signal.removeEventListener('abort', onAbort);
    };
    const finish = (hit: { line: string }) => {
      cleanup();
      resolve({ matched: true, window: w.id, line: hit.line, waited_ms: Date.now() - started });
    };
    const tryNow = () => {
      throttle = null;
      const hit = check();
      if (hit) finish(hit);
    };
    const out = w.onOutput(() => {
      // Looks cost at most ~10% of the loop: a slow look spaces the next one out.
      if (!throttle) throttle = setTimeout(tryNow, Math.max(WAIT_OUTPUT_THROTTLE_MS, cost * 10));
    });
    const closed = ctx.svc.bus.on('window-closed', (ev) => {
      if (ev.window_id !== w.id) return;
      cleanup();
      reject(new TuiosError('window_not_found', `The window ${w.name} closed while waiting for ${JSON.stringify(ctx.params.pattern)}.`));
    });
    const timer = setTimeout(() => {
      cleanup();
      reject(new TuiosError('timeout', `The pattern ${JSON.stringify(ctx.params.pattern)} did not appear in ${w.name} within ${deadline - started} ms.`));
    }, Math.max(0, deadline - Date.now()));
    const onAbort = () => {
      cleanup();
      reject(new TuiosError('timeout', 'The caller went away.'));
    };
    ctx.signal.addEventListener('abort', onAbort);
    tryNow();
  });
}

registerWaitCondition('window-output', waitWindowOutput);

export function windowOf(ctx: VerbContext<WaitParams>): Window {
  if (!ctx.window) throw new TuiosError('window_not_found', 'This wait needs a window.', 'Name one with -w.');
  return ctx.window;
}
