// issue 26: the verb socket under attack, from a client that owes the daemon nothing. Each case
// sends what a broken or hostile client would: malformed and binary lines, a 100 MB line without
// a newline, deeply nested JSON, a wrong type for every param of every verb (generated from the
// verb records' zod params), 300 idle connections held from several processes, half lines then a
// disconnect. After each: every line was answered with a typed code (never `internal`) or its
// connection was closed, the daemon is the same process, a plain call from another process
// answers, its RSS is back within 10% and its descriptors back where they were. Every case is
// bounded in count and time and prints its figures. `npm run soak` (TUIOS_SOAK=1) runs more.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { TestDaemon } from '../helpers/daemon.js';
import { rssKb, fdCount, daemonPid, settledRssKb, rssReturns, ATTACK_ENV, rawConnect, plainCallMs } from '../helpers/attack.js';
import { waitFor } from '../helpers/wait.js';
import { allVerbs } from '../../core/verbs/index.js';
import { MAX_LINE_BYTES, MAX_JSON_DEPTH } from '../../core/limits.js';
import type { z } from 'zod';

const SOAK = process.env.TUIOS_SOAK === '1';
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

/** A seeded generator, so a failing case can be run again as it was. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Reply = { id?: unknown; result?: unknown; error?: { code?: unknown; message?: unknown } };

/**
 * Sends the lines on one connection and reads one reply per non-empty line (as the daemon
 * frames them: `\n` ends a line, a trailing `\r` is dropped). Returns the replies and whether
 * the daemon closed the connection.
 */
async function exchange(lines: Buffer[], timeoutMs = 60_000): Promise<{ replies: Reply[]; expected: number; closed: boolean }> {
  const payload = Buffer.concat(lines.flatMap((l) => [l, Buffer.from('\n')]));
  const expected = lines.filter((l) => {
    const t = l.length > 0 && l[l.length - 1] === 13 ? l.subarray(0, -1) : l;
    return t.length > 0;
  }).length;
  const c = await rawConnect(d.socket, { read: false });
  const replies: Reply[] = [];
  let buf = '';
  await new Promise<void>((resolve) => {
    const t = setTimeout(resolve, timeoutMs);
    const done = () => {
      clearTimeout(t);
      resolve();
    };
    c.sock.on('data', (b: Buffer) => {
      buf += b.toString('utf8');
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        replies.push(JSON.parse(buf.slice(0, nl)) as Reply);
        buf = buf.slice(nl + 1);
      }
      if (replies.length >= expected) done();
    });
    c.sock.on('close', done);
    c.sock.resume();
    c.sock.write(payload);
  });
  const closed = c.closed();
  c.sock.destroy();
  return { replies, expected, closed };
}

/** Every reply is a result or an error with a typed code that is not `internal`. */
function typed(replies: Reply[]): { codes: Record<string, number>; bad: Reply[] } {
  const codes: Record<string, number> = {};
  const bad: Reply[] = [];
  for (const r of replies) {
    const code = r.error ? r.error.code : 'result';
    if (typeof code !== 'string' || code === 'internal' || (r.error && typeof r.error.message !== 'string')) bad.push(r);
    codes[String(code)] = (codes[String(code)] ?? 0) + 1;
  }
  return { codes, bad };
}

/**
 * One attack: its figures before and after, and the checks every case shares: the same daemon
 * answers a plain call from another process, its RSS returns within 10%, its descriptors return.
 */
function attack(name: string, body: (peak: () => void) => Promise<{ tried: number; detail?: string }>): void {
  test(name, async () => {
    const before = await settledRssKb(d, pid);
    const fdsBefore = fdCount(pid);
    let peakKb = before;
    const peak = () => {
      try {
        peakKb = Math.max(peakKb, rssKb(pid));
      } catch {
        // gone: the checks below say so
      }
    };
    const sampler = setInterval(peak, 100);
    const t0 = Date.now();
    let out: { tried: number; detail?: string };
    try {
      out = await body(peak);
    } finally {
      clearInterval(sampler);
    }
    const ms = Date.now() - t0;
    assert.is(await daemonPid(d), pid, 'the daemon is the same process: it did not crash');
    const plain = await plainCallMs(d);
    await waitFor(() => fdCount(pid) <= fdsBefore, { timeout: 30_000, what: `the daemon's descriptors back to ${fdsBefore}` }).catch(() => undefined);
    const fdsAfter = fdCount(pid);
    const after = await rssReturns(d, pid, before);
    console.log(`[tuios-test-note] ${name}: ${out.tried} tried in ${(ms / 1000).toFixed(1)} s; RSS ${before} kB before, ${peakKb} kB peak, ${after} kB after; descriptors ${fdsBefore} -> ${fdsAfter}; plain call ${plain} ms${out.detail ? `; ${out.detail}` : ''}`);
    assert.ok(plain < PLAIN_CALL_MS, `a plain call took ${plain} ms`);
    assert.ok(fdsAfter <= fdsBefore, `descriptors ${fdsBefore} -> ${fdsAfter}`);
    assert.ok(after <= before * 1.1, `RSS after ${after} kB is not within 10% of ${before} kB`);
  });
}

attack('malformed and binary lines', async () => {
  const rnd = prng(26);
  const fixed = [
    '{', '}', '[]', 'null', 'true', '0', '"text"', 'NaN', '1e999', '{"verb":1}', '{"verb":""}', '{"id":1}',
    '{"id":1,"verb":"list-verbs","params":[]}', '{"id":1,"verb":"list-verbs","params":"x"}', '{"id":1,"verb":"list-verbs","params":7}',
    '{"id":{},"verb":"no-such-verb"}', '{"id":1,"verb":"__proto__"}', '{"id":1,"verb":"constructor"}', '{"id":1,"verb":"toString"}',
    '{"id":1,"verb":"hasOwnProperty","params":{}}', '{"id":1,"verb":"list-verbs","params":{"__proto__":{"polluted":1}}}',
    '{"id":1,"verb":"list-sessions","params":{"constructor":{"prototype":{"polluted":1}}}}',
    '{"id":1e999,"verb":"list-verbs"}', '\ufeff{"id":1,"verb":"list-verbs"}', '{"id":1,"verb":"list-verbs"} trailing',
    '{"id":"\ud800","verb":"list-verbs"}', '{"id":1,"verb":"list-verbs","pane":"' + 'p'.repeat(10_000) + '"}',
    '{"id":1,"verb":"' + 'v'.repeat(100_000) + '"}', '{"id":1,"verb":"list-verbs","print":"yes"}', '\u0000\u0001\u0002', '\r', ' ', '\t\t',
    '{"id":1,"verb":"list-verbs","verb":"kill-server"}'.replace('"verb":"kill-server"', '"verb":"list-verbs"'),
  ].map((s) => Buffer.from(s, 'utf8'));
  const count = SOAK ? 20_000 : 2000;
  const random: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const b = Buffer.alloc(1 + Math.floor(rnd() * 200));
    for (let j = 0; j < b.length; j++) b[j] = Math.floor(rnd() * 256);
    // Binary with structure: some lines start like a request and go wrong part way.
    if (i % 3 === 0) Buffer.from('{"id":' + i + ',"verb":"').copy(b);
    for (let j = 0; j < b.length; j++) if (b[j] === 10) b[j] = 32;
    random.push(b);
  }
  const lines = [...fixed, ...random];
  const { replies, expected, closed } = await exchange(lines);
  const { codes, bad } = typed(replies);
  assert.is(closed, false, 'bad lines never close the connection');
  assert.is(replies.length, expected, 'one answer per line');
  assert.equal(bad, [], 'every answer has a typed code');
  return { tried: lines.length, detail: `codes ${JSON.stringify(codes)}` };
});

attack('a 100 MB line without a newline', async (peak) => {
  const times = SOAK ? 5 : 1;
  const total = 100 * 1024 * 1024;
  const chunk = Buffer.alloc(1024 * 1024, 0x61);
  let answered = 0;
  let sentMost = 0;
  for (let n = 0; n < times; n++) {
    const c = await rawConnect(d.socket);
    let sent = 0;
    // Writes until the 100 MB are out or the daemon has closed the connection.
    while (sent < total && !c.closed()) {
      if (!c.sock.write(chunk)) await new Promise((r) => { c.sock.once('drain', r); c.sock.once('close', r); });
      sent += chunk.length;
      peak();
    }
    const line = await c.waitLine(/line_too_long/, 30_000);
    assert.ok(line, 'the daemon said line_too_long');
    assert.equal((JSON.parse(line!) as Reply).error?.code, 'line_too_long');
    await waitFor(() => c.closed(), { timeout: 30_000, what: 'the daemon to close the connection' });
    c.sock.destroy();
    answered++;
    sentMost = Math.max(sentMost, sent);
  }
  return { tried: times, detail: `${answered} answered line_too_long and closed after at most ${(sentMost / 1048576).toFixed(0)} MB written, line limit ${MAX_LINE_BYTES} bytes` };
});

attack('deeply nested JSON', async () => {
  // Depths that fit one line (the limit is 1 MB): arrays are 2 bytes a level, objects 6.
  const arr = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
  const obj = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
  const deepA = arr(400_000);
  const deepO = obj(150_000);
  const lines: string[] = [deepA, deepO, '['.repeat(900_000), `{"id":${deepA.slice(0, 2000)}]}`,
    `{"id":1,"verb":"list-verbs","params":{"x":${deepO}}}`, `{"id":${deepA},"verb":"list-verbs"}`, `{"id":2,"verb":"list-verbs","params":${deepO}}`];
  // A deep value in every param of every verb: past MAX_JSON_DEPTH the line is refused before it
  // is parsed; just under it, most params refuse it by type, and where a param takes any JSON (a
  // hook's tool input) the verb gets it and must still answer with a code.
  const values = [arr(20_000), obj(20_000), arr(MAX_JSON_DEPTH - 3), obj(MAX_JSON_DEPTH - 3)];
  let id = 100;
  for (const v of allVerbs) {
    for (const key of Object.keys((v.params as z.ZodObject).shape)) {
      for (const value of values) lines.push(`{"id":${id++},"verb":"${v.name}","params":{"${key}":${value}}}`);
    }
  }
  for (const l of lines) assert.ok(Buffer.byteLength(l) <= MAX_LINE_BYTES, 'each case fits one line');
  const { replies, expected, closed } = await exchange(lines.map((l) => Buffer.from(l)), 120_000);
  const { codes, bad } = typed(replies);
  assert.is(closed, false);
  assert.is(replies.length, expected, 'one answer per line');
  assert.equal(bad, [], `every answer has a typed code: ${JSON.stringify(bad).slice(0, 500)}`);
  return { tried: lines.length, detail: `codes ${JSON.stringify(codes)}` };
});

/** Values of every JSON kind, and a few edges of each: a param gets those its schema refuses. */
function candidates(): unknown[] {
  return [7, -1, 1.5, 2 ** 53, -(2 ** 60), 0, '', 'x', 'x'.repeat(70_000), true, false, null, [], [1, 'a'], ['x'.repeat(10)], {}, { a: 1 }, { __proto__: null, constructor: 1 }];
}

attack('a wrong type for every param of every verb', async () => {
  const lines: Buffer[] = [];
  const sent: Array<{ verb: string; key: string }> = [];
  let params = 0;
  for (const v of allVerbs) {
    const shape = (v.params as z.ZodObject).shape as Record<string, z.ZodType>;
    for (const key of Object.keys(shape)) {
      params++;
      for (const value of candidates()) {
        if (shape[key]!.safeParse(value).success) continue; // a right type: not this case
        lines.push(Buffer.from(JSON.stringify({ id: lines.length, verb: v.name, params: { [key]: value } })));
        sent.push({ verb: v.name, key });
      }
    }
  }
  const { replies, expected, closed } = await exchange(lines, 120_000);
  assert.is(closed, false);
  assert.is(replies.length, expected, 'one answer per request');
  const wrong = replies.filter((r) => r.error?.code !== 'invalid_params').map((r) => ({ ...sent[Number(r.id)], reply: JSON.stringify(r).slice(0, 300) }));
  assert.equal(wrong, [], 'a wrong type is refused with invalid_params before the verb runs');
  return { tried: lines.length, detail: `${allVerbs.length} verbs, ${params} params` };
});

/** A process that opens `n` connections to the socket and holds them, idle. */
function holder(n: number): Promise<ChildProcess> {
  const code = `const net = require('node:net'); let up = 0; for (let i = 0; i < ${n}; i++) { const s = net.connect(process.argv[1]); s.on('connect', () => { if (++up === ${n}) console.log('ready'); }); s.on('error', (e) => console.log('error ' + e.message)); } setInterval(() => {}, 1000);`;
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['-e', code, d.socket], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout!.on('data', (b) => {
      out += b;
      if (out.includes('ready')) resolve(p);
      if (out.includes('error')) reject(new Error(`a holder could not connect: ${out}`));
    });
    p.once('exit', (c) => reject(new Error(`a holder exited ${c}: ${out}`)));
  });
}

attack('300 idle connections held from several processes', async () => {
  const procs = 5;
  const each = 60;
  const fds = fdCount(pid);
  const holders = await Promise.all(Array.from({ length: procs }, () => holder(each)));
  try {
    await waitFor(() => fdCount(pid) >= fds + procs * each, { timeout: 30_000, what: `the daemon to hold ${procs * each} more connections` });
    const until = Date.now() + (SOAK ? 60_000 : 3_000);
    let calls = 0;
    let slowest = 0;
    while (Date.now() < until || calls === 0) {
      slowest = Math.max(slowest, await plainCallMs(d));
      calls++;
    }
    assert.ok(slowest < PLAIN_CALL_MS, `a plain call took ${slowest} ms with ${procs * each} idle connections held`);
    return { tried: procs * each, detail: `${procs} processes x ${each}; held ${fdCount(pid) - fds} descriptors; ${calls} plain calls meanwhile, slowest ${slowest} ms` };
  } finally {
    for (const h of holders) h.kill('SIGKILL');
  }
});

attack('half lines, then a disconnect', async (peak) => {
  const rnd = prng(2026);
  const count = SOAK ? 3000 : 300;
  const whole = '{"id":1,"verb":"send-text","params":{"window":"w1","text":"' + 'x'.repeat(200) + '"}}';
  let done = 0;
  for (let i = 0; i < count; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, count - i) }, async (_, k) => {
        const c = await rawConnect(d.socket);
        // A cut request, or up to 900 kB of a line that never ends (under the line limit).
        const part = (i + k) % 4 === 3 ? Buffer.alloc(Math.floor(rnd() * 900_000), 0x62) : Buffer.from(whole.slice(0, 1 + Math.floor(rnd() * (whole.length - 1))));
        await new Promise<void>((r) => c.sock.write(part, () => r()));
        c.sock.destroy();
        done++;
      }),
    );
    peak();
  }
  return { tried: done };
});

test.run();
