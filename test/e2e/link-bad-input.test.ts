// Bad input on a link: random bytes, a truncated frame, an oversized length, a branch this build
// does not know, and a frame from a newer schema are each sent to a daemon on a link of their own
// (its link socket, and its SSH server's tuios-link subsystem). Each bad link is closed with a
// logged reason, or answered `Unsupported` and kept; the daemon keeps serving its other link (a
// hub that follows it) and its socket clients.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connect, type Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import ssh2 from 'ssh2';
import { waitFor } from '../helpers/wait.js';
import { hubKey, link, linkLogLines, startHost, waitHost, type Host } from '../helpers/link.js';
import { encodeFrame } from '../../link/codec/frames.js';
import { FRAME_SCHEMA_JSON } from '../../link/codec/schema.js';
import { MAX, framed, hello, rawLink, schemaWith, type RawLink } from '../helpers/link-raw.js';

let hub: Host;
let peer: Host;
let window: string;

const MARKER = 'typed on the peer';

function linkSocket(): Promise<RawLink> {
  return new Promise((resolve, reject) => {
    const s: Socket = connect(`${peer.d.dir}/run/tuios/link.sock`);
    s.once('connect', () => resolve(rawLink(s)));
    s.once('error', reject);
  });
}

/** The same frames, over the SSH server's tuios-link subsystem with the hub's key. */
function sshLink(): Promise<{ l: RawLink; end(): void }> {
  return new Promise((resolve, reject) => {
    const c = new ssh2.Client();
    c.on('error', reject);
    c.on('ready', () =>
      c.subsys('tuios-link', (err, ch) => {
        if (err) return reject(err);
        resolve({ l: rawLink(ch), end: () => c.end() });
      }),
    );
    c.connect({ host: '127.0.0.1', port: peer.port, username: 'test', privateKey: readFileSync(hubKey(hub)), hostVerifier: () => true });
  });
}

/** The daemon still serves its socket and its other link, and the hub still reaches it. */
async function stillServing(): Promise<void> {
  await peer.d.call('list-sessions');
  assert.is((await waitHost(hub, 'peer', (h) => h.state === 'up', 'up')).state, 'up');
  // The pane's screen as the peer has it: the marker typed there, and the peer's rows.
  const r = await hub.d.call<{ lines: string[] }>('capture-pane', { window: `peer:work:${window}` });
  assert.ok(r.lines[0]?.includes(MARKER), `the marker on the first row of the peer's pane: ${JSON.stringify(r.lines.slice(0, 3))}`);
  const there = await peer.d.call<{ rows: number }>('capture-pane', { window: `work:${window}` });
  assert.is(r.lines.length, there.rows, 'every row of the peer\'s pane');
}

test.before(async () => {
  peer = await startHost('peer');
  hub = await startHost('hub');
  await link(hub, peer);
  await peer.d.ok(['new-session', 'work', 'sleep', '3600']);
  window = (await peer.d.call<{ windows: Array<{ name: string }> }>('list-windows')).windows[0]!.name;
  // Typed into the pane (the terminal echoes it): what a capture of it from the hub must show.
  await peer.d.call('send-text', { window: `work:${window}`, text: MARKER });
  await peer.d.waitScreen(`work:${window}`, new RegExp(MARKER));
});

test.after(async () => {
  await hub?.d.stop();
  await peer?.d.stop();
});

test('random bytes close that link, with the reason logged', async () => {
  for (let i = 0; i < 5; i++) {
    const l = await linkSocket();
    l.s.write(randomBytes(4096));
    await l.closed;
  }
  await waitFor(() => linkLogLines(peer, /link closed/).some((x) => /bad_frame/.test(x)), { what: 'a bad_frame close in the log' });
  await stillServing();
});

test('a truncated frame closes the link when the stream ends inside it', async () => {
  const l = await linkSocket();
  const f = encodeFrame({ kind: 'Hello', body: hello(FRAME_SCHEMA_JSON) }, MAX);
  l.s.end(f.subarray(0, f.length - 10));
  await l.closed;
  await waitFor(() => linkLogLines(peer, /link closed/).some((x) => /ended inside a frame/.test(x)), { what: 'the truncated frame in the log' });
  await stillServing();
});

test('an oversized length closes the link before anything is read', async () => {
  const l = await linkSocket();
  const h = Buffer.alloc(4);
  h.writeUInt32BE(0x7fffffff);
  l.s.write(h);
  await l.closed;
  await waitFor(() => linkLogLines(peer, /link closed/).some((x) => /over the 1048576-byte limit/.test(x)), { what: 'the oversized frame in the log' });
  await stillServing();
});

test('a branch this build does not know is answered Unsupported, and the link goes on', async () => {
  const newer = schemaWith((bs) => bs.push({ type: 'record', name: 'Teleport', fields: [{ name: 'to', type: 'string' }] }));
  const l = await linkSocket();
  l.s.write(framed(newer.type, 'Hello', hello(newer.json)));
  l.s.write(framed(newer.type, 'Teleport', { to: 'mars' }));
  l.s.write(framed(newer.type, 'Ping', { t: 7 }));
  await waitFor(() => l.frames.some((f) => f.kind === 'Pong'), { what: 'a Pong after the unknown frame' });
  const u = l.frames.find((f) => f.kind === 'Unsupported');
  assert.ok(u, 'Unsupported came back');
  assert.is((u!.body as { branch: string }).branch, 'Teleport');
  assert.not.ok(l.isClosed());
  l.s.end();
  await stillServing();
});

test('a frame from a newer schema (a field added with a default) reads, and Follow is answered', async () => {
  const newer = schemaWith((bs) => {
    const f = bs.find((b) => b.name === 'Follow')!;
    (f.fields as unknown[]).push({ name: 'since_ms', type: 'long', default: 0 });
  });
  const { l, end } = await sshLink();
  l.s.write(framed(newer.type, 'Hello', hello(newer.json)));
  l.s.write(framed(newer.type, 'Follow', { boot_id: '', seq: 0, since_ms: 123 }));
  await waitFor(() => l.frames.some((f) => f.kind === 'AgentSnapshot') && l.frames.some((f) => f.kind === 'InboxSnapshot'), { what: 'the snapshots' });
  assert.not.ok(l.isClosed());
  end();
  await stillServing();
});

test('random bytes over the SSH subsystem close only that channel', async () => {
  const { l, end } = await sshLink();
  l.s.write(randomBytes(2048));
  await l.closed;
  end();
  await stillServing();
});

test('a second Hello, and a frame that comes only from the other side, are refused without harm', async () => {
  const l = await linkSocket();
  l.s.write(encodeFrame({ kind: 'Hello', body: hello(FRAME_SCHEMA_JSON) }, MAX));
  // AgentDelta goes from the followed host to its follower, never the other way.
  l.s.write(encodeFrame({ kind: 'AgentDelta', body: { seq: 1, window_id: 'x', row: null } }, MAX));
  await waitFor(() => l.frames.some((f) => f.kind === 'Unsupported'), { what: 'Unsupported for a wrong-way frame' });
  l.s.write(encodeFrame({ kind: 'Hello', body: hello(FRAME_SCHEMA_JSON) }, MAX));
  await l.closed;
  await stillServing();
});

test('mail from a link is data: control characters removed before it is stored', async () => {
  const l = await linkSocket();
  l.s.write(encodeFrame({ kind: 'Hello', body: hello(FRAME_SCHEMA_JSON, 'mallory') }, MAX));
  l.s.write(encodeFrame({ kind: 'Mail', body: { id: 'm-1', to_session: 'work', to_window: null, from: 'eve\x1b[31m', from_kind: 'pane', subject: 'hi\x07', body: 'line\x1b]0;pwned\x07 two\u202e', sent_at: 0, as_window: null } }, MAX));
  await waitFor(() => l.frames.some((f) => f.kind === 'MailAck'), { what: 'the MailAck' });
  const ack = l.frames.find((f) => f.kind === 'MailAck')!.body as { ok: boolean; message_id: number };
  assert.ok(ack.ok);
  l.s.end();
  const msgs = await peer.d.call<{ messages: Array<{ body: string; from: string; subject: string }> }>('read-agent-messages', { session: 'work', window });
  const m = msgs.messages.at(-1)!;
  assert.not.match(m.body + m.from + m.subject, /[\x00-\x08\x0b-\x1f\x7f\u202e]/);
  assert.match(m.from, /@mallory$/);
  await stillServing();
});

test('hosted-pane streams with bad params, words for streams that are not open, and a stray Result are refused or ignored; the link goes on', async () => {
  const l = await linkSocket();
  l.s.write(encodeFrame({ kind: 'Hello', body: hello(FRAME_SCHEMA_JSON) }, MAX));
  const open = (stream: number, params: unknown) => l.s.write(encodeFrame({ kind: 'StreamOpen', body: { stream, kind: 'hosted-pane', params: JSON.stringify(params) } }, MAX));
  const id = 'c'.repeat(32);
  open(1, { window_id: '../../etc' });
  open(2, { window_id: id, cols: 1e9 });
  open(3, { window_id: id, resume: { token: 'd'.repeat(32), from: 0 } });
  open(4, { window_id: id, argv: ['/no/such/program'] });
  l.s.write(encodeFrame({ kind: 'StreamControl', body: { stream: 99, op: 'kill', params: '{"signal":"SIGKILL"}' } }, MAX));
  l.s.write(encodeFrame({ kind: 'StreamData', body: { stream: 98, data: randomBytes(64) } }, MAX));
  l.s.write(encodeFrame({ kind: 'Result', body: { id: 12345, ok: true, result: 'not json', error: 'null' } }, MAX));
  const closeOf = (n: number) => l.frames.find((f) => f.kind === 'StreamClose' && (f.body as { stream: number }).stream === n)?.body as { reason: string } | undefined;
  await waitFor(() => [1, 2, 3, 4].every((n) => closeOf(n)), { what: 'the four refusals' });
  assert.match(closeOf(1)!.reason, /^invalid_params: /);
  assert.match(closeOf(2)!.reason, /^invalid_params: /);
  assert.match(closeOf(3)!.reason, /^not_found: /);
  assert.match(closeOf(4)!.reason, /^spawn_failed: /);
  // A good one starts; junk control words are ignored; a kill with a signal not allowed hangs it up.
  open(5, { window_id: id, argv: ['sleep', '60'] });
  await waitFor(() => l.frames.some((f) => f.kind === 'StreamControl' && (f.body as { op: string }).op === 'started'), { what: 'the start' });
  for (const [op, params] of [['resize', '{"cols":"wide"}'], ['resize', 'not json'], ['teleport', '{}'], ['kill', '{"signal":"SIGSEGV"}']]) {
    l.s.write(encodeFrame({ kind: 'StreamControl', body: { stream: 5, op: op!, params: params! } }, MAX));
  }
  await waitFor(() => closeOf(5), { what: 'the pane to end' });
  const exit = l.frames.find((f) => f.kind === 'StreamControl' && (f.body as { op: string }).op === 'exit')!.body as { params: string };
  assert.is((JSON.parse(exit.params) as { signal: number }).signal, 1, 'SIGHUP, not the signal asked for');
  l.s.write(encodeFrame({ kind: 'Ping', body: { t: 9 } }, MAX));
  await waitFor(() => l.frames.some((f) => f.kind === 'Pong'), { what: 'the link still up' });
  l.s.end();
  await stillServing();
});

test('a host whose key changed is refused loudly: down with the reason, an error in the log, nothing followed', async () => {
  await restartWithNewHostKey(peer);
  const h = await waitHost(hub, 'peer', (x) => x.state === 'down' && x.reason === 'host key changed', 'host key changed', 60_000);
  assert.match(String(h.detail), /THE HOST KEY OF 127\.0\.0\.1:\d+ HAS CHANGED/);
  assert.ok(linkLogLines(hub, /linked host key changed/).some((l) => /"level":"error"/.test(l)));
  await hub.d.call('list-sessions');
});

/** The peer comes back with another host key, as a reinstalled machine (or an impostor) would. */
async function restartWithNewHostKey(h: Host): Promise<void> {
  try {
    await h.d.call('kill-server');
  } catch {
    // it may close first
  }
  await h.d.waitExit();
  for (const f of ['ssh_host_ed25519_key', 'ssh_host_ed25519_key.pub']) rmSync(join(h.d.dir, 'state', 'tuios', f), { force: true });
  await h.d.spawn();
}

test.run();
