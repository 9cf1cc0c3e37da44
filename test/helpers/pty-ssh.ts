// The real OpenSSH client (`ssh -tt`), or `tuios attach` itself, on a PTY the test owns (node-pty),
// so the test reads every byte the person's terminal would get: OSC notifications, titles and BELs
// that tmux would eat.
import * as pty from 'node-pty';
import xterm from '@xterm/headless';
import type { TestDaemon } from './daemon.js';
import { sshOptions, type SshKey } from './ssh.js';
import { waitFor } from './wait.js';

const { Terminal } = xterm as unknown as { Terminal: typeof import('@xterm/headless').Terminal };

/** A program on a PTY the test owns, with every byte it writes kept and drawn by an emulator. */
export class PtyClient {
  private readonly p: pty.IPty;
  private buf = '';
  /** The same bytes drawn by a terminal emulator, for what the screen shows. */
  private readonly term: InstanceType<typeof Terminal>;
  exited: number | null = null;
  private readonly watchers = new Set<(buf: string, at: number) => void>();

  constructor(file: string, args: string[], env: Record<string, string>, cols = 140, rows = 40) {
    this.term = new Terminal({ cols, rows, allowProposedApi: true });
    this.p = pty.spawn(file, args, { name: 'xterm-256color', cols, rows, env: { ...env, TERM: 'xterm-256color' } });
    this.p.onData((s) => {
      this.buf += s;
      for (const w of this.watchers) w(this.buf, Date.now());
      this.term.write(s);
    });
    this.p.onExit((e) => (this.exited = e.exitCode));
  }

  /** Everything received so far, or since `mark` (a length from mark()). */
  bytes(mark = 0): string {
    return this.buf.slice(mark);
  }

  mark(): number {
    return this.buf.length;
  }

  /** The text drawn, without escape sequences (what a person reads, in drawing order). */
  text(mark = 0): string {
    return stripEscapes(this.bytes(mark));
  }

  async waitBytes(pred: (b: string) => boolean, what: string, mark = 0, timeout = 20_000): Promise<string> {
    return waitFor(() => (pred(this.bytes(mark)) ? this.bytes(mark) : null), { what, timeout }).catch((e: Error) => {
      throw new Error(`${e.message}\n--- received (escapes shown) ---\n${JSON.stringify(this.bytes(mark).slice(-1500))}`);
    });
  }

  /** The screen as the emulator drew it (written bytes are parsed asynchronously: wait on it). */
  screen(): string {
    const b = this.term.buffer.active;
    const lines: string[] = [];
    for (let i = 0; i < this.term.rows; i++) lines.push(b.getLine(b.baseY + i)?.translateToString(true) ?? '');
    return lines.join('\n');
  }

  async waitScreen(re: RegExp, what: string, timeout = 20_000): Promise<string> {
    return waitFor(() => (re.test(this.screen()) ? this.screen() : null), { what, timeout }).catch((e: Error) => {
      throw new Error(`${e.message}\n--- screen ---\n${this.screen()}`);
    });
  }

  /** The time (Date.now) at which the bytes since `mark` first satisfied `pred`, as they arrived. */
  arrival(pred: (b: string) => boolean, mark: number, timeout = 20_000): Promise<number> {
    return new Promise((resolve, reject) => {
      const check = (buf: string, at: number) => {
        if (!pred(buf.slice(mark))) return;
        this.watchers.delete(check);
        clearTimeout(t);
        resolve(at);
      };
      const t = setTimeout(() => {
        this.watchers.delete(check);
        reject(new Error(`no matching bytes within ${timeout} ms`));
      }, timeout);
      this.watchers.add(check);
      check(this.buf, Date.now());
    });
  }

  write(s: string): void {
    this.p.write(s);
  }

  kill(): void {
    this.term.dispose();
    try {
      this.p.kill();
    } catch {
      // already gone
    }
  }
}

/** The real OpenSSH client (`ssh -tt`) into tuios's SSH server. */
export class SshPty extends PtyClient {
  constructor(d: TestDaemon, port: number, key: SshKey, cols = 140, rows = 40) {
    super('ssh', ['-tt', ...sshOptions(d, port, key), '127.0.0.1'], d.env, cols, rows);
  }
}

/** OSC (BEL or ST terminated), CSI and two-byte escapes removed. */
export function stripEscapes(s: string): string {
  return s
    .replace(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g, '')
    .replace(/\x1b\[[0-9;?<>=!]*[ -/]*[@-~]/g, '')
    .replace(/\x1b[()][0-9A-Za-z]/g, '')
    .replace(/\x1b[=>78DEHMNOPZc]/g, '');
}

/** Notification escapes (OSC 9, 777, 99: one per notification; OSC 99 sends two parts with one id). */
export function notifications(s: string): string[] {
  const out: string[] = [];
  for (const m of s.matchAll(/\x1b\](9|777|99);([^\x07\x1b]*)(?:\x07|\x1b\\)/g)) {
    if (m[1] === '99' && /^i=[^;]*:d=0;/.test(m[2]!)) continue;
    out.push(`${m[1]};${m[2]}`);
  }
  return out;
}

/** BELs that ring: not the terminator of an OSC. */
export function bells(s: string): number {
  return (s.replace(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g, '').match(/\x07/g) ?? []).length;
}
