// A daemon killed (kill -9, with the git it ran) while it writes a checkpoint leaves no half state
// (spec: Turn checkpoints, "What does not change"). The write is held open by a clean filter the
// daemon's global git config names (such filters still run, as Git LFS's does): it waits until the
// test lets it go, so the kill lands inside `git add` on the private index every time, however
// loaded the machine. The next start finds the private index and git's lock on it, removes them
// and logs it; the refs hold only whole checkpoints; the work tree and the user's index are as the
// agent left them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TestDaemon } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { makeRepo, removeDir, sh, tempDir, write } from '../helpers/worktree-repos.js';

let d: TestDaemon;
let root: string;
let repo: string;

test.before(async () => {
  root = tempDir('tuios-cp-crash-');
  repo = makeRepo(join(root, 'api'));
  // Hashing a *.slow file runs this filter: it says which process group holds it, then waits.
  writeFileSync(join(root, 'slow.sh'), `ps -o pgid= -p $$ | tr -d ' ' > "${root}/held.tmp" && mv "${root}/held.tmp" "${root}/held"\nwhile [ ! -e "${root}/go" ]; do sleep 0.05; done\ncat\n`);
  write(join(repo, '.gitattributes'), '*.slow filter=slow\n');
  d = await TestDaemon.start({ start: false });
  writeFileSync(join(d.home, '.gitconfig'), `[filter "slow"]\n\tclean = sh ${root}/slow.sh\n\trequired = true\n`);
  await d.spawn();
});

test.after(async () => {
  writeFileSync(join(root, 'go'), '');
  await d.stop();
  removeDir(root);
});

const cacheDir = () => join(d.dir, 'state', 'tuios', 'checkpoints');
const refs = () => sh(repo, ['for-each-ref', '--format=%(refname) %(objectname)', 'refs/tuios/checkpoints/']).trim().split('\n').filter(Boolean);

async function turn(w: string): Promise<void> {
  await d.ok(['set-agent-state', '-w', w, 'working', '--harness', 'test-agent']);
  await d.ok(['set-agent-state', '-w', w, 'done', '--harness', 'test-agent']);
}

async function windowId(session: string): Promise<string> {
  return (await d.call<{ windows: Array<{ id: string }> }>('list-windows', { session })).windows[0]!.id;
}

test('kill -9 while a checkpoint is written: the next start removes the private index and its lock, says so, and only whole checkpoints remain', async () => {
  await d.ok(['new-session', 'work', '-n', 'agent', '-c', repo, 'sleep', '600']);
  const id = await windowId('work');
  write(join(repo, 'mod.txt'), 'turn 1\n');
  await turn('agent');
  await waitFor(() => refs().length === 1, { what: 'checkpoint 1' });
  const whole = refs();

  // Turn 2 writes a file the filter holds: the checkpoint stops inside git add on the private index.
  write(join(repo, 'mod.txt'), 'turn 2\n');
  write(join(repo, 'big.slow'), 'held by the filter\n');
  const userIndex = readFileSync(join(repo, '.git/index'));
  const tree = () => sh(repo, ['status', '--porcelain=v1', '-uall']) + ['mod.txt', 'big.slow', 'keep.txt'].map((f) => readFileSync(join(repo, f), 'utf8')).join('');
  const files = tree();
  await turn('agent');
  const lock = join(cacheDir(), `${id}.index.lock`);
  await waitFor(() => existsSync(join(root, 'held')) && existsSync(lock), { timeout: 30_000, what: 'the checkpoint held inside git add' });
  const pgid = Number(readFileSync(join(root, 'held'), 'utf8'));
  assert.ok(pgid > 1, 'the filter named its process group');
  d.kill9();
  process.kill(-pgid, 'SIGKILL'); // the git it ran dies with it, as in a crash
  await d.waitExit();
  await waitFor(() => {
    try {
      process.kill(-pgid, 0);
      return false;
    } catch {
      return true;
    }
  }, { what: 'the held git to be gone' });

  // The half state is there: the private index and git's lock on it. No ref was half written.
  assert.ok(existsSync(lock), 'git\'s lock on the private index is left');
  assert.ok(existsSync(join(cacheDir(), `${id}.index`)), 'the private index is left');
  assert.equal(refs(), whole);

  writeFileSync(join(root, 'go'), ''); // from here the filter passes the file through
  await d.spawn();
  const log = join(d.dir, 'state', 'tuios', 'daemon.log');
  const line = await waitFor(() => readFileSync(log, 'utf8').split('\n').find((l) => l.includes('checkpoint files left by a stopped daemon removed')), { what: 'the start to log what it found' });
  assert.match(line, new RegExp(`${id}\\.index\\.lock`));
  assert.match(line, new RegExp(`${id}\\.index"`));
  assert.equal(readdirSync(cacheDir()).filter((n) => n.includes(id)), [], 'nothing of the killed checkpoint is left');

  // The refs: only whole checkpoints, each a commit with its tree.
  assert.equal(refs(), whole);
  for (const r of refs()) sh(repo, ['cat-file', '-e', `${r.split(' ')[1]}^{tree}`]);
  // The work tree and the user's index are as the agent left them.
  assert.ok(readFileSync(join(repo, '.git/index')).equals(userIndex), 'the user\'s index is untouched');
  assert.is(tree(), files);
  assert.not.ok(existsSync(join(repo, '.git/index.lock')));

  // A pane of the new daemon in the same repository checkpoints as before, and lists only whole ones.
  await d.ok(['new-session', 'again', '-n', 'agent2', '-c', repo, 'sleep', '600']);
  const id2 = await windowId('again');
  await turn('agent2');
  const list = async () => (await d.json<{ checkpoints: Array<{ n: number }> }>(['checkpoint', 'list', '-w', 'agent2'])).checkpoints;
  await waitFor(async () => (await list()).length === 1, { what: 'the new pane\'s checkpoint' });
  assert.is(sh(repo, ['show', `refs/tuios/checkpoints/${id2}/1:big.slow`]), 'held by the filter\n');
  assert.is(sh(repo, ['show', `refs/tuios/checkpoints/${id2}/1:mod.txt`]), 'turn 2\n');
});

test.run();
