// The rail with a real agent waiting on an approval (issue: the rail read `approval · approve…`,
// its wait stood at `0s` for 28 s, and the Inbox item went to an empty summary just before it
// closed). A real Claude Code 2.1.197 asks to run `touch hello.txt`; the TUI attaches to the same
// daemon in a 160x48 terminal (the shipped 24-column rail) and is read back as a screen:
// - the rail's row shows the tool and the command (`Bash: touch hello…`), not `approve…`;
// - the row's wait moves on while it waits (at least 3 s more within 15 s: a 1 s tick, not 60 s);
// - the approval's Inbox item says what it asks from open to close, never an empty summary.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { RpcClient } from '../../core/rpc/client.js';
import { BIN } from '../helpers/daemon.js';
import { Terminal } from '../helpers/terminal.js';
import { waitFor } from '../helpers/wait.js';
import { waitForQuiet } from '../helpers/agents.js';
import { RealAgent } from '../helpers/real-agent.js';
import { RAIL_WIDTH } from '../../tui/limits.js';

const t = suite('live rail: claude-code 2.1.197');
const a = new RealAgent('claude-code', { version: '2.1.197', name: 'claude', daemon: { config: '[daemon]\nrespond_from_shell = true\n' } });
const it = a.gate(t);
interface Attention {
  type: string;
  op: string;
  item: { id: number; kind: string; window_id: string | null; summary: string };
}
const attention: Attention[] = [];
let stream: RpcClient | null = null;
let term: Terminal | null = null;

t.before(async () => {
  await a.start();
  if (!a.needs.met) return;
  stream = await a.d.client();
  await stream.stream('subscribe', { types: ['attention'] }, (e) => attention.push(e as Attention));
});
t.after(async () => {
  term?.kill();
  stream?.close();
  await a.stop();
});

/** The rail: the left RAIL_WIDTH columns of every line of the terminal. */
function rail(screen: string): string {
  return screen
    .split('\n')
    .map((l) => [...l].slice(0, RAIL_WIDTH).join('').trimEnd())
    .join('\n');
}

/** The wait at the right edge of the claude row on the rail, in seconds (null: not shown). */
function railWait(screen: string): number | null {
  const row = rail(screen)
    .split('\n')
    .find((l) => / claude\b/.test(l) && /\d+[smh]$/.test(l));
  const m = row?.match(/(\d+)([smh])$/);
  if (!m) return null;
  return Number(m[1]) * (m[2] === 'h' ? 3600 : m[2] === 'm' ? 60 : 1);
}

it('an approval on the rail: the command shows, its wait moves on, its Inbox item keeps its summary', async () => {
  await a.waitRow('idle', { what: 'claude-code at rest at its prompt' });
  await waitForQuiet(a.d, a.window, 2000, 60_000);
  const from = attention.length;
  // Typed as a person would (ask-agent's 5 s check for the turn to start is too short on a loaded machine).
  await a.d.call('send-text', { window: a.window, text: 'Please create hello.txt', submit: true });
  await a.waitState('needs_input', { timeout: 120_000, what: 'the approval of touch hello.txt' });
  // The person looks at the agent's pane, as when the rail said 0s: its row shows its wait.
  await a.d.ok(['select-window', '-w', a.window]);
  term = new Terminal(a.d.env, `${process.execPath} ${BIN} attach -s agents`);
  await term.wait(/agents\s+1 need you/, 'the rail with one agent that needs you', 30_000);
  // Each of the three is checked and said, so one run tells all that is wrong.
  const problems: string[] = [];
  await waitFor(() => /Bash: touch hello/.test(rail(term!.screen())), { timeout: 20_000, what: 'the command on the rail' }).catch(() => {
    problems.push(`the rail shows no command:\n${rail(term!.screen()).trimEnd()}`);
  });
  if (/approve…/.test(rail(term.screen()))) problems.push('the rail says approve…');
  // The wait moves on while the row waits: the first figure, then 3 s more within 15 s.
  const first = await waitFor(() => railWait(term!.screen()), { timeout: 30_000, what: 'the wait on the claude row' });
  let last = first;
  await waitFor(() => {
    last = railWait(term!.screen()) ?? last;
    return last >= first + 3;
  }, { timeout: 15_000, interval: 100, what: `the wait to move on from ${first}s` }).catch(() => {
    problems.push(`the wait stood at ${last}s for 15 s (first seen ${first}s)`);
  });
  console.log(`[tuios-test-note] live rail: the wait went from ${first}s to ${last}s on the rail`);
  await a.d.ok(['respond', '-w', a.window, 'approve']);
  await waitFor(() => existsSync(join(a.project, 'hello.txt')), { timeout: 60_000, what: 'the approved command to run' });
  await waitFor(() => attention.slice(from).some((e) => e.op === 'close' && e.item.kind === 'approval' && e.item.window_id === a.window), { timeout: 60_000, what: 'the approval item to close' });
  const mine = attention.slice(from).filter((e) => e.item.kind === 'approval' && e.item.window_id === a.window);
  const said = mine.map((e) => `${e.op}:${JSON.stringify(e.item.summary)}`).join(', ');
  if (!mine.every((e) => e.item.summary.trim() !== '')) problems.push(`the approval item went empty: ${said}`);
  if (!/touch hello\.txt/.test(mine.at(-1)!.item.summary)) problems.push(`it closed not saying what it asked: ${said}`);
  assert.equal(problems, [], problems.join('\n'));
});

t.run();
