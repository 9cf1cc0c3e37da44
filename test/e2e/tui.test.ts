// The TUI as a person uses it: `tuios attach` in a real terminal (tmux on a private socket,
// 160x48), driven with keys and read back from the screen. A real daemon in temp folders; the
// agents are stand-ins that report their state with set-agent-state and draw a captured prompt.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { TestDaemon, BIN, ROOT } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { Terminal } from '../helpers/terminal.js';
import { waitState } from '../helpers/agent-state.js';

let d: TestDaemon;
const TUIOS = `${process.execPath} ${BIN}`;
const FIXTURE = join(ROOT, 'fixtures/screens/claude-code/2.1.332/approval-shell-command-80x24.screen');


const terminals: Terminal[] = [];
function attach(args = ''): Terminal {
  const t = new Terminal(d.env, `${TUIOS} attach ${args}`);
  terminals.push(t);
  return t;
}

interface Win {
  id: string;
  name: string;
  session: string;
  workspace: number;
  cols: number;
  rows: number;
  focused: boolean;
}

async function windows(session?: string): Promise<Win[]> {
  const r = await d.call<{ windows: Win[] }>('list-windows', session ? { session } : {});
  return r.windows;
}

test.before(async () => {
  d = await TestDaemon.start();
  await d.ok(['new-session', 'main', '--window-name', 'first']);
});

test.after(async () => {
  for (const t of terminals) t.kill();
  await d.stop();
});

test('attach draws the session: a tile with the window name, the rail, the status line', async () => {
  const t = attach('-s main');
  await t.wait(/┌─ first /, 'the first tile');
  // The frame may reach tmux in more than one write: wait for its last part, the status line.
  const s = await t.wait(/\[main\] 1\*/, 'the status line');
  assert.match(s, /┌─ first /);
  assert.match(s, /sessions/);
  assert.match(s, /▸ {1,2}main/);
  t.kill();
});

test('typing reaches the focused shell; ctrl+b % and " split it into new windows', async () => {
  const t = attach('-s main');
  await t.wait(/┌─ first /);
  t.type('echo typed-$((6*7))');
  t.keys('Enter');
  await t.wait(/typed-42/, 'the shell answering');
  t.keys('C-b', '%');
  await waitFor(async () => (await windows('main')).length === 2, { what: 'a second window' });
  // Side by side: two tile tops on one line.
  await t.wait(/┌─ first [^\n]*┌─ /, 'two tiles side by side');
  t.keys('C-b', '"');
  await waitFor(async () => (await windows('main')).length === 3, { what: 'a third window' });
  const s = await t.wait(/└─+┘\n[^\n]*┌─/, 'a tile under another');
  assert.ok(s.split('\n').some((l) => (l.match(/┌─/g) ?? []).length === 2), 'the first row still holds two tiles');
  // Each window took the size of its tile: the split halves are narrower than the first tile was.
  const ws = await windows('main');
  const [a, b] = [ws[0]!, ws[1]!];
  assert.ok(a.cols < 120 && b.cols < 120, `split widths ${a.cols}, ${b.cols}`);
  // The new pane has the focus: what is typed lands there, not in the first.
  t.type('echo in-third');
  t.keys('Enter');
  await d.waitScreen(ws[2]!.id, /in-third/);
  assert.not.match(await d.screen(ws[0]!.id), /in-third/);
  // Alt+Left moves the focus to the left tile.
  t.keys('M-Left');
  await waitFor(async () => (await windows('main')).find((w) => w.focused)?.id === ws[0]!.id, { what: 'the focus on the left tile' });
  t.kill();
});

test('a stand-in agent\'s mark changes on the rail and in its tile\'s title', async () => {
  const [w] = await windows('main');
  try {
    await marks(w!);
  } finally {
    await d.ok(['set-agent-state', '-w', w!.id, 'none']);
  }
});

async function marks(w: Win): Promise<void> {
  const t = attach('-s main');
  await t.wait(/┌─ first /);
  assert.not.match(t.screen(), /agents/, 'no agents section before an agent was seen');
  await d.ok(['set-agent-state', '-w', w.id, 'needs_input', '--kind', 'approval', '-m', 'approve Bash: make', '--harness', 'x']);
  let s = await t.wait(/┌─ ▲ first /, 'the needs-you mark in the title');
  assert.match(s, /agents\s+1 need you/);
  assert.match(s, /▲ first/);
  // The rail is 24 wide: `approval · Bash: make` does not fit, so the approval's tool and command
  // stand in for the word (the mark says it waits), and `approve` is not said twice.
  assert.match(s, /│? {4}Bash: make/);
  assert.not.match(s, /approval · approve/);
  await d.ok(['set-agent-state', '-w', w.id, 'working', '--harness', 'x']);
  s = await t.wait(/┌─ ● first /, 'the working mark in the title');
  assert.match(s, / ● first/);
  await d.ok(['set-agent-state', '-w', w.id, 'none']);
  await t.wait(/┌─ first /, 'no mark once the agent left');
  t.kill();
}

test('the agents view: peek at a prompt, answer it with 1, and the pane goes working', async () => {
  // A stand-in for Claude Code: it draws the captured permission prompt, says needs_input, and
  // says working once a key arrives. Its own workspace gives it one large tile.
  const script = join(d.dir, 'fake-agent.sh');
  writeFileSync(
    script,
    `#!/bin/sh
clear
sed -n '/^--- screen ---$/,$p' "$1" | tail -n +2
${TUIOS} set-agent-state -w "$TUIOS_PANE_ID" needs_input --kind approval -m 'approve Bash: touch hello.txt' --harness claude-code
old=$(stty -g); stty raw -echo
key=$(dd bs=1 count=1 2>/dev/null)
stty "$old"
${TUIOS} set-agent-state -w "$TUIOS_PANE_ID" working --harness claude-code
echo "the agent got: $key"
sleep 600
`,
  );
  chmodSync(script, 0o755);
  const t = attach('-s main');
  await t.wait(/┌─ first /);
  t.keys('C-b', '5');
  await t.wait(/\[main\] 1 5\*/, 'workspace 5');
  await d.ok(['new-window', '-s', 'main', '--workspace', '5', 'agent', script, FIXTURE]);
  await waitState(d, 'agent', 'needs_input', { what: 'the agent on needs_input' });
  await t.wait(/┌─ ▲ agent /, 'the agent tile with its mark');
  t.keys('C-b', 'i');
  await t.wait(/Agents\s+▲ 1 need you/, 'the agents view');
  await t.wait(/Needs you\s+1/, 'the Needs you group');
  t.keys('Space');
  await t.wait(/Do you want to proceed\?/, 'the peeked prompt');
  await t.wait(/1-\d choose/, 'the answer keys, once the card has been on screen');
  t.keys('1');
  // The risk rules may judge the call risky: then the same key again allows it.
  const s = await t.wait(/Press 1 again|Sent "1" to claude-code/, 'the answer or the risk warning');
  if (/Press 1 again/.test(s)) t.keys('1');
  await t.wait(/Sent "1" to claude-code/, 'the dock saying what was pressed');
  await waitState(d, 'agent', 'working', { what: 'the pane going working' });
  await d.waitScreen('agent', /the agent got: 1/);
  t.keys('Escape');
  await t.wait(/┌─ ● agent /, 'the working mark once the view closed');
  t.kill();
});

test('--ascii-only draws the ASCII marks and borders', async () => {
  const [w] = await windows('main');
  await d.ok(['set-agent-state', '-w', w!.id, 'needs_input', '--kind', 'question', '-m', 'which branch?', '--harness', 'x']);
  const t = attach('-s main --ascii-only');
  t.keys('C-b', '1');
  const s = await t.wait(/\+- ! first /, 'the ASCII needs-you mark in the title');
  assert.match(s, / ! first/);
  assert.not.match(s, /[▲●■○×□┌─│]/, 'no box-drawing or mark glyphs');
  await d.ok(['set-agent-state', '-w', w!.id, 'done', '-m', 'finished it', '--harness', 'x']);
  // The focused pane that finished is looked at, so it shows as read: o rather than #.
  await t.wait(/\+- [o#] first /, 'the done mark');
  await d.ok(['set-agent-state', '-w', w!.id, 'none']);
  t.kill();
});

test('a resize redraws the layout at the new size', async () => {
  const t = attach('-s main');
  t.keys('C-b', '1');
  await t.wait(/┌─ first /);
  const before = (await windows('main')).filter((w) => w.workspace === 1);
  assert.ok(before.some((w) => w.name === 'first'), `first is on workspace 1: ${JSON.stringify(before)}`);
  t.resize(120, 40);
  await t.wait(/^ \[main\][^\n]*C-b \? help\s*$/m, 'the status line');
  await waitFor(() => {
    const l = t.screen().split('\n');
    return l.length >= 40 && /\[main\]/.test(l[39] ?? '') && (l[0] ?? '').trimEnd().length === 120;
  }, { what: 'the status line on row 40 and tiles 120 wide' });
  // The same panes, each resized to its smaller tile: narrower (40 columns less) and shorter (8 rows less).
  const after = await waitFor(async () => {
    const now = (await windows('main')).filter((w) => w.workspace === 1);
    const was = new Map(before.map((w) => [w.id, w]));
    const smaller = now.length === before.length && now.every((w) => was.has(w.id) && w.cols < was.get(w.id)!.cols && w.rows < was.get(w.id)!.rows);
    return smaller ? now : null;
  }, { what: 'the panes resized to their smaller tiles' });
  assert.equal(after.map((w) => w.id).sort(), before.map((w) => w.id).sort());
  t.kill();
});

test('ctrl+b d detaches; the relay exits and the session stays', async () => {
  const t = attach('-s main');
  await t.wait(/┌─/);
  const before = (await windows('main')).map((w) => w.id).sort();
  assert.ok(before.length > 0);
  t.keys('C-b', 'd');
  await t.wait(/\[detached \(from session main\)\][\s\S]*\[exited 0\]/, 'the detach line');
  const sessions = (await d.call<{ sessions: Array<{ name: string }> }>('list-sessions')).sessions;
  assert.ok(sessions.some((s) => s.name === 'main'), `main is still a session: ${JSON.stringify(sessions)}`);
  assert.equal((await windows('main')).map((w) => w.id).sort(), before, 'with the same windows');
  t.kill();
});

test('ctrl+b x asks before it closes a window', async () => {
  await d.ok(['new-session', 'closing', '--window-name', 'keep']);
  await d.ok(['new-window', '-s', 'closing', 'gone']);
  const t = attach('-s closing');
  await t.wait(/┌─ gone /);
  t.keys('M-Right');
  await waitFor(async () => (await windows('closing')).find((w) => w.focused)?.name === 'gone', { what: 'the focus on gone' });
  t.keys('C-b', 'x');
  await t.wait(/Close gone and end its program\? y\/n/, 'the question');
  t.keys('n');
  await t.wait(/Nothing was closed/);
  assert.is((await windows('closing')).length, 2);
  t.keys('C-b', 'x');
  await t.wait(/Close gone/);
  t.keys('y');
  await waitFor(async () => (await windows('closing')).length === 1, { what: 'the window closed' });
  t.kill();
});

test('the client exits when its session ends', async () => {
  await d.ok(['new-session', 'brief']);
  const t = attach('-s brief');
  await t.wait(/\[brief\]/);
  await d.ok(['kill-session', 'brief']);
  await t.wait(/\[exited: the session ended\][\s\S]*\[exited 0\]/, 'the exit line');
  t.kill();
});

test('bare tuios attaches, making a session when there is none', async () => {
  const d2 = await TestDaemon.start();
  try {
    const t = new Terminal(d2.env, TUIOS);
    terminals.push(t);
    await t.wait(/┌─ /, 'a tile of the new session');
    const r = await d2.call<{ sessions: Array<{ name: string }> }>('list-sessions');
    assert.is(r.sessions.length, 1);
    t.kill();
  } finally {
    await d2.stop();
  }
});

test('from inside a pane: attaching to its own session is refused; to another, it has no nonce', async () => {
  await d.ok(['new-session', 'inner', '--window-name', 'shell']);
  await d.ok(['new-session', 'other']);
  await d.ok(['send-text', '-w', 'inner:shell', `${TUIOS} attach -s inner; echo "rc=$?"\n`]);
  const own = await d.waitScreen('inner:shell', /rc=\d/);
  assert.match(own, /forbidden/);
  assert.match(own, /rc=1/);
  await d.ok(['send-text', '-w', 'inner:shell', 'clear\n']);
  await d.ok(['resize-window', '-w', 'inner:shell', '--cols', '160', '--rows', '40']);
  await d.ok(['send-text', '-w', 'inner:shell', `${TUIOS} attach -s other\n`]);
  await d.waitScreen('inner:shell', /Attached from inside a pane: this client cannot answer or dismiss as you/);
  await d.ok(['send-keys', '-w', 'inner:shell', 'C-b', 'd']);
  await d.waitScreen('inner:shell', /\[detached \(from session other\)\]/);
});

test('garbage from a client does not take the daemon down', async () => {
  const c = await d.client();
  const att = await c.stream<{ client_id: number }>('attach', { mode: 'tui', session: 'main', cols: 100, rows: 30 }, () => {});
  const junk = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256));
  await c.call('tui-input', { client: att.client_id, data: junk.toString('base64') });
  await c.call('tui-input', { client: att.client_id, data: Buffer.from('\x1b[<99999;0;0M\x1b[200~unterminated').toString('base64') });
  await c.call('tui-resize', { client: att.client_id, cols: 2, rows: 1 });
  await c.call('tui-resize', { client: att.client_id, cols: 1000, rows: 500 });
  // Another connection cannot type into this client.
  const other = await d.client();
  const r = await other.call('tui-input', { client: att.client_id, data: 'eA==' }).catch((e: Error) => e);
  assert.instance(r, Error);
  c.close();
  other.close();
  assert.ok(await d.answers(), 'the daemon still answers');
});

test.run();
