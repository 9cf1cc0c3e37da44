// A real daemon in its own temp folders, driven like a user drives it: through the built CLI
// (`bin/tuios.cjs`) and the socket. Nothing here touches the user's own tuios.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync, chmodSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RpcClient } from '../../core/rpc/client.js';
import { waitFor } from './wait.js';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BIN = join(ROOT, 'bin', 'tuios.cjs');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface DaemonOptions {
  /** config.toml text written before the daemon starts. */
  config?: string;
  env?: Record<string, string>;
  /** Start it now (default) or leave it to the first CLI call's auto-start. */
  start?: boolean;
  /** Run the SSH server (on a free port of 127.0.0.1); off by default so daemons never collide. */
  ssh?: boolean;
  /** A command the daemon runs under (`ip netns exec NS`), which must exec it in place. */
  prefix?: string[];
}

const live = new Set<TestDaemon>();
process.on('exit', () => {
  for (const d of live) d.killNow();
});

export class TestDaemon {
  readonly dir: string;
  readonly home: string;
  readonly socket: string;
  readonly env: Record<string, string>;
  private proc: ChildProcess | null = null;
  private clients: RpcClient[] = [];
  private readonly prefix: string[];
  /** What the daemon printed at start (its socket, the ssh command), for tests of those lines. */
  stdout = '';

  private constructor(opts: DaemonOptions) {
    this.dir = mkdtempSync(join(tmpdir(), 'tuios-test-'));
    this.home = join(this.dir, 'home');
    const run = join(this.dir, 'run');
    for (const d of [this.home, run, join(this.dir, 'config', 'tuios'), join(this.dir, 'state')]) mkdirSync(d, { recursive: true });
    chmodSync(run, 0o700);
    this.socket = join(run, 'tuios', 'tuios.sock');
    this.env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: this.home,
      USER: process.env.USER ?? 'root',
      LANG: 'C.UTF-8',
      TERM: 'xterm-256color',
      SHELL: '/bin/sh',
      XDG_RUNTIME_DIR: run,
      XDG_CONFIG_HOME: join(this.dir, 'config'),
      XDG_STATE_HOME: join(this.dir, 'state'),
      TUIOS_SERVER: this.socket,
      // Every result is checked against its verb's result schema (core/rpc/dispatch.ts).
      TUIOS_CHECK_RESULTS: '1',
      ...opts.env,
    };
    this.prefix = opts.prefix ?? [];
    // Tests never take the default SSH port: the server is off, or on a port the kernel picks.
    const sshTable = opts.ssh ? '[ssh]\nlisten = "127.0.0.1:0"\n' : '[ssh]\nenabled = false\n';
    const cfg = opts.config ?? '';
    writeFileSync(join(this.dir, 'config', 'tuios', 'config.toml'), /^\[ssh\]/m.test(cfg) ? cfg : `${cfg}\n${sshTable}`);
    live.add(this);
  }

  static async start(opts: DaemonOptions = {}): Promise<TestDaemon> {
    const d = new TestDaemon(opts);
    if (opts.start !== false) await d.spawn();
    return d;
  }

  get pid(): number | null {
    return this.proc?.pid ?? null;
  }

  /** Starts `tuios daemon --foreground` as a child and waits until it answers. */
  async spawn(): Promise<void> {
    // TUIOS_TEST_NODE_ARGS: node's own flags for this daemon (--cpu-prof and the like, which
    // NODE_OPTIONS refuses), for a bench to profile one daemon of several.
    const nodeArgs = (this.env.TUIOS_TEST_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const argv = [...this.prefix, process.execPath, ...nodeArgs, BIN, 'daemon', '--foreground'];
    const p = spawn(argv[0]!, argv.slice(1), { env: this.env, stdio: ['ignore', 'pipe', 'pipe'], cwd: this.home });
    this.proc = p;
    let err = '';
    p.stderr!.on('data', (d) => (err += d));
    this.stdout = '';
    p.stdout!.on('data', (d) => (this.stdout = (this.stdout + d).slice(-64 * 1024)));
    await waitFor(async () => {
      if (p.exitCode !== null) throw new Error(`daemon exited ${p.exitCode}: ${err}`);
      return this.answers();
    }, { timeout: 30_000, what: 'the daemon to answer' });
  }

  async answers(): Promise<boolean> {
    try {
      const c = await RpcClient.connect(this.socket, { timeoutMs: 1000 });
      c.close();
      return true;
    } catch {
      return false;
    }
  }

  /** Runs the CLI with this daemon's environment. */
  cli(args: string[], opts: { env?: Record<string, string>; timeoutMs?: number; input?: string; cwd?: string } = {}): Promise<CliResult> {
    return new Promise((resolve, reject) => {
      const p = spawn(process.execPath, [BIN, ...args], { env: { ...this.env, ...opts.env }, cwd: opts.cwd ?? this.home, stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      p.stdout.on('data', (d) => (stdout += d));
      p.stderr.on('data', (d) => (stderr += d));
      const t = setTimeout(() => {
        p.kill('SIGKILL');
        reject(new Error(`tuios ${args.join(' ')} ran past ${opts.timeoutMs ?? 60_000} ms\n${stderr}`));
      }, opts.timeoutMs ?? 60_000);
      p.on('close', (code) => {
        clearTimeout(t);
        resolve({ code: code ?? -1, stdout, stderr });
      });
      if (opts.input !== undefined) p.stdin.end(opts.input);
      else p.stdin.end();
    });
  }

  /** The CLI, expecting success; returns stdout. */
  async ok(args: string[], opts?: Parameters<TestDaemon['cli']>[1]): Promise<string> {
    const r = await this.cli(args, opts);
    if (r.code !== 0) throw new Error(`tuios ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
    return r.stdout;
  }

  async json<T = Record<string, unknown>>(args: string[]): Promise<T> {
    return JSON.parse(await this.ok([...args, '--json'])) as T;
  }

  async client(): Promise<RpcClient> {
    const c = await RpcClient.connect(this.socket);
    this.clients.push(c);
    return c;
  }

  async call<T = Record<string, unknown>>(verb: string, params: Record<string, unknown> = {}): Promise<T> {
    const c = await this.client();
    try {
      return await c.call<T>(verb, params);
    } finally {
      c.close();
    }
  }

  /** The visible screen of a window, as text. */
  async screen(window: string): Promise<string> {
    const r = await this.call<{ lines: string[] }>('capture-pane', { window });
    return r.lines.join('\n');
  }

  /** Waits until a window's screen matches. */
  async waitScreen(window: string, re: RegExp, timeout = 20_000): Promise<string> {
    return waitFor(async () => {
      const s = await this.screen(window);
      return re.test(s) ? s : null;
    }, { timeout, what: `${re} on window ${window}` });
  }

  kill9(): void {
    this.proc?.kill('SIGKILL');
  }

  async waitExit(): Promise<void> {
    const p = this.proc;
    if (!p || p.exitCode !== null || p.signalCode !== null) return;
    await new Promise((r) => p.once('exit', r));
  }

  killNow(): void {
    try {
      this.proc?.kill('SIGKILL');
    } catch {
      // gone
    }
  }

  async stop(): Promise<void> {
    for (const c of this.clients) c.close();
    this.clients = [];
    if (this.proc && this.proc.exitCode === null && this.proc.signalCode === null) {
      this.proc.kill('SIGTERM');
      const p = this.proc;
      await Promise.race([new Promise((r) => p.once('exit', r)), new Promise((r) => setTimeout(r, 5000))]);
      if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
    }
    // A daemon the CLI auto-started is not our child: ask it to stop.
    if (await this.answers()) {
      try {
        await this.call('kill-server');
      } catch {
        // it may close the connection before answering
      }
      await waitFor(async () => !(await this.answers()), { timeout: 10_000, what: 'the daemon to stop' }).catch(() => undefined);
    }
    live.delete(this);
    if (!process.env.TUIOS_KEEP_TEST_DIRS && existsSync(this.dir)) rmSync(this.dir, { recursive: true, force: true });
  }
}
