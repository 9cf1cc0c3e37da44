// Issue 27's figure: the time from an ACP agent's turn-end message (its answer to session/prompt)
// to the pane's `done` agent-state event at a subscriber, through agent-proto's connection, the
// daemon's report and its event stream (goal p99 <= 20 ms). The agent is test/helpers/acp-agent.mjs,
// which writes the wall clock into a file just before each end_turn answer; the subscriber notes
// the wall clock as each done event arrives. Both clocks are this machine's.
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestDaemon, ROOT } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { percentile, median } from './helpers.js';

const TURNS = Number(process.env.BENCH_TURNS ?? 200);
const now = () => performance.timeOrigin + performance.now();

const dir = mkdtempSync(join(tmpdir(), 'tuios-acp-bench-'));
const stamps = join(dir, 'stamps');
const d = await TestDaemon.start({ env: { TUIOS_AGENT_STALL_SECONDS: '0', ACP_BENCH_STAMPS: stamps } });
try {
  await d.ok(['new-session', 'bench']);
  const cmd = `${process.execPath} ${join(ROOT, 'test', 'helpers', 'acp-agent.mjs')} scripted`;
  const started = JSON.parse(await d.ok(['start-agent', '--protocol', 'acp', cmd, '--name', 'acp', '-s', 'bench', '--json'])) as { window_id: string; ready: boolean };
  if (!started.ready) throw new Error('the ACP pane did not report idle');
  const w = started.window_id;
  const c = await d.client();
  const doneAt: number[] = [];
  await c.stream('subscribe', { types: ['agent-state'] }, (e) => {
    const ev = e as { window_id?: string; state?: string };
    if (ev.window_id === w && ev.state === 'done') doneAt.push(now());
  });
  for (let i = 0; i < TURNS; i++) {
    await c.call('send-keys', { window: w, keys: [`turn ${i}`], literal: true });
    await c.call('send-keys', { window: w, keys: ['Enter'] });
    await waitFor(() => (doneAt.length > i ? true : null), { timeout: 20_000, what: `turn ${i} to end` });
  }
  const sent = readFileSync(stamps, 'utf8').trim().split('\n').map(Number);
  if (sent.length !== doneAt.length) throw new Error(`${sent.length} turn ends, ${doneAt.length} done events`);
  const lat = sent.map((t, i) => doneAt[i]! - t);
  const fmt = (x: number) => `${x.toFixed(2)} ms`;
  console.log(`turn end -> done event over ${TURNS} turns: p50 ${fmt(median(lat))}, p90 ${fmt(percentile(lat, 90))}, p99 ${fmt(percentile(lat, 99))}, max ${fmt(Math.max(...lat))} (goal p99 <= 20 ms)`);
  // The floor beside it: a report sent straight to the daemon on a connection of the bench's own,
  // until its event arrives, on a plain pane, the same number of times.
  const plain = (await c.call<{ id: string }>('new-window', { session: 'bench', name: 'plain', argv: ['sleep', '3600'] })).id;
  const floorEv: number[] = [];
  await c.stream('subscribe', { types: ['agent-state'] }, (e) => {
    const ev = e as { window_id?: string; state?: string };
    if (ev.window_id === plain && ev.state === 'done') floorEv.push(now());
  });
  const r = await d.client();
  const floor: number[] = [];
  for (let i = 0; i < TURNS; i++) {
    await r.call('set-agent-state', { window: plain, state: 'working', harness: 'bench' });
    const t = now();
    await r.call('set-agent-state', { window: plain, state: 'done', message: 'x', harness: 'bench' });
    await waitFor(() => (floorEv.length > i ? true : null), { timeout: 20_000 });
    floor.push(floorEv[i]! - t);
  }
  console.log(`floor, a report straight to the daemon -> its event: p50 ${fmt(median(floor))}, p90 ${fmt(percentile(floor, 90))}, p99 ${fmt(percentile(floor, 99))}`);
  console.log(`load average: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
} finally {
  await d.stop();
  rmSync(dir, { recursive: true, force: true });
}
