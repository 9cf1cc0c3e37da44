// Keystroke-to-echo latency through our SSH server to a shell pane (the TUI drawing it), against
// OpenSSH's sshd with tmux on the same machine in the same run. One client for
// both, an ssh2 Client in this process with a pty 120x40: a key is written, and the time is taken
// when that character arrives back in the drawn stream (escape sequences stripped). The two are
// typed into in turn, key for key, each with the same pause before its next key, so a machine
// that gets busier or quieter during the run weighs on both alike. The daemon is the built one in
// its own process, as `npm start` runs it. When /usr/sbin/sshd is absent the peer is skipped with
// the reason printed, and `tmux attach` in a local pty stands in as a reference (no ssh hop), so
// the figures still say something. A third endpoint typed into in the same turns is the floor of
// any server on ssh2 and node-pty (ssh-floor.ts: the channel and a pty sh, nothing between).
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync, chmodSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import * as pty from 'node-pty';
import ssh2 from 'ssh2';
import type { ClientChannel } from 'ssh2';
import { TestDaemon } from '../helpers/daemon.js';
import { generateHostKey } from '../../ssh-server/keys.js';
import { waitFor } from '../helpers/wait.js';
import { hasTmux, Tmux, percentile, median, fmt } from './helpers.js';

const { Client } = ssh2;
const KEYS = Number(process.env.TUIOS_BENCH_KEYS ?? 300);
const COLS = 120;
const ROWS = 40;
/** Letters no status line, age or prompt of either side draws on its own. */
const LETTERS = 'xqzjkvwy';
const SSHD = '/usr/sbin/sshd';
const SHELL_ENV = { PS1: '$ ', ENV: '' };

interface Endpoint {
  write(s: string): void;
  onData(fn: (s: string) => void): void;
  close(): void;
}

interface Figures {
  p50: number;
  p90: number;
  p99: number;
  median: number;
  n: number;
}

const strip = (s: string) => s.replace(/\x1b\[[0-9;?<=>!"$' ]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()*+][0-9A-Za-z]|\x1b[=>78cDEHMNOZ]/g, '');

/** An endpoint being typed into: `typeOne` writes a letter and resolves with the ms until it is drawn back. */
interface Typist {
  typeOne(ch: string): Promise<number>;
  write(s: string): void;
}

async function typist(ep: Endpoint, ready: RegExp): Promise<Typist> {
  let buf = '';
  let waiter: (() => void) | null = null;
  ep.onData((s) => {
    buf += s;
    waiter?.();
  });
  await waitFor(() => ready.test(strip(buf)), { timeout: 30_000, what: `the first screen (${ready})` });
  return {
    write: (s) => ep.write(s),
    typeOne: (ch) =>
      new Promise<number>((resolve, reject) => {
        buf = '';
        const t0 = performance.now();
        const timer = setTimeout(() => reject(new Error(`no echo of ${ch} in 10 s; got ${JSON.stringify(buf.slice(-200))}`)), 10_000);
        waiter = () => {
          if (strip(buf).includes(ch)) {
            waiter = null;
            clearTimeout(timer);
            resolve(performance.now() - t0);
          }
        };
        ep.write(ch);
      }),
  };
}

/** Types KEYS letters into each endpoint, one at a time and in turn, each timed until it is drawn back. */
async function measure(eps: Typist[]): Promise<Figures[]> {
  const xs: number[][] = eps.map(() => []);
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
  for (let i = 0; i < KEYS + 20; i++) {
    for (let e = 0; e < eps.length; e++) {
      const ep = eps[e]!;
      // A fresh line now and then, so the command line never wraps; not timed.
      if (i % 40 === 0) {
        ep.write('\x15');
        await pause(150);
      }
      const ms = await ep.typeOne(LETTERS[i % LETTERS.length]!);
      if (i >= 20) xs[e]!.push(ms); // the first keys warm both sides up
      await pause(30);
    }
  }
  for (const ep of eps) ep.write('\x15');
  return xs.map((x) => ({ p50: percentile(x, 50), p90: percentile(x, 90), p99: percentile(x, 99), median: median(x), n: x.length }));
}

function ssh2Shell(port: number, privateKey: string, cmd: string | null, username = 'bench'): Promise<Endpoint> {
  return new Promise((resolve, reject) => {
    const c = new Client();
    c.once('error', reject);
    c.once('ready', () => {
      const open = (e: Error | undefined, ch: ClientChannel) => {
        if (e) return reject(e);
        resolve({
          write: (s) => ch.write(s),
          onData: (fn) => ch.on('data', (b: Buffer) => fn(b.toString('utf8'))),
          close: () => c.end(),
        });
      };
      const ptyOpts = { term: 'xterm-256color', cols: COLS, rows: ROWS };
      if (cmd) c.exec(cmd, { pty: ptyOpts }, open);
      else c.shell(ptyOpts, open);
    });
    c.connect({ host: '127.0.0.1', port, username, privateKey, hostVerifier: () => true, readyTimeout: 20_000 });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

const signed = (n: number) => `${n >= 0 ? '+' : ''}${fmt(n, 2)}`;

function line(name: string, f: Figures): string {
  return `${name}: keystroke to echo p50 ${fmt(f.p50, 2)} ms, p90 ${fmt(f.p90, 2)} ms, p99 ${fmt(f.p99, 2)} ms (${f.n} keys)`;
}

// ssh2 makes an ed25519 key its own parser refuses about once in 300 (generateHostKey retries).
const kp = generateHostKey('ssh bench');
const results: Record<string, Figures> = {};

// --- ours: the built daemon, its SSH server, the TUI drawing a shell pane ---
// SSH_BENCH_NODE_ARGS: node's flags for the daemon (--cpu-prof --cpu-prof-dir=DIR to profile it).
const d = await TestDaemon.start({ ssh: true, env: { ...SHELL_ENV, TUIOS_TEST_NODE_ARGS: process.env.SSH_BENCH_NODE_ARGS ?? '' } });
const closers: Array<() => void | Promise<void>> = [() => d.stop()];
const eps: Array<{ name: string; key: string; t: Typist }> = [];
try {
  const f = join(d.dir, 'config', 'tuios', 'authorized_keys');
  writeFileSync(f, kp.public + '\n', { mode: 0o600 });
  await d.ok(['new-session', 'bench', '--window-name', 'sh', 'sh']);
  const port = (await d.call<{ endpoints: { ssh: { port: number } } }>('server-info')).endpoints.ssh.port;
  const ep = await ssh2Shell(port, kp.private, null);
  closers.unshift(() => ep.close());
  eps.push({ name: 'tuios ssh server -> TUI -> sh', key: 'ours', t: await typist(ep, /C-b \? help/) });

  // --- the peer: OpenSSH's sshd running `tmux attach` to a shell pane ---
  const tmux = hasTmux();
  if (!tmux) console.log('tmux is not installed: no peer to compare with');
  if (tmux && !existsSync(SSHD)) console.log(`skipped OpenSSH sshd + tmux: ${SSHD} is not installed (apt-get install openssh-server; .ci/run installs it)`);
  if (tmux && existsSync(SSHD)) {
    const dir = mkdtempSync(join(tmpdir(), 'tuios-bench-sshd-'));
    const t = new Tmux(`tuios-bench-ssh-${process.pid}`);
    let sshd: ChildProcess | null = null;
    closers.push(() => {
      sshd?.kill('SIGTERM');
      t.kill();
      rmSync(dir, { recursive: true, force: true });
    });
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'host')]);
    writeFileSync(join(dir, 'authorized_keys'), kp.public + '\n', { mode: 0o600 });
    const sport = await freePort();
    const cfg = join(dir, 'sshd_config');
    writeFileSync(
      cfg,
      [`Port ${sport}`, 'ListenAddress 127.0.0.1', `HostKey ${join(dir, 'host')}`, `PidFile ${join(dir, 'sshd.pid')}`, `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`, 'StrictModes no', 'UsePAM no', 'PasswordAuthentication no', 'KbdInteractiveAuthentication no', 'PermitRootLogin prohibit-password', 'PrintMotd no', 'Subsystem sftp internal-sftp'].join('\n') + '\n',
    );
    chmodSync(join(dir, 'host'), 0o600);
    if (process.getuid?.() === 0) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
    const check = spawnSync(SSHD, ['-t', '-f', cfg], { encoding: 'utf8' });
    if (check.status !== 0) throw new Error(`sshd -t: ${check.stderr}`);
    sshd = spawn(SSHD, ['-D', '-e', '-f', cfg], { stdio: ['ignore', 'ignore', 'pipe'] });
    let sshdErr = '';
    sshd.stderr!.on('data', (b) => (sshdErr += b));
    t.run('new-session', '-d', '-s', 'bench', '-x', String(COLS), '-y', String(ROWS), `env PS1='$ ' ENV= sh`);
    t.run('set-option', '-g', 'status', 'on');
    const me = userInfo().username;
    const pep = await waitFor(() => ssh2Shell(sport, kp.private, `exec tmux -L ${t.socket} attach -t bench`, me).catch(() => null), { timeout: 20_000, what: `sshd to answer (${sshdErr})` });
    closers.unshift(() => pep.close());
    eps.push({ name: 'OpenSSH sshd -> tmux attach -> sh', key: 'sshd', t: await typist(pep, /\[bench\]/) });
  }

  // --- the floor: ssh2 and node-pty alone, in a process of their own ---
  const floor = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'ssh-floor.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
  closers.push(() => void floor.kill());
  const fport = await new Promise<number>((resolve, reject) => {
    floor.once('exit', (c) => reject(new Error(`ssh-floor.ts exited ${c}`)));
    floor.stdout!.once('data', (b) => resolve(Number(String(b).trim())));
  });
  const fep = await ssh2Shell(fport, kp.private, null);
  closers.unshift(() => fep.close());
  eps.push({ name: 'floor: ssh2 server -> node-pty sh, nothing between', key: 'floor', t: await typist(fep, /\$ /) });

  const figs = await measure(eps.map((e) => e.t));
  eps.forEach((e, i) => {
    results[e.key] = figs[i]!;
    console.log(line(e.name, figs[i]!));
  });
} finally {
  for (const c of closers) await c();
}

// --- a reference without the ssh hop: tmux attach in a local pty (on its own, after) ---
if (hasTmux()) {
  const t = new Tmux(`tuios-bench-ssh-local-${process.pid}`);
  try {
    t.run('new-session', '-d', '-s', 'bench', '-x', String(COLS), '-y', String(ROWS), `env PS1='$ ' ENV= sh`);
    const p = pty.spawn('tmux', ['-L', t.socket, '-f', '/dev/null', 'attach', '-t', 'bench'], { cols: COLS, rows: ROWS, name: 'xterm-256color', env: { ...process.env, TERM: 'xterm-256color' } as Record<string, string> });
    const ep: Endpoint = { write: (s) => p.write(s), onData: (fn) => p.onData(fn), close: () => p.kill() };
    results.tmuxLocal = (await measure([await typist(ep, /\[bench\]/)]))[0]!;
    ep.close();
    console.log(line('tmux attach in a local pty (no ssh) -> sh', results.tmuxLocal!));
  } finally {
    t.kill();
  }
}

/** The goal (issue 25): no more than this over the floor, at p50 and at p99, in the same run. */
const FLOOR_GOAL_MS = 0.2;
if (results.ours && results.floor) {
  const over50 = results.ours.p50 - results.floor.p50;
  const over99 = results.ours.p99 - results.floor.p99;
  const met = over50 <= FLOOR_GOAL_MS && over99 <= FLOOR_GOAL_MS;
  console.log(`tuios over the ssh2 + node-pty floor: p50 ${signed(over50)} ms, p90 ${signed(results.ours.p90 - results.floor.p90)} ms, p99 ${signed(over99)} ms (goal <= +${FLOOR_GOAL_MS} at p50 and p99): ${met ? 'met' : 'NOT met'}`);
}
if (results.floor && results.sshd) console.log(`the floor against sshd+tmux: p50 ${fmt(results.floor.p50 / results.sshd.p50, 2)}x`);
if (results.ours && results.sshd) {
  const r50 = results.ours.p50 / results.sshd.p50;
  const r99 = results.ours.p99 / results.sshd.p99;
  console.log(`ratio tuios/(sshd+tmux): p50 ${fmt(r50, 2)}x, p99 ${fmt(r99, 2)}x`);
} else if (results.ours && results.tmuxLocal) {
  console.log(`no sshd peer; against tmux in a local pty (no ssh hop at all): p50 ${fmt(results.ours.p50 / results.tmuxLocal.p50, 2)}x, p99 ${fmt(results.ours.p99 / results.tmuxLocal.p99, 2)}x`);
}
process.exit(0);
