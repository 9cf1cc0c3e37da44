// Linked daemons for the link tests: each host its own XDG folders and its own SSH port on
// loopback, a key for the hub that the peers authorize, and `hosts add --yes` to link them, as a
// person would. Ports are chosen free and kept, so a peer that is killed comes back where the hub
// dials it.
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TestDaemon, type DaemonOptions } from './daemon.js';
import { waitFor } from './wait.js';

export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, host, () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

export interface Host {
  name: string;
  d: TestDaemon;
  /** Its SSH server's port (0 when it runs none). */
  port: number;
}

/** A daemon named `name` on its links, its SSH server on a free loopback port. */
export async function startHost(name: string, o: { config?: string; env?: Record<string, string>; ssh?: boolean; listen?: string; prefix?: string[]; start?: boolean } = {}): Promise<Host> {
  const ssh = o.ssh ?? true;
  const port = ssh ? await freePort() : 0;
  const listen = o.listen ?? `127.0.0.1:${port}`;
  const sshTable = ssh ? `[ssh]\nlisten = "${listen}"\n` : '[ssh]\nenabled = false\n';
  const opts: DaemonOptions = { config: `${o.config ?? ''}\n[link]\nname = "${name}"\n${sshTable}`, env: o.env, prefix: o.prefix, start: o.start };
  const d = await TestDaemon.start(opts);
  return { name, d, port };
}

/** An ed25519 key of the hub's (made once), for the peers to authorize. */
export function hubKey(hub: Host): string {
  const key = join(hub.d.dir, 'id_ed25519');
  if (!existsSync(key)) execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', `tuios-test-${hub.name}`, '-f', key]);
  return key;
}

/** Lets the hub's key log in to the peer's SSH server. */
export function authorize(peer: Host, key: string): void {
  const f = join(peer.d.dir, 'config', 'tuios', 'authorized_keys');
  const prev = existsSync(f) ? readFileSync(f, 'utf8') : '';
  writeFileSync(f, prev + readFileSync(`${key}.pub`, 'utf8'));
}

interface HostsLs {
  hosts: Array<{ name: string; state: string; reason: string | null; mail_waiting: number; agents: number; items: number; seen_ms: number | null; label: string; detail: string | null }>;
}

export async function hostState(hub: Host, name: string): Promise<HostsLs['hosts'][number] | undefined> {
  const r = await hub.d.call<HostsLs>('list-hosts');
  return r.hosts.find((h) => h.name === name);
}

export async function waitHost(hub: Host, name: string, pred: (h: HostsLs['hosts'][number]) => boolean, what: string, timeout = 30_000): Promise<HostsLs['hosts'][number]> {
  return waitFor(async () => {
    const h = await hostState(hub, name);
    return h && pred(h) ? h : null;
  }, { timeout, what: `${name} on ${hub.name}: ${what}` });
}

/** `hosts add NAME 127.0.0.1 --port P --identity KEY --yes` on the hub, then waits for the link. */
export async function link(hub: Host, peer: Host, o: { address?: string; port?: number } = {}): Promise<void> {
  const key = hubKey(hub);
  authorize(peer, key);
  await hub.d.ok(['hosts', 'add', peer.name, o.address ?? '127.0.0.1', '--port', String(o.port ?? peer.port), '--identity', key, '--yes']);
  await waitHost(hub, peer.name, (h) => h.state === 'up', 'up');
}

/** Stops the daemon the way a person does (kill-server) and starts it again in the same folders. */
export async function restart(h: Host): Promise<void> {
  try {
    await h.d.call('kill-server');
  } catch {
    // it may close the connection before answering
  }
  await h.d.waitExit();
  await h.d.spawn();
}

/** An agent stand-in: a pane whose program reports needs_input (OSC 7501) on each line it reads. */
export const STANDIN_ASKS = `while read x; do printf '\\033]7501;state=needs_input;kind=approval;message=May%%20I%%20deploy%%20%s\\007' "$x"; done`;

export function linkLogLines(h: Host, re = /link/): string[] {
  const f = join(h.d.dir, 'state', 'tuios', 'daemon.log');
  if (!existsSync(f)) return [];
  return readFileSync(f, 'utf8').split('\n').filter((l) => re.test(l));
}
