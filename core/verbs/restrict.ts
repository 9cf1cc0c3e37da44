// restrict-connection: what `tuios mcp` sends first on every connection. From then on the daemon
// holds that connection to a pane's reach (its session, its fan group, the sessions a fan from it
// started) and to the verbs that are MCP tools, answering `forbidden` to the rest
// (core/security/access.ts). The pane is found from the kernel's record of the caller's pid, never
// from what it says; where the kernel cannot say, TUIOS_PANE_TOKEN proves TUIOS_PANE_ID.
import { z } from 'zod';
import { sameToken } from '../security/same-token.js';
import { defineVerb } from '../rpc/verb.js';
import { TuiosError } from '../errors.js';
import type { Window } from '../model/window.js';


export const restrictConnection = defineVerb({
  name: 'restrict-connection',
  summary: "Hold this connection to its pane's reach: the pane's session, its fan group, the sessions a fan from it started",
  help: 'The pane is the caller\'s own, found from the kernel\'s record of its pid; where the kernel cannot name it, pane (TUIOS_PANE_ID) with pane_token (TUIOS_PANE_TOKEN) proves it. Afterwards the connection may call only the verbs that are MCP tools, names no other machine and no selector, and every session or window outside the reach answers forbidden. Nothing lifts it.',
  target: 'none',
  mutates: false,
  access: 'none',
  params: z.object({
    pane: z.string().min(1).max(300).optional().describe('TUIOS_PANE_ID, when the kernel cannot name the caller\'s pane'),
    pane_token: z.string().min(1).max(200).optional().describe('TUIOS_PANE_TOKEN, which proves pane'),
  }),
  result: z.object({ restricted: z.literal(true), window_id: z.string(), session_id: z.string(), how: z.string() }),
  print: 'fields',
  run({ svc, caller, params }) {
    if (caller.channel !== 'socket') throw new TuiosError('forbidden', 'restrict-connection is for a connection to this daemon\'s socket.');
    const placed = svc.placement(caller);
    let pane: Window | null = null;
    let how = '';
    if (placed.kind === 'pane') {
      pane = placed.window;
      how = placed.how;
    } else if (params.pane && params.pane_token) {
      const w = svc.model.windows.get(params.pane);
      if (w && !w.closed && sameToken(w.paneToken, params.pane_token)) {
        pane = w;
        how = 'its pane token';
      }
    }
    if (!pane) {
      throw new TuiosError(
        'forbidden',
        params.pane_token ? 'restrict-connection is refused: the pane token does not prove that pane.' : 'restrict-connection is refused: the caller runs in no pane of this daemon, so there is no pane to restrict it to.',
        'Run tuios mcp in a pane of this daemon, or start it with --scope all.',
      );
    }
    if (caller.restrictedTo && caller.restrictedTo !== pane) throw new TuiosError('forbidden', 'This connection is restricted to another pane already; nothing lifts or moves a restriction.');
    caller.restrictedTo = pane;
    return { restricted: true as const, window_id: pane.id, session_id: pane.sessionId, how };
  },
});
