// A replica of a pane on a linked host: an emulator here fed by the link's `pane` stream (the
// pane's serialized screen, then what it prints). The TUI draws it through a ScreenSource like
// any pane. The stream gives the pane's size as `CSI 8 ; rows ; cols t` first and after each
// resize (link/serve/pane-stream.ts); the replica takes that size, so the host's bytes land in
// the same grid. A stream that ends (the link dropped, the pane closed, a refusal) leaves the last
// screen and the reason; nothing here throws into the TUI.
import { Emulator } from '../core/screen/emulator.js';
import type { Services } from '../core/daemon/services.js';
import type { RemoteStream } from '../core/hosts/streams.js';
import { MAX_COLS, MAX_ROWS, MIN_COLS } from '../core/limits.js';
import { LocalSource, type ScreenSource } from './source.js';

export type ReplicaState = { kind: 'connecting' } | { kind: 'live' } | { kind: 'closed'; reason: string };

const SIZE_SEQ = /\x1b\[8;(\d{1,5});(\d{1,5})t/g;

/** A chunk of the stream split at the size reports it holds: text to parse, and sizes to take. */
export function splitSizes(chunk: string): Array<{ text: string } | { cols: number; rows: number }> {
  const out: Array<{ text: string } | { cols: number; rows: number }> = [];
  let at = 0;
  for (const m of chunk.matchAll(SIZE_SEQ)) {
    if (m.index! > at) out.push({ text: chunk.slice(at, m.index) });
    out.push({ rows: Number(m[1]), cols: Number(m[2]) });
    at = m.index! + m[0].length;
  }
  if (at < chunk.length) out.push({ text: chunk.slice(at) });
  return out;
}

export class Replica {
  readonly screen: Emulator;
  readonly source: ScreenSource;
  state: ReplicaState = { kind: 'connecting' };
  private stream: RemoteStream | null = null;
  private disposed = false;
  private readonly decoder = new TextDecoder('utf-8');

  constructor(
    svc: Services,
    readonly host: string,
    readonly window: string,
    cols: number,
    rows: number,
    private readonly changed: () => void,
  ) {
    this.screen = new Emulator({ cols: clamp(cols, MIN_COLS, MAX_COLS), rows: clamp(rows, 1, MAX_ROWS), scrollback: 0 });
    this.source = new LocalSource(this);
    try {
      if (!svc.remote) throw new Error('this daemon has no link between hosts');
      this.stream = svc.remote.openStream(host, 'pane', { window });
    } catch (e) {
      this.end(e instanceof Error ? e.message : String(e));
      return;
    }
    const st = this.stream;
    st.on('data', (b: Buffer) => {
      // A stream handler runs outside the TUI's guard: a failure ends this replica, nothing else.
      try {
        this.feed(b);
      } catch (e) {
        svc.log.error('replica failed; its stream is closed', { host, window, error: e instanceof Error ? e.stack : String(e) });
        this.end('the replica could not parse the pane; open it again');
        st.destroy();
      }
    });
    st.on('end', () => this.end(st.closeReason || 'the pane closed there'));
    st.on('error', (e: Error) => this.end(st.closeReason || e.message));
    st.on('close', () => this.end(st.closeReason || 'the stream closed'));
  }

  private feed(b: Buffer): void {
    if (this.disposed || this.state.kind === 'closed') return;
    // A character split between two frames waits in the decoder for its other half.
    for (const part of splitSizes(this.decoder.decode(b, { stream: true }))) {
      if ('text' in part) this.screen.write(part.text);
      else if (part.cols !== this.screen.cols || part.rows !== this.screen.rows) this.screen.resize(clamp(part.cols, MIN_COLS, MAX_COLS), clamp(part.rows, 1, MAX_ROWS));
    }
    this.state = { kind: 'live' };
    this.changed();
  }

  private end(reason: string): void {
    if (this.state.kind === 'closed') return;
    this.state = { kind: 'closed', reason: reason.replace(/[\x00-\x1f\x7f-\x9f]/g, ' ').slice(0, 300) };
    if (!this.disposed) this.changed();
  }

  /** Closes the stream (the view is gone); the host stops sending. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.source.dispose?.();
    this.stream?.destroy();
    this.stream = null;
    this.screen.dispose();
  }
}

function clamp(n: number, lo: number, hi: number): number {
  return Math.max(lo, Math.min(hi, Math.floor(n) || lo));
}
