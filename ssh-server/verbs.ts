// `tuios ssh status`: what the SSH server is doing now. Connections and shells count what is open,
// so a leak shows as a number that does not come back down.
import { z } from 'zod';
import { defineVerb } from '../core/rpc/verb.js';
import { runningSshServer } from './running.js';
import { str } from '../core/rpc/print-helpers.js';

export const sshStatusVerb = defineVerb({
  name: 'ssh-status',
  access: 'none',
  summary: 'The SSH server: where it listens, its host key, open connections and shells, refusals',
  target: 'none',
  mutates: false,
  params: z.object({}),
  // Not listening ([ssh] enabled = false, or it failed to): only whether it is enabled.
  result: z.union([
    z.object({ enabled: z.boolean(), listening: z.null() }),
    z.object({
      enabled: z.literal(true),
      listening: z.object({ host: z.string(), port: z.number().int() }),
      fingerprint: z.string().nullable(),
      authorized_keys: z.number().int(),
      connections: z.number().int(),
      /** TCP connections not logged in yet, from their accept. */
      logging_in: z.number().int(),
      /** Connections closed for no handshake in time, or refused with too many not logged in. */
      dropped: z.number().int(),
      shells: z.number().int(),
      accepted: z.number().int(),
      auth_refused: z.number().int(),
      requests_refused: z.number().int(),
      subsystems: z.array(z.string()),
    }),
  ]),
  print: (r) => {
    if (r.listening === null) return r.enabled ? 'ssh: not listening (the daemon log says why)' : 'ssh: off ([ssh] enabled = false)';
    const at = r.listening;
    return [`listening on ${at.host}:${at.port}, host key ${str(r.fingerprint)}`, `${str(r.connections)} connections, ${str(r.logging_in)} not logged in, ${str(r.shells)} shells open; ${str(r.authorized_keys)} keys authorized`, `${str(r.accepted)} logins, ${str(r.auth_refused)} refused, ${str(r.dropped)} dropped before login; ${str(r.requests_refused)} requests refused`].join('\n');
  },
  run({ svc }) {
    const srv = runningSshServer(svc);
    if (!srv?.address) return { enabled: svc.config.current.ssh.enabled, listening: null };
    const c = srv.counts();
    return {
      enabled: true as const,
      listening: srv.address,
      fingerprint: (svc.endpoints.get('ssh') as { fingerprint?: string } | undefined)?.fingerprint ?? null,
      authorized_keys: srv.authorizedCount(),
      connections: c.connections,
      logging_in: c.loggingIn,
      dropped: c.dropped,
      shells: c.shells,
      accepted: c.accepted,
      auth_refused: c.authRefused,
      requests_refused: c.requestsRefused,
      subsystems: srv.handlers.subsystems.names(),
    };
  },
});
