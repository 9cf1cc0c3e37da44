// herdr's worktree.* and workspace.report_metadata (spec: herdr compatibility, Methods), through
// the herdr socket and herdr's command line, against a real daemon and real git.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { TestDaemon } from '../helpers/daemon.js';
import { makeRepo, removeDir, sh, tempDir } from '../helpers/worktree-repos.js';
import { waitFor } from '../helpers/wait.js';
import { herdrErr, herdrOk, herdrFromPane, herdrSocketOf, herdrWsId, herdrSession, herdrCli } from '../helpers/herdr-client.js';

let d: TestDaemon;
let sock: string;
let repo: string;
let outside: string;

interface WorktreeInfo {
  path: string;
  branch: string | null;
  is_linked_worktree: boolean;
  is_detached: boolean;
  is_bare: boolean;
  label: string;
  open_workspace_id: string | null;
}
interface WorkspaceInfo {
  workspace_id: string;
  label: string;
  tokens: Record<string, string>;
}

test.before(async () => {
  d = await TestDaemon.start();
  sock = herdrSocketOf(d);
  repo = realpathSync(makeRepo(join(tempDir(), 'proj')));
  outside = join(dirname(repo), 'by-hand');
  await d.ok(['new-session', 'src', '-c', repo, 'sh']);
  await d.ok(['new-window', '-s', 'src', '--grants', 'read', 'reader', 'sh']);
});

test.after(async () => {
  await d.stop();
  removeDir(dirname(repo));
});

test('worktree.list: git worktree list of the workspace\'s repository, the session that shows each', async () => {
  const src = herdrWsId((await herdrSession(d, 'src'))!.id);
  const r = await herdrOk<{ type: string; source: { repo_root: string; repo_name: string; source_workspace_id: string | null }; worktrees: WorktreeInfo[] }>(sock, 'worktree.list', { workspace_id: src });
  assert.is(r.type, 'worktree_list');
  assert.equal([r.source.repo_root, r.source.repo_name, r.source.source_workspace_id], [repo, 'proj', src]);
  assert.is(r.worktrees.length, 1);
  assert.equal([r.worktrees[0]!.path, r.worktrees[0]!.branch, r.worktrees[0]!.is_linked_worktree, r.worktrees[0]!.open_workspace_id], [repo, 'main', false, src]);
  const byCwd = await herdrOk<{ worktrees: WorktreeInfo[] }>(sock, 'worktree.list', { cwd: repo });
  assert.is(byCwd.worktrees[0]!.path, repo);
  assert.is((await herdrErr(sock, 'worktree.list', { cwd: repo, workspace_id: src })).code, 'invalid_params');
  assert.is((await herdrErr(sock, 'worktree.list', { cwd: 'relative/dir' })).code, 'invalid_params');
  assert.is((await herdrErr(sock, 'worktree.list', { cwd: tempDir() })).code, 'not_repo');
});

test('worktree.create: new-worktree; the workspace, its pane and the linked checkout; a path is unsupported', async () => {
  const src = herdrWsId((await herdrSession(d, 'src'))!.id);
  const r = await herdrOk<{ type: string; workspace: WorkspaceInfo; root_pane: { pane_id: string; cwd: string }; worktree: WorktreeInfo }>(sock, 'worktree.create', { workspace_id: src, branch: 'feat/x', label: 'feature' });
  assert.is(r.type, 'worktree_created');
  assert.is(r.workspace.label, 'feature');
  assert.equal([r.worktree.branch, r.worktree.is_linked_worktree, r.worktree.open_workspace_id], ['feat/x', true, r.workspace.workspace_id]);
  assert.ok(existsSync(r.worktree.path));
  assert.match(sh(repo, ['worktree', 'list']), /\[feat\/x\]/);
  assert.is((await herdrErr(sock, 'worktree.create', { workspace_id: src, branch: 'p', path: '/tmp/somewhere' })).code, 'unsupported');
  assert.is((await herdrErr(sock, 'worktree.create', { workspace_id: src })).message, 'missing field `branch`');
  assert.not.match(sh(repo, ['branch', '--list', 'p']), /p/);
});

test('worktree.open: the session that shows a checkout answers already_open; another checkout opens in a new session', async () => {
  const src = herdrWsId((await herdrSession(d, 'src'))!.id);
  const again = await herdrOk<{ type: string; already_open: boolean; workspace: WorkspaceInfo; worktree: WorktreeInfo }>(sock, 'worktree.open', { workspace_id: src, branch: 'feat/x' });
  assert.equal([again.type, again.already_open, again.workspace.workspace_id], ['worktree_opened', true, herdrWsId((await herdrSession(d, 'feature'))!.id)]);
  sh(repo, ['worktree', 'add', '-q', '-b', 'by-hand', outside]);
  const opened = await herdrOk<{ already_open: boolean; workspace: WorkspaceInfo; worktree: WorktreeInfo }>(sock, 'worktree.open', { cwd: repo, path: outside, label: 'hand' });
  assert.equal([opened.already_open, opened.workspace.label, opened.worktree.branch], [false, 'hand', 'by-hand']);
  const w = (await d.json<{ windows: Array<{ session: string; cwd: string }> }>(['list-windows'])).windows.find((x) => x.session === 'hand');
  assert.ok(w, 'the new session has a pane');
  const twice = await herdrOk<{ already_open: boolean; workspace: WorkspaceInfo }>(sock, 'worktree.open', { cwd: repo, path: outside });
  assert.equal([twice.already_open, twice.workspace.workspace_id], [true, opened.workspace.workspace_id]);
  assert.is((await herdrErr(sock, 'worktree.open', { cwd: repo })).code, 'invalid_params');
  assert.is((await herdrErr(sock, 'worktree.open', { cwd: repo, path: outside, branch: 'by-hand' })).code, 'invalid_params');
  assert.is((await herdrErr(sock, 'worktree.open', { cwd: repo, branch: 'nope' })).code, 'worktree_not_found');
});

test('worktree.remove: remove-worktree; uncommitted work refuses without force; a session not in a tuios worktree is refused', async () => {
  const feature = (await herdrSession(d, 'feature'))!.id;
  const list = await herdrOk<{ worktrees: WorktreeInfo[] }>(sock, 'worktree.list', { cwd: repo });
  const path = list.worktrees.find((x) => x.branch === 'feat/x')!.path;
  writeFileSync(join(path, 'new.txt'), 'work\n');
  assert.is((await herdrErr(sock, 'worktree.remove', { workspace_id: herdrWsId(feature) })).code, 'dirty_worktree');
  assert.ok(existsSync(path));
  const r = await herdrOk<{ type: string; workspace_id: string; forced: boolean; worktree: { path: string } }>(sock, 'worktree.remove', { workspace_id: herdrWsId(feature), force: true });
  assert.equal([r.type, r.workspace_id, r.forced, r.worktree.path], ['worktree_removed', herdrWsId(feature), true, path]);
  assert.not.ok(existsSync(path));
  assert.not.ok((await d.json<{ sessions: Array<{ name: string }> }>(['list-sessions'])).sessions.some((s) => s.name === 'feature'));
  assert.is((await herdrErr(sock, 'worktree.remove', { workspace_id: herdrWsId((await herdrSession(d, 'src'))!.id) })).code, 'not_repo');
  assert.is((await herdrErr(sock, 'worktree.remove', {})).message, 'missing field `workspace_id`');
});

test('worktree grants: a pane holding read lists, and is refused forbidden to create, open or remove', async () => {
  const listed = await herdrFromPane(d, 'reader', 'worktree.list', { cwd: repo });
  assert.ok(listed.result, JSON.stringify(listed.error));
  const made = await herdrFromPane(d, 'reader', 'worktree.create', { cwd: repo, branch: 'not-made' });
  assert.is(made.error?.code, 'forbidden');
  assert.not.match(sh(repo, ['branch', '--list', 'not-made']), /not-made/);
  // worktree.open makes a session (new-session needs admin).
  const second = join(dirname(repo), 'by-hand-2');
  sh(repo, ['worktree', 'add', '-q', '-b', 'by-hand-2', second]);
  const opened = await herdrFromPane(d, 'reader', 'worktree.open', { cwd: repo, path: second });
  assert.is(opened.error?.code, 'forbidden');
  assert.not.ok((await d.json<{ sessions: Array<{ name: string }> }>(['list-sessions'])).sessions.some((s) => s.name.includes('by-hand-2')));
  await herdrOk(sock, 'worktree.create', { cwd: repo, branch: 'keep-me' });
  const keep = (await d.json<{ sessions: Array<{ id: string; name: string }> }>(['list-sessions'])).sessions.find((s) => s.name.includes('keep-me'))!;
  // A pane that reads the worktree's session (one of its own, holding read only).
  await d.ok(['new-window', '-s', keep.name, '--grants', 'read', 'keep-reader', 'sh']);
  const removed = await herdrFromPane(d, 'keep-reader', 'worktree.remove', { workspace_id: herdrWsId(keep.id) });
  assert.is(removed.error?.code, 'forbidden');
  assert.match(sh(repo, ['worktree', 'list']), /\[keep-me\]/);
});

test('herdr worktree list, create and remove through the command line; open with both --path and --branch exits 2', async () => {
  const l = await herdrCli(d, ['worktree', 'list', '--cwd', repo]);
  assert.is(l.code, 0, l.stderr);
  assert.is((JSON.parse(l.stdout) as { result: { type: string } }).result.type, 'worktree_list');
  const c = await herdrCli(d, ['worktree', 'create', '--cwd', repo, '--branch', 'from-cli']);
  assert.is(c.code, 0, c.stderr);
  const made = JSON.parse(c.stdout) as { result: { workspace: WorkspaceInfo; worktree: WorktreeInfo } };
  assert.is(made.result.worktree.branch, 'from-cli');
  const rm = await herdrCli(d, ['worktree', 'remove', '--workspace', made.result.workspace.workspace_id]);
  assert.is(rm.code, 0, rm.stderr);
  assert.not.ok(existsSync(made.result.worktree.path));
  const bad = await herdrCli(d, ['worktree', 'open', '--cwd', repo, '--path', outside, '--branch', 'x']);
  assert.is(bad.code, 2);
  const unsupported = await herdrCli(d, ['worktree', 'create', '--cwd', repo, '--branch', 'p2', '--path', '/tmp/p2']);
  assert.is(unsupported.code, 1);
  assert.match(unsupported.stderr, /"code":"unsupported"/);
});

test('workspace.report_metadata: tokens in workspace.get, workspace.list and the snapshot; null clears; the seq rule', async () => {
  const src = herdrWsId((await herdrSession(d, 'src'))!.id);
  assert.equal(await herdrOk(sock, 'workspace.report_metadata', { workspace_id: src, source: 'user:jj', tokens: { jj_status: '  2 changes\x07 ', old: 'x' }, seq: 5 }), { type: 'ok' });
  const get = await herdrOk<{ workspace: WorkspaceInfo }>(sock, 'workspace.get', { workspace_id: src });
  assert.equal(get.workspace.tokens, { jj_status: '2 changes', old: 'x' });
  const list = await herdrOk<{ workspaces: WorkspaceInfo[] }>(sock, 'workspace.list');
  assert.equal(list.workspaces.find((w) => w.workspace_id === src)!.tokens, { jj_status: '2 changes', old: 'x' });
  const snap = await herdrOk<{ workspaces: WorkspaceInfo[] }>(sock, 'session.snapshot');
  assert.equal(snap.workspaces.find((w) => w.workspace_id === src)!.tokens, { jj_status: '2 changes', old: 'x' });
  // A seq at or below the last from its source changes nothing; another source has its own.
  await herdrOk(sock, 'workspace.report_metadata', { workspace_id: src, source: 'user:jj', tokens: { jj_status: 'stale' }, seq: 5 });
  await herdrOk(sock, 'workspace.report_metadata', { workspace_id: src, source: 'other', tokens: { old: null, v: 'x'.repeat(100) }, seq: 1 });
  const after = (await herdrOk<{ workspace: WorkspaceInfo }>(sock, 'workspace.get', { workspace_id: src })).workspace.tokens;
  assert.equal(after, { jj_status: '2 changes', v: 'x'.repeat(80) });
  // Reports without a seq always apply; an empty value clears.
  await herdrOk(sock, 'workspace.report_metadata', { workspace_id: src, source: 'user:jj', tokens: { jj_status: ' ', v: null } });
  assert.equal((await herdrOk<{ workspace: WorkspaceInfo }>(sock, 'workspace.get', { workspace_id: src })).workspace.tokens, {});
});

test('workspace.report_metadata: a token lives until its ttl_ms runs out', async () => {
  const src = herdrWsId((await herdrSession(d, 'src'))!.id);
  await herdrOk(sock, 'workspace.report_metadata', { workspace_id: src, source: 'ttl', tokens: { brief: 'soon gone' }, ttl_ms: 300 });
  assert.is((await herdrOk<{ workspace: WorkspaceInfo }>(sock, 'workspace.get', { workspace_id: src })).workspace.tokens.brief, 'soon gone');
  await waitFor(async () => !('brief' in (await herdrOk<{ workspace: WorkspaceInfo }>(sock, 'workspace.get', { workspace_id: src })).workspace.tokens), { what: 'the token to expire' });
});

test('workspace.report_metadata: herdr\'s limits are invalid_params; an unknown workspace is workspace_not_found; a pane without admin is forbidden', async () => {
  const src = herdrWsId((await herdrSession(d, 'src'))!.id);
  const bad = async (params: Record<string, unknown>) => (await herdrErr(sock, 'workspace.report_metadata', { workspace_id: src, source: 's', tokens: { a: 'b' }, ...params })).code;
  assert.is(await bad({ source: 'has space' }), 'invalid_params');
  assert.is(await bad({ source: 'x'.repeat(81) }), 'invalid_params');
  assert.is(await bad({ tokens: { 'bad name!': 'x' } }), 'invalid_params');
  assert.is(await bad({ tokens: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) }), 'invalid_params');
  assert.is(await bad({ ttl_ms: 0 }), 'invalid_params');
  assert.is(await bad({ ttl_ms: 86_400_001 }), 'invalid_params');
  assert.is(await bad({ tokens: { a: 3 } }), 'invalid_request');
  // 32 keys at most per workspace.
  for (let i = 0; i < 2; i++) await herdrOk(sock, 'workspace.report_metadata', { workspace_id: src, source: 'fill', tokens: Object.fromEntries(Array.from({ length: 16 }, (_, j) => [`f${i}_${j}`, 'v'])) });
  assert.is(await bad({ tokens: { one_more: 'v' } }), 'invalid_params');
  await herdrOk(sock, 'workspace.report_metadata', { workspace_id: src, source: 'fill', tokens: Object.fromEntries(Array.from({ length: 16 }, (_, j) => [`f0_${j}`, null])) });
  assert.is((await herdrErr(sock, 'workspace.report_metadata', { workspace_id: 'w000000000000', source: 's', tokens: {} })).code, 'workspace_not_found');
  assert.is((await herdrErr(sock, 'workspace.report_metadata', { workspace_id: src, source: 's' })).message, 'missing field `tokens`');
  const refused = await herdrFromPane(d, 'reader', 'workspace.report_metadata', { workspace_id: src, source: 'pane', tokens: { from_pane: 'x' } });
  assert.is(refused.error?.code, 'forbidden');
  assert.not.ok('from_pane' in (await herdrOk<{ workspace: WorkspaceInfo }>(sock, 'workspace.get', { workspace_id: src })).workspace.tokens);
});

test('herdr workspace report-metadata prints nothing and sets the tokens', async () => {
  const src = herdrWsId((await herdrSession(d, 'src'))!.id);
  const r = await herdrCli(d, ['workspace', 'report-metadata', src, '--source', 'cli', '--token', 'build=green', '--seq', '1']);
  assert.equal([r.code, r.stdout], [0, ''], r.stderr);
  assert.is((await herdrOk<{ workspace: WorkspaceInfo }>(sock, 'workspace.get', { workspace_id: src })).workspace.tokens.build, 'green');
  const c = await herdrCli(d, ['workspace', 'report-metadata', src, '--source', 'cli', '--clear-token', 'build', '--seq', '2']);
  assert.is(c.code, 0, c.stderr);
  assert.not.ok('build' in (await herdrOk<{ workspace: WorkspaceInfo }>(sock, 'workspace.get', { workspace_id: src })).workspace.tokens);
});

test.run();
