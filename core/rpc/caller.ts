// Who is on the other end of a connection. The pid comes from the kernel (SO_PEERCRED) at accept
// time and cannot be changed by anything the caller sends; where that pid runs (inside one of our
// panes or outside every pane) is worked out by core/security when a check first needs it.
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import type { Window } from '../model/window.js';

export type Channel = 'socket' | 'ssh-exec' | 'link' | 'tui';

export type Placement =
  | { kind: 'outside' }
  | { kind: 'pane'; window: Window; how: string }
  /** Inside a pane, but not one we can name (an unreadable record counts as inside). */
  | { kind: 'inside'; how: string };

export interface Caller {
  readonly connId: number;
  readonly channel: Channel;
  /** The peer's pid as the kernel gave it, or null where it cannot be read. */
  readonly pid: number | null;
  readonly uid: number | null;
  /** Read-only channels (ssh exec without exec_write, an observe key, an observe host) refuse verbs that mutate. */
  readonly readOnly: boolean;
  /**
   * Why it is read-only and the setting that would allow a write, for the refusal's text (e.g.
   * "its key is marked observe in authorized_keys"); unset reads as ssh exec's exec_write.
   */
  readonly readOnlyBy?: { why: string; allow: string };
  /** TUIOS_PANE_ID the CLI saw in its environment: a default for targets, never proof. */
  paneHint: string | null;
  /** Filled by core/security on first use. */
  placement?: Placement;
  /** The host a link call came from. */
  host?: string;
  /**
   * A link call the host vouches was made by the person there, on a link whose policy here gives
   * `respond`: it may act as the person. Only the link sets it, never anything a caller sends.
   */
  vouched?: boolean;
  /**
   * Set once by restrict-connection (what `tuios mcp` sends first): this connection reaches only
   * this pane's session, its fan group and the sessions a fan from it started, and only the verbs
   * that are MCP tools. Nothing lifts it.
   */
  restrictedTo?: Window;
}

type PeerCredFn = ((fd: number) => { pid: number; uid: number; gid: number }) | null;

let peerCred: PeerCredFn | undefined;

function loadPeerCred(): PeerCredFn {
  if (peerCred !== undefined) return peerCred;
  try {
    const req = createRequire(import.meta.url);
    peerCred = (req('tuios-peercred') as { getPeerCred: PeerCredFn }).getPeerCred;
  } catch {
    peerCred = null;
  }
  return peerCred;
}


/** The kernel's record of who connected, or nulls when it cannot be read. */
export function readPeer(sock: Socket): { pid: number | null; uid: number | null } {
  const fn = loadPeerCred();
  const fd = (sock as unknown as { _handle?: { fd?: number } })._handle?.fd;
  if (!fn || typeof fd !== 'number' || fd < 0) return { pid: null, uid: null };
  try {
    const c = fn(fd);
    return { pid: c.pid > 0 ? c.pid : null, uid: c.uid };
  } catch {
    return { pid: null, uid: null };
  }
}
