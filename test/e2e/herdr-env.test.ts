// herdr's environment in a real pane (spec: herdr's pane state protocol): the HERDR_* variables
// name the pane as the herdr socket does, and a program in the pane reaches the socket through
// HERDR_SOCKET_PATH as the process it is, holding the pane's grants (spec: Who may call what).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TestDaemon } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { herdrOk } from '../helpers/herdr-client.js';

let d: TestDaemon;
let client: string;

// A herdr client run inside a pane: one request from argv, the answer written to a file.
const CLIENT = `
const net = require('node:net');
const fs = require('node:fs');
const [method, params, file] = process.argv.slice(2);
const s = net.connect(process.env.HERDR_SOCKET_PATH);
let out = '';
s.setEncoding('utf8');
s.on('data', (x) => (out += x));
s.on('close', () => fs.writeFileSync(file, out));
s.on('error', (e) => fs.writeFileSync(file, JSON.stringify({ client_error: e.message })));
s.write(JSON.stringify({ id: 1, method, params: JSON.parse(params || '{}') }) + '\\n');
`;

test.before(async () => {
  d = await TestDaemon.start();
  client = join(d.home, 'herdr-client.cjs');
  writeFileSync(client, CLIENT);
  await d.ok(['new-session', 'env', '-n', 'shell']);
});

test.after(async () => {
  await d.stop();
});

interface Win {
  id: string;
  name: string;
  session_id: string;
  workspace: number;
}

async function win(name: string): Promise<Win> {
  const r = await d.json<{ windows: Win[] }>(['list-windows']);
  return r.windows.find((w) => w.name === name)!;
}

let runs = 0;

/** Runs the client in a window as the pane's own process, and reads the answer it wrote. */
async function inPane(window: string, method: string, params: Record<string, unknown> = {}): Promise<{ result?: Record<string, unknown>; error?: { code: string } }> {
  const file = join(d.home, `answer-${++runs}.json`);
  await d.ok(['send-text', '-w', window, '--submit', `${process.execPath} ${client} ${method} '${JSON.stringify(params)}' ${file}`]);
  // Parsed inside the wait: a file caught half written is read again.
  const a = await waitFor(() => (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : null), { what: `the answer to ${method} in ${window}` }) as { result?: Record<string, unknown>; error?: { code: string }; client_error?: string };
  if (a.client_error) throw new Error(a.client_error);
  return a;
}

test('a pane starts with HERDR_ENV, HERDR_SOCKET_PATH and its herdr ids, as the herdr socket names it', async () => {
  const w = await win('shell');
  await d.ok(['send-text', '-w', 'shell', '--submit', 'clear; env | grep ^HERDR_ | sort']);
  const screen = await d.waitScreen('shell', /HERDR_WORKSPACE_ID=/);
  const ws = `w${w.session_id.slice(0, 12)}`;
  assert.match(screen, /^HERDR_ENV=1$/m);
  assert.ok(screen.includes(`HERDR_SOCKET_PATH=${d.socket}.herdr`), screen);
  assert.ok(screen.includes(`HERDR_WORKSPACE_ID=${ws}\n`), screen);
  assert.ok(screen.includes(`HERDR_TAB_ID=${ws}:t${w.workspace}\n`), screen);
  assert.ok(screen.includes(`HERDR_PANE_ID=${ws}:p${w.id.slice(0, 12)}\n`), screen);
  const sock = `${d.socket}.herdr`;
  const p = await herdrOk<{ pane: { pane_id: string; tab_id: string; workspace_id: string } }>(sock, 'pane.get', { pane_id: w.id });
  assert.equal([p.pane.pane_id, p.pane.tab_id, p.pane.workspace_id], [`${ws}:p${w.id.slice(0, 12)}`, `${ws}:t${w.workspace}`, ws]);
});

test('a program in the pane reaches the socket through HERDR_SOCKET_PATH', async () => {
  const r = await inPane('shell', 'ping');
  assert.equal(r.result, { type: 'pong', version: '0.9.5+tuios', protocol: 22, server: 'tuios' });
});

test('a pane holding read only may list panes but not type: pane.send_text answers forbidden, and nothing is typed', async () => {
  const reader = (await d.call<{ id: string }>('new-window', { session: 'env', name: 'reader', argv: ['sh'], grants: ['read'], cols: 200, rows: 50 })).id;
  await d.call('new-window', { session: 'env', name: 'victim', argv: ['cat', '-v'] });
  const victim = await win('victim');
  const list = await inPane(reader, 'pane.list');
  assert.ok((list.result?.panes as Array<{ terminal_id: string }>).some((p) => p.terminal_id === victim.id), 'read lists the panes');
  const sent = await inPane(reader, 'pane.send_text', { pane_id: victim.id, text: 'should-not-arrive' });
  assert.is(sent.error?.code, 'forbidden');
  const closed = await inPane(reader, 'pane.close', { pane_id: victim.id });
  assert.is(closed.error?.code, 'forbidden', 'a close needs admin');
  assert.not.match(await d.ok(['capture-pane', '-w', 'victim']), /should-not-arrive/);
  assert.ok(await win('victim'), 'the pane is still there');
});

test('pane.process_info: the shell and the foreground process; argv to you and to the pane itself, pid and name only to a pane holding read', async () => {
  const victim = await win('victim');
  const reader = await win('reader');
  const sock = `${d.socket}.herdr`;
  type Info = { shell: { pid: number; name: string; argv?: string[] }; foreground: Array<{ pid: number; name: string; argv?: string[] }> };
  const mine = await herdrOk<Info>(sock, 'pane.process_info', { pane_id: victim.id });
  assert.equal([mine.foreground[0]?.name, mine.foreground[0]?.argv], ['cat', ['cat', '-v']]);
  assert.is(mine.shell.name, 'cat');
  const theirs = (await inPane(reader.id, 'pane.process_info', { pane_id: victim.id })).result as unknown as Info;
  assert.is(theirs.foreground[0]?.name, 'cat');
  assert.is(theirs.foreground[0]?.argv, undefined, 'read gets no arguments');
  assert.is(theirs.shell.argv, undefined);
  const own = (await inPane(reader.id, 'pane.process_info', { pane_id: reader.id })).result as unknown as Info;
  assert.equal(own.shell.argv, ['sh'], 'a pane reads its own arguments');
});

test.run();
