// Targets that name another machine (spec: Other machines): `-s HOST:SESSION`,
// `-w HOST:SESSION:WINDOW`, and `-w HOST:WINDOW` when no session here is named HOST. A session
// name never holds `:`, so any colon in -s names a host; `local:` names this machine.
import { TuiosError } from '../errors.js';
import type { RemoteHosts } from './remote.js';

export interface RemoteTarget {
  host: string;
  /** The target params as the host reads them, the host part removed. */
  session?: string;
  window?: string;
}

export interface TargetRefs {
  session?: string;
  window?: string;
}

function unknownHost(host: string, field: string): TuiosError {
  return new TuiosError('host_not_found', `There is no linked host "${host.slice(0, 64)}".`, 'List them with: tuios hosts ls; add one with: tuios hosts add NAME ADDRESS', { field });
}

/**
 * The machine a call's targets name: null for this one (with `local:` stripped from the refs it
 * returns), else the host and the refs as that host reads them. `hasLocalSession` tells a
 * `SESSION:WINDOW` of this machine from `HOST:WINDOW`.
 */
export function remoteTargetOf(refs: TargetRefs, remote: RemoteHosts | null, hasLocalSession: (name: string) => boolean): { local: TargetRefs } | { remote: RemoteTarget } {
  const local: TargetRefs = { ...refs };
  let host: string | null = null;
  const out: RemoteTarget = { host: '' };
  if (refs.session !== undefined) {
    const c = refs.session.indexOf(':');
    if (c > 0) {
      const h = refs.session.slice(0, c);
      if (h === 'local') local.session = refs.session.slice(c + 1);
      else {
        if (!remote?.has(h)) throw unknownHost(h, 'session');
        host = h;
        out.session = refs.session.slice(c + 1);
      }
    }
  }
  if (refs.window !== undefined) {
    const parts = refs.window.split(':');
    const h = parts[0]!;
    if (parts.length >= 2 && h === 'local') local.window = parts.slice(1).join(':');
    else if (parts.length >= 3 || (parts.length === 2 && h && remote?.has(h) && !hasLocalSession(h))) {
      if (!remote?.has(h)) throw unknownHost(h, 'window');
      if (host !== null && host !== h) throw new TuiosError('invalid_params', `-s names ${host} and -w names ${h}: one call reaches one machine.`, undefined, { field: 'window' });
      host = h;
      out.window = parts.slice(1).join(':');
      // -s HOST:SESSION with -w HOST:SESSION:WINDOW: the window's own session wins.
    }
  }
  if (host === null) return { local };
  out.host = host;
  if (out.session === undefined && refs.session !== undefined && !refs.session.includes(':')) {
    throw new TuiosError('invalid_params', `-w names a window on ${host}, and -s names a session here.`, `Name the session as ${host}:SESSION, or leave -s out.`, { field: 'session' });
  }
  return { remote: out };
}
