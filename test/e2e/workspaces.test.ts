// The workspace verbs (select-workspace, set-workspace-name, set-workspace-order, move-window)
// against a real daemon: a workspace's tab number is its own (spec: How tuios maps onto herdr),
// kept through renames, reorders and moves, never used twice, and saved in the snapshot.
import { test } from 'uvu';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { TestDaemon, BIN } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';

interface Tab {
  workspace: number;
  number: number;
  name: string | null;
}
interface Session {
  id: string;
  name: string;
  active_workspace: number;
  tabs: Tab[];
}
interface Win {
  id: string;
  name: string;
  session: string;
  session_id: string;
  workspace: number;
  running: boolean;
  pid: number | null;
}

let d: TestDaemon;

async function session(name: string): Promise<Session | undefined> {
  const r = await d.json<{ sessions: Session[] }>(['list-sessions']);
  return r.sessions.find((s) => s.name === name);
}
async function win(name: string): Promise<Win> {
  const r = await d.json<{ windows: Win[] }>(['list-windows']);
  return r.windows.find((w) => w.name === name)!;
}
const tabs = (s: Session | undefined) => s!.tabs.map((t) => [t.workspace, t.number, t.name]);

test.before(async () => {
  d = await TestDaemon.start();
});

test.after(async () => {
  await d.stop();
});

test('a new session: workspace 1 is tab 1; windows on other workspaces are tabs of the same number', async () => {
  await d.ok(['new-session', 'ws', '-n', 'one']);
  await d.ok(['new-window', '-s', 'ws', '--workspace', '3', 'three']);
  assert.equal(tabs(await session('ws')), [[1, 1, null], [3, 3, null]]);
});

test('select-workspace shows a workspace, which is a tab while it shows; an empty one gives its number up', async () => {
  await d.ok(['select-workspace', '-s', 'ws', '5']);
  let s = await session('ws');
  assert.is(s!.active_workspace, 5);
  assert.equal(tabs(s), [[1, 1, null], [3, 3, null], [5, 5, null]]);
  const j = await d.json<{ session: Session }>(['select-workspace', '-s', 'ws', '1']);
  assert.is(j.session.active_workspace, 1);
  assert.equal(tabs(j.session), [[1, 1, null], [3, 3, null]], 'workspace 5 stopped being a tab');
  // Made a tab again, it gets a new number: 5 was used.
  await d.ok(['select-workspace', '-s', 'ws', '5']);
  s = await session('ws');
  assert.equal(tabs(s), [[1, 1, null], [3, 3, null], [5, 10, null]]);
  await d.ok(['select-workspace', '-s', 'ws', '1']);
  const bad = await d.cli(['select-workspace', '-s', 'ws', '10']);
  assert.is(bad.code, 1);
  assert.match(bad.stderr, /workspace/);
});

test('set-workspace-name names a workspace (a tab even when empty); the name is limited as window names are; empty clears', async () => {
  await d.ok(['set-workspace-name', '-s', 'ws', '3', 'build']);
  await d.ok(['set-workspace-name', '-s', 'ws', '7', 'notes']);
  assert.equal(tabs(await session('ws')), [[1, 1, null], [3, 3, 'build'], [7, 7, 'notes']]);
  for (const bad of ['x'.repeat(129), 'a\x1bb']) {
    const r = await d.cli(['set-workspace-name', '-s', 'ws', '3', bad]);
    assert.is(r.code, 1, JSON.stringify(bad));
    assert.match(r.stderr, /\(invalid_params\)/);
  }
  await d.ok(['set-workspace-name', '-s', 'ws', '7', '']);
  assert.equal(tabs(await session('ws')), [[1, 1, null], [3, 3, 'build']], 'an unnamed empty workspace is no tab');
});

test('set-workspace-order: the tabs take the workspace numbers they hold between them, with their windows; tab numbers stay', async () => {
  const before = await win('three');
  const out = await d.json<{ session: Session; moves: Array<{ from: number; to: number; tab: number }> }>(['set-workspace-order', '-s', 'ws', '3', '1']);
  assert.equal(out.moves.sort((a, b) => a.from - b.from), [{ from: 1, to: 3, tab: 1 }, { from: 3, to: 1, tab: 3 }]);
  assert.equal(tabs(out.session), [[1, 3, 'build'], [3, 1, null]]);
  assert.is(out.session.active_workspace, 3, 'the shown workspace went with its tab');
  const after = await win('three');
  assert.is(after.workspace, 1);
  assert.is(after.pid, before.pid, 'the same process');
  assert.is((await win('one')).workspace, 3);
  // Comma form, back again.
  await d.ok(['set-workspace-order', '-s', 'ws', '1,3']);
  assert.equal(tabs(await session('ws')), [[1, 1, null], [3, 3, 'build']]);
  for (const bad of [['1'], ['1', '1', '3'], ['1', '3', '9'], ['x']]) {
    const r = await d.cli(['set-workspace-order', '-s', 'ws', ...bad]);
    assert.is(r.code, 1, bad.join(' '));
    assert.match(r.stderr, /\(invalid_params\)/, bad.join(' '));
  }
});

test('move-window within the session: its workspace empties and its tab goes, name and number with it', async () => {
  await d.ok(['new-window', '-s', 'ws', '--workspace', '4', 'four']);
  await d.ok(['set-workspace-name', '-s', 'ws', '4', 'scratch']);
  const r = await d.json<{ moved: boolean; from_workspace: number; window: Win }>(['move-window', '-w', 'four', '2']);
  assert.is(r.moved, true);
  assert.is(r.from_workspace, 4);
  assert.is(r.window.workspace, 2);
  assert.equal(tabs(await session('ws')), [[1, 1, null], [2, 2, null], [3, 3, 'build']]);
  const again = await d.json<{ moved: boolean }>(['move-window', '-w', 'four', '2']);
  assert.is(again.moved, false);
  // Back to 4: a new tab, and 4 was used, so it gets a new number.
  await d.ok(['move-window', '-w', 'four', '4']);
  const s = await session('ws');
  assert.equal(tabs(s).find((t) => t[0] === 4), [4, 11, null]);
  assert.ok(!tabs(s).some((t) => t[0] === 2), 'workspace 2 is empty again');
});

test('move-window to another session: the program runs on, the window keeps its id; a session left empty closes', async () => {
  await d.ok(['new-session', 'other', '-n', 'lone']);
  const lone = await win('lone');
  await d.ok(['send-text', '-w', 'lone', '--submit', 'echo before-move']);
  await d.waitScreen(lone.id, /^before-move/m);
  const r = await d.json<{ window: Win; from_session_id: string }>(['move-window', '-w', lone.id, '--to-session', 'ws', '6']);
  assert.is(r.window.session, 'ws');
  assert.is(r.window.workspace, 6);
  assert.is(r.window.id, lone.id);
  assert.is(r.window.pid, lone.pid, 'the same process');
  await waitFor(async () => !(await session('other')), { what: 'the emptied session to close' });
  await d.ok(['send-text', '-w', lone.id, '--submit', 'echo after-move']);
  await d.waitScreen(lone.id, /^after-move/m);
  assert.equal(tabs(await session('ws')).find((t) => t[0] === 6), [6, 6, null]);
  const bad = await d.cli(['move-window', '-w', lone.id, '--to-session', 'nowhere']);
  assert.match(bad.stderr, /\(session_not_found\)/);
});

test('a pane holding write but not admin may not select, name, reorder or move', async () => {
  await d.ok(['new-window', '-s', 'ws', '--grants', 'read', '--grants', 'write', 'limited']);
  const w = await win('limited');
  for (const args of [['select-workspace', '2'], ['set-workspace-name', '1', 'x'], ['set-workspace-order', '3', '1', '11', '6'], ['move-window', '-w', 'limited', '8']]) {
    const file = join(d.home, `refused-${args[0]}`);
    await d.ok(['send-text', '-w', w.id, '--submit', `${process.execPath} ${BIN} ${args.join(' ')} 2>${file}; echo rc=$? >>${file}`]);
    const out = await waitFor(async () => {
      return existsSync(file) && /rc=\d/.test(readFileSync(file, 'utf8')) ? readFileSync(file, 'utf8') : null;
    }, { what: `${args[0]} from the pane` });
    assert.match(out, /\(forbidden\)/, args[0]);
  }
  assert.is((await win('limited')).workspace, 1);
  await d.ok(['close-window', '-w', 'limited']);
});

test('tab numbers and names come back after a restart, and the pane started there names its tab', async () => {
  const before = await session('ws');
  // kill-server saves the snapshot; the next daemon restores it.
  await d.call('kill-server').catch(() => undefined);
  await waitFor(async () => !(await d.answers()), { what: 'the daemon to stop' });
  await d.spawn();
  const after = await waitFor(() => session('ws'), { what: 'the session restored' });
  assert.equal(tabs(after), tabs(before));
  const four = await win('four');
  await d.ok(['send-text', '-w', four.id, '--submit', 'echo "tab=$HERDR_TAB_ID"']);
  await d.waitScreen(four.id, new RegExp(`^tab=w${after!.id.slice(0, 12)}:t11$`, 'm'));
  // The used numbers came back too: a new tab on workspace 2 takes a number never given.
  await d.ok(['new-window', '-s', 'ws', '--workspace', '2', 'two']);
  const t2 = (await session('ws'))!.tabs.find((t) => t.workspace === 2)!;
  assert.ok(t2.number > 11, `got ${t2.number}`);
});

test.run();
