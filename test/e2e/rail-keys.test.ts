// The rail's keyboard (spec: The rail's agents section, Snoozing undo and unread, Queued
// messages), driven through the real TUI in tmux and read back with capture-pane: a click on the
// rail gives it the keyboard; j/k move its cursor (the row's name drawn inverse) and the keys act
// on the row under it; r replies through the Inbox, which closes once sent; x drops the newest
// queued message and u puts it back; u marks a seen turn unread; z snoozes it; enter goes to the
// pane and esc gives the keyboard back.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TestDaemon, BIN } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { Terminal } from '../helpers/terminal.js';
import { RAIL_WIDTH } from '../../tui/limits.js';

let d: TestDaemon;
let t: Terminal | null = null;

interface Agent {
  name: string;
  window_id: string;
  finished_unread?: boolean;
}
interface Queued {
  id: string;
  text: string;
  by: string;
  window_id: string;
}

test.before(async () => {
  d = await TestDaemon.start();
});

test.after(async () => {
  t?.kill();
  await d.stop();
});

/** The agent row whose name the rail draws inverse (the keyboard cursor), read from the screen's SGR. */
function cursorRow(term: Terminal): string | null {
  const lines = term.tmux(['capture-pane', '-p', '-e', '-t', 't']).split('\n');
  for (const l of lines) {
    let inverse = false;
    let col = 0;
    let text = '';
    for (const m of l.matchAll(/\x1b\[([0-9;:]*)m|([^\x1b]+)/g)) {
      if (m[1] !== undefined) {
        for (const p of m[1] === '' ? ['0'] : m[1].split(';')) {
          if (p === '0') inverse = false;
          else if (p === '7') inverse = true;
          else if (p === '27') inverse = false;
        }
        continue;
      }
      for (const ch of m[2] ?? '') {
        if (col >= RAIL_WIDTH) break;
        if (inverse) text += ch;
        col++;
      }
    }
    const name = text.trim();
    if (name && /^[a-z]+$/.test(name)) return name;
  }
  return null;
}

async function queued(window: string): Promise<Queued[]> {
  return (await d.call<{ queued: Queued[] }>('list-queued', { all: true })).queued.filter((q) => q.window_id === window);
}

async function agent(name: string): Promise<Agent> {
  const a = (await d.call<{ agents: Agent[] }>('list-agents')).agents.find((x) => x.name === name);
  assert.ok(a, `the agent ${name} is listed`);
  return a!;
}

/** Presses j or k until the cursor is on `name` (the order is the rail's, read from the screen). */
async function moveTo(term: Terminal, name: string): Promise<void> {
  term.keys('g');
  await waitFor(() => cursorRow(term) !== null, { what: 'the cursor on a row' });
  for (let i = 0; i < 6 && cursorRow(term) !== name; i++) {
    const before = cursorRow(term);
    term.keys('j');
    await waitFor(() => cursorRow(term) !== before || null, { timeout: 5000, what: `the cursor to move off ${before}` }).catch(() => null);
  }
  assert.is(cursorRow(term), name, `the cursor reached ${name}`);
}

test('the rail holds the keyboard: move, reply, drop and put back, unread, snooze, enter, esc', async () => {
  await d.ok(['new-session', 'rk', '--window-name', 'front']);
  await d.ok(['new-window', '-s', 'rk', 'api']);
  await d.ok(['new-window', '-s', 'rk', 'docs']);
  await d.ok(['set-agent-state', '-w', 'rk:api', 'working', '--harness', 'x']);
  await d.ok(['set-agent-state', '-w', 'rk:api', 'done', '-m', 'Wrote the handler', '--harness', 'x']);
  await d.ok(['set-agent-state', '-w', 'rk:docs', 'working', '-m', 'writing', '--harness', 'x']);
  // The client looks at api first (its turn is then seen), then at the shell.
  await d.ok(['select-window', '-w', 'rk:api']);
  t = new Terminal(d.env, `${process.execPath} ${BIN} attach -s rk`);
  await t.wait(/agents/, 'the agents section');
  await waitFor(async () => (await agent('api')).finished_unread === false, { what: 'api seen by the client' });
  await d.ok(['select-window', '-w', 'rk:front']);
  await t.wait(/┌─ front/, 'the shell in front');
  assert.is(cursorRow(t), null, 'no cursor before the rail has the keyboard');

  // A click on the rail's empty lower part gives it the keyboard; its keys show on the status line.
  t.type('\x1b[<0;3;40M');
  await t.wait(/rail: j\/k move/, 'the rail\'s keys on the status line');
  await moveTo(t, 'docs');

  // r: the Inbox on docs with the reply editor; enter queues it as the person and the view closes.
  t.keys('r');
  await t.wait(/Reply to docs/, 'the reply editor');
  t.type('use the short names');
  t.keys('Enter');
  await waitFor(async () => (await queued(await winId('docs'))).some((q) => q.by === 'human' && q.text === 'use the short names'), { what: 'the reply queued as the person' });
  await t.wait(/agents/, 'the rail again: the Inbox closed');
  assert.not.match(t.screen(), /Reply to docs/);
  assert.is(cursorRow(t), 'docs', 'the rail still holds the keyboard on docs');

  // x drops the newest message still waiting; u within 10 s queues it again.
  t.keys('x');
  await t.wait(/Dropped 1 queued message to docs\. u undoes\./, 'the drop line');
  await waitFor(async () => (await queued(await winId('docs'))).length === 0, { what: 'the queue empty' });
  t.keys('u');
  await t.wait(/Queued again for docs/, 'the put-back line');
  const back = await queued(await winId('docs'));
  assert.equal(back.map((q) => [q.by, q.text]), [['human', 'use the short names']], 'the same text, as the person');

  // u on api: its seen turn reads unread again, and its Done item opens.
  await moveTo(t, 'api');
  t.keys('u');
  await t.wait(/api reads as unread/, 'the unread line');
  await waitFor(async () => (await agent('api')).finished_unread === true, { what: 'api unread' });
  const items = async () => (await d.call<{ items: Array<{ id: number; kind: string; window_id: string | null }> }>('list-attention')).items;
  const apiId = await winId('api');
  await waitFor(async () => (await items()).some((i) => i.kind === 'done' && i.window_id === apiId), { what: 'the Done item of api' });

  // z: the Inbox on api with the snooze lengths; 1 snoozes it for 15 minutes and the view closes.
  t.keys('z');
  await t.wait(/Snooze: 1 15 minutes/, 'the snooze lengths');
  t.keys('1');
  await waitFor(async () => !(await items()).some((i) => i.kind === 'done' && i.window_id === apiId), { what: 'the Done item snoozed' });
  const snoozed = (await d.call<{ items: Array<{ kind: string; window_id: string | null }> }>('list-attention', { snoozed: true })).items;
  assert.ok(snoozed.some((i) => i.kind === 'done' && i.window_id === apiId), 'listed as snoozed');
  await t.wait(/┌─ front/, 'the panes again: the Inbox closed');

  // enter goes to the pane under the cursor and gives the keyboard back.
  await moveTo(t, 'api');
  t.keys('Enter');
  await waitFor(async () => (await d.call<{ windows: Array<{ name: string; focused: boolean }> }>('list-windows', { session: 'rk' })).windows.find((w) => w.focused)?.name === 'api', { what: 'api focused' });
  // One frame draws both, but tmux may be read between two of its writes: wait for the cursor too.
  await waitFor(() => !/rail: j\/k move/.test(t!.screen()) && cursorRow(t!) === null, { what: 'the rail to let go of the keyboard, its cursor gone' });

  // Again, then esc: the keyboard goes back to the pane, and the next key reaches it.
  t.type('\x1b[<0;3;40M');
  await t.wait(/rail: j\/k move/);
  t.keys('Escape');
  await waitFor(() => !/rail: j\/k move/.test(t!.screen()), { what: 'esc to give the keyboard back' });
});

test('rows long at rest fold into +N at rest; enter on it shows them until the rail lets go of the keyboard', async () => {
  t?.kill();
  await d.ok(['set-config', 'appearance.sidebar.agent_rest_fold', '2s']);
  await d.ok(['new-session', 'fold', '--window-name', 'here']);
  await d.ok(['new-window', '-s', 'fold', 'one']);
  await d.ok(['new-window', '-s', 'fold', 'two']);
  for (const w of ['fold:one', 'fold:two']) await d.ok(['set-agent-state', '-w', w, 'idle', '--harness', 'x']);
  await d.ok(['select-window', '-w', 'fold:here']);
  t = new Terminal(d.env, `${process.execPath} ${BIN} attach -s fold`);
  // Two seconds at rest, and the rail draws the fold on its own (no key, no event). The first
  // test's api, seen and at rest, folds with them.
  const rail = () => t!.screen().split('\n').map((l) => [...l].slice(0, RAIL_WIDTH).join(''));
  const ownRow = (name: string) => rail().some((l) => new RegExp(`^[ ▎][○□] ${name}\\b`).test(l));
  await waitFor(() => (rail().some((l) => /\+\d at rest/.test(l)) && !ownRow('one') && !ownRow('two') ? true : null), { timeout: 30_000, what: 'one and two folded' }).catch((e) => {
    throw new Error(`${(e as Error).message}\n${rail().join('\n')}`);
  });
  t.type('\x1b[<0;3;45M');
  await t.wait(/rail: j\/k move/);
  t.keys('G');
  await waitFor(() => t!.screen().includes('enter show the rows folded at rest') || null, { what: 'the fold under the cursor, its key on the status line' });
  t.keys('Enter');
  await waitFor(() => (!/at rest/.test(t!.screen()) && ownRow('one') && ownRow('two') ? true : null), { what: 'the rows in their places' });
  await waitFor(() => (['api', 'one', 'two'].includes(cursorRow(t!) ?? '') ? true : null), { timeout: 5000, what: 'the cursor on the first of them' }).catch((e) => {
    throw new Error(`${(e as Error).message}: ${cursorRow(t!)}\n${rail().join('\n')}`);
  });
  t.keys('Escape');
  await waitFor(() => (rail().some((l) => /\+\d at rest/.test(l)) && !ownRow('one') ? true : null), { what: 'folded again once the rail let go' });
  await d.ok(['set-config', 'appearance.sidebar.agent_rest_fold', '']);
});

async function winId(name: string): Promise<string> {
  return (await agent(name)).window_id;
}

test.run();
