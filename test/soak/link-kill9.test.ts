// issue 26, durability over a link: a `worktree pull` whose peer is killed -9 while it streams.
// The pull ends with a typed error and the receiving repository has no half state (no new branch,
// worktree, spool folder or temporary tree); once the peer is back, the next pull completes with
// the peer's exact state. Real git, two daemons linked over loopback through tuios's SSH server.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { link, startHost, waitHost, type Host } from '../helpers/link.js';
import { waitFor } from '../helpers/wait.js';
import { identity, makeRepo, removeDir, sh, status, tempDir, write } from '../helpers/worktree-repos.js';

/** Enough untracked data that the stream is still going when the peer is killed. */
const FILES = 1500;
const FILE_BYTES = 16 * 1024;

let hub: Host;
let build: Host;
let root: string;
let peerRepo: string;
let hubClone: string;

const worktrees = (repo: string) => sh(repo, ['worktree', 'list', '--porcelain']).split('\n').filter((l) => l.startsWith('worktree ')).sort();
const branches = (repo: string) => sh(repo, ['branch', '--format=%(refname:short)']).trim().split('\n').sort();
/** What a pull leaves in the clone's git folder and beside the clone while it runs. */
const leftovers = (repo: string) => [
  ...readdirSync(join(repo, '.git')).filter((n) => n.startsWith('tuios-pull-')),
  ...readdirSync(dirname(repo)).filter((n) => n.includes('.tmp-')),
];

test.before(async () => {
  root = tempDir('tuios-link-kill9-');
  peerRepo = makeRepo(join(root, 'build', 'api'));
  hubClone = join(root, 'hub', 'api');
  sh(root, ['clone', '-q', peerRepo, hubClone]);
  identity(hubClone);
  build = await startHost('build', { config: '[hosts.hub]\nfiles = true\n' });
  hub = await startHost('hub');
  await link(hub, build);
});
test.after(async () => {
  for (const h of [hub, build]) await h?.d.stop();
  removeDir(root);
});

test('the peer killed -9 mid-pull: a typed error, no half state on the hub; the next pull completes', async () => {
  const made = JSON.parse(await build.d.ok(['worktree', 'new', 'feat/big', '--json'], { cwd: peerRepo })) as { path: string; session: string };
  for (let i = 0; i < FILES; i++) write(join(made.path, 'data', `f${i}.bin`), randomBytes(FILE_BYTES / 2).toString('hex'));
  const peerStatus = status(made.path);
  const before = { worktrees: worktrees(hubClone), branches: branches(hubClone) };

  const pull = hub.d.cli(['worktree', 'pull', `build:${made.session}`, '--repo', hubClone, '--json'], { timeoutMs: 120_000 });
  // Killed once the hub is receiving: its spool folder is there.
  await waitFor(() => leftovers(hubClone).length > 0, { what: 'the pull to start receiving', interval: 5, timeout: 60_000 });
  build.d.kill9();
  const r = await pull;
  assert.is.not(r.code, 0, `the pull cut by the kill failed: ${r.stdout}`);
  assert.match(r.stderr, /error|cut|down|closed|link/i, 'it says why');
  await waitFor(() => leftovers(hubClone).length === 0, { what: `the spool and temporary tree removed (${leftovers(hubClone).join(' ')})`, timeout: 30_000 });
  assert.equal(worktrees(hubClone), before.worktrees, 'no worktree made');
  assert.equal(branches(hubClone), before.branches, 'no branch made');
  assert.is(sh(hubClone, ['fsck', '--no-progress']).trim(), '', 'the repository is whole');

  await build.d.waitExit();
  await build.d.spawn();
  await waitHost(hub, 'build', (h) => h.state === 'up', 'back up', 90_000);
  const again = await hub.d.cli(['worktree', 'pull', `build:${made.session}`, '--repo', hubClone, '--json'], { timeoutMs: 120_000 });
  assert.is(again.code, 0, again.stderr);
  const res = JSON.parse(again.stdout) as { path: string };
  assert.ok(existsSync(res.path));
  assert.is(status(res.path), peerStatus, 'the pulled worktree reads as the peer\'s');
  console.log(`[tuios-test-note] worktree pull of ${FILES} files (${((FILES * FILE_BYTES) / 1024 / 1024).toFixed(0)} MB) cut by kill -9 of the peer: failed (${JSON.stringify(r.stderr.trim().split('\n')[0]?.slice(0, 160))}), nothing left on the hub; the next pull completed`);
});

test.run();
