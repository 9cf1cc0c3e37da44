// Shipping a worktree with a real daemon and real git: a commit made as you (your hooks run; a
// refusing hook leaves the index as it was), a merge into the base in the main checkout (refused
// on a dirty checkout, undone on a conflict), a push to a bare repository only with the token of
// what it sends, a pull request through gh (a stand-in gh on PATH; gh_unavailable when it is not
// logged in, before anything is pushed), and a daemon killed mid-commit: the next start ends the
// git it left, puts the index back and says what it found.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TestDaemon, BIN } from '../helpers/daemon.js';
import type { RpcClient } from '../../core/rpc/client.js';
import { commit, makeRepo, removeDir, sh, status, tempDir, write } from '../helpers/worktree-repos.js';
import { refusal } from '../helpers/refusal.js';
import { waitFor } from '../helpers/wait.js';
import { Terminal } from '../helpers/terminal.js';

let d: TestDaemon;
let root: string;
let repo: string;
let bare: string;
let ghDir: string;

interface Made {
  session: string;
  path: string;
  window_id: string;
}

async function worktree(branch: string): Promise<Made> {
  return d.json<Made>(['worktree', 'new', branch, '--repo', repo]);
}

// A stand-in gh: logged in when $GH_STATE/logged-in exists; pr create writes pr.json, pr view prints it.
const FAKE_GH = `#!/bin/sh
st="$GH_STATE"
case "$1 $2" in
  "auth status") [ -f "$st/logged-in" ] && exit 0; echo "not logged in" >&2; exit 1 ;;
  "pr view") [ -f "$st/pr.json" ] && { cat "$st/pr.json"; exit 0; }; echo "no pull requests found for branch" >&2; exit 1 ;;
  "pr create") echo "$@" > "$st/create-args"; printf '{"number":12,"url":"https://example.invalid/pr/12","state":"OPEN","title":"t","statusCheckRollup":[{"status":"IN_PROGRESS","conclusion":""}]}' > "$st/pr.json"; echo https://example.invalid/pr/12; exit 0 ;;
esac
echo "unexpected: $*" >&2; exit 2
`;

test.before(async () => {
  root = tempDir('tuios-ship-e2e-');
  repo = makeRepo(join(root, 'api'));
  bare = join(root, 'remote.git');
  sh(root, ['init', '-q', '--bare', bare]);
  sh(repo, ['remote', 'add', 'origin', bare]);
  sh(repo, ['push', '-q', 'origin', 'main']);
  ghDir = join(root, 'gh');
  mkdirSync(join(ghDir, 'bin'), { recursive: true });
  mkdirSync(join(ghDir, 'state'), { recursive: true });
  writeFileSync(join(ghDir, 'bin', 'gh'), FAKE_GH);
  chmodSync(join(ghDir, 'bin', 'gh'), 0o755);
  // The poller reads open pull requests every 300 ms here, where it waits a minute by default.
  d = await TestDaemon.start({ env: { PATH: `${join(ghDir, 'bin')}:${process.env.PATH ?? '/usr/bin:/bin'}`, GH_STATE: join(ghDir, 'state'), TUIOS_PR_POLL_MS: '300' } });
});

test.after(async () => {
  await d.stop();
  removeDir(root);
});

test('ship commit: everything the worktree holds, as you (your hook runs); refused while the agent works unless --force', async () => {
  const w = await worktree('feat/commit');
  write(join(w.path, 'mod.txt'), 'changed\n');
  write(join(w.path, 'new.txt'), 'untracked\n');
  await d.ok(['set-agent-state', '-w', w.window_id, 'working', '--harness', 'test-agent']);
  const e = await refusal(d.call('ship-commit', { session: w.session, message: 'x' }));
  assert.is(e.code, 'not_ready');
  // Your hooks make the commit: a hook the repository has runs for you.
  writeFileSync(join(repo, '.git', 'hooks', 'post-commit'), `#!/bin/sh\ntouch "${join(root, 'hook-ran')}"\n`);
  chmodSync(join(repo, '.git', 'hooks', 'post-commit'), 0o755);
  const r = await d.json<{ commit: string; files: number; branch: string }>(['ship', 'commit', '-s', w.session, '-m', 'Add the thing', '--force']);
  rmSync(join(repo, '.git', 'hooks', 'post-commit'));
  assert.is(r.branch, 'feat/commit');
  assert.is(r.files, 2);
  assert.is(sh(w.path, ['log', '-1', '--format=%s|%an']).trim(), 'Add the thing|Test Person');
  assert.is(status(w.path), '', 'nothing left uncommitted');
  assert.ok(existsSync(join(root, 'hook-ran')), 'your post-commit hook ran');
  const none = await refusal(d.call('ship-commit', { session: w.session, message: 'again', force: true }));
  assert.is(none.code, 'conflict');
});

test('ship commit: a hook that refuses leaves the index as it was', async () => {
  const w = await worktree('feat/hook');
  write(join(w.path, 'mod.txt'), 'changed, not staged\n');
  write(join(w.path, 'staged.txt'), 'staged\n');
  sh(w.path, ['add', 'staged.txt']);
  write(join(w.path, 'new.txt'), 'untracked\n');
  const before = status(w.path);
  writeFileSync(join(repo, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\necho "no commits today" >&2\nexit 1\n');
  chmodSync(join(repo, '.git', 'hooks', 'pre-commit'), 0o755);
  try {
    const e = await refusal(d.call('ship-commit', { session: w.session, message: 'refused' }));
    assert.is(e.code, 'git_failed');
    assert.match(e.message, /no commits today/);
  } finally {
    rmSync(join(repo, '.git', 'hooks', 'pre-commit'));
  }
  assert.is(status(w.path), before, 'the index is as it was: staged stays staged, the rest unstaged');
});

test('ship merge: refused on a dirty worktree and a dirty main checkout; a conflict is undone; then a clean merge', async () => {
  const w = await worktree('feat/merge');
  write(join(w.path, 'keep.txt'), 'from the branch\n');
  let e = await refusal(d.call('ship-merge', { session: w.session }));
  assert.is(e.code, 'dirty_worktree');
  await d.call('ship-commit', { session: w.session, message: 'branch edit' });
  // The main checkout has a tracked change: checkout_dirty.
  write(join(repo, 'mod.txt'), 'uncommitted in main\n');
  e = await refusal(d.call('ship-merge', { session: w.session }));
  assert.is(e.code, 'checkout_dirty');
  sh(repo, ['checkout', '--', 'mod.txt']);
  // main changes the same line: a conflict, undone.
  const mainHead = commit(repo, 'keep.txt', 'from main\n', 'main edit');
  e = await refusal(d.call('ship-merge', { session: w.session }));
  assert.is(e.code, 'merge_conflict');
  assert.equal(e.files, ['keep.txt']);
  assert.is(sh(repo, ['rev-parse', 'HEAD']).trim(), mainHead);
  assert.is(status(repo), '', 'the main checkout is as it was');
  assert.not.ok(existsSync(join(repo, '.git', 'MERGE_HEAD')));
  // A branch that does not conflict merges.
  const w2 = await worktree('feat/merge-ok');
  write(join(w2.path, 'other.txt'), 'new file\n');
  await d.call('ship-commit', { session: w2.session, message: 'other file' });
  const r = await d.json<{ into: string; fast_forward: boolean; commit: string }>(['ship', 'merge', '-s', w2.session, '--ff-only']);
  assert.is(r.into, 'main');
  assert.ok(r.fast_forward);
  assert.is(readFileSync(join(repo, 'other.txt'), 'utf8'), 'new file\n');
});

test('ship push: confirm_required with what it would send, then only with that token; never forced', async () => {
  const w = await worktree('feat/push');
  write(join(w.path, 'pushed.txt'), 'pushed\n');
  const c = await d.call<{ commit: string }>('ship-commit', { session: w.session, message: 'to push' });
  const e = await refusal(d.call('ship-push', { session: w.session }));
  assert.is(e.code, 'confirm_required');
  const what = e.would_send as { branch: string; commit: string; remote: string; commits: number };
  assert.is(what.branch, 'feat/push');
  assert.is(what.commit, c.commit);
  assert.is(what.remote, 'origin');
  assert.is(what.commits, Number(sh(w.path, ['rev-list', '--count', c.commit, '--not', '--remotes=origin']).trim()));
  assert.ok(what.commits >= 1);
  // A wrong token is refused the same way: nothing is sent.
  const wrong = await refusal(d.call('ship-push', { session: w.session, confirm: 'deadbeefdeadbeef' }));
  assert.is(wrong.code, 'confirm_required');
  assert.is(sh(bare, ['branch', '--list', 'feat/push']).trim(), '');
  // The CLI takes --yes.
  await d.ok(['ship', 'push', '-s', w.session, '--yes']);
  assert.is(sh(bare, ['rev-parse', 'refs/heads/feat/push']).trim(), c.commit);
});

test('ship pr: gh_unavailable before anything is pushed when gh is not logged in; then push, gh pr create, and ship status', async () => {
  const w = await worktree('feat/pr');
  write(join(w.path, 'pr.txt'), 'for review\n');
  await d.call('ship-commit', { session: w.session, message: 'Open a pull request' });
  const e = await refusal(d.call('ship-pr', { session: w.session }));
  assert.is(e.code, 'gh_unavailable');
  assert.is(sh(bare, ['branch', '--list', 'feat/pr']).trim(), '', 'nothing was pushed');
  writeFileSync(join(ghDir, 'state', 'logged-in'), '');
  const r = await d.json<{ pr: { number: number; state: string; checks: string }; created: boolean }>(['ship', 'pr', '-s', w.session, '--draft', '--yes']);
  assert.is(r.pr.number, 12);
  assert.is(r.pr.state, 'open');
  assert.is(r.pr.checks, 'pending');
  assert.ok(r.created);
  assert.match(readFileSync(join(ghDir, 'state', 'create-args'), 'utf8'), /--head feat\/pr --base main --title Open a pull request .*--draft/);
  assert.ok(sh(bare, ['rev-parse', 'refs/heads/feat/pr']).trim());
  const st = await d.json<{ pr: { number: number } | null }>(['ship', 'status', '-s', w.session]);
  assert.is(st.pr?.number, 12);
  // worktree ls carries it as pr, and its table shows the rail's token.
  const ls = await d.json<{ worktrees: Array<{ session: string; pr: { number: number; state: string; checks: string } | null }> }>(['worktree', 'ls']);
  assert.equal(ls.worktrees.find((x) => x.session === w.session)!.pr, { number: 12, url: 'https://example.invalid/pr/12', state: 'open', checks: 'pending' });
  assert.match(await d.ok(['worktree', 'ls']), new RegExp(`${w.session}.*PR #12 open pending`));
  // The rail's agent rows of that session show the token.
  await d.ok(['set-agent-state', '-w', w.window_id, 'idle', '--harness', 'test-agent']);
  const t = new Terminal(d.env, `${process.execPath} ${BIN} attach -s ${w.session}`);
  try {
    await t.wait(/PR #12 open pending/, 'the pr token on the rail', 60_000);
  } finally {
    t.kill();
  }
  // While a client is attached, the open pull request is read again: its checks pass, then it merges.
  const t2 = new Terminal(d.env, `${process.execPath} ${BIN} attach -s ${w.session}`);
  try {
    const pr = (state: string, conclusion: string) => writeFileSync(join(ghDir, 'state', 'pr.json'), `{"number":12,"url":"https://example.invalid/pr/12","state":"${state}","title":"t","statusCheckRollup":[{"status":"COMPLETED","conclusion":"${conclusion}"}]}`);
    const prNow = async () => (await d.json<{ worktrees: Array<{ session: string; pr: { state: string; checks: string } | null }> }>(['worktree', 'ls'])).worktrees.find((x) => x.session === w.session)!.pr;
    pr('OPEN', 'SUCCESS');
    await waitFor(async () => (await prNow())?.checks === 'pass', { what: 'the poller to read the passing checks', timeout: 30_000 });
    await t2.wait(/PR #12 open pass/, 'the rail\'s token', 60_000);
    pr('MERGED', 'SUCCESS');
    await waitFor(async () => (await prNow())?.state === 'merged', { what: 'the poller to read the merge', timeout: 30_000 });
  } finally {
    t2.kill();
  }
  rmSync(join(ghDir, 'state', 'pr.json'));
});

test('ship-progress events name each step as it starts, with the caller\'s progress_id', async () => {
  const w = await worktree('feat/progress');
  write(join(w.path, 'p.txt'), 'progress\n');
  const c = await d.client();
  const steps: string[] = [];
  await c.stream('subscribe', { types: ['ship-progress'] }, (ev) => {
    const e = ev as { ship_id?: string; step?: string; op?: string };
    if (e.ship_id === 'p1') steps.push(`${e.op}:${e.step}`);
  });
  await d.call('ship-commit', { session: w.session, message: 'with progress', progress_id: 'p1' });
  await waitFor(() => steps.length >= 2, { what: 'the progress events' });
  assert.equal(steps, ['commit:stage', 'commit:commit']);
  c.close();
});

let mark = 0;
async function inPane(w: string, cmd: string): Promise<string> {
  const m = `END${++mark}`;
  await d.call('send-text', { window: w, text: `clear; ${cmd} 2>&1; echo "${m.slice(0, 2)}""${m.slice(2)}" rc=$?\n` });
  return d.waitScreen(w, new RegExp(`${m} rc=\\d+`), 90_000);
}

test('a push from inside a pane also needs your allow in the Inbox: it waits, then pushes; unanswered it is not_ready with request_id', async () => {
  const w = await worktree('feat/pane-push');
  write(join(w.path, 'pp.txt'), 'from a pane\n');
  const made = await d.call<{ commit: string }>('ship-commit', { session: w.session, message: 'pane push' });
  const pane = (await d.call<{ id: string }>('new-window', { session: w.session, name: 'pusher', argv: ['sh'], cols: 200, rows: 50 })).id;
  const person: RpcClient = await d.client();
  const att = await person.stream<{ nonce: string | null }>('attach', { mode: 'control' }, () => {});
  const nonce = att.nonce ?? '';
  assert.ok(nonce);
  type Item = { id: number; kind: string; summary: string; ref: Record<string, number> };
  const asks = async () => (await d.call<{ items: Item[] }>('list-attention')).items.filter((i) => i.kind === 'ask');
  // Unanswered within its wait: not_ready, and the question stays.
  let out = await inPane(pane, `${process.execPath} ${BIN} ship push -w ${w.window_id} --yes --wait-ms 1500 --json`);
  assert.match(out, /not_ready/);
  const q = (await asks()).find((i) => /^Push feat\/pane-push \([0-9a-f]{7}\) to origin\?$/.test(i.summary));
  assert.ok(q, 'the question is in the Inbox');
  assert.is(sh(bare, ['branch', '--list', 'feat/pane-push']).trim(), '', 'nothing pushed yet');
  // Asked again with request_id: it waits on the same question, and no second one is asked.
  out = await inPane(pane, `${process.execPath} ${BIN} ship push -w ${w.window_id} --yes --request-id ${q!.ref.ask_id} --wait-ms 1500 --json`);
  assert.match(out, /not_ready/);
  assert.match(out.replace(/\s+/g, ' '), new RegExp(`--request-id ${q!.ref.ask_id}\\b`));
  assert.is((await asks()).length, 1);
  // A new call asks anew (the pane's question is superseded); the person allows it: pushed.
  const call = inPane(pane, `${process.execPath} ${BIN} ship push -w ${w.window_id} --yes --json`);
  const q2 = await waitFor(async () => (await asks()).find((i) => i.ref.ask_id !== q!.ref.ask_id && /^Push feat\/pane-push/.test(i.summary)), { what: 'the new question', timeout: 30_000 });
  await person.call('answer-ask', { id: q2.ref.ask_id, answer: 'allow', nonce });
  out = await call;
  assert.match(out, /rc=0/);
  assert.is(sh(bare, ['rev-parse', 'refs/heads/feat/pane-push']).trim(), made.commit);
  person.close();
});

test('a daemon killed mid-commit leaves no half state: the next start ends the git it left, puts the index back and says what it found', async () => {
  const w = await worktree('feat/crash');
  write(join(w.path, 'mod.txt'), 'changed, not staged\n');
  write(join(w.path, 'new.txt'), 'untracked\n');
  const before = status(w.path);
  const marker = join(root, 'hook-started');
  writeFileSync(join(repo, '.git', 'hooks', 'pre-commit'), `#!/bin/sh\ntouch "${marker}"\nsleep 60\n`);
  chmodSync(join(repo, '.git', 'hooks', 'pre-commit'), 0o755);
  const call = d.cli(['ship', 'commit', '-s', w.session, '-m', 'never made'], { timeoutMs: 90_000 });
  await waitFor(() => existsSync(marker), { timeout: 30_000, what: 'the pre-commit hook to start' });
  const journal = join(d.dir, 'state', 'tuios', 'ship', 'journal.json');
  assert.ok(existsSync(journal), 'the journal is on disk while the step runs');
  d.kill9();
  await d.waitExit();
  await call;
  rmSync(join(repo, '.git', 'hooks', 'pre-commit'));
  // Mid-step: everything was staged for the commit.
  assert.is.not(status(w.path), before);
  await d.spawn();
  assert.not.ok(existsSync(journal), 'the journal is gone after the start read it');
  assert.is(status(w.path), before, 'the index is as it was before the commit started');
  assert.not.ok(existsSync(join(sh(w.path, ['rev-parse', '--path-format=absolute', '--git-dir']).trim(), 'index.lock')));
  const log = readFileSync(join(d.dir, 'state', 'tuios', 'daemon.log'), 'utf8');
  assert.match(log, /ship journal found at start/);
  assert.match(log, /the commit was not made; the index is as it was before/);
});

test('a daemon killed mid-merge: the next start undoes the half merge with git reset --merge, and the main checkout is as it was', async () => {
  // main moves on, so the merge is a real merge commit and its pre-merge-commit hook runs.
  const w = await worktree('feat/crash-merge');
  write(join(w.path, 'merge-me.txt'), 'branch side\n');
  await d.call('ship-commit', { session: w.session, message: 'branch side' });
  const mainHead = commit(repo, 'main-only.txt', 'main side\n', 'main moves on');
  const marker = join(root, 'merge-hook-started');
  writeFileSync(join(repo, '.git', 'hooks', 'pre-merge-commit'), `#!/bin/sh\ntouch "${marker}"\nsleep 60\n`);
  chmodSync(join(repo, '.git', 'hooks', 'pre-merge-commit'), 0o755);
  const call = d.cli(['ship', 'merge', '-s', w.session], { timeoutMs: 90_000 });
  await waitFor(() => existsSync(marker), { timeout: 30_000, what: 'the pre-merge-commit hook to start' });
  assert.ok(existsSync(join(repo, 'merge-me.txt')), 'the merge is half done: its files are in the main checkout');
  d.kill9();
  await d.waitExit();
  await call;
  rmSync(join(repo, '.git', 'hooks', 'pre-merge-commit'));
  await d.spawn();
  assert.not.ok(existsSync(join(repo, '.git', 'MERGE_HEAD')));
  assert.is(sh(repo, ['rev-parse', 'HEAD']).trim(), mainHead);
  assert.is(status(repo), '', 'the main checkout is as it was');
  assert.not.ok(existsSync(join(repo, 'merge-me.txt')));
  const log = readFileSync(join(d.dir, 'state', 'tuios', 'daemon.log'), 'utf8');
  assert.match(log, /a merge was left half done; it was undone with git reset --merge/);
});

test.run();
