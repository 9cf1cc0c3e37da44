// The daemon bundle's entry: the core plus its extensions. The CLI loads this for `tuios daemon`.
import { daemonCommand, type DaemonArgs } from '../core/daemon/main.js';
import { extensions } from './extensions.js';

export function runDaemon(args: DaemonArgs): Promise<number> {
  return daemonCommand(args, extensions());
}
