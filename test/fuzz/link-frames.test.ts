// issue 26, link frames under attack (what the link socket and the SSH subsystem do with random
// bytes, a cut frame, an oversized length, unknown branches and a newer schema is in
// test/e2e/link-bad-input.test.ts). Here, through the real `tuios link-serve --stdio` that sshd
// runs for a hub: seeded random bytes, a huge length prefix, a frame cut in the middle and a Hello
// of a protocol this build does not speak, each refused with its reason logged while the daemon
// and its real link to a hub stay up; the same mail sent again on a new link (a resend after a
// cut) is acknowledged and stored once; and a peer that stops reading (and so answers no ping)
// is dropped once nothing was heard from it for LINK_DEAD_PINGS pings, with the daemon's memory bounded meanwhile and back after. `npm run soak` tries more.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { Duplex } from 'node:stream';
import { BIN } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { link, linkLogLines, startHost, waitHost, type Host } from '../helpers/link.js';
import { MAX, hello, rawLink, type RawLink } from '../helpers/link-raw.js';
import { daemonPid, rssKb, settledRssKb, rssReturns, ATTACK_ENV, plainCallMs } from '../helpers/attack.js';
import { encodeFrame } from '../../link/codec/frames.js';
import { FRAME_SCHEMA_JSON } from '../../link/codec/schema.js';
import { LINK_DEAD_PINGS, LINK_PING_MS } from '../../core/limits.js';

const SOAK = process.env.TUIOS_SOAK === '1';
const RANDOM_ROUNDS = SOAK ? 50 : 8;
const PLAIN_CALL_MS = 5000;

let hub: Host;
let peer: Host;
let pid = 0;

test.before(async () => {
  peer = await startHost('peer', { env: ATTACK_ENV });
  hub = await startHost('hub');
  await link(hub, peer);
  await peer.d.ok(['new-session', 'work', '--window-name', 'agent', 'sleep', '3600']);
  pid = await daemonPid(peer.d);
});
test.after(async () => {
  await hub?.d.stop();
  await peer?.d.stop();
});

/** `tuios link-serve --stdio` on the peer, as sshd runs it: its stdin and stdout are the link. */
function stdioLink(): { l: RawLink; p: ChildProcess; exited: Promise<number | null> } {
  const p = spawn(process.execPath, [BIN, 'link-serve', '--stdio'], { env: peer.d.env, stdio: ['pipe', 'pipe', 'pipe'] });
  const s = Duplex.from({ readable: p.stdout!, writable: p.stdin! });
  const exited = new Promise<number | null>((r) => p.once('close', (code) => r(code)));
  return { l: rawLink(s), p, exited };
}

/** Seeded bytes (xorshift32). */
function bytes(seed: number, n: number): Buffer {
  let s = seed | 1;
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    b[i] = s & 0xff;
  }
  return b;
}

/** The peer still answers at once, and its real link to the hub is up. */
async function stillServing(): Promise<void> {
  assert.ok((await plainCallMs(peer.d)) < PLAIN_CALL_MS, 'a plain call answers at once');
  await waitHost(hub, 'peer', (h) => h.state === 'up', 'up');
}

const closedWith = (re: RegExp) => waitFor(() => linkLogLines(peer, /link closed/).some((x) => re.test(x)), { what: `a link closed with ${re} in the log` });

test(`link-serve --stdio: ${RANDOM_ROUNDS} rounds of random bytes, a huge length, a cut frame, each refused with the reason logged`, async () => {
  for (let i = 0; i < RANDOM_ROUNDS; i++) {
    const { l, exited } = stdioLink();
    l.s.write(bytes(i + 1, 512 + i * 997));
    await l.closed;
    assert.is(await exited, 0, 'link-serve ends when the daemon closes the link');
  }
  await closedWith(/bad_frame/);
  const huge = stdioLink();
  const h = Buffer.alloc(4);
  h.writeUInt32BE(0xffffffff);
  huge.l.s.write(h);
  await huge.l.closed;
  await closedWith(/over the 1048576-byte limit/);
  const cut = stdioLink();
  const f = encodeFrame({ kind: 'Hello', body: hello(FRAME_SCHEMA_JSON) }, MAX);
  cut.l.s.end(f.subarray(0, Math.floor(f.length / 2)));
  await cut.l.closed;
  await closedWith(/ended inside a frame/);
  await stillServing();
});

test('a Hello of a link protocol this build does not speak: a Bye that says why, and the link closed', async () => {
  const { l, exited } = stdioLink();
  l.s.write(encodeFrame({ kind: 'Hello', body: { ...hello(FRAME_SCHEMA_JSON), protocol_min: 99, protocol_max: 99 } }, MAX));
  await l.closed;
  const bye = l.frames.find((x) => x.kind === 'Bye');
  assert.ok(bye, `a Bye came back: ${l.frames.map((x) => x.kind).join(' ')}`);
  assert.match((bye!.body as { reason: string }).reason, /link protocol 1-1, the other 99-99/);
  assert.is(await exited, 0);
  await closedWith(/version/);
  await stillServing();
});

test('the same mail sent again on a new link (a resend after a cut) is acknowledged and stored once', async () => {
  const mail = { id: 'resend-1', to_session: 'work', to_window: null, from: 'agent', from_kind: 'pane', subject: 'once', body: 'exactly once, whatever the link does', sent_at: 0, as_window: null };
  const acks: Array<{ ok: boolean; message_id: number }> = [];
  for (let i = 0; i < 3; i++) {
    const { l } = stdioLink();
    l.s.write(encodeFrame({ kind: 'Hello', body: hello(FRAME_SCHEMA_JSON, 'resender') }, MAX));
    l.s.write(encodeFrame({ kind: 'Mail', body: mail }, MAX));
    // The first two links are cut at once after the write, before or after the ack.
    if (i < 2) l.s.end();
    const ack = await waitFor(() => l.frames.find((x) => x.kind === 'MailAck'), { what: 'the MailAck', timeout: 20_000 }).catch(() => null);
    if (ack) acks.push(ack.body as { ok: boolean; message_id: number });
    l.s.end();
    await l.closed;
  }
  assert.ok(acks.length >= 1 && acks.every((a) => a.ok), `acknowledged: ${JSON.stringify(acks)}`);
  assert.ok(acks.every((a) => a.message_id === acks[0]!.message_id), 'every ack names the one stored message');
  const box = await peer.d.call<{ messages: Array<{ body: string }> }>('read-agent-messages', { window: 'work:agent' });
  assert.is(box.messages.filter((m) => m.body === mail.body).length, 1, 'stored once');
});

test('a peer that stops reading is dropped: nothing heard for three pings; memory bounded meanwhile and back after', async () => {
  const before = await settledRssKb(peer.d, pid);
  const s = connect(`${peer.d.dir}/run/tuios/link.sock`);
  await new Promise<void>((r, j) => s.once('connect', () => r()).once('error', j));
  const l = rawLink(s);
  l.s.write(encodeFrame({ kind: 'Hello', body: hello(FRAME_SCHEMA_JSON, 'sleeper') }, MAX));
  l.s.write(encodeFrame({ kind: 'Follow', body: { boot_id: '', seq: 0 } }, MAX));
  await waitFor(() => l.frames.some((x) => x.kind === 'AgentSnapshot'), { what: 'the snapshot' });
  // From here it reads nothing: the kernel's buffers fill, then the daemon's own.
  s.pause();
  const flip = `i=0; while :; do i=$((i+1)); printf '\\033]7501;state=working;message=step%%20%s%%20${'x'.repeat(150)}\\007' $i; printf '\\033]7501;state=idle\\007'; sleep 0.01; done`;
  const w = (await peer.d.call<{ id: string }>('new-window', { session: 'work', name: 'flipper', argv: ['sh', '-c', flip] })).id;
  let peak = rssKb(pid);
  const sample = setInterval(() => {
    try {
      peak = Math.max(peak, rssKb(pid));
    } catch {
      // the daemon is gone: the calls below say so
    }
  }, 100);
  const started = Date.now();
  let slowest = 0;
  // The daemon's side of the link, from its log: a socket that is not read never sees its end.
  const dropped = () => linkLogLines(peer, /link closed/).some((x) => /sleeper/.test(x) && /timeout|slow/.test(x));
  try {
    while (!dropped() && Date.now() - started < LINK_PING_MS * (LINK_DEAD_PINGS + 3)) {
      slowest = Math.max(slowest, await plainCallMs(peer.d));
      await new Promise((r) => setTimeout(r, 250));
    }
  } finally {
    clearInterval(sample);
    await peer.d.call('close-window', { window: w });
  }
  const lived = Date.now() - started;
  assert.ok(dropped(), `the daemon closed the link of a peer that does not read (looked for ${lived} ms)`);
  s.destroy();
  assert.ok(slowest < PLAIN_CALL_MS, `a plain call took ${slowest} ms while the peer did not read`);
  assert.ok(peak - before < 128 * 1024, `RSS grew ${((peak - before) / 1024).toFixed(0)} MB while the peer did not read`);
  const after = await rssReturns(peer.d, pid, before);
  await stillServing();
  console.log(`[tuios-test-note] a peer that stopped reading: closed after ${(lived / 1000).toFixed(1)} s; RSS ${(before / 1024).toFixed(0)} MB before, ${(peak / 1024).toFixed(0)} peak, ${(after / 1024).toFixed(0)} after; slowest plain call ${slowest} ms`);
});

test.run();
