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

export function loadOrCreateHostKey(file: string): HostKey {
  if (!existsSync(file)) {
    const kp = utils.generateKeyPairSync('ed25519', { comment: 'tuios host key' });
    writeFileAtomic(file, kp.private);
    writeFileAtomic(`${file}.pub`, kp.public + '\n');
  }
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  const priv = readFileSync(file, 'utf8');
  const parsed = utils.parseKey(priv);
  if (parsed instanceof Error) throw new Error(`the host key ${file} does not parse: ${parsed.message}`);
  const key = Array.isArray(parsed) ? parsed[0]! : parsed;
  const blob = key.getPublicSSH();
  const pub = existsSync(`${file}.pub`) ? readFileSync(`${file}.pub`, 'utf8').trim() : `${key.type} ${blob.toString('base64')} tuios host key`;
  return { private: priv, public: pub, fingerprint: fingerprintOf(blob) };
}

/** The line `tuios ssh host-key` prints: what `ssh-keygen -lf` prints for the public key. */
export function hostKeyLine(k: HostKey): string {
  const comment = k.public.split(' ').slice(2).join(' ') || 'no comment';
  return `256 ${k.fingerprint} ${comment} (ED25519)`;
}

export interface AuthorizedKey {
  type: string;
  blob: Buffer;
  fingerprint: string;
  comment: string;
  /** from="pattern,..." : the client address must match (negations refuse). */
  from: string[] | null;
  /** command="..." keys are refused here: tuios does not run a forced command (documented). */
  forcedCommand: boolean;
  noPty: boolean;
  source: string;
}

/** Splits an authorized_keys line into its options and its key, honouring quotes in options. */
function splitOptions(line: string): { options: string[]; rest: string } {
  const keyStart = /(^|\s)(ssh-|ecdsa-|sk-)/.exec(line);
  if (!keyStart || keyStart.index === 0) return { options: [], rest: line };
  const optText = line.slice(0, keyStart.index).trim();
  const options: string[] = [];
  let cur = '';
  let quoted = false;
  for (const ch of optText) {
    if (ch === '"') quoted = !quoted;
    if (ch === ',' && !quoted) {
      options.push(cur);
      cur = '';
      continue;
    }
    cur += ch;
  }
  if (cur) options.push(cur);
  return { options, rest: line.slice(keyStart.index).trim() };
}

export function parseAuthorizedKeys(text: string, source: string): { keys: AuthorizedKey[]; skipped: number } {
  const keys: AuthorizedKey[] = [];
  let skipped = 0;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const { options, rest } = splitOptions(line);
    const parsed = utils.parseKey(rest);
    if (parsed instanceof Error) {
      skipped++;
      continue;
    }
    const k = Array.isArray(parsed) ? parsed[0]! : parsed;
    const opt = (name: string) => options.find((o) => o.toLowerCase().startsWith(name));
    const fromOpt = opt('from=');
    const blob = k.getPublicSSH();
    keys.push({
      type: k.type,
      blob,
      fingerprint: fingerprintOf(blob),
      comment: rest.split(/\s+/).slice(2).join(' '),
      from: fromOpt ? fromOpt.slice(5).replace(/^"|"$/g, '').split(',').filter(Boolean) : null,
      forcedCommand: !!opt('command='),
      noPty: !!opt('no-pty') || !!opt('restrict'),
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
