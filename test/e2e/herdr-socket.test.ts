// The herdr socket (spec: herdr compatibility): herdr's socket API on `<daemon socket>.herdr`,
// driven by a client written from the spec's tables, against a real daemon. One test per mapping
// row, and per "Where tuios differs from herdr" row covered.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connect, type Socket } from 'node:net';
import { statSync } from 'node:fs';
import { TestDaemon } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { herdrCall, herdrErr, herdrOk, herdrRaw, herdrSocketOf, herdrWsId, herdrPaneIdOf, herdrWin, herdrSession, type HerdrWin } from '../helpers/herdr-client.js';

let d: TestDaemon;
let sock: string;

interface Workspace {
  workspace_id: string;
  label: string;
  pane_count: number;
  tab_count: number;
  active_tab_id: string;
  agent_status: string;
}
interface Pane {
  pane_id: string;
  workspace_id: string;
  tab_id: string;
  label: string;
  terminal_id: string;
  agent_status: string;
}
interface Session {
  id: string;
  name: string;
}

test.before(async () => {
  d = await TestDaemon.start();
  sock = herdrSocketOf(d);
  await d.ok(['new-session', 'work', '-n', 'main']);
});

test.after(async () => {
  await d.stop();
});

test('the herdr socket is the daemon socket with .herdr added, owner only', () => {
  const st = statSync(sock);
  assert.ok(st.isSocket());
  assert.is(st.mode & 0o777, 0o600);
});

test('ping answers pong with herdr 0.9.5+tuios, protocol 22, server tuios', async () => {
  const out = await herdrRaw(sock, JSON.stringify({ id: 'p1', method: 'ping', params: {} }) + '\n');
  assert.equal(JSON.parse(out.trim()), { id: 'p1', result: { type: 'pong', version: '0.9.5+tuios', protocol: 22, server: 'tuios' } });
  assert.is(out.split('\n').filter(Boolean).length, 1, 'one line, then the connection closes');
});

test('workspace.list, workspace.get: a session is a workspace, w and the first 12 hex digits of its id', async () => {
  const s = (await herdrSession<Session>(d, 'work'))!;
  const list = await herdrOk<{ type: string; workspaces: Workspace[] }>(sock, 'workspace.list');
  assert.is(list.type, 'workspace_list');
  const ws = list.workspaces.find((w) => w.workspace_id === herdrWsId(s));
  assert.ok(ws, 'the session is listed');
  assert.is(ws!.label, 'work');
  assert.is(ws!.pane_count, 1);
  assert.is(ws!.tab_count, 1);
  assert.is(ws!.active_tab_id, `${herdrWsId(s)}:t1`);
  const got = await herdrOk<{ workspace: Workspace }>(sock, 'workspace.get', { workspace_id: herdrWsId(s) });
  assert.is(got.workspace.workspace_id, herdrWsId(s));
  assert.is((await herdrErr(sock, 'workspace.get', { workspace_id: 'w000000000000' })).code, 'workspace_not_found');
  assert.is((await herdrErr(sock, 'workspace.get', {})).message, 'missing field `workspace_id`');
});

test('workspace.create: new-session with the label as its name; env may not set TUIOS_ variables', async () => {
  const r = await herdrOk<{ type: string; workspace: Workspace; root_pane: Pane }>(sock, 'workspace.create', { label: 'made-by-herdr', focus: true, env: { FROM_HERDR: 'yes' } });
  assert.is(r.type, 'workspace_created');
  const s = (await herdrSession<Session>(d, 'made-by-herdr'))!;
  assert.ok(s, 'tuios has the session');
  assert.is(r.workspace.workspace_id, herdrWsId(s));
  assert.is(r.root_pane.workspace_id, herdrWsId(s));
  assert.ok(r.root_pane.pane_id.startsWith(`${herdrWsId(s)}:p`));
  await d.ok(['send-text', '-s', 'made-by-herdr', '--submit', 'echo "env=$FROM_HERDR"']);
  await waitFor(async () => /env=yes/.test(await d.ok(['capture-pane', '-s', 'made-by-herdr'])), { what: 'the env in the new pane' });
  for (const k of ['TUIOS_PANE_ID', 'TMUX', 'TMUX_PANE']) {
    assert.is((await herdrErr(sock, 'workspace.create', { env: { [k]: 'x' } })).code, 'invalid_params', k);
  }
});

test('workspace.rename: set-session-name; the id stays', async () => {
  const s = (await herdrSession<Session>(d, 'made-by-herdr'))!;
  const r = await herdrOk<{ workspace: Workspace }>(sock, 'workspace.rename', { workspace_id: herdrWsId(s), label: 'renamed' });
  assert.is(r.workspace.label, 'renamed');
  assert.is(r.workspace.workspace_id, herdrWsId(s));
  assert.is((await herdrSession<Session>(d, 'renamed'))?.id, s.id);
});

test('workspace.close: kill-session', async () => {
  const s = (await herdrSession<Session>(d, 'renamed'))!;
  assert.equal(await herdrOk(sock, 'workspace.close', { workspace_id: herdrWsId(s) }), { type: 'ok' });
  assert.not.ok(await herdrSession<Session>(d, 'renamed'));
  assert.is((await herdrErr(sock, 'workspace.close', { workspace_id: herdrWsId(s) })).code, 'workspace_not_found');
});

test('tab.list: a tuios workspace that holds a window is a tab, <workspace id>:t<number>', async () => {
  const s = (await herdrSession<Session>(d, 'work'))!;
  await d.ok(['new-window', '-s', 'work', '--workspace', '3', 'third', 'sleep', '600']);
  const r = await herdrOk<{ tabs: Array<{ tab_id: string; number: number; label: string; pane_count: number }> }>(sock, 'tab.list', { workspace_id: herdrWsId(s) });
  assert.equal(r.tabs.map((t) => t.tab_id), [`${herdrWsId(s)}:t1`, `${herdrWsId(s)}:t3`]);
  assert.equal(r.tabs.map((t) => t.label), ['1', '3'], 'an unnamed tab\'s label is its workspace number');
  await d.ok(['close-window', '-w', 'third']);
});

test('pane.list, pane.get: a window is a pane; herdr\'s id, the window id or 8+ of its hex digits find it', async () => {
  const w = await herdrWin(d, 'main');
  const r = await herdrOk<{ panes: Pane[] }>(sock, 'pane.list');
  const p = r.panes.find((x) => x.terminal_id === w.id)!;
  assert.ok(p);
  assert.is(p.pane_id, herdrPaneIdOf(w));
  assert.is(p.tab_id, `${herdrWsId(w.session_id)}:t1`);
  assert.is(p.label, 'main');
  assert.is(p.agent_status, 'unknown');
  for (const id of [herdrPaneIdOf(w), w.id, w.id.slice(0, 8)]) {
    const g = await herdrOk<{ type: string; pane: Pane }>(sock, 'pane.get', { pane_id: id });
    assert.is(g.type, 'pane_info');
    assert.is(g.pane.pane_id, herdrPaneIdOf(w), id);
  }
  assert.is((await herdrErr(sock, 'pane.get', { pane_id: 'w000000000000:p000000000000' })).code, 'pane_not_found');
  assert.is((await herdrErr(sock, 'pane.get', { pane_id: 'no such pane' })).code, 'pane_not_found');
  assert.is((await herdrErr(sock, 'pane.get', {})).message, 'missing field `pane_id`');
});

test('pane.read: capture-pane; recent reaches into the scrollback', async () => {
  await d.ok(['new-window', '-s', 'work', 'lines', 'sh', '-c', 'for i in $(seq 1 60); do echo line-$i; done; sleep 600']);
  await d.waitScreen('lines', /line-60/);
  const w = await herdrWin(d, 'lines');
  const vis = await herdrOk<{ type: string; read: { text: string; source: string; pane_id: string } }>(sock, 'pane.read', { pane_id: herdrPaneIdOf(w) });
  assert.is(vis.type, 'pane_read');
  assert.is(vis.read.source, 'visible');
  assert.is(vis.read.pane_id, herdrPaneIdOf(w));
  assert.match(vis.read.text, /line-60/);
  assert.not.match(vis.read.text, /line-1\n/, 'the visible screen is 24 rows');
  const rec = await herdrOk<{ read: { text: string } }>(sock, 'pane.read', { pane_id: herdrPaneIdOf(w), source: 'recent', lines: 70 });
  assert.match(rec.read.text, /^line-1$/m);
  assert.is((await herdrErr(sock, 'pane.read', { pane_id: herdrPaneIdOf(w), source: 'recent', lines: 1001 })).code, 'invalid_params');
  assert.is((await herdrErr(sock, 'pane.read', { pane_id: herdrPaneIdOf(w), source: 'sideways' })).code, 'invalid_request');
  await d.ok(['close-window', '-w', 'lines']);
});

test('pane.read: recent reads 80 lines when lines is not given; recent_unwrapped reads as recent; detection as visible', async () => {
  await d.ok(['new-window', '-s', 'work', 'many', 'sh', '-c', 'for i in $(seq 1 120); do echo row-$i; done; sleep 600']);
  await d.waitScreen('many', /row-120/);
  const id = herdrPaneIdOf(await herdrWin(d, 'many'));
  const read = async (source: string) => (await herdrOk<{ read: { text: string; source: string } }>(sock, 'pane.read', { pane_id: id, source })).read;
  const recent = await read('recent');
  const rows = recent.text.split('\n');
  assert.is(rows.length, 80, 'recent without lines is 80 lines');
  assert.match(recent.text, /^row-120$/m);
  assert.match(recent.text, /^row-60$/m);
  assert.not.match(recent.text, /^row-30$/m, 'not past 80 lines back');
  const unwrapped = await read('recent_unwrapped');
  assert.is(unwrapped.source, 'recent_unwrapped');
  assert.is(unwrapped.text, recent.text);
  const detection = await read('detection');
  assert.is(detection.text, (await read('visible')).text);
  assert.not.match(detection.text, /^row-60$/m, 'detection reads the screen only');
  const max = await herdrOk<{ read: { text: string } }>(sock, 'pane.read', { pane_id: id, source: 'recent', lines: 1000 });
  assert.match(max.read.text, /^row-1$/m, '1000 lines is allowed');
});

test('pane.get: revision counts the bytes the pane printed; scroll gives the scrollback rows and the screen rows', async () => {
  const id = herdrPaneIdOf(await herdrWin(d, 'many'));
  const many = (await herdrOk<{ pane: { scroll: { offset_from_bottom: number; max_offset_from_bottom: number; viewport_rows: number }; revision: number } }>(sock, 'pane.get', { pane_id: id })).pane;
  assert.equal([many.scroll.offset_from_bottom, many.scroll.viewport_rows], [0, 24]);
  assert.ok(many.scroll.max_offset_from_bottom >= 120 - 24, `scrollback rows: ${many.scroll.max_offset_from_bottom}`);
  // 120 lines of row-N: at least "row-1\r\n" ... "row-120\r\n" were printed.
  assert.ok(many.revision >= 120 * 7, `revision ${many.revision}`);
  await d.ok(['close-window', '-w', 'many']);
  await d.ok(['new-window', '-s', 'work', 'rev', 'cat']);
  const rev = herdrPaneIdOf(await herdrWin(d, 'rev'));
  const before = (await herdrOk<{ pane: { revision: number } }>(sock, 'pane.get', { pane_id: rev })).pane.revision;
  assert.is((await herdrOk<{ pane: { revision: number } }>(sock, 'pane.get', { pane_id: rev })).pane.revision, before, 'nothing printed, the same revision');
  await d.ok(['send-text', '-w', 'rev', '--submit', 'printed']);
  await d.waitScreen('rev', /^printed\n.*printed/ms);
  await waitFor(async () => (await herdrOk<{ pane: { revision: number } }>(sock, 'pane.get', { pane_id: rev })).pane.revision >= before + 2 * 'printed'.length, { what: 'the revision to count what the pane printed' });
  await d.ok(['close-window', '-w', 'rev']);
});

test('pane.send_text is a paste, where herdr writes it raw: control characters removed, bracketed when the program wants it, a tool\'s own markers taken off', async () => {
  await d.ok(['new-window', '-s', 'work', 'bracket', 'sh', '-c', 'printf "\\033[?2004h"; exec cat -v']);
  const w = await herdrWin(d, 'bracket');
  await waitFor(async () => {
    const r = await d.json<{ windows: Array<{ name: string; foreground: { comm: string } | null }> }>(['list-windows']);
    return r.windows.find((x) => x.name === 'bracket')?.foreground?.comm === 'cat';
  }, { what: 'cat in the bracket window' });
  assert.equal(await herdrOk(sock, 'pane.send_text', { pane_id: herdrPaneIdOf(w), text: '\x1b[200~one\x07two\x1b[201~' }), { type: 'ok' });
  await herdrOk(sock, 'pane.send_keys', { pane_id: herdrPaneIdOf(w), keys: ['Enter'] });
  const screen = await d.waitScreen('bracket', /\^\[\[201~/);
  // One pair of markers, the paste's own: the tool's came off, and the bell is gone.
  assert.match(screen, /^\^\[\[200~onetwo\^\[\[201~$/m);
  await d.ok(['close-window', '-w', 'bracket']);
});

test('pane.send_keys: send-keys with herdr\'s key names; cmd, super and hyper fail with invalid_key', async () => {
  await d.ok(['new-window', '-s', 'work', 'keys', 'cat', '-v']);
  const w = await herdrWin(d, 'keys');
  await d.waitScreen('keys', /^/);
  await herdrOk(sock, 'pane.send_keys', { pane_id: herdrPaneIdOf(w), keys: ['x', 'y', 'Enter'] });
  await d.waitScreen('keys', /^xy$/m);
  for (const k of ['cmd+c', 'super+x', 'hyper+a']) {
    assert.is((await herdrErr(sock, 'pane.send_keys', { pane_id: herdrPaneIdOf(w), keys: [k] })).code, 'invalid_key', k);
  }
  assert.is((await herdrErr(sock, 'pane.send_keys', { pane_id: herdrPaneIdOf(w), keys: 'Enter' })).code, 'invalid_request');
});

test('pane.send_keys: tuios also takes PageUp, PageDown, Home, End, Insert and Delete', async () => {
  await d.ok(['new-window', '-s', 'work', 'morekeys', 'cat', '-v']);
  const w = await herdrWin(d, 'morekeys');
  await d.waitScreen('morekeys', /^/);
  assert.equal(await herdrOk(sock, 'pane.send_keys', { pane_id: herdrPaneIdOf(w), keys: ['PageUp', 'PageDown', 'Insert', 'Delete', 'Home', 'End', 'Enter'] }), { type: 'ok' });
  // cat -v shows the escape sequences: PageUp ESC[5~, PageDown ESC[6~, Insert ESC[2~, Delete ESC[3~,
  // then Home and End (ESC[H / ESC[1~ and ESC[F / ESC[4~, by the cursor key mode).
  const screen = await d.waitScreen('morekeys', /\^\[\[5~\^\[\[6~\^\[\[2~\^\[\[3~\^\[(\[H|OH|\[1~)\^\[(\[F|OF|\[4~)$/m);
  assert.ok(screen.length > 0);
  await d.ok(['close-window', '-w', 'morekeys']);
});

test('pane.rename: set-window; label null gives the window its program\'s name back', async () => {
  const w = await herdrWin(d, 'keys');
  const r = await herdrOk<{ pane: Pane }>(sock, 'pane.rename', { pane_id: herdrPaneIdOf(w), label: 'typed' });
  assert.is(r.pane.label, 'typed');
  assert.is((await herdrWin(d, 'typed'))?.id, w.id);
  const c = await herdrOk<{ pane: Pane }>(sock, 'pane.rename', { pane_id: herdrPaneIdOf(w), label: null });
  assert.is(c.pane.label, 'cat');
  assert.is((await herdrErr(sock, 'pane.rename', { pane_id: herdrPaneIdOf(w) })).message, 'missing field `label`');
});

test('pane.close: close-window', async () => {
  const w = (await d.json<{ windows: HerdrWin[] }>(['list-windows'])).windows.find((x) => x.name === 'cat')!;
  assert.equal(await herdrOk(sock, 'pane.close', { pane_id: herdrPaneIdOf(w) }), { type: 'ok' });
  await waitFor(async () => !(await d.json<{ windows: HerdrWin[] }>(['list-windows'])).windows.some((x) => x.id === w.id), { what: 'the window to close' });
  assert.is((await herdrErr(sock, 'pane.close', { pane_id: herdrPaneIdOf(w) })).code, 'pane_not_found');
});

test('methods tuios does not answer: unsupported; pane.graphics.*: unknown_method; not herdr\'s: invalid_request', async () => {
  // Every row of the spec's table "What tuios does not answer".
  const rows = [
    ['workspace.move', 'workspace.move_block'],
    ['layout.export', 'layout.apply', 'layout.set_split_ratio'],
    ['agent.view.set', 'agent.view.clear'],
    ['pane.scroll', 'pane.clear', 'pane.edit_scrollback'],
    ['pane.selection.read', 'pane.copy_motion', 'pane.copy_search', 'pane.input.set', 'pane.link.activate', 'pane.link.resolve', 'command.invoke', 'client_shell.surface.set'],
    ['integration.list', 'integration.install', 'integration.uninstall'],
    ['server.stop', 'server.live_handoff', 'server.ssh_agent.register', 'server.reload_agent_manifests'],
  ];
  for (const m of [...rows.flat(), 'plugin.list']) {
    assert.is((await herdrErr(sock, m)).code, 'unsupported', m);
  }
  assert.is((await herdrErr(sock, 'pane.graphics.place')).code, 'unknown_method');
  assert.is((await herdrErr(sock, 'no.such_method')).code, 'invalid_request');
});

test('bad input gets herdr\'s error shape and the daemon keeps answering', async () => {
  const answers = async (bytes: string) => JSON.parse((await herdrRaw(sock, bytes)).trim()) as { id: unknown; error: { code: string } };
  assert.is((await answers('not json\n')).error.code, 'invalid_request');
  assert.is((await answers('[1,2]\n')).error.code, 'invalid_request');
  assert.is((await answers('{"id":7}\n')).error.code, 'invalid_request');
  const a = await answers('{"id":8,"method":"ping","params":[]}\n');
  assert.equal([a.id, a.error.code], [8, 'invalid_request']);
  assert.is((await answers('{"id":9,"method":42}\n')).error.code, 'invalid_request');
  assert.is((await answers(JSON.stringify({ id: 10, method: 'pane.get', params: { pane_id: 5 } }) + '\n')).error.code, 'invalid_request');
  assert.is((await answers(JSON.stringify({ id: 11, method: 'pane.get', params: { pane_id: 'x'.repeat(10_000) } }) + '\n')).error.code, 'invalid_params');
  // A line over the verb socket's limit: an error line, and that connection closes.
  const long = await herdrRaw(sock, Buffer.alloc(1024 * 1024 + 10, 'a'));
  assert.is(JSON.parse(long.trim()).error.code, 'invalid_request');
  assert.is((await herdrOk<{ type: string }>(sock, 'ping')).type, 'pong');
  assert.ok(await d.answers(), 'the verb socket still answers');
});

test('one process holds at most 64 connections to the herdr socket; the next is refused rate_limited', async () => {
  const held: Socket[] = [];
  try {
    for (let i = 0; i < 64; i++) {
      const s = connect(sock);
      await new Promise<void>((res, rej) => s.once('connect', () => res()).once('error', rej));
      held.push(s);
    }
    const out = await herdrRaw(sock, JSON.stringify({ id: 1, method: 'ping' }) + '\n');
    assert.is(JSON.parse(out.trim()).error.code, 'rate_limited');
  } finally {
    for (const s of held) s.destroy();
  }
  await waitFor(async () => (await herdrCall(sock, 'ping')).result, { what: 'ping after the held connections closed' });
});

test.run();
