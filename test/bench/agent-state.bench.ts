// Issue 3's benchmark: 100 panes printing continuously for 30 s, each with an agent state set.
// Counts the agent-state events published while they print (goal: zero: publication is
// edge-filtered) and the daemon's CPU per MB of output.
import { readFileSync } from 'node:fs';
import { TestDaemon } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { fmt } from './helpers.js';

const PANES = Number(process.env.BENCH_PANES ?? 100);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);

function cpuSeconds(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks (100 Hz)
}

// A line every 10 ms, without forking a sleep per line: bash's read timeout on a private fifo.
const printer = `d=$(mktemp -d); mkfifo $d/f; exec 3<>$d/f; i=0; while :; do i=$((i+1)); echo "output line $i from a busy agent, with ordinary words in it"; read -t 0.01 -u 3; done`;

/** Bytes one printed line takes on the PTY: the text, the number and CRLF. */
function lineBytes(n: number): number {
  return `output line ${n} from a busy agent, with ordinary words in it\r\n`.length;
}

/** Each pane's line counter, read from the last counted line on its screen. */
async function lineCounters(ids: string[]): Promise<number[]> {
  const out: number[] = [];
  for (const id of ids) {
    const s = await d.call<{ lines: string[] }>('capture-pane', { window: id });
    const last = s.lines.filter((l) => l.startsWith('output line ')).pop();
    out.push(last ? Number(last.split(' ')[2]) : 0);
  }
  return out;
}

const d = await TestDaemon.start({ env: { TUIOS_AGENT_STALL_SECONDS: '0' } });
try {
  await d.ok(['new-session', 'bench', 'sleep', '3600']);
  const ids: string[] = [];
  for (let i = 0; i < PANES; i++) {
    const w = await d.call<{ id: string }>('new-window', { session: 'bench', name: `p${i}`, argv: ['bash', '-c', printer] });
    ids.push(w.id);
    await d.ok(['set-agent-state', '-w', w.id, 'working', '-m', 'printing', '--harness', 'bench']);
  }
  const c = await d.client();
  const events: unknown[] = [];
  await c.stream('subscribe', { types: ['agent-state'] }, (e) => events.push(e));
  // The output counted is the output printed between the two readings of the panes' counters,
  // the same span the CPU is read over (the readings themselves cost the daemon a little).
  const before = await lineCounters(ids);
  const cpu0 = cpuSeconds(d.pid!);
  const t0 = Date.now();
  await waitFor(() => Date.now() - t0 >= SECONDS * 1000, { timeout: SECONDS * 1000 + 5000, interval: 500 });
  const cpu1 = cpuSeconds(d.pid!);
  const wall = (Date.now() - t0) / 1000;
  const after = await lineCounters(ids);
  let bytes = 0;
  for (let i = 0; i < ids.length; i++) for (let n = before[i]! + 1; n <= after[i]!; n++) bytes += lineBytes(n);
  const mbOut = bytes / 1e6;
  const cpu = cpu1 - cpu0;
  console.log(`${PANES} panes printing for ${fmt(wall, 0)} s with an agent state set: agent-state events published ${events.length} (goal 0); output ${fmt(mbOut)} MB; daemon CPU ${fmt(cpu, 2)} s (${fmt((cpu / wall) * 100)}% of one core), ${fmt(cpu / mbOut, 3)} CPU-s per MB`);
  c.close();
} finally {
  await d.stop();
}
process.exit(0);
