// issue 26: a client that pipelines requests and does not read the replies cannot grow the
// daemon. 10k `list-verbs` (each reply about 145 kB) go down one connection that never reads;
// the daemon stops reading it once CONNECTION_MAX_PENDING_BYTES of replies wait
// (core/rpc/request-flow.ts). Its RSS stays within a bound while that goes on, a plain call from
// another process answers meanwhile, and once the client leaves the RSS is back within 10%. A
// client that reads late gets every reply, in order: the bound holds requests back, it drops none.
// `npm run soak` (TUIOS_SOAK=1) pipelines 50k.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TestDaemon } from '../helpers/daemon.js';
import { rssKb, fdCount, daemonPid, settledRssKb, rssReturns, ATTACK_ENV, rawConnect, plainCallMs } from '../helpers/attack.js';
import { waitFor } from '../helpers/wait.js';

const SOAK = process.env.TUIOS_SOAK === '1';
const PIPELINED = SOAK ? 50_000 : 10_000;
/** Growth allowed while the slow client holds its connection (unbounded, it was over 1 GB). */
const PEAK_GROWTH_KB = 128 * 1024;
/** "At once" on a loaded 2-core machine: a CLI call starts a Node process, about 0.3 s alone. */
const PLAIN_CALL_MS = 5000;

let d: TestDaemon;
let pid = 0;

test.before(async () => {
  d = await TestDaemon.start({ env: ATTACK_ENV });
  pid = await daemonPid(d);
});
test.after(async () => {
  await d.stop();
});

function requests(n: number, from = 0): string {
  let s = '';
  for (let i = from; i < from + n; i++) s += `{"id":${i},"verb":"list-verbs"}\n`;
  return s;
}

test(`${PIPELINED} pipelined list-verbs from a client that does not read: RSS bounded, a plain call answers, RSS returns`, async () => {
  const before = await settledRssKb(d, pid);
  const fdsBefore = fdCount(pid);
  const c = await rawConnect(d.socket, { read: false });
  // Written in pieces as a pipelining client would; the client's own buffer holds what the
  // daemon does not read.
  for (let i = 0; i < PIPELINED; i += 1000) c.sock.write(requests(Math.min(1000, PIPELINED - i), i));
  let peak = rssKb(pid);
  const sample = setInterval(() => {
    try {
      peak = Math.max(peak, rssKb(pid));
    } catch {
      // the daemon is gone: the plain call below says so
    }
  }, 100);
  try {
    // Long enough for the daemon to have run every request, had it kept reading.
    const until = Date.now() + (SOAK ? 20_000 : 8_000);
    const calls: number[] = [];
    while (Date.now() < until) {
      calls.push(await plainCallMs(d));
      await new Promise((r) => setTimeout(r, 500));
    }
    const slowest = Math.max(...calls);
    console.log(`[tuios-test-note] slow-reader: ${PIPELINED} pipelined, RSS before ${before} kB, peak ${peak} kB (+${peak - before} kB), ${calls.length} plain calls meanwhile, slowest ${slowest} ms`);
    assert.ok(peak - before < PEAK_GROWTH_KB, `RSS grew by ${peak - before} kB while a client did not read (bound ${PEAK_GROWTH_KB} kB)`);
    assert.ok(slowest < PLAIN_CALL_MS, `a plain call took ${slowest} ms while a client did not read`);
  } finally {
    clearInterval(sample);
    c.sock.destroy();
  }
  await waitFor(() => fdCount(pid) <= fdsBefore, { timeout: 20_000, what: 'the connection to close in the daemon' });
  const after = await rssReturns(d, pid, before);
  console.log(`[tuios-test-note] slow-reader: RSS after ${after} kB (before ${before} kB), descriptors ${fdsBefore} -> ${fdCount(pid)}`);
  assert.ok(after <= before * 1.1, `RSS after ${after} kB is not within 10% of ${before} kB`);
});

test('a client that reads late gets every reply, in order', async () => {
  const n = 2000;
  const c = await rawConnect(d.socket, { read: false });
  c.sock.write(requests(n));
  // Held long enough for the daemon to fill its limit and stop reading, then read it all.
  await new Promise((r) => setTimeout(r, 1500));
  let lines = 0;
  let buf = '';
  let nextId = 0;
  let outOfOrder = 0;
  await new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`only ${lines} of ${n} replies came`)), 120_000);
    c.sock.on('data', (b: Buffer) => {
      buf += b.toString('utf8');
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        const id = Number(/^\{"id":(\d+)/.exec(line)?.[1]);
        if (id !== nextId) outOfOrder++;
        nextId = id + 1;
        if (++lines === n) {
          clearTimeout(t);
          resolve();
        }
      }
    });
    c.sock.resume();
  });
  c.sock.destroy();
  assert.is(lines, n);
  assert.is(outOfOrder, 0, 'replies came in the order of the requests');
});

test.run();
