// The SSH server as a daemon extension: started after the core, with the config's [ssh] table.
// The composition root hands it the TUI for shell sessions and the subsystem registry the link
// registers tuios-link into (subsystems.ts).
import { join } from 'node:path';
import { hostname, userInfo } from 'node:os';
import type { DaemonExtension } from '../core/daemon/main.js';
import type { Services } from '../core/daemon/services.js';
import { loadOrCreateHostKey } from './keys.js';
import { SshServer, type ShellRequest, type SshConfig } from './server.js';
import { SubsystemRegistry } from './subsystems.js';
import { sshStatusVerb } from './verbs.js';
import { setRunningSshServer } from './running.js';

export { SubsystemRegistry, type SubsystemHandler, type SubsystemChannel, type SubsystemPeer } from './subsystems.js';

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
  /** The TUI for shell sessions (tui/ssh-shell.ts). */
  shell?: (svc: Services, req: ShellRequest) => void;
  /** Where subsystem handlers are registered; one per daemon, shared with the parts that serve one. */
  subsystems?: SubsystemRegistry;
}

/** The exact command that reaches this server, for the start-up lines. */
export function connectCommand(host: string, port: number, user: string): string {
  const wildcard = host === '0.0.0.0' || host === '::' || host === '';
  const h = wildcard ? hostname() : host;
  return `ssh -p ${port} ${user}@${h.includes(':') ? `[${h}]` : h}`;
}

export function sshExtension(opts: SshExtensionOptions = {}): DaemonExtension {
  const subsystems = opts.subsystems ?? new SubsystemRegistry();
  return {
    name: 'ssh',
    verbs: [sshStatusVerb],
    async start(svc) {
      if (!svc.config.current.ssh.enabled) return { banner: ['ssh: off ([ssh] enabled = false)'], dispose: () => {} };
      const key = loadOrCreateHostKey(join(svc.paths.stateDir, HOST_KEY_FILE));
      const cfg = () => sshConfig(svc);
      const srv = new SshServer(svc, cfg, key, svc.log.child({ part: 'ssh' }), subsystems);
      if (opts.shell) srv.handlers.shell = (req) => opts.shell!(svc, req);
      const a = await srv.listen();
      setRunningSshServer(svc, srv);
      svc.endpoints.set('ssh', { host: a.host, port: a.port, fingerprint: key.fingerprint });
      svc.log.info('ssh server listening', { host: a.host, port: a.port, fingerprint: key.fingerprint });
      const user = svc.baseEnv.USER || safeUser();
      const banner = [`ssh: listening on ${a.host}:${a.port} (host key ${key.fingerprint})`, `connect with: ${connectCommand(a.host, a.port, user)}`];
      if (srv.authorizedCount() === 0) banner.push(`ssh: no key may log in yet; add your public key to ${cfg().authorizedKeys.join(' or ')}`);
      return {
        banner,
        dispose: async () => {
          setRunningSshServer(svc, null);
          svc.endpoints.delete('ssh');
          await srv.close();
        },
      };
    },
  };
}

function safeUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'you';
  }
}
