// The authorized keys the server accepts, read from the configured files. A file is read again
// only when its size or mtime changes, so a login costs a stat per file, and its skipped lines are
// logged once per change, not at every attempt. As sshd's StrictModes does, a file that another
// user could write is not trusted: anyone who can add a line there could log in as the person.
import { readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from '../core/log.js';
import { parseAuthorizedKeys, type AuthorizedKey } from './keys.js';
import { MAX_AUTHORIZED_KEYS_BYTES } from './limits.js';

interface Cached {
  stamp: string;
  keys: AuthorizedKey[];
}

export class AuthorizedKeys {
  private readonly cache = new Map<string, Cached>();

  constructor(
    private readonly files: () => string[],
    private readonly log: Logger,
  ) {}

  /** Every key of every trusted file, in file order (the first matching line decides). */
  keys(): AuthorizedKey[] {
    const out: AuthorizedKey[] = [];
    const files = this.files();
    for (const f of files) out.push(...this.read(f));
    for (const f of this.cache.keys()) if (!files.includes(f)) this.cache.delete(f);
    return out;
  }

  /** How many keys the files list now (for the start-up line that says how to add one). */
  count(): number {
    return this.keys().length;
  }

  private read(file: string): AuthorizedKey[] {
    let st;
    try {
      st = statSync(file);
    } catch {
      this.cache.delete(file);
      return [];
    }
    const stamp = `${st.size}:${st.mtimeMs}:${st.mode}:${st.uid}`;
    const hit = this.cache.get(file);
    if (hit && hit.stamp === stamp) return hit.keys;
    const keys = this.load(file, st);
    this.cache.set(file, { stamp, keys });
    return keys;
  }

  private load(file: string, st: { size: number; mode: number; uid: number; isFile(): boolean }): AuthorizedKey[] {
    const untrusted = this.untrusted(file, st);
    if (untrusted) {
      this.log.warn('authorized keys not used', { file, why: untrusted });
      return [];
    }
    if (st.size > MAX_AUTHORIZED_KEYS_BYTES) {
      this.log.warn('authorized keys not used', { file, why: `larger than ${MAX_AUTHORIZED_KEYS_BYTES} bytes`, bytes: st.size });
      return [];
    }
    try {
      const { keys, skipped } = parseAuthorizedKeys(readFileSync(file, 'utf8'), file);
      for (const s of skipped) this.log.warn('authorized keys line skipped', { file, line: s.line, why: s.why });
      return keys;
    } catch (e) {
      this.log.warn('authorized keys not read', { file, error: e instanceof Error ? e.message : String(e) });
      return [];
    }
  }

  /** Why a file may not be trusted, or null: it and its folder must be writable by us alone. */
  private untrusted(file: string, st: { mode: number; uid: number; isFile(): boolean }): string | null {
    if (!st.isFile()) return 'not a regular file';
    const me = process.getuid?.() ?? 0;
    if (st.uid !== me && st.uid !== 0) return 'owned by another user';
    if (st.mode & 0o022) return 'writable by group or others (chmod go-w)';
    try {
      const d = statSync(dirname(file));
      if (d.uid !== me && d.uid !== 0) return 'its folder is owned by another user';
      // A sticky folder (/tmp) lets nobody else replace our file.
      if (d.mode & 0o022 && !(d.mode & 0o1000)) return 'its folder is writable by group or others (chmod go-w)';
    } catch {
      return 'its folder cannot be read';
    }
    return null;
  }
}
