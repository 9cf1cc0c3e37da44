// Whether an offered public key may log in: listed, of an accepted type, its options letting this
// address in now, and (once the client signs) its signature good. Pure, so each refusal reason is
// tested without a connection; the server logs the reason with the peer's address and the key's
// fingerprint, never the key's options or anything the client typed.
import { timingSafeEqual } from 'node:crypto';
import ssh2 from 'ssh2';
import { fromAllows, type AuthorizedKey } from './keys.js';

const { utils } = ssh2;

export interface OfferedKey {
  /** The key type (ssh-rsa for both rsa-sha2 signature kinds). */
  algo: string;
  data: Buffer;
  /** sha256 / sha512 for rsa-sha2-*, undefined for ssh-rsa (SHA-1) and the other types. */
  hashAlgo?: string;
  /** Present once the client signs; absent in the query ("would you take this key?"). */
  signature?: Buffer;
  blob?: Buffer;
}

export type KeyVerdict = { ok: true; key: AuthorizedKey } | { ok: false; why: string };

export function judgeKey(keys: AuthorizedKey[], offered: OfferedKey, peer: string, now = Date.now()): KeyVerdict {
  if (offered.algo === 'ssh-rsa' && !offered.hashAlgo) return { ok: false, why: 'ssh-rsa signatures use SHA-1; rsa-sha2-256 and rsa-sha2-512 are accepted' };
  const listed = keys.filter((k) => k.type === offered.algo && k.blob.length === offered.data.length && timingSafeEqual(k.blob, offered.data));
  if (listed.length === 0) return { ok: false, why: 'the key is not listed' };
  // As sshd does, the first line of this key whose options let it in decides.
  let why = '';
  const key = listed.find((m) => {
    if (m.forcedCommand) why ||= 'the key has command=, which tuios does not run';
    else if (m.expiresAt !== null && now >= m.expiresAt) why ||= 'the key is past its expiry-time';
    else if (m.from && !fromAllows(m.from, peer)) why ||= 'from= does not allow this address';
    else return true;
    return false;
  });
  if (!key) return { ok: false, why };
  if (!offered.signature) return { ok: true, key };
  const parsed = utils.parseKey(offered.data);
  const k = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!k || k instanceof Error || !offered.blob || k.verify(offered.blob, offered.signature, offered.hashAlgo) !== true) return { ok: false, why: 'the signature does not verify' };
  return { ok: true, key };
}
