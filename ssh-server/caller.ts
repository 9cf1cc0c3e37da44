// The caller an SSH session acts as. A client on another machine authenticated with a key the
// person listed: it is the person, outside every pane. A client on this machine is judged by its
// process, as a socket caller is, so `ssh -p 2222 localhost` typed in a pane is inside that pane
// (spec: a client started inside a pane counts as inside), and one we cannot find is no proof.
import type { Caller } from '../core/rpc/caller.js';
import { isLoopback, type PeerProcess } from './peer.js';

/** Connection ids for SSH callers: far from the socket's, which count up from 1. */
let nextConn = 1_000_000;

/** `readOnlyBy`: why the connection may not write and what would allow it (null: it may). */
export function sshCaller(peer: string, where: PeerProcess, readOnlyBy: { why: string; allow: string } | null, myUid = process.getuid?.() ?? -1): Caller {
  const base = { connId: nextConn++, readOnly: readOnlyBy !== null, ...(readOnlyBy ? { readOnlyBy } : {}), paneHint: null };
  if (where.where === 'remote') {
    // A loopback address with no socket of ours behind it (another network namespace, a proxy).
    if (isLoopback(peer)) return { ...base, channel: 'socket', pid: null, uid: null, placement: { kind: 'inside', how: 'the ssh client on this machine could not be found' } };
    return { ...base, channel: 'ssh-exec', pid: null, uid: null };
  }
  // Another user's process is none of our panes: our panes run as us.
  if (where.uid !== myUid) return { ...base, channel: 'ssh-exec', pid: null, uid: where.uid };
  if (where.pid === null) return { ...base, channel: 'socket', pid: null, uid: where.uid, placement: { kind: 'inside', how: 'the ssh client process on this machine could not be found' } };
  return { ...base, channel: 'socket', pid: where.pid, uid: where.uid };
}
