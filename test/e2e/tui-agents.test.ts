// The TUI's agent side and its pass-through, as a person uses them in tmux: the agents view's
// dismiss, undo, reply through the queue and ctrl+]; ctrl+b o; alerts in the dock line and in
// band; and keys a program asked for (bracketed paste, application cursor keys, mouse reports)
// reaching it unchanged.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TestDaemon, BIN } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { Terminal } from '../helpers/terminal.js';

let d: TestDaemon;
const TUIOS = `${process.execPath} ${BIN}`;


const terminals: Terminal[] = [];
function attach(session: string): Terminal {
  const t = new Terminal(d.env, `${TUIOS} attach -s ${session}`);
  terminals.push(t);
  return t;
}

interface Item {
  id: number;
  kind: string;
  window_id: string | null;
}

async function items(): Promise<Item[]> {
  return (await d.call<{ items: Item[] }>('list-attention')).items;
}

test.before(async () => {
  d = await TestDaemon.start();
});

test.after(async () => {
  for (const t of terminals) t.kill();
  await d.stop();
});

test('a paste is bracketed only for a program that asked for it', async () => {
  await d.ok(['new-session', 'paste', '--window-name', 'raw', 'sh', '-c', "stty -icanon -echo; printf 'ready\\n'; cat -v"]);
  const t = attach('paste');
  await t.wait(/ready/);
  t.tmux(['set-buffer', 'pasted-text']);
  t.tmux(['paste-buffer', '-p', '-t', 't']);
  await d.waitScreen('paste:raw', /pasted-text/);
  assert.not.match(await d.screen('paste:raw'), /200~/, 'no markers for a program without DECSET 2004');
  await d.ok(['new-window', '-s', 'paste', 'brk', 'sh', '-c', "stty -icanon -echo; printf '\\033[?2004hready2\\n'; cat -v"]);
  t.keys('M-Right');
  await waitFor(async () => (await d.call<{ windows: Array<{ name: string; focused: boolean }> }>('list-windows', { session: 'paste' })).windows.find((w) => w.focused)?.name === 'brk', { what: 'the focus on brk' });
  await t.wait(/ready2/);
  t.tmux(['set-buffer', 'second']);
  // tmux brackets a paste only once it has parsed the TUI's ESC[?2004h for the newly focused pane,
  // which can trail the daemon's focus under load (tmux 3.3 has no format to ask it): paste again
  // until the markers arrive. The markers themselves are what is checked.
  await waitFor(async () => {
    t.tmux(['paste-buffer', '-p', '-t', 't']);
    const screen = await d.waitScreen('paste:brk', /second/, 3000).catch(() => '');
    return /\^\[\[200~second\^\[\[201~/.test(screen);
  }, { timeout: 30_000, what: 'a bracketed paste on brk' });
  t.kill();
});

test('application cursor keys and mouse reports reach the program in the form it asked for', async () => {
  await d.ok(['new-session', 'modes', '--window-name', 'app', 'sh', '-c', "stty -icanon -echo; printf '\\033[?1h\\033[?1000h\\033[?1006hready\\n'; cat -v"]);
  const t = attach('modes');
  await t.wait(/ready/);
  t.keys('Up');
  await d.waitScreen('modes:app', /\^\[OA/);
  // A press at terminal column 30, row 5 (1-based) is the pane's column 30-25, row 5-1.
  const wins = await d.call<{ windows: Array<{ name: string; cols: number }> }>('list-windows', { session: 'modes' });
  assert.ok(wins.windows[0]!.cols > 100);
  t.type('\x1b[<0;30;5M');
  await d.waitScreen('modes:app', /\^\[\[<0;5;4M/);
  t.kill();
});

test('alerts: a state change in another session is one dock line, and an in-band notification', async () => {
  await d.ok(['new-session', 'home', '--window-name', 'here']);
  await d.ok(['new-session', 'fan', '--window-name', 'a1']);
  await d.ok(['new-window', '-s', 'fan', 'a2']);
  await d.ok(['new-window', '-s', 'fan', 'a3']);
  // The in-band part, read from the stream itself (tmux does not show an OSC 9).
  const c = await d.client();
  let stream = '';
  await c.stream('attach', { mode: 'tui', session: 'home', cols: 120, rows: 40 }, (ev) => {
    const e = ev as { type?: string; data?: string };
    if (e.type === 'output' && e.data) stream += e.data;
  });
  const t = attach('home');
  await t.wait(/┌─ here /);
  for (const w of ['fan:a1', 'fan:a2', 'fan:a3']) await d.ok(['set-agent-state', '-w', w, 'needs_input', '--kind', 'approval', '-m', 'approve Bash: make', '--harness', 'x']);
  // Three arrivals together are one message.
  await t.wait(/3 agents need you in fan|fan: x needs approval/, 'the dock line');
  await waitFor(() => /\x1b\]9;tuios: [^\x07]+\x07/.test(stream), { what: 'an OSC 9 notification in the stream' });
  assert.match(stream, /\x07/);
  for (const w of ['fan:a1', 'fan:a2', 'fan:a3']) await d.ok(['set-agent-state', '-w', w, 'none']);
  c.close();
  t.kill();
});

test('the agents view: d dismisses, u undoes, r queues a reply, ctrl+] goes to the pane zoomed', async () => {
  await d.ok(['new-session', 'view', '--window-name', 'worker']);
  await d.ok(['new-window', '-s', 'view', 'other']);
  await d.ok(['set-agent-state', '-w', 'view:worker', 'working', '--harness', 'x']);
  await d.ok(['set-agent-state', '-w', 'view:worker', 'done', '-m', 'Updated the docs', '--harness', 'x']);
  await waitFor(async () => (await items()).some((i) => i.kind === 'done'), { what: 'the Done item' });
  // Looking at a finished pane marks it seen, so the client starts on the other one.
  await d.ok(['select-window', '-w', 'view:other']);
  const t = attach('view');
  await t.wait(/┌─ /);
  t.keys('C-b', 'i');
  await t.wait(/Ready for review\s+1/, 'the Ready for review group');
  // Select the row whatever else is listed, then dismiss it.
  t.keys('g');
  t.keys('d');
  await t.wait(/Dismissed it\. u undoes it/, 'the dismiss line');
  await waitFor(async () => !(await items()).some((i) => i.kind === 'done'), { what: 'the item closed' });
  t.keys('u');
  await t.wait(/Undone\./);
  await waitFor(async () => (await items()).some((i) => i.kind === 'done'), { what: 'the item back' });
  // A reply goes through the delivery queue as the person.
  t.keys('r');
  await t.wait(/Reply to worker/);
  t.type('please add an example');
  t.keys('Enter');
  await t.wait(/Queued for worker \(q\d+\)/, 'the queued line');
  const q = await d.call<{ queued: Array<{ by: string; window_id: string }> }>('list-queued', { all: true });
  assert.ok(q.queued.some((m) => m.by === 'human'), 'queued as human');
  t.keys('C-]');
  await t.wait(/Press ctrl\+b i to go back to the agents/);
  await t.wait(/┌─ [○■] worker [^\n]*\[zoom\]/, 'the pane zoomed');
  t.kill();
});

test('ctrl+b o goes to the oldest item that needs you, in another session', async () => {
  await d.ok(['new-session', 'calm', '--window-name', 'quiet']);
  await d.ok(['new-session', 'busy', '--window-name', 'blocked']);
  await d.ok(['set-agent-state', '-w', 'busy:blocked', 'errored', '-m', 'the build broke', '--harness', 'x']);
  const t = attach('calm');
  await t.wait(/\[calm\]/);
  t.keys('C-b', 'o');
  await t.wait(/\[busy\][\s\S]*|┌─ × blocked/, 'the busy session');
  await t.wait(/┌─ × blocked /, 'the errored pane focused');
  t.kill();
});

test.run();
