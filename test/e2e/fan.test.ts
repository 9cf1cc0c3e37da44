// fan as a user drives it: three worktrees with a stand-in agent each, every prompt typed once its
// agent is ready, the group selectors read, and fan keep leaving one attempt without losing work.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, type TestDaemon } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { makeRepo, removeDir, sh, tempDir, write } from '../helpers/worktree-repos.js';
import { daemonWithStandin } from '../helpers/worktree-standin.js';
import type { FanOutResult as FanResult } from '../../core/verbs/fan.js';

let d: TestDaemon;
let tools: string;
let root: string;
let repo: string;

type Attempt = FanResult['attempts'][number];

let fan: FanResult;

test.before(async () => {
  ({ d, tools } = await daemonWithStandin());
  root = tempDir('tuios-fan-e2e-');
  repo = makeRepo(join(root, 'api'));
});

test.after(async () => {
  await d.stop();
  removeDir(root);
  removeDir(tools);
});

async function agentWindows(select: string): Promise<Array<{ window_id: string; session: string; state: string }>> {
  return (await d.call<{ agents: Array<{ window_id: string; session: string; state: string }> }>('list-agents', { select })).agents;
}

test('fan 3 makes three worktrees with an agent each, and types each prompt once its agent is ready', async () => {
  const pending = d.cli(['fan', '3', '--agent', 'standin', 'add a retry to the client', '--json'], { cwd: repo, timeoutMs: 120_000 });
  // Three stand-ins running, none typed at: nothing says they are at their prompt yet.
  const windows = await waitFor(async () => {
    const ws = await d.call<{ windows: Array<{ id: string; session: string; foreground: { comm: string } | null; start_cwd: string }> }>('list-windows');
    const mine = ws.windows.filter((w) => w.session.startsWith('api-fan-add-retry-') && w.foreground?.comm === 'standin');
    return mine.length === 3 ? mine : null;
  }, { what: 'three stand-ins running' });
  for (const w of windows) assert.not.ok(existsSync(join(w.start_cwd, 'prompt-1.txt')), 'nothing typed before ready');
  // Made ready one at a time, the way real agents come up.
  for (const w of windows) await d.ok(['set-agent-state', '-w', w.id, 'idle']);
  const res = await pending;
  assert.is(res.code, 0, res.stderr);
  fan = JSON.parse(res.stdout) as FanResult;
  assert.is(fan.group, 'fan/add-retry');
  assert.is(fan.base, 'main');
  assert.equal(fan.attempts.map((a) => a.branch), ['fan/add-retry-1', 'fan/add-retry-2', 'fan/add-retry-3']);
  for (const a of fan.attempts) {
    assert.is(a.prompt_status, 'taken', a.session);
    assert.is(a.harness, 'standin');
    const text = await waitFor(() => (existsSync(join(a.path, 'prompt-1.txt')) ? readFileSync(join(a.path, 'prompt-1.txt'), 'utf8') : null), { what: `the prompt in ${a.session}` });
    assert.is(text, 'add a retry to the client\n');
    assert.is(sh(a.path, ['symbolic-ref', '--short', 'HEAD']).trim(), a.branch);
  }
});

test('the sessions carry the group: selectors read it as group:', async () => {
  const all = await agentWindows('group:fan/*');
  assert.is(all.length, 3);
  assert.equal(all.map((a) => a.session).sort(), fan.attempts.map((a) => a.session).sort());
  assert.is((await agentWindows('group:fan/other')).length, 0);
  const ls = await d.json<{ worktrees: Array<{ group: string; prompt_status: string; dirty: number }> }>(['worktree', 'ls', '--group', 'fan/add-retry']);
  assert.is(ls.worktrees.length, 3);
  for (const w of ls.worktrees) {
    assert.is(w.prompt_status, 'taken');
    assert.is(w.dirty, 1, 'the stand-in wrote one untracked file');
  }
});

test('--prompt repeated gives each attempt its own; a second fan with the same words gets its own stem', async () => {
  const pending = d.cli(['fan', '2', '--agent', 'standin,standin', '--prompt', 'first idea', '--prompt', 'second idea', '--branch', 'fan/add-retry', '--json'], { cwd: repo, timeoutMs: 120_000 });
  const windows = await waitFor(async () => {
    const ws = await d.call<{ windows: Array<{ id: string; session: string; foreground: { comm: string } | null }> }>('list-windows');
    const mine = ws.windows.filter((w) => w.session.startsWith('api-fan-add-retry-2-') && w.foreground?.comm === 'standin');
    return mine.length === 2 ? mine : null;
  }, { what: 'two more stand-ins' });
  for (const w of windows) await d.ok(['set-agent-state', '-w', w.id, 'idle']);
  const res = await pending;
  assert.is(res.code, 0, res.stderr);
  const r = JSON.parse(res.stdout) as FanResult;
  assert.is(r.group, 'fan/add-retry-2');
  const texts = await Promise.all(r.attempts.map((a) => waitFor(() => (existsSync(join(a.path, 'prompt-1.txt')) ? readFileSync(join(a.path, 'prompt-1.txt'), 'utf8') : null))));
  assert.equal(texts, ['first idea\n', 'second idea\n']);
  // Cleared away for the tests below: this group is not the one kept.
  for (const a of r.attempts) await d.ok(['worktree', 'rm', a.session, '--force']);
});

test('fan keep keeps the attempts with uncommitted work and says so', async () => {
  const [keep, two, three] = fan.attempts as [Attempt, Attempt, Attempt];
  const r = await d.json<{ kept: string; removed: unknown[]; kept_dirty: Array<{ session: string }>; notes: string[] }>(['fan', 'keep', keep.session]);
  assert.is(r.kept, keep.session);
  assert.equal(r.removed, []);
  assert.equal(r.kept_dirty.map((x) => x.session).sort(), [two.session, three.session].sort());
  assert.ok(r.notes.some((n) => n.includes(two.session) && /uncommitted/.test(n)));
  assert.ok(existsSync(join(two.path, 'prompt-1.txt')), 'the work is still there');
});

test('fan keep leaves one: clean attempts go, a branch with commits is kept', async () => {
  const [keep, two, three] = fan.attempts as [Attempt, Attempt, Attempt];
  sh(two.path, ['add', 'prompt-1.txt']);
  sh(two.path, ['commit', '-q', '-m', 'attempt two']);
  rmSync(join(three.path, 'prompt-1.txt'));
  const r = await d.json<{ removed: Array<{ session: string; branch_deleted: boolean }>; kept_dirty: unknown[] }>(['fan', 'keep', keep.session]);
  assert.equal(r.kept_dirty, []);
  const byName = Object.fromEntries(r.removed.map((x) => [x.session, x.branch_deleted]));
  assert.equal(byName, { [two.session]: false, [three.session]: true });
  assert.not.ok(existsSync(two.path));
  assert.not.ok(existsSync(three.path));
  assert.ok(sh(repo, ['branch', '--list', two.branch]).includes(two.branch), 'its commit is not lost');
  const left = await agentWindows('group:fan/add-retry');
  assert.equal(left.map((a) => a.session), [keep.session]);
});

test('fan keep --merge merges the kept branch into its base in the main checkout', async () => {
  const [keep] = fan.attempts as [Attempt];
  write(join(keep.path, 'retry.ts'), 'export const retries = 3;\n');
  sh(keep.path, ['add', 'retry.ts']);
  sh(keep.path, ['commit', '-q', '-m', 'retry']);
  const r = await d.json<{ merged: { into: string; commit: string; fast_forward: boolean }; notes: string[] }>(['fan', 'keep', keep.session, '--merge']);
  assert.is(r.merged.into, 'main');
  assert.ok(r.merged.fast_forward);
  assert.is(sh(repo, ['rev-parse', 'main']).trim(), sh(keep.path, ['rev-parse', 'HEAD']).trim());
  assert.ok(existsSync(join(repo, 'retry.ts')));
  assert.ok(r.notes.some((n) => /not merged/.test(n)), 'its untracked prompt file is named as not merged');
});

test('--grants gives the new panes what they may do; a pane without fan may not fan', async () => {
  const r = JSON.parse(await d.ok(['fan', '1', '--agent', 'standin', 'granted work', '--grants', 'read,write', '--no-wait', '--json'], { cwd: repo })) as FanResult;
  const ws = await d.call<{ windows: Array<{ id: string; grants?: string[] }> }>('list-windows', { session: r.attempts[0]!.session });
  assert.equal(ws.windows[0]!.grants, ['read', 'write']);
  assert.is(r.attempts[0]!.prompt_status, 'waiting', '--no-wait answers before the agent is ready');
  const out = join(root, 'limited.out');
  await d.call('new-window', { name: 'limited', grants: ['read', 'write'], argv: ['sh', '-c', `${process.execPath} ${BIN} fan 1 --agent standin 'from a pane' --repo ${repo} > ${out} 2>&1; sleep 60`] });
  const text = await waitFor(() => (existsSync(out) && readFileSync(out, 'utf8').includes('(') ? readFileSync(out, 'utf8') : null), { what: 'the refusal' });
  assert.match(text, /starting agents needs the fan grant.*\(forbidden\)/s);
  await d.ok(['worktree', 'rm', r.attempts[0]!.session, '--force']);
});

test('fan refuses a prompt count that fits neither one nor N, before anything is made', async () => {
  const r = await d.cli(['fan', '3', '--agent', 'standin', '--prompt', 'a', '--prompt', 'b'], { cwd: repo });
  assert.is(r.code, 1);
  assert.match(r.stderr, /3 got 2 prompts.*\(invalid_params\)/s);
  const missing = await d.cli(['fan', '2', '--agent', 'no-such-agent', 'x'], { cwd: repo });
  assert.is(missing.code, 1);
  assert.match(missing.stderr, /no harness "no-such-agent".*\(not_found\)/s);
});

test.run();
