// herdr's command line (spec: herdr's command line): the daemon makes a link named `herdr` to
// tuios beside its socket, HERDR_BIN_PATH names it in every pane, and tuios started under that
// name reads herdr's commands, sends each to HERDR_SOCKET_PATH and prints what herdr prints.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { lstatSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { TestDaemon, BIN } from '../helpers/daemon.js';
import { herdrPaneIdOf, herdrWin, herdrLinkOf, herdrCli } from '../helpers/herdr-client.js';

let d: TestDaemon;

test.before(async () => {
  d = await TestDaemon.start();
  await d.ok(['new-session', 'cli', '-n', 'sh', 'sh']);
  await d.ok(['new-window', '-s', 'cli', 'cat', 'cat', '-v']);
});

test.after(async () => {
  await d.stop();
});

test('the daemon makes the link herdr/bin/herdr beside its socket, to tuios; HERDR_BIN_PATH names it in a pane', async () => {
  assert.ok(lstatSync(herdrLinkOf(d)).isSymbolicLink());
  assert.is(realpathSync(herdrLinkOf(d)), realpathSync(BIN));
  await d.ok(['send-text', '-w', 'sh', '--submit', 'echo "bin=$HERDR_BIN_PATH"']);
  const screen = await d.waitScreen('sh', /^bin=\//m);
  assert.ok(screen.includes(`bin=${herdrLinkOf(d)}\n`), screen);
});

test('herdr --version prints herdr 0.9.5+tuios', async () => {
  const r = await herdrCli(d, ['--version']);
  assert.equal([r.code, r.stdout], [0, 'herdr 0.9.5+tuios\n']);
});

test('herdr status server: running when the socket answers, not running when it does not; --json says endpoint_compatible false', async () => {
  assert.equal(await herdrCli(d, ['status', 'server']), { code: 0, stdout: 'status: running\n', stderr: '' });
  const j = await herdrCli(d, ['status', 'server', '--json']);
  const o = JSON.parse(j.stdout);
  assert.equal([o.status, o.endpoint_compatible], ['running', false]);
  const off = await herdrCli(d, ['status', 'server'], { HERDR_SOCKET_PATH: join(d.dir, 'nothing.sock') });
  assert.is(off.stdout, 'status: not running\n');
});

test('herdr session list names one session, default', async () => {
  assert.equal(await herdrCli(d, ['session', 'list']), { code: 0, stdout: 'default\n', stderr: '' });
});

test('herdr pane report-agent prints nothing and sets the state; herdr pane release-agent clears it', async () => {
  const w = await herdrWin(d, 'cat');
  const r = await herdrCli(d, ['pane', 'report-agent', herdrPaneIdOf(w), '--source', 'my-agent', '--agent', 'my-agent', '--state', 'working', '--seq', '1']);
  assert.equal(r, { code: 0, stdout: '', stderr: '' });
  assert.is((await d.json<{ state: string; harness_id: string }>(['get-agent-state', '-w', 'cat'])).harness_id, 'my-agent');
  assert.is((await d.json<{ state: string }>(['get-agent-state', '-w', 'cat'])).state, 'working');
  assert.is((await herdrCli(d, ['pane', 'release-agent', herdrPaneIdOf(w), '--source', 'my-agent', '--seq', '2'])).code, 0);
  assert.is((await d.json<{ state: string }>(['get-agent-state', '-w', 'cat'])).state, 'none');
});

test('herdr pane send-text and send-keys print nothing; herdr pane read prints the text read', async () => {
  const w = await herdrWin(d, 'cat');
  assert.equal(await herdrCli(d, ['pane', 'send-text', herdrPaneIdOf(w), 'from-herdr-cli']), { code: 0, stdout: '', stderr: '' });
  assert.equal(await herdrCli(d, ['pane', 'send-keys', herdrPaneIdOf(w), 'Enter']), { code: 0, stdout: '', stderr: '' });
  await d.waitScreen('cat', /^from-herdr-cli$/m);
  const r = await herdrCli(d, ['pane', 'read', herdrPaneIdOf(w)]);
  assert.is(r.code, 0);
  assert.match(r.stdout, /^from-herdr-cli$/m);
});

test('herdr agent read prints the text read; herdr api snapshot and herdr server reload-config print their answers', async () => {
  await d.ok(['set-agent-state', '-w', 'cat', 'working', '--harness', 'claude-code']);
  const read = await herdrCli(d, ['agent', 'read', 'cat']);
  assert.equal([read.code, read.stderr], [0, '']);
  assert.match(read.stdout, /^from-herdr-cli$/m, 'the text, not JSON');
  const snap = await herdrCli(d, ['api', 'snapshot']);
  assert.is(snap.code, 0);
  assert.is(snap.stdout.trimEnd().split('\n').length, 1, 'one JSON line');
  const r = JSON.parse(snap.stdout) as { result: { type: string; version: string; panes: Array<{ terminal_id: string }> } };
  assert.equal([r.result.type, r.result.version], ['session_snapshot', '0.9.5+tuios']);
  assert.is(r.result.panes.length, 2, 'both panes of the daemon');
  const reload = await herdrCli(d, ['server', 'reload-config']);
  assert.is(reload.code, 0);
  const c = JSON.parse(reload.stdout) as { result: { type: string; status: string } };
  assert.equal([c.result.type, c.result.status], ['config_reload', 'applied']);
});

test('an answer prints as one JSON line on stdout; an error answer as one JSON line on stderr, exit 1', async () => {
  const w = await herdrWin(d, 'cat');
  const ok = await herdrCli(d, ['pane', 'get', herdrPaneIdOf(w)]);
  assert.is(ok.code, 0);
  assert.is(JSON.parse(ok.stdout).result.pane.pane_id, herdrPaneIdOf(w));
  assert.is(ok.stdout.split('\n').filter(Boolean).length, 1);
  const bad = await herdrCli(d, ['pane', 'get', 'w000000000000:p000000000000']);
  assert.is(bad.code, 1);
  assert.is(bad.stdout, '');
  assert.is(JSON.parse(bad.stderr).error.code, 'pane_not_found');
});

test('a wrong command prints the usage on stderr, exit 2', async () => {
  for (const args of [['pane', 'fly'], ['pane', 'report-agent', 'x', '--source', 's'], ['pane', 'read'], ['nonsense']]) {
    const r = await herdrCli(d, args);
    assert.is(r.code, 2, args.join(' '));
    assert.match(r.stderr, /usage: herdr/);
    assert.is(r.stdout, '');
  }
});

test('the commands that work on herdr\'s own machine answer herdr\'s error shape, code unsupported, exit 1', async () => {
  const all = [
    ['config'], ['session', 'attach'], ['session', 'stop'], ['session', 'delete'], ['terminal', 'attach'], ['terminal', 'session'],
    ['machine'], ['channel'], ['update'], ['completion'], ['integration', 'install'], ['api', 'schema'], ['agent', 'attach', 'x'],
    ['server', 'stop'], ['plugin', 'install', 'x'], ['plugin', 'uninstall', 'x'],
  ];
  for (const args of all) {
    const r = await herdrCli(d, args);
    assert.is(r.code, 1, args.join(' '));
    assert.is(JSON.parse(r.stderr).error.code, 'unsupported', args.join(' '));
  }
});

test.run();
