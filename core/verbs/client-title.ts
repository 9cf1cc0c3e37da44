// set-client-title: the title of the terminal a tuios client runs in (spec: herdr's
// client.window_title.set and .clear). The client is the attached one: the one that shows the
// caller's session, else the one used last. Without one nothing changes, and the answer says so.
// The title is text from a caller: control characters come out and it is cut to its limit.
import { z } from 'zod';
import { defineVerb } from '../rpc/verb.js';
import { TuiosError } from '../errors.js';
import { CLIENT_TITLE_MAX } from '../limits.js';

/** A title as a terminal may show it: no control characters (C0, DEL, C1), CLIENT_TITLE_MAX characters at most. */
export function cleanTitle(title: string): string {
  // eslint-disable-next-line no-control-regex
  return Array.from(title.replace(/[\x00-\x1f\x7f-\x9f]/g, '')).slice(0, CLIENT_TITLE_MAX).join('');
}

export const setClientTitle = defineVerb({
  name: 'set-client-title',
  summary: 'Set or clear the title of the terminal the attached tuios client runs in',
  help: `The client is the one that shows your session (a pane's own), else the one used last. Control characters are taken out and the title is cut to ${CLIENT_TITLE_MAX} characters. --clear gives the title back to the client's own (the focused pane's state mark, the session and the window), and the terminal's own comes back when the client leaves. With no client attached, changed is false and reason is no_foreground_client.`,
  target: 'none',
  mutates: true,
  access: 'admin',
  cli: { positionals: ['title'], usage: 'set-client-title (TITLE | --clear)' },
  params: z.object({
    title: z.string().max(CLIENT_TITLE_MAX * 16).optional().describe('The title'),
    clear: z.boolean().optional().describe('Clear the title set before'),
  }),
  result: z.object({
    changed: z.boolean(),
    reason: z.enum(['set', 'cleared', 'no_foreground_client']),
    client_id: z.number().int().nullable(),
    title: z.string().nullable(),
  }),
  print: (r) => r.reason,
  run({ params, svc, caller }) {
    if ((params.title === undefined) === !params.clear) throw new TuiosError('invalid_params', 'Give a title or --clear, one of them.', undefined, { field: 'title' });
    const own = svc.callerPane(caller);
    const client = svc.clients.attachedFor(own?.sessionId ?? null);
    if (!client) return { changed: false, reason: 'no_foreground_client' as const, client_id: null, title: null };
    const title = params.clear ? null : cleanTitle(params.title!);
    const changed = client.acts.setTitle(title);
    if (!changed) return { changed: false, reason: 'no_foreground_client' as const, client_id: null, title: null };
    return { changed: true, reason: title === null ? ('cleared' as const) : ('set' as const), client_id: client.id, title };
  },
});
