// Where a caller is: inside one of our panes, or outside every pane (spec: How a process is
// placed). Judged from the pid the kernel gave for the connection, never from what it sends:
// - its controlling terminal is one of our pane terminals, or
// - the daemon (through a pane's shell) is one of its ancestors, or
// - its environment names one of our windows or our socket.
// A record that cannot be read counts as inside a pane. The daemon's own process is outside.
import { statSync } from 'node:fs';
import { readStat, readEnviron, hasProcfs } from '../pty/procfs.js';
import type { Caller, Placement } from '../rpc/caller.js';
import type { Model } from '../model/model.js';
import type { Window } from '../model/window.js';
import { MAX_ANCESTRY } from '../limits.js';

export interface PlacementDeps {
  model: Model;
  socket: string;
  daemonPid: number;
}

/** (major, minor) of a device number as Node's fs.stat reports it (glibc encoding). */
export function decodeRdev(rdev: number): [number, number] {
  const hi = Math.floor(rdev / 2 ** 32);
  const lo = rdev >>> 0;
  const major = ((lo >>> 8) & 0xfff) | ((hi & 0xfffff000) >>> 0);
  const minor = (lo & 0xff) | ((lo >>> 12) & 0xfff00);
  return [major, minor];
}

/** A terminal device's `major:minor` from its path (a pane's /dev/pts/N); null when it cannot be read. */
export function ttyDeviceKey(name: string | null | undefined): string | null {
  if (!name) return null;
  try {
    const [ma, mi] = decodeRdev(statSync(name).rdev);
    return `${ma}:${mi}`;
  } catch {
    return null;
  }
}

/** (major, minor) of /proc/PID/stat's tty_nr (the kernel's old encoding). */
export function decodeTtyNr(tty: number): [number, number] {
  return [(tty >>> 8) & 0xfff, (tty & 0xff) | ((tty >>> 12) & 0xfff00)];
}

const ttyCache = new WeakMap<Window, string | null>();

function windowTty(w: Window): string | null {
  if (ttyCache.has(w)) return ttyCache.get(w)!;
  let key: string | null = null;
  const name = w.process?.ttyName;
  if (name) {
    try {
      const [ma, mi] = decodeRdev(statSync(name).rdev);
      key = `${ma}:${mi}`;
    } catch {
      key = null;
    }
  }
  ttyCache.set(w, key);
  return key;
}

export function placeCaller(c: Caller, d: PlacementDeps): Placement {
  // A client built into the daemon, and an SSH exec peer that authenticated with a listed key.
  if (c.channel === 'tui' || c.channel === 'ssh-exec') return { kind: 'outside' };
  // A linked host's call: the person there only when the link vouches for it (see Caller.vouched).
  if (c.channel === 'link') return c.vouched ? { kind: 'outside' } : { kind: 'inside', how: `a call from the linked host ${c.host ?? '?'}` };
  if (c.pid === null) {
    // No pid from the kernel: only possible where the addon did not build or on another OS.
    return hasProcfs ? { kind: 'inside', how: 'the kernel did not name the caller' } : { kind: 'outside' };
  }
  if (c.pid === d.daemonPid) return { kind: 'outside' };
  const st = readStat(c.pid);
  if (!st) return { kind: 'inside', how: `the process record of pid ${c.pid} cannot be read` };

  const byPid = new Map<number, Window>();
  const byTty = new Map<string, Window>();
  for (const w of d.model.windows.values()) {
    if (w.pid !== null && !w.exit) {
      byPid.set(w.pid, w);
      const t = windowTty(w);
      if (t) byTty.set(t, w);
    }
  }

  if (st.ttyNr > 0) {
    const [ma, mi] = decodeTtyNr(st.ttyNr);
    const w = byTty.get(`${ma}:${mi}`);
    if (w) return { kind: 'pane', window: w, how: 'its terminal is the pane' };
  }

  // Ancestry: a pane's shell, or the daemon itself, above the caller.
  let cur = st;
  for (let i = 0; i < MAX_ANCESTRY && cur.ppid > 1; i++) {
    const w = byPid.get(cur.pid);
    if (w) return { kind: 'pane', window: w, how: 'it descends from the pane' };
    if (cur.ppid === d.daemonPid) return { kind: 'inside', how: 'the daemon started it' };
    const up = readStat(cur.ppid);
    if (!up) break;
    cur = up;
  }
  const top = byPid.get(cur.pid);
  if (top) return { kind: 'pane', window: top, how: 'it descends from the pane' };

  // The environment: an orphan that left both the tree and the terminal.
  const env = readEnviron(c.pid);
  if (env === null) return { kind: 'inside', how: `the environment of pid ${c.pid} cannot be read` };
  for (const name of ['TUIOS_PANE_ID', 'TUIOS_WINDOW_ID']) {
    const id = env.get(name);
    const w = id ? d.model.windows.get(id) : undefined;
    if (w) return { kind: 'pane', window: w, how: `its environment names the pane in ${name}` };
  }
  if (env.get('TUIOS_SOCKET') === d.socket) return { kind: 'inside', how: 'its environment names this daemon in TUIOS_SOCKET' };
  return { kind: 'outside' };
}

/** Placement, computed once per connection. */
export function placementOf(c: Caller, d: PlacementDeps): Placement {
  if (!c.placement || (c.placement.kind === 'pane' && c.placement.window.closed)) c.placement = placeCaller(c, d);
  return c.placement;
}
