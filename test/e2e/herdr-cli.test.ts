// herdr's command line (spec: herdr's command line): the daemon makes a link named `herdr` to
// tuios beside its socket, HERDR_BIN_PATH names it in every pane, and tuios started under that
// name reads herdr's commands, sends each to HERDR_SOCKET_PATH and prints what herdr prints.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { lstatSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { TestDaemon, BIN } from '../helpers/daemon.js';

let d: TestDaemon;
let link: string;

function herdr(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(link, args, { env: { ...d.env, HERDR_SOCKET_PATH: `${d.socket}.herdr`, ...env }, timeout: 30_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

interface Win {
  id: string;
  name: string;
  session_id: string;
}
async function win(name: string): Promise<Win> {
  return (await d.json<{ windows: Win[] }>(['list-windows'])).windows.find((w) => w.name === name)!;
}
const paneId = (w: Win) => `w${w.session_id.slice(0, 12)}:p${w.id.slice(0, 12)}`;

test.before(async () => {
  d = await TestDaemon.start();
  link = join(dirname(d.socket), 'herdr', 'bin', 'herdr');
  await d.ok(['new-session', 'cli', '-n', 'sh', 'sh']);
  await d.ok(['new-window', '-s', 'cli', 'cat', 'cat', '-v']);
});

test.after(async () => {
  await d.stop();
});

test('the daemon makes the link herdr/bin/herdr beside its socket, to tuios; HERDR_BIN_PATH names it in a pane', async () => {
  assert.ok(lstatSync(link).isSymbolicLink());
  assert.is(realpathSync(link), realpathSync(BIN));
  await d.ok(['send-text', '-w', 'sh', '--submit', 'echo "bin=$HERDR_BIN_PATH"']);
  const screen = await d.waitScreen('sh', /^bin=\//m);
  assert.ok(screen.includes(`bin=${link}\n`), screen);
});

test('herdr --version prints herdr 0.9.5+tuios', async () => {
  const r = await herdr(['--version']);
  assert.equal([r.code, r.stdout], [0, 'herdr 0.9.5+tuios\n']);
});

test('herdr status server: running when the socket answers, not running when it does not; --json says endpoint_compatible false', async () => {
  assert.equal(await herdr(['status', 'server']), { code: 0, stdout: 'status: running\n', stderr: '' });
  const j = await herdr(['status', 'server', '--json']);
  const o = JSON.parse(j.stdout);
  assert.equal([o.status, o.endpoint_compatible], ['running', false]);
  const off = await herdr(['status', 'server'], { HERDR_SOCKET_PATH: join(d.dir, 'nothing.sock') });
  assert.is(off.stdout, 'status: not running\n');
});

test('herdr session list names one session, default', async () => {
  assert.equal(await herdr(['session', 'list']), { code: 0, stdout: 'default\n', stderr: '' });
});

test('herdr pane report-agent prints nothing and sets the state; herdr pane release-agent clears it', async () => {
  const w = await win('cat');
  const r = await herdr(['pane', 'report-agent', paneId(w), '--source', 'my-agent', '--agent', 'my-agent', '--state', 'working', '--seq', '1']);
  assert.equal(r, { code: 0, stdout: '', stderr: '' });
  assert.is((await d.json<{ state: string; harness_id: string }>(['get-agent-state', '-w', 'cat'])).harness_id, 'my-agent');
  assert.is((await d.json<{ state: string }>(['get-agent-state', '-w', 'cat'])).state, 'working');
  assert.is((await herdr(['pane', 'release-agent', paneId(w), '--source', 'my-agent', '--seq', '2'])).code, 0);
  assert.is((await d.json<{ state: string }>(['get-agent-state', '-w', 'cat'])).state, 'none');
});

test('herdr pane send-text and send-keys print nothing; herdr pane read prints the text read', async () => {
  const w = await win('cat');
  assert.equal(await herdr(['pane', 'send-text', paneId(w), 'from-herdr-cli']), { code: 0, stdout: '', stderr: '' });
  assert.equal(await herdr(['pane', 'send-keys', paneId(w), 'Enter']), { code: 0, stdout: '', stderr: '' });
  await d.waitScreen('cat', /^from-herdr-cli$/m);
  const r = await herdr(['pane', 'read', paneId(w)]);
  assert.is(r.code, 0);
  assert.match(r.stdout, /^from-herdr-cli$/m);
});

test('an answer prints as one JSON line on stdout; an error answer as one JSON line on stderr, exit 1', async () => {
  const w = await win('cat');
  const ok = await herdr(['pane', 'get', paneId(w)]);
  assert.is(ok.code, 0);
  assert.is(JSON.parse(ok.stdout).result.pane.pane_id, paneId(w));
  assert.is(ok.stdout.split('\n').filter(Boolean).length, 1);
  const bad = await herdr(['pane', 'get', 'w000000000000:p000000000000']);
  assert.is(bad.code, 1);
  assert.is(bad.stdout, '');
  assert.is(JSON.parse(bad.stderr).error.code, 'pane_not_found');
});

test('a wrong command prints the usage on stderr, exit 2', async () => {
  for (const args of [['pane', 'fly'], ['pane', 'report-agent', 'x', '--source', 's'], ['pane', 'read'], ['nonsense']]) {
    const r = await herdr(args);
    assert.is(r.code, 2, args.join(' '));
    assert.match(r.stderr, /usage: herdr/);
    assert.is(r.stdout, '');
  }
});

test('the commands that work on herdr\'s own machine answer herdr\'s error shape, code unsupported, exit 1', async () => {
  for (const args of [['config'], ['session', 'attach'], ['agent', 'attach', 'x'], ['server', 'stop'], ['plugin', 'install', 'x'], ['integration', 'install']]) {
    const r = await herdr(args);
    assert.is(r.code, 1, args.join(' '));
    assert.is(JSON.parse(r.stderr).error.code, 'unsupported', args.join(' '));
  }
});

test.run();
