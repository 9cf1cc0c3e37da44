// issue 26, the SSH server under attack (the refusals of a password, keyboard-interactive and an
// unlisted key are in test/e2e/ssh.test.ts; 20 clients attaching and detaching in a loop, with
// descriptors and memory counted, in test/e2e/ssh-reliability.test.ts). Here: the `none` method is
// refused; TCP connections that never send a banner, and ones that send a banner and stall in the
// key exchange, do not keep the real OpenSSH client out (max_sessions counts logins), are
// bounded in number (past MAX_LOGGING_IN a new one is closed at once) and are dropped after
// HANDSHAKE_TIMEOUT_MS; the daemon's descriptors and RSS come back. `npm run soak` (TUIOS_SOAK=1)
// floods with more and repeats the round.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { TestDaemon } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { prerequisite } from '../helpers/prereq.js';
import { hasSsh, makeKey, authorize, sshPort, runSsh, ssh2Connect, logLines, type SshKey } from '../helpers/ssh.js';
import { fdCount, daemonPid, settledRssKb, rssReturns, ATTACK_ENV } from '../helpers/attack.js';
import { HANDSHAKE_TIMEOUT_MS, MAX_LOGGING_IN } from '../../ssh-server/limits.js';

const SOAK = process.env.TUIOS_SOAK === '1';
const SILENT = 100;
const STALLED = 10;
const ROUNDS = SOAK ? 3 : 1;

const ssh = prerequisite('the OpenSSH client', hasSsh() ? '' : 'ssh or ssh-keygen is not installed (apt-get install openssh-client; .ci/run does)');
const it = ssh.gate(test);

let d: TestDaemon;
let key: SshKey;
let port = 0;
let pid = 0;

interface Status {
  connections: number;
  logging_in: number;
  dropped: number;
  accepted: number;
}
const status = () => d.call<Status>('ssh-status');

test.before(async () => {
  if (!ssh.met) return;
  d = await TestDaemon.start({ config: '[ssh]\nlisten = "127.0.0.1:0"\nmax_sessions = 4\n', env: ATTACK_ENV });
  key = makeKey(join(d.dir, 'keys'), 'person');
  authorize(d, key.pub);
  port = await sshPort(d);
  pid = await daemonPid(d);
});
test.after(async () => {
  if (d) await d.stop();
});

/** A TCP connection that sends `first` (nothing: no banner) and then nothing; resolves once open. */
interface Silent {
  sock: Socket;
  /** How long it lived, once the server closed it. */
  closed: Promise<number>;
  lived: number | null;
}

function silent(first = ''): Promise<Silent> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, '127.0.0.1');
    const opened = Date.now();
    const c: Silent = { sock, closed: Promise.resolve(0), lived: null };
    c.closed = new Promise<number>((r) =>
      sock.once('close', () => {
        c.lived = Date.now() - opened;
        r(c.lived);
      }),
    );
    sock.on('error', () => undefined);
    sock.on('data', () => undefined);
    sock.once('connect', () => {
      if (first) sock.write(first);
      resolve(c);
    });
    sock.once('error', reject);
  });
}

it('the none method is refused', async () => {
  await ssh2Connect(port, { authHandler: [{ type: 'none', username: 'root' }] }).then(
    (c) => {
      c.end();
      assert.unreachable('none logged in');
    },
    (e: Error) => assert.match(e.message, /authentication methods failed/),
  );
});

it(`${SILENT} connections without a banner and ${STALLED} stalled in the key exchange: a real client gets in, the flood is bounded and dropped in time`, async () => {
  for (let round = 0; round < ROUNDS; round++) {
    await waitFor(async () => (await status()).logging_in === 0, { what: 'no connection waiting to log in', timeout: 30_000 });
    const before = await settledRssKb(d, pid);
    const fdsBefore = fdCount(pid);
    const dropped0 = (await status()).dropped;
    const started = Date.now();
    const flood = await Promise.all([...Array.from({ length: SILENT }, () => silent()), ...Array.from({ length: STALLED }, () => silent('SSH-2.0-stalled\r\n'))]);
    await waitFor(async () => (await status()).logging_in >= SILENT + STALLED, { what: `${SILENT + STALLED} connections counted as not logged in`, timeout: 30_000 });
    // max_sessions is 4 here: the flood holds none of them, so the real client gets in.
    const r = await runSsh(d, port, key, [], ['list-sessions']);
    assert.is(r.code, 0, `the real client got in while ${SILENT + STALLED} connections waited: ${r.stderr}`);
    // Past the limit a new connection is closed at once: 5 past it, 5 closed well before the
    // timeout, the others held.
    const more = await Promise.all(Array.from({ length: MAX_LOGGING_IN - SILENT - STALLED + 5 }, () => silent()));
    await waitFor(() => more.filter((c) => c.lived !== null).length >= 5, { what: `the 5 connections past ${MAX_LOGGING_IN} closed`, timeout: HANDSHAKE_TIMEOUT_MS / 2 });
    assert.is((await status()).logging_in, MAX_LOGGING_IN, 'the limit held');
    await waitFor(() => logLines(d).some((l) => l.msg === 'ssh connection refused: too many connections not logged in' && l.limit === MAX_LOGGING_IN), { what: 'the refusal logged with its limit' });
    // Every other one is closed by the server after the handshake timeout, none long before.
    const lived = await Promise.all([...flood, ...more].map((c) => c.closed));
    const early = lived.filter((ms) => ms < HANDSHAKE_TIMEOUT_MS - 1000);
    assert.is(early.length, 5, `only the 5 past the limit closed before the handshake timeout: ${early.join(' ')} ms`);
    const s = await status();
    assert.is(s.logging_in, 0);
    assert.ok(s.dropped - dropped0 >= MAX_LOGGING_IN + 5, `every flooding connection counted as dropped: ${s.dropped - dropped0}`);
    await waitFor(() => logLines(d).some((l) => l.msg === 'ssh connection closed: no handshake in time'), { what: 'the timeout logged' });
    // Descriptors and memory come back; the server still serves.
    await waitFor(() => fdCount(pid) <= fdsBefore + 2, { what: `descriptors back near ${fdsBefore} (now ${fdCount(pid)})`, timeout: 30_000 });
    const after = await rssReturns(d, pid, before);
    assert.is((await runSsh(d, port, key, [], ['list-sessions'])).code, 0, 'a client gets in after the flood');
    console.log(
      `[tuios-test-note] ssh flood round ${round + 1}: ${SILENT} silent + ${STALLED} stalled + ${more.length} more connections, ${s.dropped - dropped0} dropped in ${((Date.now() - started) / 1000).toFixed(1)} s; descriptors ${fdsBefore} -> ${fdCount(pid)}, RSS ${(before / 1024).toFixed(0)} -> ${(after / 1024).toFixed(0)} MB`,
    );
  }
});

test.run();
