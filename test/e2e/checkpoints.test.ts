// Turn checkpoints with a real daemon and real git: a pane in a repository reports working, then
// done, through set-agent-state as a harness's hook would; files change between turns. A
// checkpoint appears at each turn end that changed a file, and only then; the CLI lists, diffs
// and restores them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { TestDaemon, BIN } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { makeRepo, removeDir, sh, tempDir, write } from '../helpers/worktree-repos.js';

let d: TestDaemon;
let root: string;
let repo: string;

interface Row {
  n: number;
  kind: string;
  turn: number | null;
  state: string;
  label: string;
}

async function list(w = 'agent'): Promise<Row[]> {
  return (await d.json<{ checkpoints: Row[] }>(['checkpoint', 'list', '-w', w])).checkpoints;
}

/** The list once it has `k` rows. */
async function rows(k: number): Promise<Row[]> {
  let got: Row[] = [];
  await waitFor(async () => (got = await list()).length === k, { what: `${k} checkpoints` });
  return got;
}

async function turn(state: 'done' | 'idle' | 'needs_input', message?: string): Promise<void> {
  await d.ok(['set-agent-state', '-w', 'agent', 'working', '--harness', 'test-agent']);
  await d.ok(['set-agent-state', '-w', 'agent', state, '--harness', 'test-agent', ...(message ? ['-m', message] : [])]);
}

test.before(async () => {
  root = tempDir('tuios-cp-e2e-');
  repo = makeRepo(join(root, 'api'));
  d = await TestDaemon.start();
  await d.ok(['new-session', 'work', '-n', 'agent', '-c', repo, 'sh', '-c', 'echo ready to work; sleep 600']);
  await d.waitScreen('agent', /ready to work/);
  await d.ok(['new-session', 'elsewhere', '-n', 'plain', '-c', root, 'sleep', '600']);
});

test.after(async () => {
  await d.stop();
  removeDir(root);
});

test('a checkpoint at each turn end that changed a file, and only then', async () => {
  const head = sh(repo, ['rev-parse', 'HEAD']).trim();
  // Work in progress is not a checkpoint: only the end of the turn is.
  await d.ok(['set-agent-state', '-w', 'agent', 'working', '--harness', 'test-agent']);
  write(join(repo, 'mod.txt'), 'turn 1\n');
  write(join(repo, 'new/one.txt'), 'untracked, turn 1\n');
  assert.equal(await list(), []);
  await d.ok(['set-agent-state', '-w', 'agent', 'done', '--harness', 'test-agent', '-m', 'first turn']);
  const one = await rows(1);
  assert.is(one[0]!.n, 1);
  assert.is(one[0]!.state, 'done');
  assert.is(one[0]!.label, 'first turn');
  assert.is(sh(repo, ['show', `refs/tuios/checkpoints/${await windowId()}/1:new/one.txt`]), 'untracked, turn 1\n');
  assert.is(sh(repo, ['rev-parse', 'HEAD']).trim(), head);
  assert.is(sh(repo, ['stash', 'list']), '');

  // A turn that changed nothing: no checkpoint.
  await turn('idle');
  // The list waits behind the turn's look (one checkpoint operation at a time): still one.
  assert.is((await list()).length, 1);
  write(join(repo, 'mod.txt'), 'turn 3\n');
  rmSync(join(repo, 'keep.txt'));
  await turn('needs_input', 'asks about turn 3');
  const three = await rows(2);
  assert.equal(three.map((c) => c.n), [2, 1]);
  assert.is(three[0]!.state, 'needs_input');

  // The CLI's diff: what the turn changed, against the checkpoint before it.
  const diff = await d.json<{ n: number; from_n: number | null; files: Array<{ path: string; status: string }>; patch: string }>(['checkpoint', 'diff', '-w', 'agent', '2']);
  assert.is(diff.from_n, 1);
  assert.equal(diff.files.map((f) => `${f.status} ${f.path}`).sort(), ['D keep.txt', 'M mod.txt']);
  assert.match(diff.patch, /-turn 1\n\+turn 3/);
  const printed = await d.ok(['checkpoint', 'diff', '-w', 'agent', '1', '--stat']);
  assert.match(printed, /checkpoint 1 against HEAD then: 2 files/);
  const table = await d.ok(['checkpoint', 'list', '-w', 'agent']);
  assert.match(table, /N\s+TIME\s+KIND/);
  assert.match(table, /asks about turn 3/);
});

async function windowId(): Promise<string> {
  const ws = await d.call<{ windows: Array<{ id: string; name: string }> }>('list-windows', { session: 'work' });
  return ws.windows.find((w) => w.name === 'agent')!.id;
}

test('restore through the CLI brings back turn 1 exactly, after a safety checkpoint; refused while working unless --force', async () => {
  const indexBefore = readFileSync(join(repo, '.git/index'));
  await d.ok(['set-agent-state', '-w', 'agent', 'working', '--harness', 'test-agent']);
  const refused = await d.cli(['checkpoint', 'restore', '-w', 'agent', '1', '--json']);
  assert.is.not(refused.code, 0);
  assert.match(refused.stdout + refused.stderr, /conflict|working/);
  write(join(repo, 'person.txt'), 'the person adds this\n');
  const r = await d.json<{ restored: { n: number }; safety: { n: number; kind: string }; removed: string[]; written: string[] }>(['checkpoint', 'restore', '-w', 'agent', '1', '--force']);
  assert.is(r.restored.n, 1);
  assert.is(r.safety.n, 3);
  assert.is(r.safety.kind, 'safety');
  assert.is(readFileSync(join(repo, 'mod.txt'), 'utf8'), 'turn 1\n');
  assert.ok(existsSync(join(repo, 'keep.txt')));
  assert.not.ok(existsSync(join(repo, 'person.txt')));
  assert.is(readFileSync(join(repo, 'new/one.txt'), 'utf8'), 'untracked, turn 1\n');
  assert.ok(readFileSync(join(repo, '.git/index')).equals(indexBefore), 'the index is not touched');
  const id = await windowId();
  for (const f of ['mod.txt', 'keep.txt', 'new/one.txt']) {
    assert.is(sh(repo, ['rev-parse', `refs/tuios/checkpoints/${id}/1:${f}`]).trim(), sh(repo, ['hash-object', f]).trim(), f);
  }
  // The safety checkpoint undoes it.
  const undo = await d.ok(['checkpoint', 'restore', '-w', 'agent', '3', '--force']);
  assert.match(undo, /restored checkpoint 3/);
  assert.is(readFileSync(join(repo, 'person.txt'), 'utf8'), 'the person adds this\n');
  await d.ok(['set-agent-state', '-w', 'agent', 'idle', '--harness', 'test-agent']);
});

test('a pane outside a git work tree has none; an unknown checkpoint is not_found', async () => {
  await d.ok(['set-agent-state', '-w', 'plain', 'working', '--harness', 'test-agent']);
  await d.ok(['set-agent-state', '-w', 'plain', 'done', '--harness', 'test-agent']);
  assert.equal((await d.json<{ checkpoints: Row[] }>(['checkpoint', 'list', '-w', 'plain'])).checkpoints, []);
  const r = await d.cli(['checkpoint', 'diff', '-w', 'agent', '99', '--json']);
  assert.is.not(r.code, 0);
  assert.match(r.stdout + r.stderr, /not_found/);
});

const TUIOS = `${process.execPath} ${BIN}`;
let mark = 0;

/** Runs a tuios command in pane `w` and returns what it printed and its exit code. */
async function inPane(w: string, args: string): Promise<{ out: string; rc: number }> {
  const m = `DONE${++mark}`;
  await d.call('send-text', { window: w, text: `clear; ${TUIOS} ${args} 2>&1; echo "${m.slice(0, 2)}""${m.slice(2)}" rc=$?\n` });
  const screen = await d.waitScreen(w, new RegExp(`${m} rc=\\d+`), 30_000);
  const rc = Number(new RegExp(`${m} rc=(\\d+)`).exec(screen)![1]);
  return { out: screen.slice(0, screen.lastIndexOf(`${m} rc=`)).replace(/\s+/g, ''), rc };
}

test('grants: from a pane, list needs read and restore needs write, and a pane restores only a pane holding no grant it lacks', async () => {
  const reader = (await d.call<{ id: string }>('new-window', { session: 'work', name: 'reader', argv: ['sh'], cwd: root, grants: ['read'], cols: 200, rows: 50 })).id;
  const writer = (await d.call<{ id: string }>('new-window', { session: 'work', name: 'writer', argv: ['sh'], cwd: root, grants: ['read', 'write'], cols: 200, rows: 50 })).id;
  let r = await inPane(reader, 'checkpoint list -w agent');
  assert.is(r.rc, 0, r.out);
  assert.match(r.out, /NTIMEKINDTURNSTATELABEL/);
  r = await inPane(reader, 'checkpoint restore -w agent 1 --force');
  assert.is.not(r.rc, 0);
  assert.match(r.out, /forbidden|write/);
  // The agent's pane holds admin (the open default); this pane does not.
  r = await inPane(writer, 'checkpoint restore -w agent 1 --force');
  assert.is.not(r.rc, 0);
  assert.match(r.out, /holdsadmin/);
  assert.is(readFileSync(join(repo, 'person.txt'), 'utf8'), 'the person adds this\n', 'nothing was restored');
});

test('a turn that ends with no message is labelled with the last line the pane shows', async () => {
  write(join(repo, 'mod.txt'), 'a quiet turn\n');
  const before = (await list()).length;
  await turn('done');
  const now = await rows(before + 1);
  assert.is(now[0]!.label, 'ready to work');
  assert.is(now[0]!.kind, 'turn');
});

test('worktree rm takes its panes\' checkpoints with it (their refs live in the shared repository)', async () => {
  const made = JSON.parse(await d.ok(['worktree', 'new', 'feat/cp', '--json'], { cwd: repo })) as { session: string; window_id: string; path: string };
  await d.ok(['set-agent-state', '-w', made.window_id, 'working', '--harness', 'test-agent']);
  write(join(made.path, 'wt.txt'), 'made in the worktree\n');
  await d.ok(['set-agent-state', '-w', made.window_id, 'done', '--harness', 'test-agent']);
  const refs = () => sh(repo, ['for-each-ref', '--format=%(refname)', `refs/tuios/checkpoints/${made.window_id}/`]).trim();
  await waitFor(() => refs() !== '', { what: 'the worktree pane\'s checkpoint' });
  await d.ok(['worktree', 'rm', made.session, '--force']);
  assert.is(refs(), '', 'no checkpoint ref of the removed worktree\'s pane is left');
});

test.run();
