// Verbs about the daemon itself: list-verbs, server-info, kill-server.
import { z } from 'zod';
import { defineVerb } from '../rpc/verb.js';
import { describeVerb, type VerbDescription } from '../rpc/describe.js';
import { TuiosError } from '../errors.js';
import { VERSION, PROTOCOL_VERSION } from '../version.js';

let cache: VerbDescription[] | null = null;

export const listVerbs = defineVerb({
  name: 'list-verbs',
  access: 'none',
  summary: 'List every verb with its params (ask before you send)',
  target: 'none',
  mutates: false,
  cli: { positionals: ['verb'] },
  params: z.object({ verb: z.string().max(64).optional().describe('Describe only this verb') }),
  run({ params, svc }) {
    cache ??= svc.dispatcher.list().map(describeVerb);
    if (params.verb) {
      const one = cache.find((v) => v.name === params.verb);
      if (!one) throw new TuiosError('unknown_verb', `There is no verb "${params.verb}".`, 'List them with: tuios list-verbs');
      return { verbs: [one] };
    }
    return { verbs: cache, protocol: PROTOCOL_VERSION, version: VERSION };
  },
});

export const serverInfo = defineVerb({
  name: 'server-info',
  access: 'none',
  summary: 'The daemon\'s version, pid, socket, boot id and uptime',
  target: 'none',
  mutates: false,
  params: z.object({}),
  run({ svc }) {
    return {
      version: VERSION,
      protocol: PROTOCOL_VERSION,
      pid: process.pid,
      socket: svc.paths.socket,
      boot_id: svc.bootId,
      started_at: svc.startedAt,
      uptime_ms: Date.now() - svc.startedAt,
      sessions: svc.model.sessions.size,
      windows: svc.model.windows.size,
      config_error: svc.config.lastError,
      config_warnings: svc.config.warnings,
    };
  },
});

export const killServer = defineVerb({
  name: 'kill-server',
  access: 'admin',
  summary: 'Stop the daemon; sessions and windows come back (with new shells) at its next start',
  target: 'none',
  mutates: true,
  params: z.object({}),
  run({ svc }) {
    setImmediate(() => svc.shutdown('kill-server'));
    return { stopping: true, pid: process.pid };
  },
});

export const serverVerbs = [listVerbs, serverInfo, killServer];
