// Observe-only access over SSH, with the real OpenSSH client: a key whose authorized_keys line
// carries `observe` lands in the TUI, moves around and reads, and is refused `forbidden` for
// everything that changes something, each refusal naming the setting: typing, an Inbox answer, a
// dismiss, resizing the panes, and a mutating verb over exec (even with exec_write = true, which
// the person's own key then uses to write). A stand-in Claude Code draws the captured permission
// screen for the answer.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { TestDaemon } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { Terminal } from '../helpers/terminal.js';
import { prerequisite } from '../helpers/prereq.js';
import { hasSsh, makeKey, authorize, sshPort, sshCommandLine, runSsh, type SshKey } from '../helpers/ssh.js';
import { screenStandin, type ScreenStandin } from '../helpers/screen-standin.js';
import { stateOf, waitState } from '../helpers/agent-state.js';

let d: TestDaemon;
let port = 0;
let person: SshKey;
let watcher: SshKey;
let standin: ScreenStandin;
let claude = '';
const terminals: Terminal[] = [];
const ssh = prerequisite('the OpenSSH client', hasSsh() ? '' : 'ssh or ssh-keygen is not installed (apt-get install openssh-client; .ci/run does)');
const it = ssh.gate(test);

// exec_write on: the person's key may write over exec, so a refusal of the watcher's is observe's.
const CONFIG = `[ssh]
listen = "127.0.0.1:0"
exec_write = true
`;
const OBSERVE = /its key is marked observe in authorized_keys/;

type Win = { id: string; name: string; cols: number; rows: number; focused: boolean };
const windows = async () => (await d.call<{ windows: Win[] }>('list-windows', { session: 'main' })).windows;

const attached = async () => (await d.call<{ attached_clients: number }>('server-info')).attached_clients;

/** The watcher's TUI in a terminal of its own, once every terminal of a test before is gone. */
async function watch(cols = 160, rows = 48): Promise<Terminal> {
  for (const t of terminals.splice(0)) t.kill();
  await waitFor(async () => (await attached()) === 0, { what: 'the clients of the test before to detach' });
  const t = new Terminal(d.env, sshCommandLine(d, port, watcher, ['-t']), cols, rows);
  terminals.push(t);
  return t;
}

/** The agents view's selection moved down with j until the selected row (starting ▌) matches. */
async function select(t: Terminal, row: RegExp): Promise<void> {
  const at = () => {
    const lines = t.screen().split('\n');
    const i = lines.findIndex((l) => l.startsWith('▌'));
    return { i, line: lines[i] ?? '' };
  };
  for (let n = 0; n < 16; n++) {
    const now = await waitFor(() => (at().i >= 0 ? at() : null), { timeout: 30_000, what: 'a selected row' });
    if (row.test(now.line)) return;
    t.keys('j');
    await waitFor(() => at().i !== now.i, { timeout: 30_000, what: `the selection to move on from ${now.line.trim()}` });
  }
  throw new Error(`no row matching ${row} to select:\n${t.screen()}`);
}

test.before(async () => {
  if (!ssh.met) return;
  d = await TestDaemon.start({ config: CONFIG });
  person = makeKey(join(d.dir, 'keys'), 'person');
  watcher = makeKey(join(d.dir, 'keys'), 'watcher');
  authorize(d, person.pub);
  authorize(d, `observe ${watcher.pub}`);
  port = await sshPort(d);
  await d.ok(['new-session', 'main', '--window-name', 'shell']);
  standin = screenStandin(d.dir, 'claude');
  const cwd = join(d.home, 'project');
  mkdirSync(cwd, { recursive: true });
  claude = (await d.call<{ id: string }>('new-window', { session: 'main', name: 'claude', argv: standin.argv, env: standin.env, cwd, cols: 120, rows: 40 })).id;
  await waitState(d, claude, (a) => a.harness_id === 'claude-code' && a.state === 'idle', { what: 'the stand-in attributed to claude-code and at rest' });
});

test.after(async () => {
  for (const t of terminals) t.kill();
  if (d) await d.stop();
});

it('over exec an observe key runs reading verbs and is refused forbidden for a verb that changes state, even with exec_write', async () => {
  const read = await runSsh(d, port, watcher, [], ['list-windows', '--json']);
  assert.is(read.code, 0, read.stderr);
  assert.ok(JSON.parse(read.stdout).windows.some((w: Win) => w.name === 'claude'));
  const capture = await runSsh(d, port, watcher, [], ['capture-pane', '-w', 'main:claude']);
  assert.is(capture.code, 0, capture.stderr);
  for (const verb of [['send-text', '-w', 'main:shell', "'echo from-the-watcher'"], ['resize-window', '-w', 'main:shell', '--cols', '70', '--rows', '20'], ['kill-session', '-s', 'main']]) {
    const r = await runSsh(d, port, watcher, [], verb);
    assert.is(r.code, 1, `${verb[0]}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, /\(forbidden\)/, verb[0]);
    assert.match(r.stderr, new RegExp(`${verb[0]} is refused \\(read-only\\): ${OBSERVE.source}`), verb[0]);
    assert.match(r.stderr, /The key's line in \S*authorized_keys without observe allows it/, `${verb[0]}: the hint names what allows it`);
  }
  assert.ok((await windows()).some((w) => w.name === 'shell'), 'the session is still there');
  // The person's key on the same server writes: exec_write is on, the refusal was observe's.
  const mine = await runSsh(d, port, person, [], ['send-text', '-w', 'main:shell', '--submit', "'echo person-$((6*7))'"]);
  assert.is(mine.code, 0, mine.stderr);
  await d.waitScreen('main:shell', /person-42/);
  assert.not.match(await d.screen('main:shell'), /from-the-watcher/);
});

it('an observe key lands in the TUI marked read-only, moves focus and reads panes; what it types is refused', async () => {
  await d.ok(['select-window', '-w', 'main:shell']);
  await d.ok(['send-text', '-w', 'main:shell', '--submit', 'echo shown-$((2*21))']);
  const t = await watch();
  await t.wait(/\[read-only\]/, 'the read-only mark in the status line');
  await t.wait(/Read-only: its key is marked observe/, 'the dock line saying why');
  await t.wait(/shown-42/, 'the pane\'s text');
  assert.is(await attached(), 1);
  // Moving around: the prefix and an arrow focus the other pane.
  const before = (await windows()).find((w) => w.focused)!.name;
  t.keys('C-b', before === 'shell' ? 'Right' : 'Left');
  await waitFor(async () => (await windows()).find((w) => w.focused)!.name !== before, { what: 'the focus to move' });
  t.keys('C-b', before === 'shell' ? 'Left' : 'Right');
  await waitFor(async () => (await windows()).find((w) => w.focused)!.name === 'shell', { what: 'the focus back on shell' });
  // Typing: refused in the dock, and nothing reaches the shell.
  t.type('echo typed-by-watcher');
  t.keys('Enter');
  await t.wait(new RegExp(`Typing is refused \\(forbidden\\): ${OBSERVE.source}`), 'the typing refusal');
  await d.ok(['send-text', '-w', 'main:shell', '--submit', 'echo after-$((3*3))']);
  await d.waitScreen('main:shell', /after-9/);
  assert.not.match(await d.screen('main:shell'), /typed-by-watcher/, 'no key the watcher typed reached the shell');
  // A zoom is the session's layout, shared with everyone.
  t.keys('C-b', 'z');
  await t.wait(new RegExp(`Zoom is refused \\(forbidden\\): ${OBSERVE.source}`), 'the zoom refusal');
});

it('an observe key resizing its terminal resizes no pane: refused forbidden, only its own view changes', async () => {
  const t = await watch(160, 48);
  await t.wait(/\[read-only\]/, 'the read-only mark');
  const sizes = (await windows()).map((w) => `${w.name}=${w.cols}x${w.rows}`).sort();
  t.resize(130, 36);
  await t.wait(/Resizing the panes is refused \(forbidden\): its key is marked observe/, 'the resize refusal');
  await t.wait(/\[read-only\]/, 'the status line redrawn at the new size');
  assert.ok(t.screen().split('\n').every((l) => l.length <= 130), 'its own view took the new size');
  assert.equal((await windows()).map((w) => `${w.name}=${w.cols}x${w.rows}`).sort(), sizes, 'no pane changed size');
  // A person attached meanwhile sizes the panes as before; the watcher's resize does not take them back.
  const mine = new Terminal(d.env, sshCommandLine(d, port, person, ['-t']), 130, 40);
  terminals.push(mine);
  await mine.wait(/C-b \? help/, 'the person\'s TUI');
  await waitFor(async () => (await windows()).map((w) => `${w.name}=${w.cols}x${w.rows}`).sort().join() !== sizes.join(), { what: 'the person\'s client to size the panes' });
  const personal = (await windows()).map((w) => `${w.name}=${w.cols}x${w.rows}`).sort();
  t.resize(90, 28);
  await t.wait(/\[read-only\]/, 'the watcher redrawn');
  mine.kill();
  await waitFor(async () => (await attached()) === 1, { what: 'the person detached' });
  t.resize(80, 24);
  await waitFor(() => {
    const lines = t.screen().split('\n');
    return lines.every((l) => l.length <= 80) && /Resizing the panes is refused/.test(lines.join('\n'));
  }, { what: 'the watcher at 80 columns, its resize refused' });
  assert.equal((await windows()).map((w) => `${w.name}=${w.cols}x${w.rows}`).sort(), personal, 'the panes keep the person\'s sizes');
});

it('in the Inbox an observe key reads a prompt but its answer is refused forbidden, and nothing is pressed', async () => {
  const r = await d.call<{ state: string }>('ask-agent', { window: claude, text: 'run touch a.txt', timeout: 30_000 });
  assert.is(r.state, 'needs_input');
  const t = await watch();
  await t.wait(/\[read-only\]/, 'the read-only mark');
  t.keys('C-b', 'i');
  await t.wait(/Needs you\s+1/, 'the Needs you group');
  await select(t, /▲ claude\s/);
  t.keys('Space');
  await t.wait(/touch a\.txt/, 'the peeked prompt: reading works');
  await t.wait(/a allow once/, 'the answer keys');
  const before = standin.events().length;
  t.keys('1');
  await t.wait(new RegExp(`Not answered: respond is refused \\(read-only\\): ${OBSERVE.source}`), 'the answer refusal');
  assert.is((await stateOf(d, claude)).state, 'needs_input', 'the prompt still waits');
  assert.not.ok(standin.events().slice(before).some((e) => e.t === 'key'), 'no key reached the stand-in');
});

it('in the Inbox an observe key cannot dismiss an item: refused forbidden, the item stays', async () => {
  await d.ok(['new-window', '-s', 'main', 'worker']);
  await d.ok(['set-agent-state', '-w', 'main:worker', 'working', '--harness', 'x']);
  await d.ok(['set-agent-state', '-w', 'main:worker', 'done', '-m', 'Updated the docs', '--harness', 'x']);
  const items = async () => (await d.call<{ items: Array<{ kind: string; window_id?: string }> }>('list-attention')).items;
  await waitFor(async () => (await items()).some((i) => i.kind === 'done'), { what: 'the Done item' });
  const t = await watch();
  await t.wait(/\[read-only\]/, 'the read-only mark');
  t.keys('C-b', 'i');
  await t.wait(/Ready for review\s+1/, 'the Ready for review group');
  await select(t, /■ worker\s/);
  t.keys('d');
  await t.wait(new RegExp(`Not dismissed: dismiss-attention is refused \\(read-only\\): ${OBSERVE.source}`), 'the dismiss refusal');
  assert.ok((await items()).some((i) => i.kind === 'done'), 'the item is still in the Inbox');
});

it('an observe key on a daemon with no session is refused forbidden, and no session is made for it', async () => {
  const empty = await TestDaemon.start({ config: CONFIG });
  try {
    authorize(empty, `observe ${watcher.pub}`);
    const r = await runSsh(empty, await sshPort(empty), watcher, ['-tt']);
    assert.is(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout + r.stderr, /There is nothing to watch yet, and this client may not start a session: its key is marked observe in authorized_keys/);
    assert.equal((await empty.call<{ sessions: unknown[] }>('list-sessions')).sessions, []);
  } finally {
    await empty.stop();
  }
});

test.run();
