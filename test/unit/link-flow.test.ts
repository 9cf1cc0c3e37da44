// Flow control on link streams, with two real LinkSessions over an in-memory pipe: the opener
// grants credit as its reader takes bytes, so a reader that stops pauses the server's sink (its
// write waits, and the handler with it) instead of being buffered for or cut; reading again
// resumes it, and every byte arrives, in order. A server that waits past its deadline ends the
// stream `slow`; an opener of an older build (no window) still gets its bytes as before.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Duplex, PassThrough } from 'node:stream';
import { createHash } from 'node:crypto';
import { LinkSession } from '../../link/session.js';
import { ServedStreams, OpenedStream } from '../../link/streams.js';
import { StreamKinds } from '../../core/hosts/streams.js';
import { policyFor } from '../../link/policy.js';
import { defaultConfig } from '../../core/config/schema.js';
import { nullLogger } from '../../core/log.js';
import { waitFor } from '../helpers/wait.js';
import { LINK_MAX_PENDING_BYTES, LINK_STREAM_WINDOW_BYTES } from '../../core/limits.js';

function pipePair(): [Duplex, Duplex] {
  const ab = new PassThrough();
  const ba = new PassThrough();
  return [Duplex.from({ readable: ba, writable: ab }), Duplex.from({ readable: ab, writable: ba })];
}

/** The bytes at [off, off + n) of a flood: every offset has its own value, so a lost, doubled or moved chunk shows. */
function floodBytes(off: number, n: number): Buffer {
  const b = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i++) {
    const x = off + i;
    b[i] = (x ^ (x >>> 8) ^ (x >>> 16) ^ (x >>> 24)) & 0xff;
  }
  return b;
}

const TOTAL = 24 * 1024 * 1024;
const WRITE = 256 * 1024;

interface Flood {
  /** Bytes whose write resolved: what the handler believes went. */
  acked: number;
  aborted: string | null;
  done: boolean;
}

async function setup(o: { unreadMs?: number } = {}) {
  const [x, y] = pipePair();
  const opened = new Map<number, OpenedStream>();
  const floods = new Map<number, Flood>();
  const hub = new LinkSession(x, { host: 'hub', bootId: 'a', log: nullLogger, accepts: new Set(['StreamData', 'StreamClose'] as never[]) }, {
    hello: () => {},
    frame: (f) => {
      if (f.kind === 'StreamData') opened.get(f.body.stream)?.feed(f.body.data);
      if (f.kind === 'StreamClose') opened.get(f.body.stream)?.finish(f.body.reason);
    },
    close: () => {},
  });
  const kinds = new StreamKinds();
  kinds.register('flood', {
    right: 'list',
    open: async (_svc, p, sink) => {
      const f: Flood = { acked: 0, aborted: null, done: false };
      floods.set(Number(p.id), f);
      sink.signal.addEventListener('abort', () => (f.aborted = String(sink.signal.reason)));
      for (let off = 0; off < TOTAL && !sink.signal.aborted; off += WRITE) {
        await sink.write(floodBytes(off, WRITE));
        f.acked = off + WRITE;
      }
      f.done = true;
      sink.end();
    },
  });
  let served: ServedStreams | null = null;
  const policy = policyFor(defaultConfig(), 'hub');
  const peer = new LinkSession(y, { host: 'peer', bootId: 'b', log: nullLogger, accepts: new Set(['StreamOpen', 'StreamClose', 'StreamCredit'] as never[]) }, {
    hello: () => (served = new ServedStreams({ log: nullLogger } as never, peer, kinds, 'hub', () => policy, undefined, o)),
    frame: (f) => {
      if (f.kind === 'StreamOpen') served!.onOpen(f.body.stream, f.body.kind, f.body.params, f.body.window);
      if (f.kind === 'StreamClose') served!.onClose(f.body.stream);
      if (f.kind === 'StreamCredit') served!.onCredit(f.body.stream, f.body.bytes);
    },
    close: () => served?.dispose(),
  });
  await waitFor(() => served !== null && hub.up, { what: 'both Hellos' });
  let next = 1;
  /** Opens a flood as PeerLink.openStream does; `window` 0 is an opener of an older build. */
  const open = (window: number) => {
    const id = next++;
    const st = new OpenedStream(id, () => hub.send('StreamClose', { stream: id, reason: 'closed by the viewer' }), {
      data: () => false,
      control: () => false,
      credit: (bytes) => hub.send('StreamCredit', { stream: id, bytes }),
    }, window);
    // The most the opener ever held unread.
    let most = 0;
    const feed = st.feed.bind(st);
    st.feed = (d: Buffer) => {
      feed(d);
      most = Math.max(most, st.readableLength);
    };
    // A cut shows as closeReason in the checks below, not as an unhandled error.
    st.on('error', () => {});
    opened.set(id, st);
    hub.send('StreamOpen', { stream: id, kind: 'flood', params: JSON.stringify({ id }), window });
    return { st, flood: () => floods.get(id), most: () => most };
  };
  const close = () => {
    hub.close({ code: 'local', detail: 'done' });
    peer.close({ code: 'local', detail: 'done' });
  };
  return { hub, peer, served: () => served!, open, close };
}

/** Reads a stream to its end; its bytes' sha256 and count, and its close reason. */
async function readAll(st: OpenedStream): Promise<{ sha: string; bytes: number; reason: string | null }> {
  const h = createHash('sha256');
  let bytes = 0;
  try {
    for await (const c of st as AsyncIterable<Buffer>) {
      h.update(c);
      bytes += c.length;
    }
  } catch {
    // the reason is in closeReason
  }
  return { sha: h.digest('hex'), bytes, reason: st.closeReason };
}

const whole = createHash('sha256');
for (let off = 0; off < TOTAL; off += WRITE) whole.update(floodBytes(off, WRITE));
const WHOLE_SHA = whole.digest('hex');

test('a stream whose opener does not read is paused: the sink waits at the window, nothing is cut, and reading resumes it to the last byte, in order', async () => {
  const l = await setup();
  const { st, flood, most } = l.open(LINK_STREAM_WINDOW_BYTES);
  // Nobody reads. The server sends its window and its write then waits for credit.
  await waitFor(() => l.served().waitingForCredit === 1, { what: 'the server\'s write to wait for credit' });
  await waitFor(() => st.readableLength === LINK_STREAM_WINDOW_BYTES, { what: 'the window to arrive' });
  const f = flood()!;
  assert.ok(f.acked <= LINK_STREAM_WINDOW_BYTES, `the handler is held at the window (${f.acked} bytes written)`);
  assert.not.ok(f.done);
  assert.is(f.aborted, null, 'the handler is not ended');
  assert.is(st.closeReason, null, 'the stream is not cut');
  assert.ok(l.peer.pending < LINK_STREAM_WINDOW_BYTES, 'nothing piles up in the server\'s send buffer either');
  // Still paused a round trip later: a Ping through the same pipe comes back, and nothing more came.
  const pongs = l.hub.bytesIn;
  l.hub.send('Ping', { t: 1 });
  await waitFor(() => l.hub.bytesIn > pongs, { what: 'the Pong' });
  assert.is(st.readableLength, LINK_STREAM_WINDOW_BYTES);
  assert.is(l.served().waitingForCredit, 1);

  const got = await readAll(st);
  assert.equal(got, { sha: WHOLE_SHA, bytes: TOTAL, reason: '' }, 'every byte, in order, and a clean end');
  assert.ok(flood()!.done);
  assert.ok(most() <= LINK_STREAM_WINDOW_BYTES, `the opener never held more than its window (${most()} bytes)`);
  l.close();
});

test('a slow reader is fed at its pace and never holds more than the window', async () => {
  const l = await setup();
  const { st, most } = l.open(LINK_STREAM_WINDOW_BYTES);
  const h = createHash('sha256');
  let bytes = 0;
  // Reads a 64 KB piece, then lets the event loop turn, as a reader that writes to disk does.
  await new Promise<void>((resolve, reject) => {
    st.on('readable', function take() {
      let c: Buffer | null;
      while ((c = st.read(64 * 1024) as Buffer | null) !== null) {
        h.update(c);
        bytes += c.length;
        st.off('readable', take);
        setImmediate(() => {
          st.on('readable', take);
          take();
        });
        return;
      }
    });
    st.once('end', resolve);
    st.once('error', reject);
  });
  assert.equal({ sha: h.digest('hex'), bytes }, { sha: WHOLE_SHA, bytes: TOTAL });
  assert.ok(most() <= LINK_STREAM_WINDOW_BYTES, `at most the window held (${most()})`);
  l.close();
});

test('a server that waits for credit past its deadline ends the stream slow, and its handler with it', async () => {
  const l = await setup({ unreadMs: 300 });
  const { st, flood } = l.open(LINK_STREAM_WINDOW_BYTES);
  await waitFor(() => st.closeReason !== null, { what: 'the stream to end' });
  assert.match(String(st.closeReason), /^slow: hub read nothing of the stream for 0 s/);
  await waitFor(() => flood()?.aborted, { what: 'the handler to be aborted' });
  assert.is(flood()!.aborted, 'ended');
  assert.not.ok(flood()!.done && flood()!.acked >= TOTAL, 'the handler did not get to send it all');
  l.close();
});

test('stream senders waiting on the send buffer hear each frame leave, though the transport never refused a write', async () => {
  // An SSH channel takes 2 MB before it refuses a write, and only a refused write is followed by
  // 'drain'; a sender waits for the buffer to fall under LINK_STREAM_HIGH_WATER (1 MB), where
  // nothing is refused. It must be woken as frames leave, not by a timer.
  const out = new PassThrough({ highWaterMark: 8 * 1024 * 1024 });
  const session = new LinkSession(Duplex.from({ readable: new PassThrough(), writable: out }), { host: 'a', bootId: 'a', log: nullLogger, accepts: new Set() }, { hello: () => {}, frame: () => {}, close: () => {} });
  let heard = 0;
  const off = session.onDrain(() => heard++);
  out.resume();
  for (let i = 0; i < 4; i++) session.send('StreamData', { stream: 1, data: Buffer.alloc(64 * 1024) });
  await waitFor(() => heard >= 4, { timeout: 10_000, what: 'a word for each frame that left' });
  assert.is(session.pending, 0);
  off();
});

test('an opener of an older build (no window) is sent to as before: read, it gets every byte; unread, it is cut slow past the pending limit', async () => {
  const l = await setup({ unreadMs: 300 });
  const a = l.open(0);
  assert.equal(await readAll(a.st), { sha: WHOLE_SHA, bytes: TOTAL, reason: '' });
  const b = l.open(0);
  await waitFor(() => b.st.closeReason !== null, { what: 'the unread stream to be cut' });
  assert.match(String(b.st.closeReason), /^slow: the stream was not read/);
  assert.ok(b.most() <= LINK_MAX_PENDING_BYTES);
  l.close();
});

test.run();
