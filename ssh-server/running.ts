// The running SSH server of each daemon, for its verbs (two daemons may run in one test process).
import type { Services } from '../core/daemon/services.js';
import type { SshServer } from './server.js';

const running = new WeakMap<Services, SshServer>();

export function setRunningSshServer(svc: Services, srv: SshServer | null): void {
  if (srv) running.set(svc, srv);
  else running.delete(svc);
}

export function runningSshServer(svc: Services): SshServer | null {
  return running.get(svc) ?? null;
}
