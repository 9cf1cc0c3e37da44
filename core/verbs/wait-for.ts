// wait-for CONDITION: one verb, one schema, a condition per capability, each answered by its own
// module (window-output: wait.ts, agent-state: wait-agent-state.ts, agent-message: mail.ts). The
// table below is the whole list, checked by the type of the condition param.
import { z } from 'zod';
import { defineVerb } from '../rpc/verb.js';
import { DEFAULT_WAIT_MS } from '../limits.js';
import { countedWait, outputWaitSchema, waitParams, waitWindowOutput, type WaitHandler, type WaitParams } from './wait.js';
import { stateWaitSchema, waitAgentState } from './wait-agent-state.js';
import { messageWaitSchema, waitMessage } from './mail.js';

/** What wait-for answers: one shape per condition. */
export const waitResultSchema = z.union([outputWaitSchema, stateWaitSchema, messageWaitSchema]);

export type WaitResult = z.input<typeof waitResultSchema>;

const conditions: Record<WaitParams['condition'], WaitHandler<WaitResult>> = {
  'window-output': waitWindowOutput,
  'agent-state': waitAgentState,
  'agent-message': waitMessage,
};

export const waitFor = defineVerb({
  name: 'wait-for',
  mcp: { tool: 'tuios_wait_for', data: true },
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
  run(ctx) {
    const deadline = Date.now() + (ctx.params.timeout ?? DEFAULT_WAIT_MS);
    // Handlers subscribe before their first await, so a count another call reads is a wait
    // already listening.
    return countedWait(ctx.svc, () => conditions[ctx.params.condition](ctx, deadline));
  },
});
