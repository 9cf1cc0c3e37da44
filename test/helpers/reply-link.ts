// Two linked daemons for a reply to another machine's agent: the peer lets the hub write files
// (`[hosts.hub] files = true`) and runs `api:worker`, an agent stand-in that keeps what is typed to
// it in `got` and reports itself at rest; the hub has a session of its own to attach to.
import { join } from 'node:path';
import { link, startHost, type Host } from './link.js';

export interface ReplyLink {
  hub: Host;
  peer: Host;
  /** The file the peer's agent stand-in writes what it is typed. */
  got: string;
}

export async function startReplyLink(): Promise<ReplyLink> {
  const peer = await startHost('peer', { config: '[hosts.hub]\nfiles = true\n' });
  const hub = await startHost('hub');
  await link(hub, peer);
  const got = join(peer.d.dir, 'got.txt');
  await peer.d.ok(['new-session', 'api', '--window-name', 'sh']);
  await peer.d.call('new-window', { session: 'api', name: 'worker', argv: ['sh', '-c', `cat > ${got}`] });
  await peer.d.ok(['set-agent-state', '-w', 'api:worker', 'idle', '--harness', 'x']);
  await hub.d.ok(['new-session', 'here']);
  return { hub, peer, got };
}
