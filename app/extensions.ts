// The parts of the daemon that live outside core, in the order they start. The daemon entry and
// the build's verb table both read this list.
import type { DaemonExtension } from '../core/daemon/main.js';
import { sshExtension, SubsystemRegistry } from '../ssh-server/index.js';
import { tuiExtension } from '../tui/index.js';
import { sshShell } from '../tui/ssh-shell.js';

export function extensions(): DaemonExtension[] {
  // SSH subsystems of this daemon: the link registers tuios-link here when it starts.
  const subsystems = new SubsystemRegistry();
  return [tuiExtension(), sshExtension({ shell: sshShell, subsystems })];
}
