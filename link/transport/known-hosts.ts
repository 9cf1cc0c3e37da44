// Which host key each linked host must show: the known hosts file under the state folder (written
// by `tuios hosts add` once the person accepted the fingerprint), then the user's own
// ~/.ssh/known_hosts, both in OpenSSH's format (plain and hashed names, `[host]:port`, `*` and
// `?`, `!` negation, @revoked). A key that differs from the recorded one refuses the link.
import { createHash, createHmac } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { writeFileAtomic } from '../../core/store/atomic.js';

export type KeyVerdict =
  | { kind: 'known'; source: string }
  | { kind: 'unknown' }
  /** Recorded with another key: someone may be in the middle, or the host was reinstalled. */
  | { kind: 'changed'; source: string; line: number }
  | { kind: 'revoked'; source: string; line: number };

/** SHA256:... of a public key blob, the way ssh-keygen -lf prints it. */
export function keyFingerprint(blob: Buffer): string {
  return 'SHA256:' + createHash('sha256').update(blob).digest('base64').replace(/=+$/, '');
}

/** The key type a public key blob names (its first SSH string). */
export function keyType(blob: Buffer): string {
  if (blob.length < 4) return '';
  const n = blob.readUInt32BE(0);
  return n > 0 && n < 64 && blob.length >= 4 + n ? blob.subarray(4, 4 + n).toString('latin1') : '';
}

/** The name OpenSSH records a host under: `host` on port 22, `[host]:port` otherwise. */
export function hostPattern(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

function globMatch(pattern: string, name: string): boolean {
  const re = new RegExp('^' + pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.') + '$', 'i');
  return re.test(name);
}

function namesMatch(field: string, name: string): boolean {
  if (field.startsWith('|1|')) {
    const [, , salt, hash] = field.split('|');
    if (!salt || !hash) return false;
    try {
      return createHmac('sha1', Buffer.from(salt, 'base64')).update(name).digest('base64') === hash;
    } catch {
      return false;
    }
  }
  let hit = false;
  for (const p of field.split(',')) {
    if (p.startsWith('!')) {
      if (globMatch(p.slice(1), name)) return false;
    } else if (globMatch(p, name)) hit = true;
  }
  return hit;
}

/** Judges `blob` for `name` against one known_hosts text. */
export function judgeKey(text: string, source: string, name: string, blob: Buffer): KeyVerdict {
  const type = keyType(blob);
  const b64 = blob.toString('base64');
  let changed: KeyVerdict | null = null;
  let known: KeyVerdict | null = null;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (!line || line.startsWith('#')) continue;
    const f = line.split(/\s+/);
    let marker = '';
    if (f[0]!.startsWith('@')) marker = f.shift()!;
    if (marker === '@cert-authority') continue;
    const [names, t, key] = f;
    if (!names || !t || !key || !namesMatch(names, name)) continue;
    if (marker === '@revoked') {
      if (key === b64) return { kind: 'revoked', source, line: i + 1 };
      continue;
    }
    if (key === b64 && t === type) known ??= { kind: 'known', source };
    // Another key recorded for this name is a change, whatever its type (as OpenSSH warns).
    else changed ??= { kind: 'changed', source, line: i + 1 };
  }
  return known ?? changed ?? { kind: 'unknown' };
}

export class KnownHosts {
  constructor(
    /** The state folder's known_hosts: tuios writes only this one. */
    readonly own: string,
    /** The user's ~/.ssh/known_hosts: read, never written. */
    readonly user: string | null,
  ) {}

  private read(file: string): string {
    try {
      return existsSync(file) ? readFileSync(file, 'utf8') : '';
    } catch {
      return '';
    }
  }

  /** Ours first: what the person accepted for tuios decides, then their OpenSSH's. */
  judge(host: string, port: number, blob: Buffer): KeyVerdict {
    const name = hostPattern(host, port);
    const mine = judgeKey(this.read(this.own), this.own, name, blob);
    if (mine.kind !== 'unknown') return mine;
    return this.user ? judgeKey(this.read(this.user), this.user, name, blob) : mine;
  }

  /** Records the accepted key, replacing whatever ours held for that name. */
  record(host: string, port: number, blob: Buffer): void {
    const name = hostPattern(host, port);
    const kept = this.read(this.own)
      .split('\n')
      .filter((l) => l.trim() && l.trim().split(/\s+/)[0] !== name);
    kept.push(`${name} ${keyType(blob)} ${blob.toString('base64')}`);
    writeFileAtomic(this.own, kept.join('\n') + '\n');
  }

  forget(host: string, port: number): void {
    const name = hostPattern(host, port);
    const text = this.read(this.own);
    if (!text) return;
    const kept = text.split('\n').filter((l) => l.trim() && l.trim().split(/\s+/)[0] !== name);
    writeFileAtomic(this.own, kept.length ? kept.join('\n') + '\n' : '');
  }
}
