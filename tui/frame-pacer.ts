// When a client's next frame is drawn: at most one per FRAME_INTERVAL_MS, except a typed key's
// echo, which is drawn as soon as the pane has printed it. The TUI asks; the pacer runs `frame`.
import { ECHO_FRAME_GAP_MS, ECHO_WINDOW_MS, FRAME_INTERVAL_MS } from './limits.js';

export class FramePacer {
  private timer: { cancel(): void } | null = null;
  private lastFrameAt = 0;
  /** When a key last went to a pane, until its echo's frame is drawn (0: no echo awaited). */
  private keyAt = 0;
  /** When the last frame drawn out of the pacing for an echo was. */
  private lastEchoAt = 0;
  /** The frame being drawn is a typed key's echo. */
  drawingEcho = false;

  constructor(private readonly frame: () => void) {}

  /** A frame soon: at once when due, else when the pacing allows. `output`: asked by a pane's
   *  output, which is parsed already, so a due frame runs as soon as this callback returns. */
  request(output: boolean): void {
    const now = Date.now();
    // The first output after a key that went to the pane is taken as its echo, and drawn now
    // rather than when the pacing would allow: a key typed within FRAME_INTERVAL_MS of the last
    // frame (a person typing at 30 keys a second) would otherwise wait for the timer. One such
    // frame per key, and no closer than ECHO_FRAME_GAP_MS, so a flood still gets the cap.
    const echo = output && this.keyAt > 0 && now - this.keyAt <= ECHO_WINDOW_MS && now - this.lastEchoAt >= ECHO_FRAME_GAP_MS;
    if (this.timer && !echo) return;
    this.timer?.cancel();
    this.timer = null;
    if (echo) {
      this.keyAt = 0;
      this.lastEchoAt = now;
    }
    const wait = echo ? 0 : Math.max(0, this.lastFrameAt + FRAME_INTERVAL_MS - now);
    const run = () => {
      this.timer = null;
      this.frame();
    };
    // A typed key's echo is drawn inside the output's callback: it is parsed already, and what
    // else listens to that output (detection's timers, a link's stream) can wait for the frame,
    // which the person is waiting for.
    if (echo) {
      this.drawingEcho = true;
      try {
        return run();
      } finally {
        this.drawingEcho = false;
      }
    }
    // Other output due now: after this turn's other listeners, which may ask for the same frame.
    if (wait === 0 && output) {
      let live = true;
      queueMicrotask(() => {
        if (live) run();
      });
      this.timer = { cancel: () => (live = false) };
      return;
    }
    // Due now: after this turn's other events (they share the frame), without a timer's extra
    // millisecond, which a typed key's echo would wait for.
    if (wait === 0) {
      const im = setImmediate(run);
      this.timer = { cancel: () => clearImmediate(im) };
    } else {
      const t = setTimeout(run, wait);
      t.unref();
      this.timer = { cancel: () => clearTimeout(t) };
    }
  }

  /** A key went to the pane and its echo's frame is not drawn yet: the pane's next output is it. */
  echoAwaited(now: number): boolean {
    return this.keyAt > 0 && now - this.keyAt <= ECHO_WINDOW_MS;
  }

  /** Keys went to the pane: its next output is their echo. */
  keyToPane(at: number): void {
    this.keyAt = at;
  }

  /** A frame is drawn now; returns when the one before was. */
  started(now: number): number {
    const previous = this.lastFrameAt;
    this.lastFrameAt = now;
    return previous;
  }

  /**
   * The frame sent nothing (a key that only went to the pane): the pacing bounds what frames cost
   * the client, so it does not hold back the next one, which draws that key's echo at once.
   */
  sentNothing(previousAt: number): void {
    this.lastFrameAt = previousAt;
  }

  cancel(): void {
    this.timer?.cancel();
    this.timer = null;
  }
}

/** What a client's frames cost, for the frame bench and its tests. */
export interface FrameStats {
  frames: number;
  cells: number;
  bytes: number;
  /** CPU the process spent while frames were composed and sent, in ms (all its threads). */
  cpuMs: number;
  /** Wall time of composing and sending frames, in ms (the frame is synchronous). */
  wallMs: number;
  /** Frames that drew pane output alone (see panesOnly). */
  paneFrames: number;
  /** Typed keys' echoes sent ahead of their parse and frame (echo-ahead.ts). */
  echoesAhead: number;
}
