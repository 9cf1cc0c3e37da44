// The link between hosts as a daemon extension: the Links service on the services (core reaches
// it as svc.remote), the tuios-link subsystem on the SSH server, the link socket that
// `tuios link-serve --stdio` hands an OpenSSH session to, and the hosts verbs.
import type { Duplex } from 'node:stream';
import type { DaemonExtension } from '../core/daemon/main.js';
import { Links } from './links.js';
import { hostVerbs, setLinks } from './verbs/hosts.js';
import { LinkSocket } from './transport/local-socket.js';
import { LINK_SUBSYSTEM } from './transport/dial.js';

export { Links } from './links.js';
export type { StreamKind, StreamSink } from './streams.js';

/** The SSH server's subsystem seam, as the link needs it (ssh-server/subsystems.ts). */
export interface SubsystemSeam {
  register(name: string, handler: (channel: Duplex & { close(): void }, peer: { address: string; port: number; keyFingerprint: string }) => void): () => void;
}

export interface LinkExtensionOptions {
  subsystems?: SubsystemSeam;
}

export function linkExtension(opts: LinkExtensionOptions = {}): DaemonExtension {
  return {
    name: 'link',
    verbs: hostVerbs,
    async start(svc) {
      const log = svc.log.child({ part: 'link' });
      const links = new Links(svc, log);
      setLinks(svc, links);
      svc.remote = links;
      links.start();
      const unregister = opts.subsystems?.register(LINK_SUBSYSTEM, (channel, peer) => {
        links.serve(channel, { keyFingerprint: peer.keyFingerprint || null, via: `ssh from ${peer.address}:${peer.port}` });
      });
      const sock = new LinkSocket(svc, (s, pid) => links.serve(s, { keyFingerprint: null, via: `link-serve (pid ${pid ?? '?'})` }));
      await sock.listen();
      const n = links.peers.size;
      return {
        banner: [`link: this machine is ${links.self}; ${n === 0 ? 'no linked hosts ([hosts] in config.toml, or tuios hosts add)' : `linking to ${[...links.peers.keys()].join(', ')}`}`],
        dispose: async () => {
          unregister?.();
          // The links first: the socket's close waits for its connections to end.
          links.dispose();
          await sock.close();
          svc.remote = null;
          setLinks(svc, null);
        },
      };
    },
  };
}
