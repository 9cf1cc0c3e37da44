// herdr compatibility as a daemon extension (spec: herdr compatibility): the `<socket>.herdr`
// socket answering herdr's socket API, each method through the tuios verb that does its work.
import type { DaemonExtension } from '../core/daemon/main.js';
import { HerdrSocket } from './server.js';

export { herdrSocketPath } from './server.js';

export function herdrExtension(): DaemonExtension {
  return {
    name: 'herdr',
    async start(svc) {
      const sock = new HerdrSocket(svc);
      await sock.listen();
      return {
        banner: [`herdr: answering herdr's socket API on ${sock.path}`],
        dispose: () => sock.close(),
      };
    },
  };
}
