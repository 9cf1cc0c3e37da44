// The SSH server as a daemon extension: started after the core, with the config's [ssh] table.
import { join } from 'node:path';
import type { DaemonExtension } from '../core/daemon/main.js';
import type { Services } from '../core/daemon/services.js';
import { loadOrCreateHostKey } from './keys.js';
import { SshServer, type ShellRequest, type SshConfig } from './server.js';

export const HOST_KEY_FILE = 'ssh_host_ed25519_key';

function sshConfig(svc: Services): SshConfig {
  const c = svc.config.current.ssh;
  const home = svc.baseEnv.HOME ?? '';
  return {
    listen: c.listen,
    authorizedKeys: c.authorized_keys ?? [join(home, '.ssh', 'authorized_keys'), join(svc.paths.configDir, 'authorized_keys')],
    maxSessions: c.max_sessions,
    maxAuthTries: c.max_auth_tries,
    idleTimeoutMs: c.idle_timeout * 1000,
    execWrite: c.exec_write,
  };
}

export interface SshExtensionOptions {
  /** The TUI for shell sessions (the tui extension provides it). */
  shell?: (svc: Services, req: ShellRequest) => void;
  /** Subsystems by name (the link provides tuios-link). */
  subsystems?: Record<string, (svc: Services) => Parameters<SshServer['handlers']['subsystems']['set']>[1]>;
}

/** The SSH server, once started, for other extensions (the link answers on it). */
export let runningSsh: SshServer | null = null;

export function sshExtension(opts: SshExtensionOptions = {}): DaemonExtension {
  return {
    name: 'ssh',
    async start(svc) {
      if (!svc.config.current.ssh.enabled) return { banner: ['ssh: off ([ssh] enabled = false)'], dispose: () => {} };
      const key = loadOrCreateHostKey(join(svc.paths.stateDir, HOST_KEY_FILE));
      const srv = new SshServer(svc, () => sshConfig(svc), key, svc.log.child({ part: 'ssh' }));
      if (opts.shell) srv.handlers.shell = (req) => opts.shell!(svc, req);
      for (const [name, make] of Object.entries(opts.subsystems ?? {})) srv.handlers.subsystems.set(name, make(svc));
      const a = await srv.listen();
      runningSsh = srv;
      svc.endpoints.set('ssh', { host: a.host, port: a.port, fingerprint: key.fingerprint });
      svc.log.info('ssh server listening', { host: a.host, port: a.port, fingerprint: key.fingerprint });
      const user = svc.baseEnv.USER ?? 'you';
      return {
        banner: [`ssh: listening on ${a.host}:${a.port} (host key ${key.fingerprint})`, `connect with: ssh -p ${a.port} ${user}@${a.host.includes(':') ? `[${a.host}]` : a.host}`],
        dispose: async () => {
          runningSsh = null;
          svc.endpoints.delete('ssh');
          await srv.close();
        },
      };
    },
  };
}
