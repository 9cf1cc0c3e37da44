// Which process on this machine is on the other end of an SSH connection. A TCP peer has no
// SO_PEERCRED, but a connection from this machine is a socket in our network namespace: its
// row in /proc/net/tcp{,6} names the owner's uid and the socket's inode, and the process holding
// that inode is the client (or the ProxyCommand it started). The person's placement rules then
// judge that pid as they judge a socket caller, so `ssh -p 2222 localhost` from a pane is a
// caller inside that pane, not the person.
import { readFile } from 'node:fs/promises';
import { readdirSync, readlinkSync } from 'node:fs';
import { isIPv4, isIPv6 } from 'node:net';
import { endianness } from 'node:os';
import { PEER_SCAN_SLICE_MS, PEER_SCAN_MS } from './limits.js';

export type PeerProcess =
  /** No socket of this machine has that address: the client runs on another machine. */
  | { where: 'remote' }
  /** A socket of this machine, and the process that holds it (null when none was found in time). */
  | { where: 'local'; uid: number; pid: number | null };

/** Canonical text of an address: IPv4 dotted (also for IPv4-mapped IPv6), else 8 full hex groups. */
export function canonicalIp(ip: string): string | null {
  const a = ip.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIPv4(a)) return a;
  if (!isIPv6(a)) return null;
  const bytes = ipv6Bytes(a);
  return bytes ? bytesToCanonical(bytes) : null;
}

function ipv6Bytes(a: string): Buffer | null {
  let text = a;
  let tail: number[] = [];
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    tail = v4[1]!.split('.').map(Number);
    text = text.slice(0, -v4[1]!.length) + '0:0';
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const hs = head ? head.split(':') : [];
  const rs = rest ? rest.split(':') : [];
  const fill = rest === undefined ? 0 : 8 - hs.length - rs.length;
  const groups = [...hs, ...Array<string>(Math.max(0, fill)).fill('0'), ...rs];
  if (groups.length !== 8) return null;
  const b = Buffer.alloc(16);
  groups.forEach((g, i) => b.writeUInt16BE(Number.parseInt(g || '0', 16) & 0xffff, i * 2));
  if (tail.length === 4) tail.forEach((x, i) => (b[12 + i] = x));
  return b;
}

function bytesToCanonical(b: Buffer): string {
  if (b.length === 4) return [...b].join('.');
  const mapped = b.subarray(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;
  if (mapped) return [...b.subarray(12)].join('.');
  const out: string[] = [];
  for (let i = 0; i < 16; i += 2) out.push(b.readUInt16BE(i).toString(16));
  return out.join(':');
}

/** An address as /proc/net/tcp prints it: 32-bit words in the host's byte order. */
export function procAddress(hex: string): string | null {
  if (hex.length !== 8 && hex.length !== 32) return null;
  const b = Buffer.alloc(hex.length / 2);
  const le = endianness() === 'LE';
  for (let w = 0; w < hex.length / 8; w++) {
    const v = Number.parseInt(hex.slice(w * 8, w * 8 + 8), 16);
    if (le) b.writeUInt32LE(v >>> 0, w * 4);
    else b.writeUInt32BE(v >>> 0, w * 4);
  }
  return bytesToCanonical(b);
}

export interface TcpRow {
  local: string;
  localPort: number;
  remote: string;
  remotePort: number;
  uid: number;
  inode: number;
}

export function parseProcNetTcp(text: string): TcpRow[] {
  const rows: TcpRow[] = [];
  for (const line of text.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10) continue;
    const [la, lp] = (f[1] ?? '').split(':');
    const [ra, rp] = (f[2] ?? '').split(':');
    const local = procAddress(la ?? '');
    const remote = procAddress(ra ?? '');
    if (!local || !remote) continue;
    rows.push({ local, localPort: Number.parseInt(lp ?? '', 16), remote, remotePort: Number.parseInt(rp ?? '', 16), uid: Number(f[7]), inode: Number(f[9]) });
  }
  return rows;
}

/** The socket row of a connection's client end: its local address is the peer's. */
async function clientRow(peerIp: string, peerPort: number, serverPort: number): Promise<TcpRow | null> {
  const ip = canonicalIp(peerIp);
  if (!ip) return null;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = await readFile(table, 'utf8');
    } catch {
      continue;
    }
    const row = parseProcNetTcp(text).find((r) => r.local === ip && r.localPort === peerPort && r.remotePort === serverPort && r.inode > 0);
    if (row) return row;
  }
  return null;
}

/**
 * The pid holding socket `inode`: newest processes first, since the client has just started.
 * Synchronous reads in short slices with the loop free between them: a few hundred readlinks take
 * a few milliseconds this way, where one promise per fd cost the loop far more.
 */
async function socketOwner(inode: number, deadline: number): Promise<number | null> {
  const want = `socket:[${inode}]`;
  let pids: number[];
  try {
    pids = readdirSync('/proc').filter((n) => /^\d+$/.test(n)).map(Number).filter((p) => p !== process.pid);
  } catch {
    return null;
  }
  pids.sort((a, b) => b - a);
  const holds = (pid: number): boolean => {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      return false; // gone, or not ours to read
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) === want) return true;
      } catch {
        // the fd closed meanwhile
      }
    }
    return false;
  };
  let i = 0;
  while (i < pids.length) {
    if (Date.now() > deadline) return null;
    const sliceEnd = performance.now() + PEER_SCAN_SLICE_MS;
    for (; i < pids.length && performance.now() < sliceEnd; i++) if (holds(pids[i]!)) return pids[i]!;
    await new Promise((r) => setImmediate(r));
  }
  return null;
}

/** Where the client of a connection from peerIp:peerPort to our serverPort runs. */
export async function findPeerProcess(peerIp: string, peerPort: number, serverPort: number): Promise<PeerProcess> {
  if (process.platform !== 'linux') return { where: 'remote' };
  const row = await clientRow(peerIp, peerPort, serverPort);
  if (!row) return { where: 'remote' };
  return { where: 'local', uid: row.uid, pid: await socketOwner(row.inode, Date.now() + PEER_SCAN_MS) };
}

/** True for an address of this machine's loopback (a client that must be local). */
export function isLoopback(ip: string): boolean {
  const c = canonicalIp(ip);
  return !!c && (c.startsWith('127.') || c === '0:0:0:0:0:0:0:1');
}
