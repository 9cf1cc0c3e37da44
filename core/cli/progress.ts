// Progress of a long verb on the terminal: `worktree pull` publishes worktree-progress events, and
// the CLI, when its stderr is a terminal (and not --json), subscribes on a second connection
// before the call and redraws one line on stderr: phase, bytes, objects, rate. The call and its
// result on stdout are unchanged; a missed event only leaves the line a little behind.
import { randomBytes } from 'node:crypto';
import { isatty } from 'node:tty';
import { RpcClient } from '../rpc/client.js';
import { err } from './out.js';
import type { Parsed } from './args.js';

/** Redraws at most this often; a phase change draws at once. */
const REDRAW_MS = 100;
/** The rate is over the bytes of this last stretch: the sender may pause (packing) before its bulk. */
const RATE_WINDOW_MS = 3000;

/** Verbs with progress events, and the event type each publishes. */
const PROGRESS_EVENTS: Record<string, string> = { 'pull-worktree': 'worktree-progress' };
/** The ship verbs: ship-progress events name the step that starts (stage, commit, merge, push, pr). */
const SHIP_VERBS = new Set(['ship-commit', 'ship-merge', 'ship-push', 'ship-pr']);

interface ProgressEvent {
  type?: string;
  pull_id?: string | null;
  phase?: string;
  bytes?: number;
  objects?: number;
  files?: number;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 * 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 / 1024 / 1024).toFixed(2)} GB`;
}

/** The line for one event: `worktree pull: receive 23.4 MB, 5,012 objects, 2,048 files, 8.1 MB/s, 3 s`. */
export function progressLine(ev: { phase: string; bytes: number; objects: number; files?: number }, elapsedMs: number, rate: number | null): string {
  const parts = [`${ev.phase} ${formatBytes(ev.bytes)}`];
  if (ev.objects > 0) parts.push(`${ev.objects.toLocaleString('en-US')} objects`);
  if (ev.files) parts.push(`${ev.files.toLocaleString('en-US')} files`);
  if (rate !== null) parts.push(`${formatBytes(Math.round(rate))}/s`);
  parts.push(`${Math.round(elapsedMs / 1000)} s`);
  return `worktree pull: ${parts.join(', ')}`;
}

export interface Progress {
  /**
   * Ends the subscription. After a result (which holds the bytes moved) the line ends as done;
   * after a failure the last line drawn is left as it was. Either way it ends with a newline.
   */
  stop(result?: unknown): void;
}

/**
 * Starts drawing progress for `p` when it has progress events and stderr is a terminal; null
 * otherwise (nothing is connected, nothing printed). Sets the call's progress_id.
 */
export async function startProgress(socket: string, p: Parsed): Promise<Progress | null> {
  if (SHIP_VERBS.has(p.verb.name)) return startShipProgress(socket, p);
  const type = PROGRESS_EVENTS[p.verb.name];
  if (!type || p.json || !isatty(2)) return null;
  const id = randomBytes(6).toString('hex');
  let client: RpcClient;
  try {
    client = await RpcClient.connect(socket, { pane: process.env.TUIOS_PANE_ID ?? null });
  } catch {
    return null; // no progress is no failure: the call itself reports what went wrong
  }
  const started = Date.now();
  // (time, bytes) of the recent receive events, oldest first; the first byte and the last receive.
  const samples: Array<[number, number]> = [];
  let firstByteAt = 0;
  let lastReceive: [number, number] = [0, 0];
  let drawnAt = 0;
  let lastPhase = '';
  let drawn = false;
  let stopped = false;
  let objectsSeen = 0;
  let filesSeen = 0;
  const rateNow = (now: number, bytes: number, done: boolean): number | null => {
    if (done) {
      // The whole transfer's: from its first byte to its last.
      const secs = (lastReceive[0] - firstByteAt) / 1000;
      return firstByteAt && secs >= 0.2 ? lastReceive[1] / secs : null;
    }
    const [t0, b0] = samples[0] ?? [now, bytes];
    const secs = (now - t0) / 1000;
    return secs >= 0.2 ? (bytes - b0) / secs : null;
  };
  const draw = (phase: string, bytes: number, force: boolean) => {
    const now = Date.now();
    if (phase === 'receive' && bytes > 0) {
      if (!firstByteAt) firstByteAt = now;
      lastReceive = [now, bytes];
      samples.push([now, bytes]);
      while (samples.length > 1 && now - samples[0]![0] > RATE_WINDOW_MS) samples.shift();
    }
    if (!force && phase === lastPhase && now - drawnAt < REDRAW_MS) return;
    lastPhase = phase;
    drawnAt = now;
    const rate = rateNow(now, bytes, phase === 'done');
    const cols = process.stderr.columns || 80;
    // Cut to the width: a line that wraps cannot be redrawn with a carriage return.
    err(`\r${progressLine({ phase, bytes, objects: objectsSeen, files: filesSeen }, now - started, rate).slice(0, Math.max(10, cols - 1))}\x1b[K`);
    drawn = true;
  };
  const onEvent = (raw: unknown) => {
    const ev = raw as ProgressEvent;
    // The done event is drawn from the result instead: the two come on different connections.
    if (stopped || ev.type !== type || ev.pull_id !== id || ev.phase === 'done') return;
    const phase = typeof ev.phase === 'string' ? ev.phase.slice(0, 16) : '';
    const bytes = typeof ev.bytes === 'number' && ev.bytes >= 0 ? ev.bytes : 0;
    objectsSeen = typeof ev.objects === 'number' && ev.objects >= 0 ? ev.objects : objectsSeen;
    filesSeen = typeof ev.files === 'number' && ev.files >= 0 ? ev.files : filesSeen;
    draw(phase, bytes, false);
  };
  try {
    await client.stream('subscribe', { types: [type] }, onEvent);
  } catch {
    client.close();
    return null;
  }
  p.params.progress_id = id;
  return {
    stop(result) {
      if (stopped) return;
      const bytes = (result as { bytes?: unknown } | undefined)?.bytes;
      if (typeof bytes === 'number') draw('done', bytes, true);
      stopped = true;
      client.close();
      if (drawn) err('\n');
    },
  };
}

/** `ship commit: commit, 3 s`: the step a ship call is on, redrawn as each starts and each second. */
async function startShipProgress(socket: string, p: Parsed): Promise<Progress | null> {
  if (p.json || !isatty(2)) return null;
  const id = randomBytes(6).toString('hex');
  let client: RpcClient;
  try {
    client = await RpcClient.connect(socket, { pane: process.env.TUIOS_PANE_ID ?? null });
  } catch {
    return null;
  }
  const started = Date.now();
  let step = '';
  let stopped = false;
  const draw = () => {
    if (stopped || !step) return;
    const line = `${p.verb.name.replace('-', ' ')}: ${step}, ${Math.round((Date.now() - started) / 1000)} s`;
    err(`\r${line.slice(0, Math.max(10, (process.stderr.columns || 80) - 1))}\x1b[K`);
  };
  const tick = setInterval(draw, 1000);
  tick.unref();
  try {
    await client.stream('subscribe', { types: ['ship-progress'] }, (raw) => {
      const ev = raw as { ship_id?: unknown; step?: unknown };
      if (ev.ship_id !== id || typeof ev.step !== 'string') return;
      step = ev.step.replace(/[^a-z-]/g, '').slice(0, 16);
      draw();
    });
  } catch {
    clearInterval(tick);
    client.close();
    return null;
  }
  p.params.progress_id = id;
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(tick);
      client.close();
      if (step) err('\n');
    },
  };
}
