// The `pane` stream: a pane's screen for a replica emulator on another machine. It starts with the
// serialized screen (a snapshot with modes, not a byte log), then relays the bytes the pane prints
// as they are parsed here, and ends when the pane closes. A viewer that cannot keep up is ended
// (`slow`) rather than buffered without bound; it opens the stream again for a fresh snapshot.
import type { StreamKind } from '../../core/hosts/streams.js';
import { TuiosError } from '../../core/errors.js';
import { LINK_MAX_PENDING_BYTES } from '../../core/limits.js';

export const paneStream: StreamKind = {
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
    send(Buffer.from(w.screen.serialize()));
    const out = w.onOutput((_w, chunk) => send(chunk));
    const gone = svc.bus.on('window-closed', (ev) => {
      if (ev.window_id === w.id) void chain.then(() => sink.end());
    });
    sink.signal.addEventListener('abort', () => {
      out.dispose();
      gone.dispose();
    });
  },
};
