// Where a call's answers go: a socket connection, an in-process caller, a link. The dispatcher
// writes to it and reads from it whether the peer still reads.
export interface Responder {
  send(msg: object): void;
  /** Bytes written but not yet taken by the peer: how a slow reader is told apart. */
  pendingBytes(): number;
  close(): void;
  readonly signal: AbortSignal;
}
