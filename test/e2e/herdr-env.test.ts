// herdr's environment in a real pane (spec: herdr's pane state protocol): the HERDR_* variables
// name the pane as the herdr socket does, and a program in the pane reaches the socket through
// HERDR_SOCKET_PATH as the process it is, holding the pane's grants (spec: Who may call what).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TestDaemon } from '../helpers/daemon.js';
import { herdrOk, herdrFromPane, herdrSocketOf, herdrWsId, herdrWin } from '../helpers/herdr-client.js';

let d: TestDaemon;

test.before(async () => {
  d = await TestDaemon.start();
  await d.ok(['new-session', 'env', '-n', 'shell']);
});

test.after(async () => {
  await d.stop();
});

test('a pane starts with HERDR_ENV, HERDR_SOCKET_PATH and its herdr ids, as the herdr socket names it', async () => {
  const w = await herdrWin(d, 'shell');
  await d.ok(['send-text', '-w', 'shell', '--submit', 'clear; env | grep ^HERDR_ | sort']);
  const screen = await d.waitScreen('shell', /HERDR_WORKSPACE_ID=/);
  const ws = `${herdrWsId(w.session_id)}`;
  assert.match(screen, /^HERDR_ENV=1$/m);
  assert.ok(screen.includes(`HERDR_SOCKET_PATH=${d.socket}.herdr`), screen);
  assert.ok(screen.includes(`HERDR_WORKSPACE_ID=${ws}\n`), screen);
  assert.ok(screen.includes(`HERDR_TAB_ID=${ws}:t${w.workspace}\n`), screen);
  assert.ok(screen.includes(`HERDR_PANE_ID=${ws}:p${w.id.slice(0, 12)}\n`), screen);
  const sock = herdrSocketOf(d);
  const p = await herdrOk<{ pane: { pane_id: string; tab_id: string; workspace_id: string } }>(sock, 'pane.get', { pane_id: w.id });
  assert.equal([p.pane.pane_id, p.pane.tab_id, p.pane.workspace_id], [`${ws}:p${w.id.slice(0, 12)}`, `${ws}:t${w.workspace}`, ws]);
});

test('a program in the pane reaches the socket through HERDR_SOCKET_PATH', async () => {
  const r = await herdrFromPane(d, 'shell', 'ping');
  assert.equal(r.result, { type: 'pong', version: '0.9.5+tuios', protocol: 22, server: 'tuios' });
});

test('a pane holding read only may list panes but not type: pane.send_text answers forbidden, and nothing is typed', async () => {
  const reader = (await d.call<{ id: string }>('new-window', { session: 'env', name: 'reader', argv: ['sh'], grants: ['read'], cols: 200, rows: 50 })).id;
  await d.call('new-window', { session: 'env', name: 'victim', argv: ['cat', '-v'] });
  const victim = await herdrWin(d, 'victim');
  const list = await herdrFromPane(d, reader, 'pane.list');
  assert.ok((list.result?.panes as Array<{ terminal_id: string }>).some((p) => p.terminal_id === victim.id), 'read lists the panes');
  const sent = await herdrFromPane(d, reader, 'pane.send_text', { pane_id: victim.id, text: 'should-not-arrive' });
  assert.is(sent.error?.code, 'forbidden');
  const closed = await herdrFromPane(d, reader, 'pane.close', { pane_id: victim.id });
  assert.is(closed.error?.code, 'forbidden', 'a close needs admin');
  assert.not.match(await d.ok(['capture-pane', '-w', 'victim']), /should-not-arrive/);
  assert.ok(await herdrWin(d, 'victim'), 'the pane is still there');
});

test('a read shows only the sessions the pane may read: a pane holding read sees its own session, not another', async () => {
  await d.call('new-session', { name: 'elsewhere', window_name: 'far', argv: ['cat'] });
  const far = await herdrWin(d, 'far');
  const reader = (await herdrWin(d, 'reader')).id;
  const ws = (await herdrFromPane(d, reader, 'workspace.list')).result?.workspaces as Array<{ workspace_id: string; label: string }>;
  assert.equal(ws.map((w) => w.label), ['env'], 'only its own session');
  const panes = (await herdrFromPane(d, reader, 'pane.list')).result?.panes as Array<{ terminal_id: string }>;
  assert.not.ok(panes.some((p) => p.terminal_id === far.id), 'no pane of another session');
  const snap = (await herdrFromPane(d, reader, 'session.snapshot')).result as { workspaces: unknown[]; panes: Array<{ terminal_id: string }> };
  assert.is(snap.workspaces.length, 1);
  assert.not.ok(snap.panes.some((p) => p.terminal_id === far.id));
  assert.is((await herdrFromPane(d, reader, 'pane.get', { pane_id: far.id })).error?.code, 'pane_not_found');
  // You, outside every pane, see both.
  const all = await herdrOk<{ workspaces: Array<{ label: string }> }>(herdrSocketOf(d), 'workspace.list');
  assert.ok(all.workspaces.some((w) => w.label === 'elsewhere'));
  await d.ok(['kill-session', '-s', 'elsewhere']);
});

test('a pane may not type into a pane that waits on a prompt without respond, and admin does not give respond', async () => {
  await d.call('new-window', { session: 'env', name: 'asker', argv: ['cat', '-v'] });
  await d.call('new-window', { session: 'env', name: 'typist', argv: ['sh'], cols: 200, rows: 50 });
  const typist = (await herdrWin(d, 'typist')).id;
  const asker = (await herdrWin(d, 'asker')).id;
  await d.ok(['set-agent-state', '-w', 'asker', 'needs_input', '-m', 'Allow?', '--kind', 'approval']);
  for (const [method, params] of [
    ['pane.send_text', { pane_id: asker, text: 'typed-text' }],
    ['pane.send_keys', { pane_id: asker, keys: ['y', 'Enter'] }],
    ['pane.send_input', { pane_id: asker, text: 'typed-input', keys: ['Enter'] }],
  ] as const) {
    assert.is((await herdrFromPane(d, typist, method, params)).error?.code, 'forbidden', `${method} from a pane holding admin`);
  }
  assert.not.match(await d.ok(['capture-pane', '-w', 'asker']), /typed-|\by\b/, 'nothing typed');
  // Once the pane is no longer waiting on a prompt, the same pane types.
  await d.ok(['set-agent-state', '-w', 'asker', 'working']);
  assert.equal((await herdrFromPane(d, typist, 'pane.send_text', { pane_id: asker, text: 'now-typed' })).result, { type: 'ok' });
  await d.waitScreen('asker', /now-typed/);
});

test('pane.process_info: the shell and the foreground process; argv to you and to the pane itself, pid and name only to a pane holding read', async () => {
  const victim = await herdrWin(d, 'victim');
  const reader = await herdrWin(d, 'reader');
  const sock = herdrSocketOf(d);
  type Info = { shell: { pid: number; name: string; argv?: string[] }; foreground: Array<{ pid: number; name: string; argv?: string[] }> };
  const mine = await herdrOk<Info>(sock, 'pane.process_info', { pane_id: victim.id });
  assert.equal([mine.foreground[0]?.name, mine.foreground[0]?.argv], ['cat', ['cat', '-v']]);
  assert.is(mine.shell.name, 'cat');
  const theirs = (await herdrFromPane(d, reader.id, 'pane.process_info', { pane_id: victim.id })).result as unknown as Info;
  assert.is(theirs.foreground[0]?.name, 'cat');
  assert.is(theirs.foreground[0]?.argv, undefined, 'read gets no arguments');
  assert.is(theirs.shell.argv, undefined);
  const own = (await herdrFromPane(d, reader.id, 'pane.process_info', { pane_id: reader.id })).result as unknown as Info;
  assert.equal(own.shell.argv, ['sh'], 'a pane reads its own arguments');
});

test('pane.process_info: a pane holding write on the session gets argv; tty is never given', async () => {
  const writer = (await d.call<{ id: string }>('new-window', { session: 'env', name: 'writer', argv: ['sh'], grants: ['write'], cols: 200, rows: 50 })).id;
  const victim = await herdrWin(d, 'victim');
  type Info = { shell: { argv?: string[] }; foreground: Array<{ name: string; argv?: string[] }>; tty?: unknown };
  const seen = (await herdrFromPane(d, writer, 'pane.process_info', { pane_id: victim.id })).result as unknown as Info;
  assert.equal(seen.foreground[0]?.argv, ['cat', '-v'], 'write on the session gives the arguments');
  assert.not.ok('tty' in seen);
  const mine = await herdrOk<Info>(herdrSocketOf(d), 'pane.process_info', { pane_id: victim.id });
  assert.not.ok('tty' in mine, 'not even to you');
});

test.run();
