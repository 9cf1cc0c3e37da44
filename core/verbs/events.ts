// subscribe: the event stream. A first result with the boot id and the last sequence, then one
// event per line. A reader that falls behind gets `events_lost` and is closed: it must never
// slow the daemon, and it can read the state again and subscribe again.
import { z } from 'zod';
import { defineVerb } from '../rpc/verb.js';
import { SUBSCRIBER_MAX_PENDING_BYTES } from '../limits.js';
import type { BusEvent } from '../bus.js';
import { readableSessions } from '../security/access.js';

function typeMatcher(patterns: string[] | undefined): (t: string) => boolean {
  if (!patterns || patterns.length === 0) return () => true;
  const exact = new Set(patterns.filter((p) => !p.endsWith('*')));
  const prefixes = patterns.filter((p) => p.endsWith('*')).map((p) => p.slice(0, -1));
  return (t) => exact.has(t) || prefixes.some((p) => t.startsWith(p));
}

export const subscribe = defineVerb({
  name: 'subscribe',
  mcp: { tool: 'tuios_events' },
  summary: 'Stream typed events: session-*, window-*, agent-state, attention, notification, ...',
  help: '`types` narrows the stream (a trailing * matches a prefix, e.g. window-*). A reader that falls too far behind gets events_lost and is disconnected.',
  target: 'none',
  mutates: false,
  stream: true,
  cli: { rest: 'types', comma: ['types'], usage: 'subscribe [TYPE...]' },
  params: z.object({
    types: z.array(z.string().max(64)).max(64).optional().describe('Event types to receive (default: all)'),
    session: z.string().max(300).optional().describe('Only events about this session'),
    since: z.number().int().min(0).optional().describe('Resume after this sequence (an earlier last_seq): the kept events after it come first'),
    boot_id: z.string().max(64).optional().describe('The boot_id that since is from: from another daemon start, since is ignored and restarted says so'),
  }),
  // The first result; each event follows on a line of its own.
  result: z.object({
    subscribed: z.literal(true),
    boot_id: z.string(),
    last_seq: z.number().int(),
    restarted: z.boolean().optional().describe('boot_id named another daemon start: nothing from it is resumed'),
    events_lost: z.boolean().optional().describe('Some events after since are no longer kept: read the state again'),
  }),
  print: 'fields',
  run(ctx) {
    const { svc, params } = ctx;
    const match = typeMatcher(params.types);
    const only = params.session ? svc.model.findSession(params.session).id : null;
    // A pane without admin hears only the sessions it may read.
    const may = readableSessions(svc, ctx.caller);
    const wanted = (ev: BusEvent): boolean => {
      if (!match(ev.type)) return false;
      const sid = (ev as { session_id?: string | null }).session_id;
      if (only && sid !== undefined && sid !== only) return false;
      return !(typeof sid === 'string' && !may(sid));
    };
    // A resume: the kept events after `since` of this daemon start go out first, in order (the
    // handler runs to its end before anything else is published, so none is missed or doubled).
    const restarted = params.boot_id !== undefined && params.boot_id !== svc.bootId;
    let lost = false;
    if (params.since !== undefined && !restarted) {
      const { events, complete } = svc.bus.since(params.since);
      lost = !complete;
      for (const ev of events) if (wanted(ev)) ctx.emit(ev);
    }
    const sub = svc.bus.subscribe((ev: BusEvent) => {
      if (!wanted(ev)) return;
      if (ctx.signal.aborted) return;
      ctx.emit(ev);
      if (ctx.pendingBytes() > SUBSCRIBER_MAX_PENDING_BYTES) {
        sub.dispose();
        svc.log.warn('subscriber too slow; events lost', { conn: ctx.caller.connId });
        ctx.end({ code: 'events_lost', message: 'This stream fell too far behind and events were lost.', hint: 'Read the state again (list-agents, list-windows) and subscribe again.' });
      }
    });
    ctx.signal.addEventListener('abort', () => sub.dispose());
    return { subscribed: true as const, boot_id: svc.bootId, last_seq: svc.bus.lastSeq, ...(restarted ? { restarted } : {}), ...(lost ? { events_lost: true } : {}) };
  },
});
