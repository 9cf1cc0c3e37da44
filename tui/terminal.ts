// terminal-kit over a byte stream (notes/stack.md section 5). terminal-kit wants a TTY pair; we
// give it stand-ins that look like one, so it never falls back to the daemon's own stdin, stdout
// or SIGWINCH. Each createTerminal adds process listeners it never removes: we diff them around
// the call and remove exactly those when the client goes. The terminfo is xterm-256color's: with
// plain `xterm` terminal-kit maps all 256 colours through a colour-distance search on every
// create (about 150 ms of the daemon's time per attach).
import { EventEmitter } from 'node:events';
import termkit from 'terminal-kit';

/** The process events terminal-kit listens to (and leaks) per terminal. */
const PROCESS_EVENTS = ['exit', 'asyncExit', 'beforeExit', 'SIGWINCH'] as const;

/** What of terminal-kit's Terminal the TUI uses. */
export interface KitTerminal {
  width: number;
  height: number;
  palette: unknown;
  support: Record<string, unknown>;
}

export interface StreamTerminal {
  readonly term: KitTerminal;
  resize(cols: number, rows: number): void;
  dispose(): void;
}

class FakeTtyOut extends EventEmitter {
  isTTY = true;
  constructor(
    public columns: number,
    public rows: number,
    private readonly sink: (s: string) => void,
  ) {
    super();
  }
  write(s: string | Uint8Array): boolean {
    this.sink(typeof s === 'string' ? s : Buffer.from(s).toString('utf8'));
    return true;
  }
}

class FakeTtyIn extends EventEmitter {
  isTTY = true;
  isRaw = true;
  setRawMode(): this {
    return this;
  }
  pause(): this {
    return this;
  }
  resume(): this {
    return this;
  }
  setEncoding(): this {
    return this;
  }
}

type Listeners = Record<(typeof PROCESS_EVENTS)[number], Function[]>;

function processListeners(): Listeners {
  const out = {} as Listeners;
  for (const ev of PROCESS_EVENTS) out[ev] = process.listeners(ev as 'exit').slice();
  return out;
}

/** A terminal-kit Terminal whose output goes to `sink`, sized cols x rows. */
export function openStreamTerminal(cols: number, rows: number, sink: (s: string) => void): StreamTerminal {
  const out = new FakeTtyOut(cols, rows, sink);
  const input = new FakeTtyIn();
  const before = processListeners();
  const term = (termkit as unknown as { createTerminal(o: object): KitTerminal }).createTerminal({
    stdin: input,
    stdout: out,
    stderr: out,
    generic: 'xterm-256color',
    appId: 'xterm-256color',
    isTTY: true,
    isSSH: true,
  });
  const after = processListeners();
  const added: Array<[string, Function]> = [];
  for (const ev of PROCESS_EVENTS) for (const fn of after[ev]) if (!before[ev].includes(fn)) added.push([ev, fn]);
  let disposed = false;
  return {
    term,
    resize(c, r) {
      out.columns = c;
      out.rows = r;
      out.emit('resize');
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      for (const [ev, fn] of added) process.removeListener(ev, fn as () => void);
      out.removeAllListeners();
      input.removeAllListeners();
    },
  };
}
