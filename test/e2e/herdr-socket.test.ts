// The herdr socket (spec: herdr compatibility): herdr's socket API on `<daemon socket>.herdr`,
// driven by a client written from the spec's tables, against a real daemon. One test per mapping
// row, and per "Where tuios differs from herdr" row covered.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connect, type Socket } from 'node:net';
import { statSync } from 'node:fs';
import { TestDaemon } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { herdrCall, herdrErr, herdrOk, herdrRaw } from '../helpers/herdr-client.js';

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
interface Win {
  id: string;
  name: string;
  session_id: string;
}

async function session(name: string): Promise<Session> {
  const r = await d.json<{ sessions: Session[] }>(['list-sessions']);
  return r.sessions.find((s) => s.name === name)!;
}
async function win(name: string): Promise<Win> {
  const r = await d.json<{ windows: Win[] }>(['list-windows']);
  return r.windows.find((w) => w.name === name)!;
}
const wsId = (s: Session) => `w${s.id.slice(0, 12)}`;
const paneId = (w: Win) => `w${w.session_id.slice(0, 12)}:p${w.id.slice(0, 12)}`;

test.before(async () => {
  d = await TestDaemon.start();
  sock = `${d.socket}.herdr`;
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
  const s = await session('work');
  const list = await herdrOk<{ type: string; workspaces: Workspace[] }>(sock, 'workspace.list');
  assert.is(list.type, 'workspace_list');
  const ws = list.workspaces.find((w) => w.workspace_id === wsId(s));
  assert.ok(ws, 'the session is listed');
  assert.is(ws!.label, 'work');
  assert.is(ws!.pane_count, 1);
  assert.is(ws!.tab_count, 1);
  assert.is(ws!.active_tab_id, `${wsId(s)}:t1`);
  const got = await herdrOk<{ workspace: Workspace }>(sock, 'workspace.get', { workspace_id: wsId(s) });
  assert.is(got.workspace.workspace_id, wsId(s));
  assert.is((await herdrErr(sock, 'workspace.get', { workspace_id: 'w000000000000' })).code, 'workspace_not_found');
  assert.is((await herdrErr(sock, 'workspace.get', {})).message, 'missing field `workspace_id`');
});

test('workspace.create: new-session with the label as its name; env may not set TUIOS_ variables', async () => {
  const r = await herdrOk<{ type: string; workspace: Workspace; root_pane: Pane }>(sock, 'workspace.create', { label: 'made-by-herdr', focus: true, env: { FROM_HERDR: 'yes' } });
  assert.is(r.type, 'workspace_created');
  const s = await session('made-by-herdr');
  assert.ok(s, 'tuios has the session');
  assert.is(r.workspace.workspace_id, wsId(s));
  assert.is(r.root_pane.workspace_id, wsId(s));
  assert.ok(r.root_pane.pane_id.startsWith(`${wsId(s)}:p`));
  await d.ok(['send-text', '-s', 'made-by-herdr', '--submit', 'echo "env=$FROM_HERDR"']);
  await waitFor(async () => /env=yes/.test(await d.ok(['capture-pane', '-s', 'made-by-herdr'])), { what: 'the env in the new pane' });
  for (const k of ['TUIOS_PANE_ID', 'TMUX', 'TMUX_PANE']) {
    assert.is((await herdrErr(sock, 'workspace.create', { env: { [k]: 'x' } })).code, 'invalid_params', k);
  }
});

test('workspace.rename: set-session-name; the id stays', async () => {
  const s = await session('made-by-herdr');
  const r = await herdrOk<{ workspace: Workspace }>(sock, 'workspace.rename', { workspace_id: wsId(s), label: 'renamed' });
  assert.is(r.workspace.label, 'renamed');
  assert.is(r.workspace.workspace_id, wsId(s));
  assert.is((await session('renamed'))?.id, s.id);
});

test('workspace.close: kill-session', async () => {
  const s = await session('renamed');
  assert.equal(await herdrOk(sock, 'workspace.close', { workspace_id: wsId(s) }), { type: 'ok' });
  assert.not.ok(await session('renamed'));
  assert.is((await herdrErr(sock, 'workspace.close', { workspace_id: wsId(s) })).code, 'workspace_not_found');
});

test('tab.list: a tuios workspace that holds a window is a tab, <workspace id>:t<number>', async () => {
  const s = await session('work');
  await d.ok(['new-window', '-s', 'work', '--workspace', '3', 'third', 'sleep', '600']);
  const r = await herdrOk<{ tabs: Array<{ tab_id: string; number: number; label: string; pane_count: number }> }>(sock, 'tab.list', { workspace_id: wsId(s) });
  assert.equal(r.tabs.map((t) => t.tab_id), [`${wsId(s)}:t1`, `${wsId(s)}:t3`]);
  assert.equal(r.tabs.map((t) => t.label), ['1', '3'], 'an unnamed tab\'s label is its workspace number');
  await d.ok(['close-window', '-w', 'third']);
});

test('pane.list, pane.get: a window is a pane; herdr\'s id, the window id or 8+ of its hex digits find it', async () => {
  const w = await win('main');
  const r = await herdrOk<{ panes: Pane[] }>(sock, 'pane.list');
  const p = r.panes.find((x) => x.terminal_id === w.id)!;
  assert.ok(p);
  assert.is(p.pane_id, paneId(w));
  assert.is(p.tab_id, `w${w.session_id.slice(0, 12)}:t1`);
  assert.is(p.label, 'main');
  assert.is(p.agent_status, 'unknown');
  for (const id of [paneId(w), w.id, w.id.slice(0, 8)]) {
    const g = await herdrOk<{ type: string; pane: Pane }>(sock, 'pane.get', { pane_id: id });
    assert.is(g.type, 'pane_info');
    assert.is(g.pane.pane_id, paneId(w), id);
  }
  assert.is((await herdrErr(sock, 'pane.get', { pane_id: 'w000000000000:p000000000000' })).code, 'pane_not_found');
  assert.is((await herdrErr(sock, 'pane.get', { pane_id: 'no such pane' })).code, 'pane_not_found');
  assert.is((await herdrErr(sock, 'pane.get', {})).message, 'missing field `pane_id`');
});

test('pane.read: capture-pane; recent reaches into the scrollback', async () => {
  await d.ok(['new-window', '-s', 'work', 'lines', 'sh', '-c', 'for i in $(seq 1 60); do echo line-$i; done; sleep 600']);
  await d.waitScreen('lines', /line-60/);
  const w = await win('lines');
  const vis = await herdrOk<{ type: string; read: { text: string; source: string; pane_id: string } }>(sock, 'pane.read', { pane_id: paneId(w) });
  assert.is(vis.type, 'pane_read');
  assert.is(vis.read.source, 'visible');
  assert.is(vis.read.pane_id, paneId(w));
  assert.match(vis.read.text, /line-60/);
  assert.not.match(vis.read.text, /line-1\n/, 'the visible screen is 24 rows');
  const rec = await herdrOk<{ read: { text: string } }>(sock, 'pane.read', { pane_id: paneId(w), source: 'recent', lines: 70 });
  assert.match(rec.read.text, /^line-1$/m);
  assert.is((await herdrErr(sock, 'pane.read', { pane_id: paneId(w), source: 'recent', lines: 1001 })).code, 'invalid_params');
  assert.is((await herdrErr(sock, 'pane.read', { pane_id: paneId(w), source: 'sideways' })).code, 'invalid_request');
  await d.ok(['close-window', '-w', 'lines']);
});

test('pane.send_text is a paste, where herdr writes it raw: control characters removed, bracketed when the program wants it, a tool\'s own markers taken off', async () => {
  await d.ok(['new-window', '-s', 'work', 'bracket', 'sh', '-c', 'printf "\\033[?2004h"; exec cat -v']);
  const w = await win('bracket');
  await waitFor(async () => {
    const r = await d.json<{ windows: Array<{ name: string; foreground: { comm: string } | null }> }>(['list-windows']);
    return r.windows.find((x) => x.name === 'bracket')?.foreground?.comm === 'cat';
  }, { what: 'cat in the bracket window' });
  assert.equal(await herdrOk(sock, 'pane.send_text', { pane_id: paneId(w), text: '\x1b[200~one\x07two\x1b[201~' }), { type: 'ok' });
  await herdrOk(sock, 'pane.send_keys', { pane_id: paneId(w), keys: ['Enter'] });
  const screen = await d.waitScreen('bracket', /\^\[\[201~/);
  // One pair of markers, the paste's own: the tool's came off, and the bell is gone.
  assert.match(screen, /^\^\[\[200~onetwo\^\[\[201~$/m);
  await d.ok(['close-window', '-w', 'bracket']);
});

test('pane.send_keys: send-keys with herdr\'s key names; cmd, super and hyper fail with invalid_key', async () => {
  await d.ok(['new-window', '-s', 'work', 'keys', 'cat', '-v']);
  const w = await win('keys');
  await d.waitScreen('keys', /^/);
  await herdrOk(sock, 'pane.send_keys', { pane_id: paneId(w), keys: ['x', 'y', 'Enter'] });
  await d.waitScreen('keys', /^xy$/m);
  for (const k of ['cmd+c', 'super+x', 'hyper+a']) {
    assert.is((await herdrErr(sock, 'pane.send_keys', { pane_id: paneId(w), keys: [k] })).code, 'invalid_key', k);
  }
  assert.is((await herdrErr(sock, 'pane.send_keys', { pane_id: paneId(w), keys: 'Enter' })).code, 'invalid_request');
});

test('pane.rename: set-window; label null gives the window its program\'s name back', async () => {
  const w = await win('keys');
  const r = await herdrOk<{ pane: Pane }>(sock, 'pane.rename', { pane_id: paneId(w), label: 'typed' });
  assert.is(r.pane.label, 'typed');
  assert.is((await win('typed'))?.id, w.id);
  const c = await herdrOk<{ pane: Pane }>(sock, 'pane.rename', { pane_id: paneId(w), label: null });
  assert.is(c.pane.label, 'cat');
  assert.is((await herdrErr(sock, 'pane.rename', { pane_id: paneId(w) })).message, 'missing field `label`');
});

test('pane.close: close-window', async () => {
  const w = (await d.json<{ windows: Win[] }>(['list-windows'])).windows.find((x) => x.name === 'cat')!;
  assert.equal(await herdrOk(sock, 'pane.close', { pane_id: paneId(w) }), { type: 'ok' });
  await waitFor(async () => !(await d.json<{ windows: Win[] }>(['list-windows'])).windows.some((x) => x.id === w.id), { what: 'the window to close' });
  assert.is((await herdrErr(sock, 'pane.close', { pane_id: paneId(w) })).code, 'pane_not_found');
});

test('methods tuios does not answer: unsupported; pane.graphics.*: unknown_method; not herdr\'s: invalid_request', async () => {
  for (const m of ['workspace.move', 'layout.export', 'pane.scroll', 'integration.install', 'server.stop', 'plugin.list']) {
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
