// A daemon that dies as a CLI call connects: the call's connection is taken and then dropped
// before any answer (the kernel queues it on the dying daemon's socket and resets it). A verb that
// changes nothing is asked again, of a daemon the CLI starts; a verb that changes something is
// never asked twice, and says the connection was dropped.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:net';
import { mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { TestDaemon } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { acquireLock } from '../../core/daemon/lock.js';

let d: TestDaemon;

test.before(async () => {
  d = await TestDaemon.start({ start: false });
  mkdirSync(dirname(d.socket), { recursive: true, mode: 0o700 });
});

test.after(async () => {
  await d.stop();
});

/** A stand-in for a daemon killed mid-call: it takes one request, then its socket is gone. */
function dyingDaemon(): Promise<{ server: Server; took: Promise<string> }> {
  return new Promise((resolveListening) => {
    let took!: (line: string) => void;
    const tookP = new Promise<string>((r) => (took = r));
    const server = createServer((c) => {
      let got = '';
      c.on('data', (b) => {
        got += b;
        if (!got.includes('\n')) return;
        server.close();
        rmSync(d.socket, { force: true });
        c.destroy();
        took(got);
      });
    });
    server.listen(d.socket, () => resolveListening({ server, took: tookP }));
  });
}

test('a read-only verb is asked again of a new daemon when its connection is dropped unanswered', async () => {
  const { took } = await dyingDaemon();
  const r = await d.cli(['list-sessions', '--json']);
  const first = JSON.parse(await took) as { verb: string };
  assert.is(first.verb, 'list-sessions');
  assert.is(r.code, 0, `list-sessions failed: ${r.stderr}`);
  JSON.parse(r.stdout);
  assert.ok(await d.answers(), 'the CLI started a daemon');
  await d.call('kill-server').catch(() => undefined);
  // The next test stands in on the same socket: wait until that daemon has let go of its lock,
  // which it does after it has removed its socket file, or the stand-in's bind finds it there.
  await waitFor(async () => {
    const l = await acquireLock(d.socket, { waitMs: 0 });
    if (!l.ok) return false;
    await l.release();
    return true;
  }, { timeout: 20_000, what: 'the started daemon to let go of its socket' });
});

test('a verb that changes something is not asked twice', async () => {
  const { took } = await dyingDaemon();
  const r = await d.cli(['new-session', 'once']);
  assert.is((JSON.parse(await took) as { verb: string }).verb, 'new-session');
  assert.is.not(r.code, 0, 'the dropped call is reported');
  assert.match(r.stderr, /closed the connection|ECONNRESET/);
  // Nothing answered it, and nothing asked it again: no daemon was started behind its back.
  assert.not.ok(await d.answers(), 'no daemon was started to ask it again');
});

test.run();
