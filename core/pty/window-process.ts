// What a window needs of the process behind it: bytes out, bytes in, size, flow control, an end.
// A PTY on this machine (pane-process.ts) and a process on a linked host (core/hosts/hosted-pane.ts)
// both implement it; the window and the emulator cannot tell them apart.
import type { ProcReader } from './procfs.js';

export interface ExitStatus {
  code: number | null;
  signal: number | null;
  /**
   * Why it ended when that is not the program's own exit: set by a process on another machine
   * whose link dropped (`disconnected: ...`) or that host refused to start it (`forbidden: ...`).
   */
  reason?: string;
}

/**
 * The process tree of a pane whose /proc is not this machine's (a pane on another machine), as
 * last read there: the detector identifies its foreground program from it as it does from /proc.
 */
export interface ProcView {
  /** The pane's own process, in the reader's pids. */
  pid: number;
  /** The foreground process group of its terminal; 0 when unknown. */
  tpgid: number;
  leaderStart: number | null;
  reader: ProcReader;
}

export interface WindowProcess {
  /** Its pid on this machine, for /proc; null when it runs on another machine. */
  readonly pid: number | null;
  /** Its terminal device on this machine (/dev/pts/N); null when there is none here. */
  readonly ttyName: string | null;
  /** The linked host it runs on; null for this machine. */
  readonly host: string | null;
  readonly exitStatus: ExitStatus | null;
  readonly isPaused: boolean;
  /** The one listener for its output (the window's feed). */
  onData(fn: (data: Buffer) => void): void;
  /** Called once when it ends; at once when it already has. */
  onExit(fn: (s: ExitStatus) => void): void;
  write(data: string | Buffer): void;
  resize(cols: number, rows: number): void;
  /** Stops reading its output (the emulator is behind); the program blocks in write(2). */
  pause(): void;
  resume(): void;
  kill(signal?: string): void;
  /**
   * The foreground process group of its terminal here, asked of the terminal itself (0: none);
   * null when that cannot be asked (then /proc/PID/stat says it).
   */
  foregroundGroup?(): number | null;
  /** Where /proc here cannot be read for it (pid null): its tree as read where it runs. */
  procView?(): ProcView | null;
}
