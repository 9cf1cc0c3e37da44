// The `pane` stream: a pane's screen for a replica emulator on another machine. It starts with the
// serialized screen (a snapshot with modes, not a byte log), then relays the bytes the pane prints
// as they are parsed here, and ends when the pane closes. The pane's size goes first, and again
// with a fresh snapshot when it changes, as `CSI 8 ; rows ; cols t` (see paneSizeSeq). A viewer
// that cannot keep up is ended (`slow`) rather than buffered without bound; it opens the stream
// again for a fresh snapshot.
import type { StreamKind } from '../../core/hosts/streams.js';
import type { Services } from '../../core/daemon/services.js';
import { TuiosError } from '../../core/errors.js';
import { LINK_MAX_PENDING_BYTES } from '../../core/limits.js';

export const paneStream: StreamKind<Services> = {
  right: 'list',
  open(svc, params, sink) {
    const ref = typeof params.window === 'string' ? params.window : '';
    if (!ref) throw new TuiosError('invalid_params', 'A pane stream names its window.');
    const scope = typeof params.session === 'string' ? svc.model.findSession(params.session) : undefined;
    const w = svc.model.findWindow(ref, scope);
    let queued = 0;
    let chain = Promise.resolve();
    const send = (b: Buffer) => {
      queued += b.length;
      if (queued > LINK_MAX_PENDING_BYTES) return sink.end('slow: the viewer fell behind; open the stream again');
      chain = chain.then(() => sink.write(b)).then(() => {
        queued -= b.length;
      });
    };
    send(Buffer.from(paneSizeSeq(w.screen.cols, w.screen.rows) + w.screen.serialize()));
    const out = w.onOutput((_w, chunk) => send(chunk));
    const gone = svc.bus.on('window-closed', (ev) => {
      if (ev.window_id === w.id) void chain.then(() => sink.end());
    });
    // A resize reflows with scrollback the replica does not hold: it gets the screen again.
    const resized = svc.bus.on('window-resized', (ev) => {
      if (ev.window_id === w.id) send(Buffer.from(paneSizeSeq(ev.cols, ev.rows) + '\x1bc' + w.screen.serialize()));
    });
    sink.signal.addEventListener('abort', () => {
      out.dispose();
      gone.dispose();
      resized.dispose();
    });
  },
};

/** The pane's size in its stream, as xterm's window-size report reads (a replica resizes to it). */
export function paneSizeSeq(cols: number, rows: number): string {
  return `\x1b[8;${rows};${cols}t`;
}
