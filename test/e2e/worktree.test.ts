// Worktrees as a user drives them: a real daemon, the built CLI run from inside a real repository,
// real git. worktree new/ls/diff/rm, start-agent typing once its agent is ready, worktree pull
// between two clones, and --host refused until the link exists.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestDaemon } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { identity, log, makeMessyWork, makeRepo, removeDir, sh, sha256File, status, tempDir, write } from '../helpers/worktree-repos.js';
import { daemonWithStandin } from '../helpers/worktree-standin.js';
import type { WorktreeRow as LsEntry } from '../../core/verbs/worktree.js';

let d: TestDaemon;
let tools: string;
let root: string;
let repo: string;

async function ls(): Promise<{ repositories: Array<{ name: string; worktrees: LsEntry[] }>; worktrees: LsEntry[] }> {
  return d.json(['worktree', 'ls']);
}

test.before(async () => {
  // The 30 s first-run question after 2 s here, so its test does not wait half a minute.
  ({ d, tools } = await daemonWithStandin({ TUIOS_FIRST_RUN_QUESTION_SECONDS: '2' }));
  root = tempDir('tuios-wt-e2e-');
  repo = makeRepo(join(root, 'api'));
});

test.after(async () => {
  await d.stop();
  removeDir(root);
  removeDir(tools);
});

test('worktree new makes a worktree on a new branch from the checked-out one, and a session in it', async () => {
  const r = JSON.parse(await d.ok(['worktree', 'new', 'feat/a', '--json'], { cwd: repo })) as { branch: string; base: string; base_commit: string; path: string; session: string };
  assert.is(r.branch, 'feat/a');
  assert.is(r.base, 'main');
  assert.is(r.base_commit, sh(repo, ['rev-parse', 'main']).trim());
  assert.ok(r.path.startsWith(join(d.dir, 'state')), `under the state folder: ${r.path}`);
  assert.ok(existsSync(join(r.path, 'keep.txt')));
  assert.is(sh(r.path, ['symbolic-ref', '--short', 'HEAD']).trim(), 'feat/a');
  assert.is(r.session, 'api-feat-a');
  const ws = await d.call<{ windows: Array<{ session: string; start_cwd: string }> }>('list-windows', { session: 'api-feat-a' });
  assert.is(ws.windows[0]!.start_cwd, r.path, 'its shell starts in the worktree');
});

test('worktree ls groups by repository and carries path, branch, base, session, agent state and dirty count', async () => {
  const first = await ls();
  assert.equal(first.repositories.map((g) => g.name), ['api']);
  const e = first.worktrees.find((w) => w.branch === 'feat/a')!;
  assert.ok(e, 'listed');
  for (const k of ['path', 'branch', 'base', 'base_commit', 'session', 'state', 'dirty', 'ahead', 'head']) assert.ok(k in e, `field ${k}`);
  assert.is(e.dirty, 0);
  assert.is(e.ahead, 0);
  assert.is(e.state, 'none');
  write(join(e.path, 'keep.txt'), 'changed\n');
  write(join(e.path, 'fresh.txt'), 'new\n');
  const again = (await ls()).worktrees.find((w) => w.branch === 'feat/a')!;
  assert.is(again.dirty, 2);
  const text = await d.ok(['worktree', 'ls']);
  assert.match(text, /^api/m);
  assert.match(text, /api-feat-a\s+feat\/a\s+main/);
});

test('worktree diff shows committed and uncommitted work, untracked files as U', async () => {
  const e = (await ls()).worktrees.find((w) => w.branch === 'feat/a')!;
  write(join(e.path, 'committed.txt'), 'one\n');
  sh(e.path, ['add', 'committed.txt']);
  sh(e.path, ['commit', '-q', '-m', 'a commit']);
  const r = await d.json<{ files: Array<{ path: string; status: string }>; commits: number; patch: string }>(['worktree', 'diff', 'api-feat-a']);
  const by = Object.fromEntries(r.files.map((f) => [f.path, f.status]));
  assert.equal(by, { 'committed.txt': 'A', 'fresh.txt': 'U', 'keep.txt': 'M' });
  assert.is(r.commits, 1);
  assert.match(r.patch, /\+changed/);
  assert.is(status(e.path).trim().split('\n').length, 2, 'the diff changed nothing in the worktree');
  // local:SESSION names this machine: the dispatcher strips it, the verb never parses it.
  const here = await d.json<{ files: Array<{ path: string; status: string }>; commits: number }>(['worktree', 'diff', 'local:api-feat-a']);
  assert.equal([here.files, here.commits], [r.files, r.commits]);
  // A host this machine has no link to is refused before anything runs.
  const far = await d.cli(['worktree', 'diff', 'nowhere:api-feat-a']);
  assert.is(far.code, 1);
  assert.match(far.stderr, /\((host_not_found|unsupported)\)/);
});

test('worktree rm refuses uncommitted work, and --force removes the session and the worktree', async () => {
  const e = (await ls()).worktrees.find((w) => w.branch === 'feat/a')!;
  const refused = await d.cli(['worktree', 'rm', 'api-feat-a']);
  assert.is(refused.code, 1);
  assert.match(refused.stderr, /uncommitted work.*\(dirty_worktree\)/);
  assert.ok(existsSync(e.path), 'still there');
  await d.ok(['worktree', 'rm', 'api-feat-a', '--force']);
  assert.not.ok(existsSync(e.path));
  assert.is((await ls()).worktrees.length, 0);
  const ss = await d.call<{ sessions: Array<{ name: string }> }>('list-sessions');
  assert.not.ok(ss.sessions.some((s) => s.name === 'api-feat-a'));
  assert.ok(sh(repo, ['branch', '--list', 'feat/a']).includes('feat/a'), 'a branch with a commit is kept');
  assert.not.match(sh(repo, ['worktree', 'list']), /feat-a/);
});

test('a clean worktree is removed without --force, its empty branch with it', async () => {
  await d.ok(['worktree', 'new', 'feat/empty'], { cwd: repo });
  const r = await d.json<{ removed: { branch_deleted: boolean } }>(['worktree', 'rm', 'api-feat-empty']);
  assert.ok(r.removed.branch_deleted);
  assert.is(sh(repo, ['branch', '--list', 'feat/empty']).trim(), '');
});

test('start-agent types its prompt only once the stand-in is ready, through the acknowledged path', async () => {
  const r0 = await d.ok(['worktree', 'new', 'feat/agent', '--json'], { cwd: repo });
  const wt = JSON.parse(r0) as { path: string; session: string };
  const pending = d.cli(['start-agent', 'standin', '--name', 'helper', '--prompt', 'write the retry loop', '-s', wt.session, '--json']);
  const win = await waitFor(async () => {
    const ws = await d.call<{ windows: Array<{ id: string; name: string; foreground: { comm: string } | null }> }>('list-windows', { session: wt.session });
    return ws.windows.find((w) => w.name === 'helper' && w.foreground?.comm === 'standin');
  }, { what: 'the stand-in running' });
  const info = await d.call<{ state: string; prompt_status?: string }>('get-agent-state', { window: win.id });
  assert.is(info.prompt_status, 'waiting');
  assert.not.ok(existsSync(join(wt.path, 'prompt-1.txt')), 'nothing typed before it is ready');
  await d.ok(['set-agent-state', '-w', win.id, 'idle']);
  const res = await pending;
  assert.is(res.code, 0, res.stderr);
  const out = JSON.parse(res.stdout) as { prompt_status: string; window_id: string; harness: string };
  assert.is(out.window_id, win.id);
  assert.is(out.harness, 'standin');
  assert.is(out.prompt_status, 'taken');
  const file = await waitFor(() => (existsSync(join(wt.path, 'prompt-1.txt')) ? readFileSync(join(wt.path, 'prompt-1.txt'), 'utf8') : null), { what: 'the prompt file' });
  assert.is(file, 'write the retry loop\n');
  assert.not.ok(existsSync(join(wt.path, 'prompt-2.txt')), 'typed once');
});

test('start-agent answers prompt_status stalled when the pane never takes the prompt', async () => {
  const pending = d.cli(['start-agent', 'sleepy', '--name', 'sleeper', '--prompt', 'anyone there', '--json'], { cwd: repo });
  const win = await waitFor(async () => {
    const ws = await d.call<{ windows: Array<{ id: string; name: string; foreground: { comm: string } | null }> }>('list-windows');
    return ws.windows.find((w) => w.name === 'sleeper' && w.foreground?.comm === 'sleep');
  }, { what: 'the sleeper running' });
  await d.ok(['set-agent-state', '-w', win.id, 'idle']);
  const res = await pending;
  assert.is(res.code, 0, res.stderr);
  const out = JSON.parse(res.stdout) as { prompt_status: string; session: string };
  assert.is(out.prompt_status, 'stalled');
  assert.is(out.session, 'api-feat-agent', 'beside the caller: the most recent session');
});

test('an agent not ready on a screen no rule reads becomes an Inbox question, gone once it is ready', async () => {
  const pending = d.cli(['start-agent', 'standin', '--name', 'stuck', '--prompt', 'after the question', '--json'], { cwd: repo });
  const win = await waitFor(async () => {
    const ws = await d.call<{ windows: Array<{ id: string; name: string; foreground: { comm: string } | null }> }>('list-windows');
    return ws.windows.find((w) => w.name === 'stuck' && w.foreground?.comm === 'standin');
  }, { what: 'the stand-in running' });
  // Present, quiet, and nothing reads its screen: unknown, which is never ready.
  await d.ok(['set-agent-state', '-w', win.id, 'unknown']);
  type Item = { id: number; kind: string; window_id: string | null; summary: string };
  const question = () => d.call<{ items: Item[] }>('list-attention').then((r) => r.items.find((i) => i.window_id === win.id && i.kind === 'question'));
  const item = await waitFor(question, { what: 'the first-run question' });
  assert.match(item.summary, /screen tuios does not recognise \(unknown\); its first prompt is not typed yet/);
  await d.ok(['set-agent-state', '-w', win.id, 'idle']);
  const res = await pending;
  assert.is(res.code, 0, res.stderr);
  assert.is((JSON.parse(res.stdout) as { prompt_status: string }).prompt_status, 'taken');
  await waitFor(async () => !(await question()), { what: 'the question to close' });
});

test('worktree pull brings commits, hashes and uncommitted work into a new worktree of another clone', async () => {
  const clone = join(root, 'api-clone');
  sh(root, ['clone', '-q', repo, clone]);
  identity(clone);
  const made = JSON.parse(await d.ok(['worktree', 'new', 'feat/pull', '--json'], { cwd: repo })) as { path: string; session: string };
  makeMessyWork(made.path);
  const indexPath = sh(made.path, ['rev-parse', '--path-format=absolute', '--git-path', 'index']).trim();
  const index0 = sha256File(indexPath);
  const status0 = status(made.path);
  const r = await d.json<{ session: string; path: string; branch: string; head: string }>(['worktree', 'pull', made.session, '--repo', clone]);
  assert.is(r.branch, 'feat/pull');
  assert.equal(log(r.path), log(made.path));
  assert.is(status(r.path), status0);
  assert.is(sha256File(indexPath), index0, 'the source index is unchanged');
  assert.is(status(made.path), status0);
  assert.ok(sh(clone, ['worktree', 'list']).includes(r.path));
  const e = (await ls()).worktrees.find((w) => w.session === r.session)!;
  assert.ok(e, 'the pulled worktree has a session and is listed');
  assert.is(e.repo, 'api-clone');
  assert.is(e.dirty, 4);
});

test('--host and HOST:SESSION naming no linked host are refused before anything is made', async () => {
  const before = (await ls()).worktrees.length;
  for (const args of [
    ['worktree', 'new', 'feat/remote', '--host', 'box'],
    ['worktree', 'pull', 'box:api-feat-pull', '--repo', repo],
    ['start-agent', 'standin', '-s', 'box:work'],
    ['fan', '2', '--agent', 'standin', 'remote work', '--host', 'box'],
  ]) {
    const r = await d.cli(args, { cwd: repo });
    assert.is(r.code, 1, args.join(' '));
    assert.match(r.stderr, /box.*\(host_not_found\)/s, args.join(' ') + '\n' + r.stderr);
  }
  assert.is((await ls()).worktrees.length, before);
  assert.is(sh(repo, ['branch', '--list', 'feat/remote']).trim(), '');
});

test('outside a repository: not_repo with a hint', async () => {
  const r = await d.cli(['worktree', 'new', 'feat/x'], { cwd: root });
  assert.is(r.code, 1);
  assert.match(r.stderr, /not inside a git repository.*\(not_repo\)/s);
});

test.run();
