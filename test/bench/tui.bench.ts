// The TUI's cost to its client: the bytes it writes to the client's terminal per second while
// one pane of four scrolls output at full speed and the other three are still, against tmux
// with the same four panes and an attached client in the same run; and the TUI's CPU per frame.
// Goal: at most tmux's output volume, and no full-screen redraws while one pane scrolls.
//
// The daemon runs in this process (so the frame's CPU is measured around the frame itself),
// with a real PTY per pane; the TUI's client is a sink that reads at once, as the node-pty
// terminal under tmux's client does.
import { mkdtempSync, mkdirSync, chmodSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as pty from 'node-pty';
import { startDaemon } from '../../core/daemon/main.js';
import { resolvePaths } from '../../core/config/paths.js';
import { tuiExtension } from '../../tui/index.js';
import { Tui } from '../../tui/app.js';
import type { Caller } from '../../core/rpc/caller.js';
import { waitFor } from '../helpers/wait.js';
import { hasTmux, Tmux, sgrCorpus, fmt } from './helpers.js';

const COLS = 160;
const ROWS = 48;
const WARMUP_MS = 1500;
const MEASURE_MS = Number(process.env.TUIOS_BENCH_SECONDS ?? 10) * 1000;
const corpus = sgrCorpus(join(tmpdir(), 'tuios-bench-sgr-8mb.txt'), 8);
const FLOOD = `read go; while :; do cat ${corpus}; done`;

interface Figures {
  bytesPerSec: number;
  writesPerSec: number;
  maxWrite: number;
  firstWrite: number;
  paneBytesPerSec: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function ours(): Promise<Figures & { frames: number; cpuPerFrameMs: number; wallPerFrameMs: number; cellsPerFrame: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'tuios-bench-tui-'));
  const run = join(dir, 'run');
  for (const d of [run, join(dir, 'home'), join(dir, 'config', 'tuios'), join(dir, 'state')]) mkdirSync(d, { recursive: true });
  chmodSync(run, 0o700);
  const env = { HOME: join(dir, 'home'), XDG_RUNTIME_DIR: run, XDG_CONFIG_HOME: join(dir, 'config'), XDG_STATE_HOME: join(dir, 'state') };
  const daemon = await startDaemon(resolvePaths(env, join(run, 'tuios.sock')), [tuiExtension()]);
  const svc = daemon.svc;
  try {
    const s = svc.model.createSession({ name: 'bench' });
    const flood = svc.model.createWindow(s, { name: 'flood', argv: ['sh', '-c', FLOOD] });
    for (const n of ['one', 'two', 'three']) svc.model.createWindow(s, { name: n, argv: ['sh', '-c', 'echo still; sleep 600'] });
    const caller: Caller = { connId: 0, channel: 'tui', pid: null, uid: null, readOnly: false, paneHint: null };
    const client = svc.person.attach(caller, { kind: 'outside' }, s.id);
    const writes: number[] = [];
    const tui = new Tui({ svc, client, caller, sessionId: s.id, cols: COLS, rows: ROWS, term: 'xterm-256color', ascii: false, write: (d) => writes.push(Buffer.byteLength(d)), pendingBytes: () => 0, onClose: () => {} });
    await waitFor(() => writes.length > 0 && flood.cols < 100, { what: 'the first frame and the tiles' });
    await sleep(500);
    const firstWrite = Math.max(...writes);
    flood.write('\n');
    await sleep(WARMUP_MS);
    const w0 = writes.length;
    const st0 = { ...tui.stats };
    const out0 = flood.outputBytes;
    const t0 = performance.now();
    await sleep(MEASURE_MS);
    const secs = (performance.now() - t0) / 1000;
    const during = writes.slice(w0);
    const st1 = { ...tui.stats };
    const frames = st1.frames - st0.frames;
    const fig = {
      bytesPerSec: during.reduce((a, b) => a + b, 0) / secs,
      writesPerSec: during.length / secs,
      maxWrite: Math.max(0, ...during),
      firstWrite,
      paneBytesPerSec: (flood.outputBytes - out0) / secs,
      frames,
      cpuPerFrameMs: (st1.cpuMs - st0.cpuMs) / Math.max(1, frames),
      wallPerFrameMs: (st1.wallMs - st0.wallMs) / Math.max(1, frames),
      cellsPerFrame: (st1.cells - st0.cells) / Math.max(1, frames),
    };
    tui.dispose();
    svc.person.detach(client.id);
    return fig;
  } finally {
    svc.shutdown('bench done');
    await daemon.stopped;
    rmSync(dir, { recursive: true, force: true });
  }
}

async function theirs(): Promise<Figures> {
  const t = new Tmux(`tuios-bench-tui-${process.pid}`);
  try {
    t.run('new-session', '-d', '-s', 'b', '-x', String(COLS), '-y', String(ROWS), FLOOD);
    t.run('split-window', '-h', '-t', 'b:0.0', 'echo still; sleep 600');
    t.run('split-window', '-v', '-t', 'b:0.0', 'echo still; sleep 600');
    t.run('split-window', '-v', '-t', 'b:0.2', 'echo still; sleep 600');
    const writes: number[] = [];
    const client = pty.spawn('tmux', ['-L', t.socket, '-f', '/dev/null', 'attach', '-t', 'b'], { cols: COLS, rows: ROWS, name: 'xterm-256color', env: { ...process.env, TERM: 'xterm-256color' } as Record<string, string> });
    client.onData((d) => writes.push(Buffer.byteLength(d)));
    await waitFor(() => writes.length > 0, { what: 'the tmux client drawing' });
    await sleep(500);
    const firstWrite = writes.reduce((a, b) => a + b, 0);
    t.run('send-keys', '-t', 'b:0.0', 'Enter');
    await sleep(WARMUP_MS);
    const w0 = writes.length;
    const t0 = performance.now();
    await sleep(MEASURE_MS);
    const secs = (performance.now() - t0) / 1000;
    const during = writes.slice(w0);
    client.kill();
    return { bytesPerSec: during.reduce((a, b) => a + b, 0) / secs, writesPerSec: during.length / secs, maxWrite: Math.max(0, ...during), firstWrite, paneBytesPerSec: NaN };
  } finally {
    t.kill();
  }
}

const kb = (n: number) => `${fmt(n / 1024)} KB`;

const a = await ours();
console.log(
  `tuios: ${kb(a.bytesPerSec)}/s to the client, ${fmt(a.writesPerSec)} frames/s, largest frame ${kb(a.maxWrite)} (the full first frame ${kb(a.firstWrite)}), ` +
    `${fmt(a.cellsPerFrame, 0)} cells per frame of ${COLS * ROWS}, CPU ${fmt(a.cpuPerFrameMs, 2)} ms per frame (${fmt(a.wallPerFrameMs, 2)} ms of the event loop); the scrolling pane parsed ${kb(a.paneBytesPerSec)}/s`,
);
const fullRedraws = a.maxWrite >= a.firstWrite * 0.9;
console.log(`no full-screen redraws while one pane scrolls: ${fullRedraws ? 'NO (a frame came within 10% of a full screen)' : 'yes'}`);
if (hasTmux()) {
  const b = await theirs();
  console.log(`tmux:  ${kb(b.bytesPerSec)}/s to the client, ${fmt(b.writesPerSec)} writes/s, largest write ${kb(b.maxWrite)} (its first paint ${kb(b.firstWrite)})`);
  const ratio = a.bytesPerSec / b.bytesPerSec;
  console.log(`ratio tuios/tmux output: ${fmt(ratio, 3)}x (goal <= 1x): ${ratio <= 1 ? 'met' : 'NOT met'}`);
} else console.log('tmux is not installed: no comparison');
process.exit(0);
