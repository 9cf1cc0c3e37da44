// Byte streams a linked host may open on this machine, by kind: a pane's screen (the link's own
// `pane`), and what other parts register at start-up (worktree pull's packs). Core owns the
// registry so a part of core can serve a kind without importing the link; the link looks kinds up
// when a StreamOpen arrives and holds the opener to the right the kind names.
import type { Readable } from 'node:stream';

/** The [hosts] policy right a linked host needs to open a kind. */
export type LinkRight = 'list' | 'write' | 'respond' | 'files';

/** What a stream handler writes into; `write` resolves once the link has room again. */
export interface StreamSink {
  write(data: Buffer): Promise<void>;
  /** Ends the stream: `code: words` for a failure, nothing for a clean end. */
  end(reason?: string): void;
  /**
   * Aborted when the opener closes the stream or the link drops; `signal.reason` says which:
   * 'closed' (the opener closed it), 'link' (the link went), 'ended' (this side ended it).
   */
  readonly signal: AbortSignal;
  /** Bytes the opener sends (a hosted pane's input); one listener, each frame's data as it came. */
  onInput(fn: (data: Buffer) => void): void;
  /** The opener's control words (resize, pause, ...); one listener. Params are a parsed object. */
  onControl(fn: (op: string, params: Record<string, unknown>) => void): void;
  /** A control word to the opener; false when it did not go (link closed, or the peer reads none). */
  control(op: string, params: Record<string, unknown>): boolean;
  /**
   * A verb call to the opener's machine run there as its window `asWindow` and nothing else
   * (a hosted pane's report). The answer, or the opener's typed error. `timeoutMs`: how long to
   * wait for it (a wait's own budget); default the link's generic cap. The link dropping rejects
   * it at once with host_down.
   */
  callAs(asWindow: string, verb: string, params: Record<string, unknown>, signal: AbortSignal, timeoutMs?: number): Promise<unknown>;
  /** The host that opened the stream. */
  readonly host: string;
}

/** A kind of stream a linked host may open here; `C` is what it is opened with (the daemon's services). */
export interface StreamKind<C = unknown> {
  right: LinkRight;
  /** Starts serving; a throw (a TuiosError) ends the stream with its code and message. */
  open(ctx: C, params: Record<string, unknown>, sink: StreamSink, host: string): void | Promise<void>;
}

/** A stream this machine opened on a linked host: its bytes, and why it ended. */
export type RemoteStream = Readable & {
  /** null while it runs; '' after a clean end; `code: words` after a failure. */
  readonly closeReason: string | null;
  /** Bytes to the serving side (a hosted pane's input); false once the stream or link is gone. */
  input(data: Buffer): boolean;
  /** A control word to the serving side; false when it did not go. */
  control(op: string, params: Record<string, unknown>): boolean;
  /** The serving side's control words; one listener. */
  onControl(fn: (op: string, params: Record<string, unknown>) => void): void;
};

export class StreamKinds<C = unknown> {
  private readonly kinds = new Map<string, StreamKind<C>>();

  register(name: string, k: StreamKind<C>): () => void {
    if (!/^[a-z][a-z0-9-]{0,31}$/.test(name)) throw new Error(`a link stream kind is lowercase letters, digits and -, not ${JSON.stringify(name)}`);
    if (this.kinds.has(name)) throw new Error(`the link stream kind ${name} is registered twice`);
    this.kinds.set(name, k);
    return () => this.kinds.delete(name);
  }

  get(name: string): StreamKind<C> | undefined {
    return this.kinds.get(name);
  }
}

/** Params another machine sent as JSON text: an object, else null (a bad one is never an exception). */
export function jsonObject(text: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
