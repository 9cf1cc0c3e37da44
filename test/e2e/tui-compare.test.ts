// The compare view as a person uses it in tmux (spec: Reviewing in the client): ctrl+b F on a
// pane in a fan shows every attempt with its changes; V runs a typed check in each attempt and the
// rows show it end; K asks, naming each attempt it removes, and y keeps the one under the cursor.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, type TestDaemon } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { Terminal } from '../helpers/terminal.js';
import { makeRepo, removeDir, tempDir } from '../helpers/worktree-repos.js';
import { daemonWithStandin } from '../helpers/worktree-standin.js';
import type { FanOutResult } from '../../core/verbs/fan.js';

let d: TestDaemon;
let tools: string;
let root: string;
let fan: FanOutResult;
let t: Terminal | null = null;

async function sessions(): Promise<string[]> {
  return (await d.call<{ sessions: Array<{ name: string }> }>('list-sessions')).sessions.map((s) => s.name);
}

test.before(async () => {
  ({ d, tools } = await daemonWithStandin());
  root = tempDir('tuios-tui-compare-');
  const repo = makeRepo(join(root, 'api'));
  const pending = d.cli(['fan', '3', '--agent', 'standin', 'add a retry', '--json'], { cwd: repo, timeoutMs: 120_000 });
  const ws = await waitFor(async () => {
    const all = await d.call<{ windows: Array<{ id: string; foreground: { comm: string } | null }> }>('list-windows');
    const mine = all.windows.filter((w) => w.foreground?.comm === 'standin');
    return mine.length === 3 ? mine : null;
  }, { what: 'three stand-ins' });
  for (const w of ws) await d.ok(['set-agent-state', '-w', w.id, 'idle']);
  const res = await pending;
  assert.is(res.code, 0, res.stderr);
  fan = JSON.parse(res.stdout) as FanOutResult;
});

test.after(async () => {
  t?.kill();
  await d.stop();
  removeDir(root);
  removeDir(tools);
});

test('ctrl+b F shows the attempts; V runs a check in each and the rows show it end', async () => {
  const [one] = fan.attempts;
  t = new Terminal(d.env, `${process.execPath} ${BIN} attach -s ${one!.session}`);
  await t.wait(/standin|\$/);
  t.keys('C-b', 'F');
  const screen = await t.wait(new RegExp(`Compare ${fan.group}: 3 attempts from main`));
  for (const a of fan.attempts) assert.match(screen, new RegExp(a.session.replace(/[/.]/g, '\\$&')));
  assert.match(screen, /1 file \+1 -0/, 'each stand-in wrote its prompt file');
  t.keys('V');
  await t.wait(/Check to run in every attempt:/);
  t.type('test -f prompt-1.txt');
  t.keys('Enter');
  await t.wait(/test -f prompt-1\.txt: passed \(exit 0\)[\s\S]*test -f prompt-1\.txt: passed[\s\S]*test -f prompt-1\.txt: passed/, undefined, 30_000);
  // enter reviews the attempt under the cursor, in the view's place.
  t.keys('Enter');
  await t.wait(new RegExp(`Review +${one!.session.replace(/[/.]/g, '\\$&')} / `));
  t.keys('Esc');
});

test('K asks first, naming each attempt removed; n keeps everything, y keeps the one under the cursor', async () => {
  const [one, two, three] = fan.attempts as [FanOutResult['attempts'][number], FanOutResult['attempts'][number], FanOutResult['attempts'][number]];
  // The attempts that go have no uncommitted work, so keep-fan removes them.
  for (const a of [one, three]) rmSync(join(a.path, 'prompt-1.txt'));
  await t!.wait(/ standin ─|standin/);
  t!.keys('C-b', 'F');
  await t!.wait(new RegExp(`Compare ${fan.group}: 3 attempts`));
  t!.keys('j');
  t!.keys('K');
  await t!.wait(new RegExp(`Keep ${two.session} and remove ${one.session}, ${three.session}\\? \\(y: yes\\)`));
  t!.keys('n');
  await t!.wait(/Nothing was kept or removed\./);
  assert.equal((await sessions()).filter((s) => fan.attempts.some((a) => a.session === s)).length, 3);
  t!.keys('K');
  await t!.wait(/\(y: yes\)/);
  t!.keys('y');
  await waitFor(async () => {
    const left = (await sessions()).filter((s) => fan.attempts.some((a) => a.session === s));
    return left.length === 1 && left[0] === two.session ? true : null;
  }, { what: 'only the kept attempt left', timeout: 30_000 });
  await t!.wait(new RegExp(`Kept ${two.session}; removed ${one.session}, ${three.session}\\.`));
});

test.run();
