// Comparing a fan over real worktrees (spec: Comparing a fan, Fleets): compare-fan counts each
// attempt's work against the fan's base without touching its index or files; verify-fan runs one
// check in a window named verify in every attempt (closed on pass, kept on fail) and compare-fan
// reports it; fan diff says what two attempts did differently.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, type TestDaemon } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { commit, makeRepo, removeDir, sh, tempDir, write } from '../helpers/worktree-repos.js';
import { daemonWithStandin } from '../helpers/worktree-standin.js';
import type { FanOutResult } from '../../core/verbs/fan.js';
import type { CompareFanResult } from '../../core/verbs/fan-compare.js';

let d: TestDaemon;
let tools: string;
let root: string;
let fan: FanOutResult;
let one: FanOutResult['attempts'][number];
let two: FanOutResult['attempts'][number];

async function windowsOf(session: string): Promise<Array<{ id: string; name: string }>> {
  const ws = await d.call<{ windows: Array<{ id: string; name: string; session: string }> }>('list-windows');
  return ws.windows.filter((w) => w.session === session);
}

test.before(async () => {
  ({ d, tools } = await daemonWithStandin());
  root = tempDir('tuios-fan-compare-');
  const repo = makeRepo(join(root, 'api'));
  const pending = d.cli(['fan', '2', '--agent', 'standin', 'add a retry', '--json'], { cwd: repo, timeoutMs: 120_000 });
  const ws = await waitFor(async () => {
    const all = await d.call<{ windows: Array<{ id: string; session: string; foreground: { comm: string } | null }> }>('list-windows');
    const mine = all.windows.filter((w) => w.foreground?.comm === 'standin');
    return mine.length === 2 ? mine : null;
  }, { what: 'two stand-ins' });
  for (const w of ws) await d.ok(['set-agent-state', '-w', w.id, 'idle']);
  // Which harness a pane runs is read off its process by the detector, on its own tick: wait for
  // it, as compare-fan names it.
  for (const w of ws) await waitFor(async () => (await d.json<{ harness_id: string | null }>(['get-agent-state', '-w', w.id])).harness_id === 'standin', { timeout: 30_000, what: 'the stand-in known as its harness' });
  const res = await pending;
  assert.is(res.code, 0, res.stderr);
  fan = JSON.parse(res.stdout) as FanOutResult;
  [one, two] = fan.attempts as [typeof one, typeof two];
  for (const a of fan.attempts) await waitFor(() => { try { return statSync(join(a.path, 'prompt-1.txt')).isFile(); } catch { return null; } }, { what: 'the prompt file' });
  // Attempt 1: a new file, uncommitted, and a staged change. Attempt 2: a commit.
  write(join(one.path, 'only-in-1.txt'), 'one\ntwo\n');
  write(join(one.path, 'staged.txt'), 'staged by attempt 1\n');
  sh(one.path, ['add', '--', 'staged.txt']);
  commit(two.path, 'mod.txt', 'mod changed by 2\nand more\n', 'attempt 2 changes mod');
});

test.after(async () => {
  await d.stop();
  removeDir(root);
  removeDir(tools);
});

test('compare-fan counts each attempt\'s work against the fan\'s base, and touches no index', async () => {
  const indexBefore = readFileSync(join(sh(one.path, ['rev-parse', '--git-dir']).trim(), 'index'));
  const statusBefore = sh(one.path, ['status', '--porcelain']);
  const r = await d.json<CompareFanResult>(['fan', 'compare', one.session]);
  assert.is(r.group, fan.group);
  assert.is(r.base, 'main');
  assert.is(r.attempts.length, 2);
  const a1 = r.attempts.find((a) => a.session === one.session)!;
  const a2 = r.attempts.find((a) => a.session === two.session)!;
  // prompt-1.txt (untracked), only-in-1.txt (untracked), staged.txt (staged).
  assert.equal([a1.files, a1.added, a1.deleted, a1.commits], [3, 4, 1, 0]);
  assert.equal([a2.files, a2.commits], [2, 1], 'prompt-1.txt and the committed mod.txt');
  assert.is(a1.harness, 'standin');
  assert.is(a1.check, null, 'no check yet');
  assert.equal(readFileSync(join(sh(one.path, ['rev-parse', '--git-dir']).trim(), 'index')), indexBefore, 'the index is not touched');
  assert.is(sh(one.path, ['status', '--porcelain']), statusBefore);
  const text = await d.ok(['fan', 'compare', two.session]);
  assert.match(text, /SESSION\s+AGENT\s+STATE\s+FILES/);
});

test('before any verify-fan, an attempt\'s check is the last command a shell in it finished (OSC 133)', async () => {
  await d.ok(['new-window', '-s', two.session, 'sh2', '--cols', '200', '--', 'env', 'PS1=\\[\\e]133;D;$?\\a\\e]133;A\\a\\]$ \\[\\e]133;B\\a\\]', 'PS0=\\e]133;C\\a', 'bash', '--norc', '--noprofile']);
  const w = (await windowsOf(two.session)).find((x) => x.name === 'sh2')!.id;
  await d.waitScreen(w, /\$ $/m);
  await d.ok(['send-text', '-w', w, '--submit', 'test -f nothing-here.txt']);
  const r = await waitFor(async () => {
    const c = await d.json<CompareFanResult>(['fan', 'compare', one.session]);
    return c.attempts.find((a) => a.session === two.session)?.check ? c : null;
  }, { what: 'the shell\'s command as the check' });
  const c = r.attempts.find((a) => a.session === two.session)!.check!;
  assert.equal([c.source, c.command, c.state, c.exit, c.window_id], ['shell', 'test -f nothing-here.txt', 'failed', 1, w]);
  assert.is(r.attempts.find((a) => a.session === one.session)!.check, null, 'no shell finished a command in the other');
  await d.ok(['close-window', '-w', w]);
});

test('fan verify runs the check in a verify window in each attempt: closed on pass, kept on fail', async () => {
  const res = await d.cli(['fan', 'verify', one.session, '--json', '--', 'test', '-f', 'only-in-1.txt']);
  assert.is(res.code, 0, res.stderr);
  const v = JSON.parse(res.stdout) as { command: string; attempts: Array<{ session: string; state: string; exit: number | null; window_id: string }>; passed: number; failed: number };
  assert.is(v.command, 'test -f only-in-1.txt');
  assert.equal([v.passed, v.failed], [1, 1]);
  const p = v.attempts.find((a) => a.session === one.session)!;
  const f = v.attempts.find((a) => a.session === two.session)!;
  assert.equal([p.state, p.exit], ['passed', 0]);
  assert.equal([f.state, f.exit], ['failed', 1]);
  await waitFor(async () => ((await windowsOf(one.session)).some((w) => w.name === 'verify') ? null : true), { what: 'the passing check\'s window closed' });
  assert.ok((await windowsOf(two.session)).some((w) => w.name === 'verify' && w.id === f.window_id), 'the failing check\'s window stays');
  // compare-fan reports each attempt's last check.
  const r = await d.json<CompareFanResult>(['fan', 'compare', one.session]);
  const c1 = r.attempts.find((a) => a.session === one.session)!.check!;
  const c2 = r.attempts.find((a) => a.session === two.session)!.check!;
  assert.equal([c1.source, c1.state, c1.exit, c1.command], ['verify', 'passed', 0, 'test -f only-in-1.txt']);
  assert.equal([c2.source, c2.state, c2.exit], ['verify', 'failed', 1]);
  assert.is(r.running, false);
});

test('a passing check in every attempt; the verify window holds no grants; --no-wait answers running', async () => {
  const json = async <T,>(args: string[]): Promise<T> => {
    const res = await d.cli(args);
    assert.is(res.code, 0, res.stderr);
    return JSON.parse(res.stdout) as T;
  };
  const r = await json<{ passed: number; failed: number }>(['fan', 'verify', two.session, '--json', '--', 'test -f prompt-1.txt && test "$TUIOS_PANE_GRANTS" = none']);
  assert.equal([r.passed, r.failed], [2, 0]);
  const slow = await json<{ running: number; attempts: Array<{ state: string }> }>(['fan', 'verify', one.session, '--no-wait', '--json', '--', 'sleep 2']);
  assert.is(slow.running, 2);
  const done = await waitFor(async () => {
    const c = await d.json<CompareFanResult>(['fan', 'compare', one.session]);
    return c.running ? null : c;
  }, { what: 'the checks to end', timeout: 30_000 });
  assert.ok(done.attempts.every((a) => a.check?.state === 'passed'));
  // --no-count: the states and checks alone, no counts.
  const quick = await d.json<CompareFanResult>(['fan', 'compare', one.session, '--no-count']);
  assert.ok(quick.attempts.every((a) => a.files === null && a.added === null && a.check?.state === 'passed'));
});

test('bad input: an empty check, a session no fan made', async () => {
  const empty = await d.cli(['fan', 'verify', one.session, '--', ' ']);
  assert.is.not(empty.code, 0);
  assert.match(empty.stderr, /invalid_params|empty/);
  const long = await d.cli(['fan', 'verify', one.session, '--', `echo ${'x'.repeat(4100)}`]);
  assert.is.not(long.code, 0);
  assert.match(long.stderr, /invalid_params/);
  assert.not.ok((await windowsOf(one.session)).some((w) => w.name === 'verify'), 'a refused check opens no window');
  await d.ok(['new-session', 'plain']);
  const notFan = await d.cli(['fan', 'compare', 'plain']);
  assert.is.not(notFan.code, 0);
  assert.match(notFan.stderr, /not an attempt of a fan/);
});

test('a pane without the fan grant may not run a check; with read it may compare its own fan only', async () => {
  await d.ok(['new-window', '-s', 'plain', 'reader', '--grants', 'read', '--cols', '200', '--', 'sh']);
  const w = (await windowsOf('plain')).find((x) => x.name === 'reader')!.id;
  const tuios = `${process.execPath} ${BIN}`;
  await d.ok(['send-text', '-w', w, '--submit', `${tuios} fan verify ${one.session} -- true; echo "verify rc=$?"; ${tuios} fan compare ${one.session}; echo "compare rc=$?"`]);
  const screen = await d.waitScreen(w, /compare rc=\d+/, 30_000);
  // A pane holding write and fan, but not admin, still never keeps a fan: only the person does.
  await d.ok(['new-window', '-s', 'plain', 'writer', '--grants', 'read', '--grants', 'write', '--grants', 'fan', '--cols', '200', '--', 'sh']);
  const ww = (await windowsOf('plain')).find((x) => x.name === 'writer')!.id;
  await d.ok(['send-text', '-w', ww, '--submit', `${tuios} fan keep ${one.session}; echo "keep rc=$?"`]);
  const kept = (await d.waitScreen(ww, /keep rc=\d+/, 30_000)).replace(/\n/g, '');
  assert.match(kept, /keep rc=[1-9]/);
  assert.match(kept, /fan keep is refused from inside a pane without admin: only the person keeps a fan/);
  assert.is((await d.call<{ sessions: Array<{ name: string }> }>('list-sessions')).sessions.filter((x) => x.name === one.session || x.name === two.session).length, 2);
  assert.match(screen, /forbidden/);
  assert.match(screen, /verify rc=[1-9]/);
  assert.match(screen, /compare rc=[1-9]/, 'another session\'s fan is out of its reach');
});

test('fan diff A B: what the second did that the first did not, file by file', async () => {
  const r = await d.json<{ a: string; b: string; files: Array<{ path: string; status: string; added: number | null; deleted: number | null }>; added: number; deleted: number }>(['fan', 'diff', one.session, two.session]);
  assert.is(r.a, one.session);
  const by = Object.fromEntries(r.files.map((f) => [f.path, f.status]));
  assert.equal(by, { 'mod.txt': 'M', 'only-in-1.txt': 'D', 'staged.txt': 'M' });
  const same = await d.cli(['fan', 'diff', one.session, one.session]);
  assert.is.not(same.code, 0);
  const text = await d.ok(['fan', 'diff', one.session, two.session, '--patch']);
  assert.match(text, /^\+mod changed by 2$/m);
});

test.run();
