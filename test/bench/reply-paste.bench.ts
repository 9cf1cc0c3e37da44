// A reply holding a 3 MB paste block (spec: Large pastes): the time from `enter` in the reply
// editor to the first byte typed into the agent's pane. Goal: at most 300 ms (issue 29).
//
// A real daemon, its TUI attached in tmux, the 3 MB log pasted into the reply editor as a
// terminal pastes it; the agent is a pane whose program reads its terminal raw and notes the
// time of the first byte of each burst, and reports itself at rest (set-agent-state) for more
// than the queue's second at rest before each `enter`, so the figure is the reply's own path:
// the queue, the paste file written, and the label typed.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { TestDaemon, BIN } from '../helpers/daemon.js';
import { Terminal } from '../helpers/terminal.js';
import { waitFor } from '../helpers/wait.js';
import { hasTmux, median, percentile } from './helpers.js';
import { REST_MS } from '../../core/delivery/queue.js';

const ROUNDS = Number(process.env.TUIOS_BENCH_ROUNDS ?? 5);
const GOAL_MS = 300;

/** Notes when each burst of input starts (a gap of 300 ms apart), and echoes it. */
const READER = `const fs=require('fs');const f=process.argv[1];let last=0;process.stdin.setRawMode(true);process.stdin.on('data',(d)=>{const now=Date.now();if(now-last>300)fs.appendFileSync(f,now+'\\n');last=now;process.stdout.write(d);});`;

async function main(): Promise<void> {
  if (!hasTmux()) {
    console.log('reply-paste: skipped, tmux is not installed');
    return;
  }
  const d = await TestDaemon.start();
  const stamps = join(d.dir, 'first-bytes.txt');
  const log = join(d.dir, 'build.log');
  writeFileSync(log, Array.from({ length: 40_000 }, (_, i) => `2026-12-04T17:00:00Z worker[${i}] retry ${i} backoff=${(i * 37) % 1000}ms status=503`).join('\n') + '\n');
  let t: Terminal | null = null;
  try {
    await d.ok(['new-session', 'bench', '--window-name', 'sh']);
    await d.call('new-window', { session: 'bench', name: 'agent', argv: [process.execPath, '-e', READER, stamps] });
    t = new Terminal(d.env, `${process.execPath} ${BIN} attach -s bench`);
    await t.wait(/┌─ /, 'the TUI');
    const xs: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // A fresh rest, longer than the queue's second at rest, before enter.
      await d.ok(['set-agent-state', '-w', 'bench:agent', 'working', '--harness', 'x']);
      await d.ok(['set-agent-state', '-w', 'bench:agent', 'idle', '--harness', 'x']);
      t.keys('C-b', 'i');
      await t.wait(/agent[\s\S]*r reply/, 'the agent row and the list\'s keys');
      t.keys('r');
      await t.wait(/Reply to agent/, 'the reply editor');
      t.type('summarise the failures in this run:');
      await t.wait(/› summarise the failures/, 'the typed words');
      t.pasteFile(log);
      await t.wait(/\[Pasted text #1 · 40000 lines\]/, 'the block', 60_000);
      await waitFor(async () => {
        const a = (await d.call<{ agents: Array<{ name: string; state_since: number; state: string }> }>('list-agents')).agents.find((x) => x.name === 'agent');
        return a && a.state === 'idle' && Date.now() - a.state_since > REST_MS + 200 ? a : null;
      }, { timeout: 30_000, what: 'the agent at rest for more than a second' });
      const before = existsSync(stamps) ? readFileSync(stamps, 'utf8').trim().split('\n').filter(Boolean).length : 0;
      const t0 = Date.now();
      t.keys('Enter');
      const first = await waitFor(() => {
        const lines = existsSync(stamps) ? readFileSync(stamps, 'utf8').trim().split('\n').filter(Boolean) : [];
        return lines.length > before ? Number(lines[before]) : null;
      }, { timeout: 30_000, what: 'the first byte typed into the pane' });
      xs.push(first - t0);
      // The message taken (the reader echoes it), the queue is empty for the next round.
      await waitFor(async () => ((await d.call<{ queued: unknown[] }>('list-queued', { all: true })).queued.length === 0 ? true : null), { timeout: 30_000, what: 'the queue empty' });
      t.keys('Escape');
    }
    const p50 = median(xs);
    const max = Math.max(...xs);
    console.log(`reply with a 3 MB block, enter → first byte typed: p50 ${p50.toFixed(0)} ms, p90 ${percentile(xs, 90).toFixed(0)} ms, max ${max.toFixed(0)} ms over ${xs.length} rounds (${xs.map((x) => x.toFixed(0)).join(', ')}); goal ≤ ${GOAL_MS} ms: ${p50 <= GOAL_MS ? 'met' : 'missed'}`);
  } finally {
    t?.kill();
    await d.stop();
  }
}

await main();
