// `tuios ssh status`: what the SSH server is doing now. Connections and shells count what is open,
// so a leak shows as a number that does not come back down.
import { z } from 'zod';
import { defineVerb } from '../core/rpc/verb.js';
import { runningSshServer } from './running.js';

export const sshStatusVerb = defineVerb({
  name: 'ssh-status',
  access: 'none',
  summary: 'The SSH server: where it listens, its host key, open connections and shells, refusals',
  target: 'none',
  mutates: false,
  params: z.object({}),
  run({ svc }) {
    const srv = runningSshServer(svc);
    if (!srv?.address) return { enabled: svc.config.current.ssh.enabled, listening: null };
    const c = srv.counts();
    return {
      enabled: true,
      listening: srv.address,
      fingerprint: (svc.endpoints.get('ssh') as { fingerprint?: string } | undefined)?.fingerprint ?? null,
      authorized_keys: srv.authorizedCount(),
      connections: c.connections,
      shells: c.shells,
      accepted: c.accepted,
      auth_refused: c.authRefused,
      requests_refused: c.requestsRefused,
      subsystems: srv.handlers.subsystems.names(),
    };
  },
});
