// A replica fed by the link's pane stream shows what the pane shows: the stream starts with the
// pane's size and its serialized screen, relays what the pane prints, and after a resize sends
// the new size with the screen again, so the replica's cells match the pane's own, row for row.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Readable } from 'node:stream';
import { paneStream } from '../../link/serve/pane-stream.js';
import { Replica } from '../../tui/replica.js';
import { Emulator } from '../../core/screen/emulator.js';
import type { Services } from '../../core/daemon/services.js';
import type { StreamSink } from '../../core/hosts/streams.js';

const tick = () => new Promise((r) => setImmediate(r));

/** A pane here (its emulator and output listeners), and the bus events the stream listens to. */
function host() {
  const screen = new Emulator({ cols: 40, rows: 6, scrollback: 100 });
  const outs = new Set<(w: unknown, chunk: Buffer) => void>();
  const subs = new Map<string, Set<(ev: unknown) => void>>();
  const w = {
    id: 'w1',
    screen,
    onOutput(fn: (w: unknown, chunk: Buffer) => void) {
      outs.add(fn);
      return { dispose: () => outs.delete(fn) };
    },
  };
  const svc = {
    model: { findSession: () => undefined, findWindow: () => w },
    bus: {
      on(type: string, fn: (ev: unknown) => void) {
        const s = subs.get(type) ?? new Set();
        s.add(fn);
        subs.set(type, s);
        return { dispose: () => s.delete(fn) };
      },
    },
  } as unknown as Services;
  return {
    w,
    svc,
    print(s: string) {
      screen.write(s);
      for (const f of outs) f(w, Buffer.from(s));
    },
    resize(cols: number, rows: number) {
      screen.resize(cols, rows);
      for (const f of subs.get('window-resized') ?? []) f({ window_id: 'w1', cols, rows });
    },
    listeners: () => outs.size + [...subs.values()].reduce((n, s) => n + s.size, 0),
  };
}

test('a replica fed by the pane stream matches the pane, and again after the pane is resized', async () => {
  const h = host();
  h.print('first line\r\nsecond \x1b[1mbold\x1b[0m line\r\n');
  const stream = Object.assign(new Readable({ read() {} }), { closeReason: null as string | null });
  const ctl = new AbortController();
  const sink = { signal: ctl.signal, write: async (b: Buffer) => void stream.push(b), end: () => void stream.push(null) } as unknown as StreamSink;
  await paneStream.open(h.svc, { window: 'w1' }, sink, 'hub');
  const view = { remote: { openStream: () => stream } } as unknown as Services;
  const r = new Replica(view, 'build', 'w1', 80, 24, () => {});
  await tick();
  assert.equal([r.source.cols, r.source.rows], [40, 6], 'the pane\'s size, not the viewer\'s');
  assert.equal(r.screen.screenLines(), h.w.screen.screenLines());
  h.print('third line, printed while the replica watches');
  await tick();
  assert.equal(r.screen.screenLines(), h.w.screen.screenLines());
  // Narrower: the pane reflows with scrollback the replica does not hold; it gets the screen again.
  h.resize(20, 4);
  await tick();
  assert.equal([r.source.cols, r.source.rows], [20, 4]);
  assert.equal(r.screen.screenLines(), h.w.screen.screenLines());
  assert.equal(r.screen.cursor, h.w.screen.cursor);
  // The viewer goes: the stream's listeners go with it.
  ctl.abort();
  assert.is(h.listeners(), 0);
  r.dispose();
});

test.run();
