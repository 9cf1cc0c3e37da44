// A real terminal for e2e tests: tmux on a private socket running one command, driven with keys
// and read back with capture-pane. Nothing here touches the user's own tmux server.
import { execFileSync } from 'node:child_process';
import { waitFor } from './wait.js';

export class Terminal {
  private static n = 0;
  readonly sock = `tuios-term-test-${process.pid}-${++Terminal.n}`;
  private alive = true;

  constructor(
    private readonly env: Record<string, string>,
    command: string,
    cols = 160,
    rows = 48,
  ) {
    // The command's exit status stays on the screen, so a test can wait for it.
    this.tmux(['new-session', '-d', '-s', 't', '-x', String(cols), '-y', String(rows), `${command}; echo "[exited $?]"; sleep 600`]);
  }

  tmux(args: string[]): string {
    const env: Record<string, string> = { ...this.env };
    delete env.TMUX;
    return execFileSync('tmux', ['-L', this.sock, '-f', '/dev/null', ...args], { env, encoding: 'utf8' });
  }

  keys(...k: string[]): void {
    this.tmux(['send-keys', '-t', 't', ...k]);
  }

  type(text: string): void {
    this.tmux(['send-keys', '-t', 't', '-l', text]);
  }

  /** Pastes a file's text as a terminal does: bracketed when the program asked (tmux paste-buffer -p). */
  pasteFile(file: string): void {
    this.tmux(['load-buffer', '-b', 'tuios-test', file]);
    this.tmux(['paste-buffer', '-p', '-d', '-b', 'tuios-test', '-t', 't']);
  }

  screen(): string {
    return this.tmux(['capture-pane', '-p', '-t', 't']);
  }

  async wait(re: RegExp, what = String(re), timeout = 20_000): Promise<string> {
    return waitFor(() => {
      const s = this.screen();
      return re.test(s) ? s : null;
    }, { timeout, what: `${what} on the terminal` }).catch((e) => {
      throw new Error(`${(e as Error).message}\n--- screen ---\n${this.screen()}`);
    });
  }

  resize(cols: number, rows: number): void {
    this.tmux(['resize-window', '-t', 't', '-x', String(cols), '-y', String(rows)]);
  }

  kill(): void {
    if (!this.alive) return;
    this.alive = false;
    try {
      this.tmux(['kill-server']);
    } catch {
      // already gone
    }
  }
}

/**
 * `tuios attach -s SESSION` in a new terminal, the agents view opened (ctrl+b i), and the reply
 * editor on the agent whose row matches `row` (`r`): where a reply test starts typing.
 */
export async function openReply(env: Record<string, string>, bin: string, session: string, row: RegExp): Promise<Terminal> {
  const t = new Terminal(env, `${process.execPath} ${bin} attach -s ${session}`);
  await t.wait(/┌─ /, 'the TUI');
  t.keys('C-b', 'i');
  await t.wait(new RegExp(`${row.source}[\\s\\S]*r reply`, row.flags), 'the agent row and the list\'s keys');
  t.keys('r');
  await t.wait(/Reply to /, 'the reply editor');
  return t;
}
