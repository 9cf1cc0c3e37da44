// herdr compatibility as a daemon extension (spec: herdr compatibility): the `<socket>.herdr`
// socket answering herdr's socket API, each method through the tuios verb that does its work.
import { chmodSync, mkdirSync, readlinkSync, symlinkSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { DaemonExtension } from '../core/daemon/main.js';
import type { Services } from '../core/daemon/services.js';
import { herdrBinPath } from '../core/pty/env.js';
import { TUIOS_BIN } from '../core/self.js';
import { HerdrSocket } from './server.js';
import { reporters } from './reporters.js';

/**
 * The link named `herdr` to tuios that HERDR_BIN_PATH names (spec: herdr's command line), made
 * beside the socket, never on PATH, to the tuios program (core/self.ts). Null when it cannot be
 * made: panes then get the program itself, which answers herdr's pane and notification commands.
 */
function makeLink(svc: Services): string | null {
  const link = herdrBinPath(svc.paths.socket);
  const target = TUIOS_BIN;
  try {
    mkdirSync(dirname(link), { recursive: true, mode: 0o700 });
    chmodSync(join(dirname(link), '..'), 0o700);
    let current: string | null = null;
    try {
      current = readlinkSync(link);
    } catch {
      current = null;
    }
    if (current === target) return link;
    try {
      unlinkSync(link);
    } catch {
      // none there
    }
    symlinkSync(target, link);
    return link;
  } catch (e) {
    svc.log.warn('herdr: the herdr link could not be made', { link, error: e instanceof Error ? e.message : String(e) });
    return null;
  }
}

export { herdrSocketPath } from './server.js';

export function herdrExtension(): DaemonExtension {
  return {
    name: 'herdr',
    async start(svc) {
      const sock = new HerdrSocket(svc);
      await sock.listen();
      const link = makeLink(svc);
      return {
        banner: [`herdr: answering herdr's socket API on ${sock.path}${link ? `; herdr's command line at ${link}` : ''}`],
        dispose: () => {
          reporters(svc).dispose();
          return sock.close();
        },
      };
    },
  };
}
