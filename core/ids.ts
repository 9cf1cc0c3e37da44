import { randomBytes } from 'node:crypto';

/** A 128-bit id as 32 lowercase hex digits. Windows and sessions both use it. */
export function newId(): string {
  return randomBytes(16).toString('hex');
}

/** The stable short form: the first 12 hex digits. */
export function shortId(id: string): string {
  return id.slice(0, 12);
}

export const FULL_ID_RE = /^[0-9a-f]{32}$/;
/** A prefix long enough to be read as an id rather than a name (tmux-like short ids). */
export const ID_PREFIX_RE = /^[0-9a-f]{6,32}$/;

/** A secret for the environment or the attach: 256 bits, URL-safe. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}
