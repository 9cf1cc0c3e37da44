// Issue 2's benchmarks, each beside its peer from the same run:
// (a) throughput of 100 MB of SGR-coloured text through one pane, against tmux (TUIOS_BENCH_ROUNDS
//     rounds, each side's CPU seconds beside its MB/s), and the emulator alone in-process as the ceiling;
// (b) wall time of `tuios list-windows --json`, against `node -e 0` and `tmux list-windows`;
// (c) memory per pane with 5000 lines of scrollback, against tmux's server.
import { spawnSync } from 'node:child_process';
import { statSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestDaemon, BIN } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { Emulator } from '../../core/screen/emulator.js';
import { median, rssBytes, hasTmux, Tmux, sgrCorpus, fmt, mb } from './helpers.js';

const tmuxOk = hasTmux();
const corpus = sgrCorpus(join(tmpdir(), 'tuios-bench-sgr-100mb.txt'), 100);
const corpusMB = statSync(corpus).size / 1e6;

/** CPU seconds (user + system) a process has used so far. */
function cpuSeconds(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

/** One pane of ours, until the emulator has parsed the whole corpus: MB/s and the daemon's CPU seconds. */
async function oursOnce(): Promise<{ mbs: number; cpu: number }> {
  const d = await TestDaemon.start({ config: '[daemon]\nscrollback = 5000\n' });
  try {
    await d.ok(['new-session', 'bench']);
    // The program waits for a line, so the clock starts when the bytes start.
    await d.ok(['new-window', '-s', 'bench', 'flood', 'sh', '-c', `read go; cat ${corpus}; printf '\\nBENCH-END\\n'; sleep 600`, '--cols', '80', '--rows', '24']);
    await waitFor(async () => (await d.call<{ windows: Array<{ name: string; foreground: { comm: string } | null }> }>('list-windows')).windows.find((w) => w.name === 'flood')?.foreground?.comm === 'sh');
    // The wait and the key go over the socket, as tmux's own client talks to its server: the span
    // timed is the flood's, not the start of two Node processes (~50 ms each on this stack).
    const waiter = await d.client();
    const ended = waiter.call('wait-for', { window: 'flood', condition: 'window-output', pattern: '^BENCH-END$', timeout: 600_000 });
    await waitFor(async () => (await d.call<{ waits: number }>('server-info')).waits > 0, { what: 'the wait to listen' });
    const c0 = cpuSeconds(d.pid!);
    const t0 = performance.now();
    await d.call('send-keys', { window: 'flood', keys: ['Enter'] });
    await ended;
    const secs = (performance.now() - t0) / 1000;
    return { mbs: corpusMB / secs, cpu: cpuSeconds(d.pid!) - c0 };
  } finally {
    await d.stop();
  }
}

/** The same corpus through a detached tmux pane of the same size: MB/s and the server's CPU seconds. */
function tmuxOnce(): { mbs: number; cpu: number } {
  const t = new Tmux(`tuios-bench-${process.pid}`);
  try {
    const s0 = performance.now();
    t.run('new-session', '-d', '-x', '80', '-y', '24', `cat ${corpus}; tmux -L ${t.socket} wait-for -S bench-done; sleep 600`);
    spawnSync('tmux', ['-L', t.socket, 'wait-for', 'bench-done']);
    const tsecs = (performance.now() - s0) / 1000;
    return { mbs: corpusMB / tsecs, cpu: cpuSeconds(t.serverPid()) };
  } finally {
    t.kill();
  }
}

/** The ceiling: the corpus written straight into one Emulator in this process (no PTY, no daemon). */
function emulatorAlone(): number {
  const data = readFileSync(corpus);
  const e = new Emulator({ cols: 80, rows: 24, scrollback: 5000 });
  const t0 = performance.now();
  for (let i = 0; i < data.length; i += 4096) e.write(data.subarray(i, i + 4096));
  const secs = (performance.now() - t0) / 1000;
  e.dispose();
  return corpusMB / secs;
}

async function throughput(): Promise<void> {
  // Rounds alternate which side goes first, so a machine that gets busier favours neither.
  const rounds = Math.max(1, Number(process.env.TUIOS_BENCH_ROUNDS ?? 1));
  const ratios: number[] = [];
  for (let r = 0; r < rounds; r++) {
    let line = `(a) throughput, ${fmt(corpusMB, 0)} MB SGR text, one 80x24 pane${rounds > 1 ? `, round ${r + 1}/${rounds}` : ''}:`;
    let theirs: { mbs: number; cpu: number } | null = null;
    if (tmuxOk && r % 2 === 1) theirs = tmuxOnce();
    const ours = await oursOnce();
    if (tmuxOk && r % 2 === 0) theirs = tmuxOnce();
    line += ` tuios ${fmt(ours.mbs)} MB/s (daemon ${fmt(ours.cpu, 2)} CPU s)`;
    if (theirs) {
      ratios.push(ours.mbs / theirs.mbs);
      line += `, tmux ${fmt(theirs.mbs)} MB/s (server ${fmt(theirs.cpu, 2)} CPU s), ratio ${fmt(ours.mbs / theirs.mbs, 2)}x (goal >= 1.5x)`;
    }
    console.log(line);
  }
  if (ratios.length > 1) console.log(`(a) median ratio of ${ratios.length} rounds: ${fmt(median(ratios), 2)}x (goal >= 1.5x)`);
  console.log(`(a) ceiling: the same corpus written straight into one emulator in this process: ${fmt(emulatorAlone())} MB/s`);
}

function timeCmd(cmd: string, args: string[], env: NodeJS.ProcessEnv, runs = 20): number {
  const xs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const r = spawnSync(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    xs.push(performance.now() - t0);
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  }
  return median(xs);
}

async function roundTrip(): Promise<void> {
  const d = await TestDaemon.start();
  try {
    await d.ok(['new-session', 'rt']);
    for (let i = 0; i < 5; i++) await d.ok(['new-window', '-s', 'rt', `w${i}`, 'sleep', '600']);
    const env = { ...process.env, ...d.env };
    timeCmd(process.execPath, [BIN, 'list-windows', '--json'], env, 3); // warm the page cache
    // In turn, run for run: a load change on a shared machine then moves both sides alike.
    const oursRuns: number[] = [];
    const floorRuns: number[] = [];
    for (let i = 0; i < 20; i++) {
      oursRuns.push(timeCmd(process.execPath, [BIN, 'list-windows', '--json'], env, 1));
      floorRuns.push(timeCmd(process.execPath, ['-e', '0'], env, 1));
    }
    const ours = median(oursRuns);
    const floor = median(floorRuns);
    let line = `(b) CLI round trip, median of 20: tuios list-windows --json ${fmt(ours)} ms, node -e 0 ${fmt(floor)} ms, over Node's start ${fmt(ours - floor)} ms (goal <= 20 ms)`;
    if (tmuxOk) {
      const t = new Tmux(`tuios-bench-rt-${process.pid}`);
      try {
        t.run('new-session', '-d', '-s', 'rt', 'sleep 600');
        for (let i = 0; i < 5; i++) t.run('new-window', '-t', 'rt', 'sleep 600');
        const tm = timeCmd('tmux', ['-L', t.socket, 'list-windows', '-t', 'rt'], env);
        line += `, tmux list-windows ${fmt(tm)} ms`;
      } finally {
        t.kill();
      }
    }
    console.log(line);
  } finally {
    await d.stop();
  }
}

const PANES = 50;
const LINES = 5000;
const fill = `i=0; while [ $i -lt ${LINES + 200} ]; do i=$((i+1)); echo "line $i of the scrollback, with some ordinary text to fill a row"; done; echo FILLED; exec sleep 600`;

async function memory(): Promise<void> {
  const d = await TestDaemon.start({ config: `[daemon]\nscrollback = ${LINES}\n` });
  try {
    await d.ok(['new-session', 'mem', 'sleep', '600']);
    await new Promise((r) => setTimeout(r, 500));
    const base = rssBytes(d.pid!);
    for (let i = 0; i < PANES; i++) await d.ok(['new-window', '-s', 'mem', `p${i}`, 'sh', '-c', fill]);
    await waitFor(async () => {
      const ws = (await d.call<{ windows: Array<{ id: string }> }>('list-windows', { session: 'mem' })).windows;
      for (const w of ws.slice(1)) {
        const s = await d.call<{ lines: string[] }>('capture-pane', { window: w.id });
        if (!s.lines.some((l) => l === 'FILLED')) return false;
      }
      return true;
    }, { timeout: 300_000, interval: 500, what: 'every pane to fill its scrollback' });
    global.gc?.();
    await new Promise((r) => setTimeout(r, 1000));
    const ours = (rssBytes(d.pid!) - base) / PANES;
    let line = `(c) memory, ${PANES} panes x ${LINES} lines of scrollback: tuios ${mb(ours)} per pane (daemon RSS ${mb(rssBytes(d.pid!))})`;
    if (tmuxOk) {
      const t = new Tmux(`tuios-bench-mem-${process.pid}`);
      try {
        t.run('new-session', '-d', '-s', 'mem', '-x', '80', '-y', '24', 'sleep 600');
        t.run('set-option', '-g', 'history-limit', String(LINES));
        await new Promise((r) => setTimeout(r, 300));
        const pid = t.serverPid();
        const tbase = rssBytes(pid);
        for (let i = 0; i < PANES; i++) t.run('new-window', '-t', 'mem', fill);
        await waitFor(() => {
          const out = t.run('list-windows', '-t', 'mem', '-F', '#{window_index}');
          const idx = out.trim().split('\n').slice(1);
          return idx.every((i) => t.run('capture-pane', '-p', '-t', `mem:${i}`).includes('FILLED'));
        }, { timeout: 300_000, interval: 500, what: 'tmux panes to fill' });
        const theirs = (rssBytes(pid) - tbase) / PANES;
        line += `, tmux ${mb(theirs)} per pane (server RSS ${mb(rssBytes(pid))}), ratio ${fmt(ours / theirs, 2)}x (goal <= 2x)`;
      } finally {
        t.kill();
      }
    }
    console.log(line);
  } finally {
    await d.stop();
  }
}

const only = process.argv[2];
if (!only || only === 'throughput') await throughput();
if (!only || only === 'roundtrip') await roundTrip();
if (!only || only === 'memory') await memory();
process.exit(0);
