// Worktrees across two linked daemons on loopback (a hub linked to `build` and to `locked` with
// `hosts add --yes`, as in link.test.ts), real git on both: a worktree on build with two commits
// and uncommitted work (modified, staged, deleted, untracked) is pulled to the hub over the link's
// stream frames with the same hashes and the same status, build's worktree and index untouched;
// `locked`, whose [hosts.hub] table lacks files, refuses with forbidden and the hub has nothing
// new; `worktree new --host build` makes a worktree on build; `worktree diff` and `worktree rm`
// of HOST:SESSION run on the peer under its policy.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { link, startHost, type Host } from '../helpers/link.js';
import { waitFor } from '../helpers/wait.js';
import { installStandin } from '../helpers/worktree-standin.js';
import { identity, log, makeMessyWork, makeRepo, removeDir, sh, sha256File, status, tempDir } from '../helpers/worktree-repos.js';
import type { WorktreeRow as LsEntry } from '../../core/verbs/worktree.js';

let hub: Host;
let build: Host;
let locked: Host;
let root: string;
let peerRepo: string;
let lockedRepo: string;
let hubClone: string;

const ls = async (h: Host) => (await h.d.json<{ worktrees: LsEntry[] }>(['worktree', 'ls'])).worktrees;
const worktreeCount = (repo: string) => sh(repo, ['worktree', 'list', '--porcelain']).split('\n').filter((l) => l.startsWith('worktree ')).length;
const branches = (repo: string) => sh(repo, ['branch', '--format=%(refname:short)']).trim().split('\n').sort();

test.before(async () => {
  root = tempDir('tuios-wt-link-');
  peerRepo = makeRepo(join(root, 'build', 'api'));
  lockedRepo = makeRepo(join(root, 'locked', 'api'));
  hubClone = join(root, 'hub', 'api');
  sh(root, ['clone', '-q', peerRepo, hubClone]);
  identity(hubClone);
  // build runs the stand-in agent (test/helpers/worktree-standin.ts): one file per prompt.
  build = await startHost('build', { config: '[hosts.hub]\nfiles = true\n', env: installStandin(join(root, 'tools')) });
  locked = await startHost('locked');
  hub = await startHost('hub');
  await link(hub, build);
  await link(hub, locked);
});

test.after(async () => {
  for (const h of [hub, build, locked]) await h?.d.stop();
  removeDir(root);
});

test('worktree pull HOST:SESSION brings the commits with their hashes and the uncommitted work, the peer untouched', async () => {
  const made = JSON.parse(await build.d.ok(['worktree', 'new', 'feat/link', '--json'], { cwd: peerRepo })) as { path: string; session: string };
  makeMessyWork(made.path);
  const indexPath = sh(made.path, ['rev-parse', '--path-format=absolute', '--git-path', 'index']).trim();
  const index0 = sha256File(indexPath);
  const status0 = status(made.path);
  const log0 = log(made.path);
  const r = await hub.d.json<{ session: string; path: string; branch: string; head: string; from: string }>(['worktree', 'pull', `build:${made.session}`, '--repo', hubClone]);
  assert.is(r.branch, 'feat/link');
  assert.is(r.from, `build:${made.session}`);
  assert.is(r.head, log0[0]);
  assert.equal(log(r.path), log0, 'the same commits, the same hashes');
  assert.is(status(r.path), status0, 'the uncommitted work as it was');
  assert.match(status0, /^ M mod\.txt$/m);
  assert.match(status0, /^M  staged\.txt$/m);
  assert.match(status0, /^ D del\.txt$/m);
  assert.match(status0, /^\?\? new\/untracked\.txt$/m);
  assert.not.ok(existsSync(join(r.path, 'debug.log')), 'an ignored file stays home');
  assert.is(sha256File(indexPath), index0, 'the peer\'s index is unchanged');
  assert.is(status(made.path), status0, 'the peer\'s worktree is unchanged');
  assert.equal(log(made.path), log0);
  const e = (await ls(hub)).find((w) => w.session === r.session);
  assert.ok(e, 'the pulled worktree has a session on the hub');
  assert.is(e!.repo, 'api');
  assert.is(e!.dirty, 4);
  const s = await hub.d.call<{ sessions: Array<{ name: string; attrs?: Record<string, unknown> }> }>('list-sessions');
  assert.ok(s.sessions.some((x) => x.name === r.session));
});

test('a peer whose [hosts] table lacks files refuses with forbidden, and the hub has nothing new', async () => {
  const made = JSON.parse(await locked.d.ok(['worktree', 'new', 'feat/closed', '--json'], { cwd: lockedRepo })) as { path: string; session: string };
  makeMessyWork(made.path);
  const status0 = status(made.path);
  const before = { wts: worktreeCount(hubClone), branches: branches(hubClone), sessions: (await ls(hub)).length };
  const r = await hub.d.cli(['worktree', 'pull', `locked:${made.session}`, '--repo', hubClone]);
  assert.is(r.code, 1, r.stdout);
  assert.match(r.stderr, /files.*\(forbidden\)/s);
  assert.is(worktreeCount(hubClone), before.wts, 'no new worktree');
  assert.equal(branches(hubClone), before.branches, 'no new branch');
  assert.is((await ls(hub)).length, before.sessions, 'no new session');
  const common = sh(hubClone, ['rev-parse', '--path-format=absolute', '--git-common-dir']).trim();
  assert.equal(readdirSync(common).filter((f) => f.startsWith('tuios-pull-')), [], 'no spool left');
  assert.is(status(made.path), status0);
});

test('a session the peer does not have answers a typed error, nothing made', async () => {
  const before = worktreeCount(hubClone);
  const r = await hub.d.cli(['worktree', 'pull', 'build:no-such-session', '--repo', hubClone]);
  assert.is(r.code, 1, r.stdout);
  assert.match(r.stderr, /\((session_not_found|not_found)\)/);
  assert.is(worktreeCount(hubClone), before);
});

test('worktree new --host makes a worktree and a session on the peer', async () => {
  const r = await hub.d.json<{ host: string; session: string; path: string; branch: string; base: string }>(['worktree', 'new', 'feat/remote', '--host', 'build', '--repo', peerRepo]);
  assert.is(r.host, 'build');
  assert.is(r.branch, 'feat/remote');
  assert.is(r.base, 'main');
  assert.ok(r.path.startsWith(join(build.d.dir, 'state')), `under the peer's state folder: ${r.path}`);
  assert.is(sh(r.path, ['symbolic-ref', '--short', 'HEAD']).trim(), 'feat/remote');
  assert.ok((await ls(build)).some((w) => w.session === r.session && w.branch === 'feat/remote'));
  assert.not.ok((await ls(hub)).some((w) => w.branch === 'feat/remote'), 'nothing on the hub');
});

test('worktree new --host with a relative --repo, or an unknown host, is refused before anything is made', async () => {
  const rel = await hub.d.cli(['worktree', 'new', 'feat/rel', '--host', 'build', '--repo', 'api']);
  assert.is(rel.code, 1);
  assert.match(rel.stderr, /relative folder.*\(invalid_params\)/s, rel.stderr);
  const unknown = await hub.d.cli(['worktree', 'new', 'feat/x', '--host', 'nowhere', '--repo', peerRepo]);
  assert.is(unknown.code, 1);
  assert.match(unknown.stderr, /\(host_not_found\)/);
  assert.is(sh(peerRepo, ['branch', '--list', 'feat/rel', 'feat/x']).trim(), '');
});

test('worktree diff HOST:SESSION reads the peer\'s worktree there (files), its commits and uncommitted work', async () => {
  const made = JSON.parse(await build.d.ok(['worktree', 'new', 'feat/diffed', '--json'], { cwd: peerRepo })) as { path: string; session: string };
  makeMessyWork(made.path);
  const status0 = status(made.path);
  const r = await hub.d.json<{ host: string; session: string; branch: string; commits: number; files: Array<{ path: string; status: string }>; patch: string; truncated: boolean }>(['worktree', 'diff', `build:${made.session}`]);
  assert.is(r.host, 'build');
  assert.is(r.session, made.session);
  assert.is(r.branch, 'feat/diffed');
  assert.is(r.commits, 2);
  const byPath = Object.fromEntries(r.files.map((f) => [f.path, f.status]));
  assert.is(byPath['mod.txt'], 'M');
  assert.is(byPath['del.txt'], 'D');
  assert.is(byPath['new/untracked.txt'], 'U');
  assert.match(r.patch, /^diff --git a\/mod\.txt b\/mod\.txt$/m);
  assert.is(r.truncated, false);
  const stat = await hub.d.json<{ patch: string; files: unknown[] }>(['worktree', 'diff', `build:${made.session}`, '--stat']);
  assert.is(stat.patch, '');
  assert.is(stat.files.length, r.files.length);
  assert.is(status(made.path), status0, 'the peer\'s worktree is unchanged');
});

test('worktree diff HOST:SESSION on a peer whose [hosts] table lacks files is refused there', async () => {
  const made = JSON.parse(await locked.d.ok(['worktree', 'new', 'feat/nodiff', '--json'], { cwd: lockedRepo })) as { session: string };
  const r = await hub.d.cli(['worktree', 'diff', `locked:${made.session}`]);
  assert.is(r.code, 1, r.stdout);
  assert.match(r.stderr, /read files.*\(forbidden\)/s);
  assert.match(r.stderr, /files = true/);
});

test('worktree rm HOST:SESSION refuses uncommitted work there, and --force removes it there', async () => {
  const made = JSON.parse(await build.d.ok(['worktree', 'new', 'feat/gone', '--json'], { cwd: peerRepo })) as { path: string; session: string };
  writeFileSync(join(made.path, 'wip.txt'), 'not committed\n');
  const refused = await hub.d.cli(['worktree', 'rm', `build:${made.session}`]);
  assert.is(refused.code, 1, refused.stdout);
  assert.match(refused.stderr, /uncommitted work.*\(dirty_worktree\)/s);
  assert.match(refused.stderr, /--force/);
  assert.ok(existsSync(join(made.path, 'wip.txt')), 'nothing removed');
  assert.ok((await ls(build)).some((w) => w.session === made.session));
  const r = await hub.d.json<{ host: string; removed: { session: string; path: string; branch: string; branch_deleted: boolean } }>(['worktree', 'rm', `build:${made.session}`, '--force']);
  assert.is(r.host, 'build');
  assert.is(r.removed.session, made.session);
  assert.is(r.removed.branch_deleted, true);
  assert.not.ok(existsSync(made.path), 'the worktree is gone on the peer');
  assert.not.ok((await ls(build)).some((w) => w.session === made.session), 'its session is gone on the peer');
  assert.is(sh(peerRepo, ['branch', '--list', 'feat/gone']).trim(), '');
});

test('worktree rm HOST:SESSION of a clean worktree removes it; an unknown host is refused first', async () => {
  const made = JSON.parse(await locked.d.ok(['worktree', 'new', 'feat/tidy', '--json'], { cwd: lockedRepo })) as { path: string; session: string };
  const r = await hub.d.json<{ removed: { session: string } }>(['worktree', 'rm', `locked:${made.session}`]);
  assert.is(r.removed.session, made.session);
  assert.not.ok(existsSync(made.path));
  const unknown = await hub.d.cli(['worktree', 'rm', 'nowhere:x']);
  assert.is(unknown.code, 1);
  assert.match(unknown.stderr, /\(host_not_found\)/);
});

interface Win {
  id: string;
  name: string;
  session: string;
  foreground: { comm: string } | null;
  agent_state?: { harness_id?: string | null };
}

/** Stand-ins running, and known as the standin harness (a pane made ready before that is typed at as it changes). */
async function standinsOn(h: Host, session: (s: string) => boolean, n: number): Promise<Win[]> {
  return waitFor(async () => {
    const ws = (await h.d.call<{ windows: Win[] }>('list-windows')).windows.filter((w) => session(w.session) && w.foreground?.comm === 'standin' && w.agent_state?.harness_id === 'standin');
    return ws.length === n ? ws : null;
  }, { what: `${n} stand-ins on ${h.name}` });
}

const fileText = (p: string) => waitFor(() => (existsSync(p) ? readFileSync(p, 'utf8') : null), { what: p });

test('fan --host runs the attempts on the peer, each prompt typed there once its agent is ready', async () => {
  const pending = hub.d.cli(['fan', '2', '--agent', 'standin', 'remote retry work', '--host', 'build', '--repo', peerRepo, '--branch', 'fan/remote', '--json'], { timeoutMs: 120_000 });
  const ws = await standinsOn(build, (s) => s.startsWith('api-fan-remote-'), 2);
  for (const w of ws) await build.d.ok(['set-agent-state', '-w', w.id, 'idle']);
  const res = await pending;
  assert.is(res.code, 0, res.stderr);
  const r = JSON.parse(res.stdout) as { host: string; group: string; attempts: Array<{ session: string; path: string; branch: string; prompt_status: string }> };
  assert.is(r.host, 'build');
  assert.is(r.group, 'fan/remote');
  assert.equal(r.attempts.map((a) => a.branch), ['fan/remote-1', 'fan/remote-2']);
  assert.equal(r.attempts.map((a) => a.prompt_status), ['taken', 'taken'], res.stdout);
  for (const a of r.attempts) {
    assert.ok(a.path.startsWith(join(build.d.dir, 'state')), a.path);
    assert.is(await fileText(join(a.path, 'prompt-1.txt')), 'remote retry work\n');
  }
  assert.not.ok((await ls(hub)).some((w) => w.branch.startsWith('fan/remote')), 'nothing on the hub');
});

test('start-agent -s HOST:SESSION starts the agent in that session on the peer and types its prompt there', async () => {
  const wt = JSON.parse(await build.d.ok(['worktree', 'new', 'feat/helper', '--json'], { cwd: peerRepo })) as { path: string; session: string };
  const pending = hub.d.cli(['start-agent', 'standin', '--name', 'helper', '--prompt', 'from the hub', '-s', `build:${wt.session}`, '--json']);
  const [w] = await standinsOn(build, (s) => s === wt.session, 1);
  await build.d.ok(['set-agent-state', '-w', w!.id, 'idle']);
  const res = await pending;
  assert.is(res.code, 0, res.stderr);
  const out = JSON.parse(res.stdout) as { host: string; session: string; window_id: string; prompt_status: string };
  assert.is(out.host, 'build');
  assert.is(out.session, wt.session);
  assert.is(out.window_id, w!.id);
  assert.is(out.prompt_status, 'taken');
  assert.is(await fileText(join(wt.path, 'prompt-1.txt')), 'from the hub\n');
});

// Last: it kills build.
test('the peer killed mid-transfer leaves no worktree, branch, session or spool on the hub', async () => {
  const made = JSON.parse(await build.d.ok(['worktree', 'new', 'feat/big', '--json'], { cwd: peerRepo })) as { path: string; session: string };
  // Random bytes do not compress: the files are tens of MB and take a while on the wire.
  for (let i = 0; i < 4; i++) writeFileSync(join(made.path, `blob-${i}.bin`), randomBytes(12 * 1024 * 1024));
  const before = { wts: worktreeCount(hubClone), branches: branches(hubClone), sessions: (await ls(hub)).length };
  const common = sh(hubClone, ['rev-parse', '--path-format=absolute', '--git-common-dir']).trim();
  const spools = () => readdirSync(common).filter((f) => f.startsWith('tuios-pull-'));
  const pending = hub.d.cli(['worktree', 'pull', `build:${made.session}`, '--repo', hubClone]);
  // Bytes of the files have reached the spool beside the new worktree, and the end has not.
  const parent = join(hub.d.dir, 'state', 'tuios', 'worktrees');
  const spooled = () => (existsSync(parent) ? readdirSync(parent) : []).flatMap((d) => readdirSync(join(parent, d)).filter((n) => n.startsWith('pull.files-')).map((n) => join(parent, d, n)));
  await waitFor(() => spooled().some((f) => readdirSync(f).some((n) => statSync(join(f, n)).size > 0)), { interval: 5, what: 'the files arriving' });
  build.d.kill9();
  const r = await pending;
  assert.is(r.code, 1, r.stdout);
  assert.match(r.stderr, /\((host_down|git_failed)\)/, r.stderr);
  assert.is(worktreeCount(hubClone), before.wts, 'no new worktree');
  assert.equal(branches(hubClone), before.branches, 'no new branch');
  assert.is((await ls(hub)).length, before.sessions, 'no new session');
  assert.equal(spools(), [], 'no spool left');
  assert.equal(readdirSync(join(common, 'objects', 'pack')).filter((f) => f.startsWith('tmp_')), [], 'no half-written pack in the clone');
  const left = existsSync(parent) ? readdirSync(parent).flatMap((d) => readdirSync(join(parent, d))) : [];
  assert.not.ok(left.some((n) => n.startsWith('feat-big') || n.includes('.tmp-') || n.startsWith('pull.')), `nothing under the hub's worktrees: ${left.join(', ')}`);
});

test.run();
