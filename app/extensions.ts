// The parts of the daemon that live outside core, in the order they start. The daemon entry and
// the build's verb table both read this list.
import type { DaemonExtension } from '../core/daemon/main.js';
import { sshExtension, SubsystemRegistry } from '../ssh-server/index.js';
import { tuiExtension } from '../tui/index.js';
import { sshShell } from '../tui/ssh-shell.js';
import { linkExtension } from '../link/index.js';
import { herdrExtension } from '../herdr/index.js';

export function extensions(): DaemonExtension[] {
  // One registry per daemon: the link answers tuios-link on the SSH server through it.
  const subsystems = new SubsystemRegistry();
  return [tuiExtension(), sshExtension({ shell: sshShell, subsystems }), linkExtension({ subsystems }), herdrExtension()];
}
