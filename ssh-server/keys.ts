// The SSH server's keys: the host key (ed25519, made at first start, 0600, kept across restarts)
// and the authorized keys it accepts, with the OpenSSH options that matter here.
import { existsSync, readFileSync, chmodSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import ssh2 from 'ssh2';
import { writeFileAtomic } from '../core/store/atomic.js';

const { utils } = ssh2;

export interface HostKey {
  /** OpenSSH private key text. */
  private: string;
  /** `ssh-ed25519 AAAA... comment` */
  public: string;
  fingerprint: string;
}

/** SHA256:... of a public key blob, the way ssh-keygen -lf prints it. */
export function fingerprintOf(blob: Buffer): string {
  return 'SHA256:' + createHash('sha256').update(blob).digest('base64').replace(/=+$/, '');
}

/**
 * A new ed25519 key pair that ssh2 reads back. ssh2 1.x writes a public key whose first byte is
 * zero one byte short, and then refuses its own file (measured: 11 keys in 3000); such a pair is
 * made again rather than written.
 */
export function generateHostKey(comment = 'tuios host key'): { private: string; public: string } {
  for (let i = 0; ; i++) {
    const kp = utils.generateKeyPairSync('ed25519', { comment });
    if (!(utils.parseKey(kp.private) instanceof Error) || i >= 16) return kp;
  }
}

export function loadOrCreateHostKey(file: string): HostKey {
  if (!existsSync(file)) {
    const kp = generateHostKey();
    writeFileAtomic(file, kp.private);
    writeFileAtomic(`${file}.pub`, kp.public + '\n');
  }
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  const priv = readFileSync(file, 'utf8');
  const parsed = utils.parseKey(priv);
  if (parsed instanceof Error) throw new Error(`the host key ${file} does not parse: ${parsed.message}`);
  const key = Array.isArray(parsed) ? parsed[0]! : parsed;
  const blob = key.getPublicSSH();
  const b64 = blob.toString('base64');
  // The .pub is what `tuios ssh host-key` reads: written again when it is gone or names another key.
  let pub = existsSync(`${file}.pub`) ? readFileSync(`${file}.pub`, 'utf8').trim() : '';
  if (pub.split(/\s+/)[1] !== b64) {
    pub = `${key.type} ${b64} tuios host key`;
    writeFileAtomic(`${file}.pub`, pub + '\n');
  }
  return { private: priv, public: pub, fingerprint: fingerprintOf(blob) };
}


export interface AuthorizedKey {
  type: string;
  blob: Buffer;
  fingerprint: string;
  comment: string;
  /** from="pattern,..." : the client address must match (negations refuse). */
  from: string[] | null;
  /** command="..." keys are refused here: tuios does not run a forced command (docs/ssh.md). */
  forcedCommand: boolean;
  /** no-pty, or restrict without a later pty: exec only, no TUI. */
  noPty: boolean;
  /**
   * observe (tuios's own option): the TUI only watches and exec runs only verbs that change
   * nothing, whatever [ssh] exec_write says. sshd refuses a line with an option it does not know,
   * so the same line in ~/.ssh/authorized_keys gives no shell there either.
   */
  observe: boolean;
  /** expiry-time="YYYYMMDD[HHMM[SS]]": refused from then on (ms since the epoch), else null. */
  expiresAt: number | null;
  source: string;
}

/** Key types accepted for login: ed25519, ECDSA, and RSA (with rsa-sha2 signatures only). */
export const ACCEPTED_KEY_TYPES = new Set(['ssh-ed25519', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521', 'ssh-rsa']);

/** A word that starts the key itself, not its options (OpenSSH's key type names). */
function isKeyType(word: string): boolean {
  return /^(ssh-(ed25519|rsa|dss|xmss)|ecdsa-sha2-nistp\d+|sk-(ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com)(-cert-v01@openssh\.com)?$/.test(word);
}

/**
 * Splits an authorized_keys line into its options and its key, as sshd reads it: options are
 * comma separated up to the first whitespace outside double quotes (a quote may be escaped).
 */
export function splitOptions(line: string): { options: string[]; rest: string } {
  const first = line.split(/\s/, 1)[0] ?? '';
  if (isKeyType(first)) return { options: [], rest: line };
  const options: string[] = [];
  let cur = '';
  let quoted = false;
  let i = 0;
  for (; i < line.length; i++) {
    const ch = line[i]!;
    if (!quoted && /\s/.test(ch)) break;
    if (ch === '\\' && quoted && line[i + 1] === '"') {
      cur += '"';
      i++;
      continue;
    }
    if (ch === '"') {
      quoted = !quoted;
      continue;
    }
    if (ch === ',' && !quoted) {
      options.push(cur);
      cur = '';
      continue;
    }
    cur += ch;
  }
  if (cur) options.push(cur);
  return { options, rest: line.slice(i).trim() };
}

/** expiry-time's YYYYMMDD[HHMM[SS]], in local time as sshd reads it, or NaN. */
function expiryTime(text: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})(?:(\d{2})(\d{2})(\d{2})?)?$/.exec(text);
  if (!m) return Number.NaN;
  const [, y, mo, d, h, mi, s] = m;
  return new Date(Number(y), Number(mo) - 1, Number(d), Number(h ?? 0), Number(mi ?? 0), Number(s ?? 0)).getTime();
}

export interface SkippedLine {
  line: number;
  why: string;
}

export function parseAuthorizedKeys(text: string, source: string): { keys: AuthorizedKey[]; skipped: SkippedLine[] } {
  const keys: AuthorizedKey[] = [];
  const skipped: SkippedLine[] = [];
  const lines = text.split('\n');
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!.trim();
    if (!line || line.startsWith('#')) continue;
    const { options, rest } = splitOptions(line);
    const type = rest.split(/\s+/, 1)[0] ?? '';
    const opt = (name: string) => options.find((o) => o.toLowerCase() === name || o.toLowerCase().startsWith(name + '='));
    const value = (name: string) => opt(name)?.slice(name.length + 1);
    if (opt('cert-authority')) {
      skipped.push({ line: n + 1, why: 'cert-authority: certificates are not accepted' });
      continue;
    }
    if (!ACCEPTED_KEY_TYPES.has(type)) {
      skipped.push({ line: n + 1, why: `key type ${type.slice(0, 64) || '(none)'} is not accepted (ed25519, ecdsa and rsa are)` });
      continue;
    }
    const parsed = utils.parseKey(rest);
    if (parsed instanceof Error) {
      skipped.push({ line: n + 1, why: 'the key does not parse' });
      continue;
    }
    const k = Array.isArray(parsed) ? parsed[0]! : parsed;
    let expiresAt: number | null = null;
    const exp = value('expiry-time');
    if (exp !== undefined) {
      expiresAt = expiryTime(exp);
      if (Number.isNaN(expiresAt)) {
        skipped.push({ line: n + 1, why: 'expiry-time does not read as YYYYMMDD[HHMM[SS]]' });
        continue;
      }
    }
    const fromOpt = value('from');
    const blob = k.getPublicSSH();
    // restrict turns pty off unless a later `pty` turns it back on.
    const ptyOn = options.map((o) => o.toLowerCase()).reduce((on, o) => (o === 'no-pty' || o === 'restrict' ? false : o === 'pty' ? true : on), true);
    keys.push({
      type: k.type,
      blob,
      fingerprint: fingerprintOf(blob),
      comment: rest.split(/\s+/).slice(2).join(' '),
      from: fromOpt !== undefined ? fromOpt.split(',').filter(Boolean) : null,
      forcedCommand: opt('command') !== undefined,
      noPty: !ptyOn,
      observe: opt('observe') !== undefined,
      expiresAt,
      source,
    });
  }
  return { keys, skipped };
}

function ipv4(a: string): number | null {
  const p = a.split('.').map(Number);
  if (p.length !== 4 || p.some((x) => !(x >= 0 && x <= 255))) return null;
  return ((p[0]! << 24) | (p[1]! << 16) | (p[2]! << 8) | p[3]!) >>> 0;
}

function patternMatches(pat: string, addr: string): boolean {
  const cidr = /^([\d.]+)\/(\d+)$/.exec(pat);
  if (cidr) {
    const base = ipv4(cidr[1]!);
    const a = ipv4(addr);
    const bits = Number(cidr[2]);
    if (base === null || a === null || bits > 32) return false;
    const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
    return (base & mask) === (a & mask);
  }
  const re = new RegExp('^' + pat.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.') + '$', 'i');
  return re.test(addr);
}

/** OpenSSH's from= semantics: a negated match refuses, else any positive match admits. */
export function fromAllows(patterns: string[], addr: string): boolean {
  const a = addr.replace(/^::ffff:/, '');
  if (!isIP(a)) return false;
  let ok = false;
  for (const p of patterns) {
    if (p.startsWith('!')) {
      if (patternMatches(p.slice(1), a)) return false;
    } else if (patternMatches(p, a)) ok = true;
  }
  return ok;
}
