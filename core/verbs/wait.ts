// wait-for's params and its window-output condition; the verb's record is wait-for.ts, the other
// conditions wait-agent-state.ts (agent-state) and mail.ts (agent-message).
import { z } from 'zod';
import type { VerbContext } from '../rpc/verb.js';
import { TuiosError } from '../errors.js';
import { compilePattern } from '../re.js';
import { timeoutParam } from './params.js';
import { WAIT_OUTPUT_MAX_LINES, WAIT_OUTPUT_THROTTLE_MS } from '../limits.js';
import type { Window } from '../model/window.js';

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

export type OutputWaitResult = z.input<typeof outputWaitSchema>;

/** A condition's wait: resolves with its answer, rejects with timeout at the deadline. */
export type WaitHandler<R> = (ctx: VerbContext<WaitParams>, deadline: number) => Promise<R>;

/** Waits in progress per daemon: server-info reports it, so a caller can tell a wait is listening. */
const running = new WeakMap<object, number>();

export function waitsRunning(svc: object): number {
  return running.get(svc) ?? 0;
}

/** Runs one wait, counted in waitsRunning while it runs. */
export async function countedWait<R>(svc: object, wait: () => Promise<R>): Promise<R> {
  running.set(svc, waitsRunning(svc) + 1);
  try {
    return await wait();
  } finally {
    running.set(svc, waitsRunning(svc) - 1);
  }
}

/** Resolves when `check` returns a value, re-checking on output; rejects at the deadline. */
export function waitWindowOutput(ctx: VerbContext<WaitParams>, deadline: number): Promise<OutputWaitResult> {
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


export function windowOf(ctx: VerbContext<WaitParams>): Window {
  if (!ctx.window) throw new TuiosError('window_not_found', 'This wait needs a window.', 'Name one with -w.');
  return ctx.window;
}
