// Who the SSH server lets in: authorized_keys lines and their options, the key verdict for each
// refusal reason, from= patterns, and which files are trusted at all.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, writeFileSync, chmodSync, mkdirSync, utimesSync, statSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ssh2 from 'ssh2';
import { parseAuthorizedKeys, splitOptions, fromAllows, fingerprintOf, loadOrCreateHostKey, generateHostKey } from '../../ssh-server/keys.js';
import { judgeKey } from '../../ssh-server/auth.js';
import { AuthorizedKeys } from '../../ssh-server/authorized.js';
import type { Logger } from '../../core/log.js';

const { utils } = ssh2;

function keypair(type: 'ed25519' | 'ecdsa' | 'rsa', comment = 'me@laptop') {
  const kp = type === 'ecdsa' ? utils.generateKeyPairSync('ecdsa', { bits: 256, comment }) : type === 'rsa' ? utils.generateKeyPairSync('rsa', { bits: 2048, comment }) : generateHostKey(comment);
  const priv = utils.parseKey(kp.private);
  if (priv instanceof Error) throw priv;
  const k = Array.isArray(priv) ? priv[0]! : priv;
  return { pub: kp.public, priv: k, blob: k.getPublicSSH(), type: k.type };
}

test('every ed25519 key pair made reads back (ssh2 alone loses about 1 in 300)', () => {
  for (let i = 0; i < 1500; i++) assert.not.ok(utils.parseKey(generateHostKey().private) instanceof Error, `key ${i}`);
});

class MemLog implements Logger {
  lines: Array<{ level: string; msg: string; fields: Record<string, unknown> }> = [];
  debug(msg: string, fields: Record<string, unknown> = {}) {
    this.lines.push({ level: 'debug', msg, fields });
  }
  info(msg: string, fields: Record<string, unknown> = {}) {
    this.lines.push({ level: 'info', msg, fields });
  }
  warn(msg: string, fields: Record<string, unknown> = {}) {
    this.lines.push({ level: 'warn', msg, fields });
  }
  error(msg: string, fields: Record<string, unknown> = {}) {
    this.lines.push({ level: 'error', msg, fields });
  }
  child(): Logger {
    return this;
  }
}

const dirs: string[] = [];
function tempDir(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}
test.after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const ed = keypair('ed25519');
const ec = keypair('ecdsa');
const rsa = keypair('rsa');

test('options are read up to the first space outside quotes, with escaped quotes inside', () => {
  const { options, rest } = splitOptions(`from="10.0.0.0/8,!10.1.2.3",command="echo \\"hi, there\\"",no-pty ${ed.pub}`);
  assert.equal(options, ['from=10.0.0.0/8,!10.1.2.3', 'command=echo "hi, there"', 'no-pty']);
  assert.is(rest, ed.pub);
  assert.equal(splitOptions(ed.pub).options, []);
});

test('authorized_keys: ed25519, ecdsa and rsa lines with their options; other lines skipped with a reason', () => {
  const text = [
    '# a comment',
    '',
    ed.pub,
    `from="127.0.0.1" ${ec.pub}`,
    `restrict ${rsa.pub}`,
    `restrict,pty ${ed.pub}`,
    `command="/bin/true" ${ed.pub}`,
    `expiry-time="20200101" ${ed.pub}`,
    `expiry-time="soon" ${ed.pub}`,
    `cert-authority ${ed.pub}`,
    'ssh-dss AAAAB3NzaC1kc3MAAACBAP== old',
    'ssh-ed25519 not-base64!!',
  ].join('\n');
  const { keys, skipped } = parseAuthorizedKeys(text, 'f');
  assert.equal(keys.map((k) => k.type), ['ssh-ed25519', ec.type, 'ssh-rsa', 'ssh-ed25519', 'ssh-ed25519', 'ssh-ed25519']);
  assert.is(keys[0]!.comment, 'me@laptop');
  assert.is(keys[0]!.fingerprint, fingerprintOf(ed.blob));
  assert.equal(keys[1]!.from, ['127.0.0.1']);
  assert.ok(keys[2]!.noPty, 'restrict turns the pty off');
  assert.not.ok(keys[3]!.noPty, 'a later pty turns it back on');
  assert.ok(keys[4]!.forcedCommand);
  assert.is(keys[5]!.expiresAt, new Date(2020, 0, 1).getTime());
  assert.equal(skipped.map((s) => s.line), [9, 10, 11, 12]);
  assert.match(skipped[0]!.why, /expiry-time/);
  assert.match(skipped[1]!.why, /certificates/);
  assert.match(skipped[2]!.why, /ssh-dss is not accepted/);
  assert.match(skipped[3]!.why, /does not parse/);
});

test('a key verdict: listed, of an accepted type, its options letting this address in now', () => {
  const keys = parseAuthorizedKeys([`from="10.0.0.0/8" ${ed.pub}`, ec.pub, `command="x" ${rsa.pub}`].join('\n'), 'f').keys;
  const offer = (k: typeof ed, hashAlgo?: string) => ({ algo: k.type, data: k.blob, hashAlgo });
  assert.equal(judgeKey(keys, offer(ec), '127.0.0.1').ok, true);
  assert.equal(judgeKey(keys, offer(ed), '10.9.8.7').ok, true);
  assert.equal(judgeKey(keys, offer(ed), '127.0.0.1'), { ok: false, why: 'from= does not allow this address' });
  assert.equal(judgeKey(keys, offer(rsa, 'sha256'), '127.0.0.1'), { ok: false, why: 'the key has command=, which tuios does not run' });
  assert.match((judgeKey(keys, offer(rsa), '127.0.0.1') as { why: string }).why, /SHA-1/);
  const other = keypair('ed25519');
  assert.equal(judgeKey(keys, offer(other), '127.0.0.1'), { ok: false, why: 'the key is not listed' });
  // The same key type but another key of the same length is not listed either.
  assert.equal(judgeKey(keys, { algo: 'ssh-ed25519', data: Buffer.alloc(ed.blob.length) }, '127.0.0.1').ok, false);
});

test('the first line of a key whose options let it in decides; an expired line does not', () => {
  const now = new Date(2030, 5, 1).getTime();
  const keys = parseAuthorizedKeys([`expiry-time="20300101" ${ed.pub}`, `from="192.168.*" ${ed.pub}`, `no-pty ${ed.pub}`].join('\n'), 'f').keys;
  const v = judgeKey(keys, { algo: ed.type, data: ed.blob }, '127.0.0.1', now);
  assert.ok(v.ok && v.key.noPty, 'the third line admits, with its no-pty');
  const onlyExpired = parseAuthorizedKeys(`expiry-time="20300101" ${ed.pub}`, 'f').keys;
  assert.equal(judgeKey(onlyExpired, { algo: ed.type, data: ed.blob }, '127.0.0.1', now), { ok: false, why: 'the key is past its expiry-time' });
  assert.ok(judgeKey(onlyExpired, { algo: ed.type, data: ed.blob }, '127.0.0.1', new Date(2029, 0, 1).getTime()).ok);
});

test('a signature must verify with the offered key, for ed25519, ecdsa and rsa-sha2', () => {
  const keys = parseAuthorizedKeys([ed.pub, ec.pub, rsa.pub].join('\n'), 'f').keys;
  const data = Buffer.from('session id and userauth request');
  for (const [k, hash] of [[ed, undefined], [ec, undefined], [rsa, 'sha256'], [rsa, 'sha512']] as const) {
    const signature = k.priv.sign(data, hash) as Buffer;
    assert.ok(judgeKey(keys, { algo: k.type, data: k.blob, hashAlgo: hash, signature, blob: data }, '127.0.0.1').ok, `${k.type} ${hash ?? ''}`);
    const bad = judgeKey(keys, { algo: k.type, data: k.blob, hashAlgo: hash, signature, blob: Buffer.from('another session') }, '127.0.0.1');
    assert.equal(bad, { ok: false, why: 'the signature does not verify' });
  }
});

test('from=: address patterns, CIDR, and a matching negation refuses', () => {
  assert.ok(fromAllows(['127.0.0.1'], '127.0.0.1'));
  assert.ok(fromAllows(['127.0.0.1'], '::ffff:127.0.0.1'));
  assert.ok(fromAllows(['10.0.0.0/8'], '10.200.3.4'));
  assert.not.ok(fromAllows(['10.0.0.0/8'], '11.0.0.1'));
  assert.ok(fromAllows(['192.168.1.?', '10.*'], '10.4.4.4'));
  assert.not.ok(fromAllows(['10.*', '!10.0.0.5'], '10.0.0.5'));
  assert.not.ok(fromAllows(['*.example.com'], '10.0.0.5'), 'names are not resolved');
  assert.not.ok(fromAllows(['*'], 'not-an-address'));
});

test('authorized keys files: read again when they change; a file others can write is not trusted', () => {
  const dir = tempDir('tuios-ak-');
  const f = join(dir, 'authorized_keys');
  writeFileSync(f, ed.pub + '\n');
  chmodSync(f, 0o600);
  const log = new MemLog();
  const ak = new AuthorizedKeys(() => [f, join(dir, 'missing')], log);
  assert.is(ak.keys().length, 1);
  writeFileSync(f, `${ed.pub}\n${ec.pub}\nnonsense line\n`);
  utimesSync(f, new Date(), new Date(Date.now() + 5000));
  assert.is(ak.keys().length, 2);
  assert.is(ak.keys().length, 2);
  // The skipped line is logged once per change, not at every login.
  assert.is(log.lines.filter((l) => l.msg === 'authorized keys line skipped').length, 1);
  chmodSync(f, 0o666);
  assert.is(ak.keys().length, 0);
  assert.ok(log.lines.some((l) => l.level === 'warn' && /writable by group or others/.test(String(l.fields.why))));
  chmodSync(f, 0o600);
  const open = join(dir, 'open');
  mkdirSync(open);
  chmodSync(open, 0o777);
  writeFileSync(join(open, 'keys'), ed.pub + '\n');
  chmodSync(join(open, 'keys'), 0o600);
  assert.is(new AuthorizedKeys(() => [join(open, 'keys')], log).keys().length, 0, 'a folder others can write is not trusted');
  const big = join(dir, 'big');
  writeFileSync(big, (ed.pub + '\n').repeat(20000));
  chmodSync(big, 0o600);
  assert.is(new AuthorizedKeys(() => [big], log).keys().length, 0, 'a file past the size limit is not read');
});

test('the host key: made once, 0600, the same key at the next start; its .pub rewritten when it names another key', () => {
  const dir = tempDir('tuios-hk-');
  const f = join(dir, 'ssh_host_ed25519_key');
  const a = loadOrCreateHostKey(f);
  const b = loadOrCreateHostKey(f);
  assert.is(a.fingerprint, b.fingerprint);
  assert.match(a.public, /^ssh-ed25519 \S+ tuios host key$/);
  assert.is(statSync(f).mode & 0o777, 0o600);
  writeFileSync(`${f}.pub`, ed.pub + '\n');
  const c = loadOrCreateHostKey(f);
  assert.is(c.fingerprint, a.fingerprint);
  assert.is(readFileSync(`${f}.pub`, 'utf8').trim(), a.public);
});

test.run();
