// How much one connection may have waiting on the daemon. A client that pipelines requests and
// does not read the replies would otherwise have them all run and all queued for writing: 5,000
// `list-verbs` took a daemon from 140 MB to over 1 GB (issue 26). Here a line is started only
// while the connection's unread replies and its requests still running are under their limits;
// past them the socket stops being read (the kernel then holds the client's writes, and the
// client blocks), and reading resumes when the client drains or a request finishes.
//
// A verb that answers at once still answers a turn later (the dispatcher awaits the handler), so
// the bytes of lines started in one go show up only after it: at most `perTurn` lines start in
// one go before the rest wait for the next turn, which bounds what can pass the limit unseen.
import { CONNECTION_MAX_PENDING_BYTES, CONNECTION_MAX_IN_FLIGHT, CONNECTION_MAX_IN_FLIGHT_BYTES, CONNECTION_LINES_PER_TURN } from '../limits.js';

export interface FlowIo {
  /** Bytes written to the connection that the client has not read yet. */
  pendingBytes(): number;
  /** Stop and restart reading the connection. */
  pause(): void;
  resume(): void;
  /** Runs one request; resolves once its answer (or its stream's first answer) is out. */
  run(line: string): Promise<void>;
}

export interface FlowLimits {
  maxPendingBytes: number;
  maxInFlight: number;
  maxInFlightBytes: number;
  perTurn: number;
}

export const DEFAULT_FLOW_LIMITS: FlowLimits = {
  maxPendingBytes: CONNECTION_MAX_PENDING_BYTES,
  maxInFlight: CONNECTION_MAX_IN_FLIGHT,
  maxInFlightBytes: CONNECTION_MAX_IN_FLIGHT_BYTES,
  perTurn: CONNECTION_LINES_PER_TURN,
};

export class RequestFlow {
  /** Lines read but not started: at most what one read of the socket held, since reading pauses while any wait. */
  private readonly waiting: string[] = [];
  private inFlight = 0;
  private inFlightBytes = 0;
  private turnScheduled = false;
  private paused = false;
  private closed = false;

  constructor(
    private readonly io: FlowIo,
    private readonly lim: FlowLimits = DEFAULT_FLOW_LIMITS,
  ) {}

  /** A whole line from the connection. */
  push(line: string): void {
    if (this.closed) return;
    this.waiting.push(line);
    this.pump();
  }

  /** The connection wrote out what was pending. */
  drained(): void {
    this.pump();
  }

  /** The connection is gone: nothing more starts. */
  close(): void {
    this.closed = true;
    this.waiting.length = 0;
  }

  /** For tests and figures: requests running, lines waiting, reading paused. */
  get state(): { inFlight: number; waiting: number; paused: boolean } {
    return { inFlight: this.inFlight, waiting: this.waiting.length, paused: this.paused };
  }

  private pump(): void {
    if (this.closed) return;
    let started = 0;
    while (this.waiting.length > 0 && this.mayStart(this.waiting[0]!.length)) {
      if (started >= this.lim.perTurn) {
        this.nextTurn();
        break;
      }
      const line = this.waiting.shift()!;
      started++;
      this.inFlight++;
      this.inFlightBytes += line.length;
      void this.io.run(line).finally(() => {
        this.inFlight--;
        this.inFlightBytes -= line.length;
        this.pump();
      });
    }
    const hold = this.waiting.length > 0 || !this.mayStart(0);
    if (hold && !this.paused) {
      this.paused = true;
      this.io.pause();
    } else if (!hold && this.paused) {
      this.paused = false;
      this.io.resume();
    }
  }

  private mayStart(lineBytes: number): boolean {
    if (this.io.pendingBytes() >= this.lim.maxPendingBytes) return false;
    if (this.inFlight === 0) return true; // one request always runs, however large its line
    return this.inFlight < this.lim.maxInFlight && this.inFlightBytes + lineBytes <= this.lim.maxInFlightBytes;
  }

  private nextTurn(): void {
    if (this.turnScheduled) return;
    this.turnScheduled = true;
    setImmediate(() => {
      this.turnScheduled = false;
      this.pump();
    });
  }
}
