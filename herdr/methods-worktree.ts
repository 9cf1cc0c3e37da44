// herdr's worktree methods (spec: herdr compatibility, Methods): worktree.list reads `git worktree
// list` of the source folder's repository and needs what list-worktrees needs; worktree.create is
// new-worktree (tuios chooses the path); worktree.open is new-session in the checkout, or the
// session that already shows it; worktree.remove is remove-worktree. Each verb's grants apply.
import { basename, isAbsolute } from 'node:path';
import { TuiosError } from '../core/errors.js';
import { paneOf } from '../core/security/access.js';
import { repoAt, type RepoInfo } from '../core/git/repo.js';
import { gitText } from '../core/git/run.js';
import { worktreeOf } from '../core/git/fleet.js';
import { herdrWorkspaceId } from './ids.js';
import { HerdrError, field, optBool, optString, reqString } from './params.js';
import { View, call, herdrCode, type Method, type MethodContext } from './view.js';

interface GitWorktree {
  path: string;
  branch: string | null;
  is_bare: boolean;
  is_detached: boolean;
  is_prunable: boolean;
  is_linked_worktree: boolean;
}

/** `git worktree list --porcelain`: one block per worktree, the main checkout first. */
export function parseWorktreeList(text: string): GitWorktree[] {
  const out: GitWorktree[] = [];
  for (const block of text.split(/\n\s*\n/)) {
    const lines = block.split('\n').filter(Boolean);
    const path = lines.find((l) => l.startsWith('worktree '))?.slice('worktree '.length);
    if (!path) continue;
    const branch = lines.find((l) => l.startsWith('branch '))?.slice('branch '.length).replace(/^refs\/heads\//, '') ?? null;
    out.push({
      path,
      branch,
      is_bare: lines.includes('bare'),
      is_detached: lines.includes('detached'),
      is_prunable: lines.some((l) => l === 'prunable' || l.startsWith('prunable ')),
      is_linked_worktree: out.length > 0,
    });
  }
  return out;
}

/** A tuios error in herdr's words. */
async function tuios<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof TuiosError) throw new HerdrError(herdrCode(e.code), e.message);
    throw e;
  }
}

/**
 * The folder whose repository a call means: `cwd` (absolute), else the session `workspace_id`
 * names, else the caller's pane's folder, else the focused session's. At most one of the two.
 */
function sourceOf(ctx: MethodContext, v: View): { dir: string; sessionId: string | null } {
  const cwd = optString(ctx.params, 'cwd', 4096);
  const ws = optString(ctx.params, 'workspace_id');
  if (cwd !== undefined && ws !== undefined) throw new HerdrError('invalid_params', 'use at most one of `workspace_id` or `cwd`');
  if (cwd !== undefined) {
    if (!isAbsolute(cwd)) throw new HerdrError('invalid_params', '`cwd` must be absolute');
    return { dir: cwd, sessionId: null };
  }
  if (ws !== undefined) {
    const s = ctx.svc.model.sessions.get(v.session(ws).id)!;
    return { dir: s.cwd, sessionId: s.id };
  }
  const { window: own } = paneOf(ctx.svc, ctx.caller);
  if (own) return { dir: own.currentCwd(), sessionId: own.sessionId };
  const f = v.focusedSession();
  const s = f ? ctx.svc.model.sessions.get(f.id) : undefined;
  if (!s) throw new HerdrError('workspace_not_found', 'there is no workspace to read a repository from; give `cwd`');
  return { dir: s.cwd, sessionId: s.id };
}

/** The session that shows a checkout: a worktree session of it, or one started in it, among those the caller reads. */
function openSession(ctx: MethodContext, v: View, path: string): string | null {
  for (const row of v.sessions) {
    const s = ctx.svc.model.sessions.get(row.id);
    if (s && (worktreeOf(s)?.path === path || s.cwd === path)) return s.id;
  }
  return null;
}

async function listOf(repo: RepoInfo): Promise<GitWorktree[]> {
  return parseWorktreeList(await tuios(() => gitText(['worktree', 'list', '--porcelain'], { cwd: repo.top })));
}

function worktreeInfo(ctx: MethodContext, v: View, g: GitWorktree): Record<string, unknown> {
  const open = openSession(ctx, v, g.path);
  return { ...g, label: g.branch ?? basename(g.path), open_workspace_id: open ? herdrWorkspaceId(open) : null };
}

export const worktreeMethods: Record<string, Method> = {
  async 'worktree.list'(ctx) {
    const v = await View.read(ctx);
    const src = sourceOf(ctx, v);
    // What list-worktrees needs, checked by the dispatcher.
    await call(ctx, 'list-worktrees', {});
    const repo = await tuios(() => repoAt(src.dir));
    const list = await listOf(repo);
    return {
      type: 'worktree_list',
      source: { repo_key: repo.commonDir, repo_name: repo.name, repo_root: repo.main ?? repo.top, source_checkout_path: repo.top, source_workspace_id: src.sessionId ? herdrWorkspaceId(src.sessionId) : null },
      worktrees: list.map((g) => worktreeInfo(ctx, v, g)),
    };
  },

  async 'worktree.create'(ctx) {
    // tuios chooses the path (under its state folder).
    if (field(ctx.params, 'path') !== undefined && field(ctx.params, 'path') !== null) throw new HerdrError('unsupported', 'tuios chooses the worktree path; leave `path` out');
    const branch = reqString(ctx.params, 'branch', 200);
    const base = optString(ctx.params, 'base', 200);
    const label = optString(ctx.params, 'label', 128);
    optBool(ctx.params, 'focus');
    const v = await View.read(ctx);
    const src = sourceOf(ctx, v);
    const made = await call<{ session_id: string; window_id: string; path: string }>(ctx, 'new-worktree', { branch, repo: src.dir, ...(base ? { base } : {}), ...(label ? { name: label } : {}) });
    const after = await View.read(ctx);
    const s = after.sessions.find((x) => x.id === made.session_id);
    const w = after.windows.find((x) => x.id === made.window_id);
    if (!s || !w) throw new HerdrError('workspace_not_found', 'the new workspace closed before it could be read');
    const repo = await tuios(() => repoAt(made.path));
    const g = (await listOf(repo)).find((x) => x.path === made.path) ?? { path: made.path, branch, is_bare: false, is_detached: false, is_prunable: false, is_linked_worktree: true };
    return { type: 'worktree_created', workspace: after.workspaceInfo(s), tab: after.tabInfo(s, w.workspace), root_pane: after.paneInfo(w), worktree: worktreeInfo(ctx, after, g) };
  },

  async 'worktree.open'(ctx) {
    const path = optString(ctx.params, 'path', 4096);
    const branch = optString(ctx.params, 'branch', 200);
    const label = optString(ctx.params, 'label', 128);
    optBool(ctx.params, 'focus');
    if ((path === undefined) === (branch === undefined)) throw new HerdrError('invalid_params', 'use exactly one of `path` or `branch`');
    if (path !== undefined && !isAbsolute(path)) throw new HerdrError('invalid_params', '`path` must be absolute');
    const v = await View.read(ctx);
    const src = sourceOf(ctx, v);
    const repo = await tuios(() => repoAt(src.dir));
    const g = (await listOf(repo)).find((x) => (path !== undefined ? x.path === path : x.branch === branch));
    if (!g) throw new HerdrError('worktree_not_found', `no checkout of ${repo.name} ${path !== undefined ? `at ${path.slice(0, 256)}` : `on branch ${branch!.slice(0, 200)}`}`);
    const open = openSession(ctx, v, g.path);
    if (open) {
      const s = v.sessions.find((x) => x.id === open)!;
      return { type: 'worktree_opened', workspace: v.workspaceInfo(s), worktree: worktreeInfo(ctx, v, g), already_open: true };
    }
    const made = await call<{ session: { id: string } }>(ctx, 'new-session', { cwd: g.path, name: label ?? `${repo.name}-${g.branch ?? basename(g.path)}`.slice(0, 128) });
    const after = await View.read(ctx);
    const s = after.sessions.find((x) => x.id === made.session.id);
    if (!s) throw new HerdrError('workspace_not_found', 'the new workspace closed before it could be read');
    return { type: 'worktree_opened', workspace: after.workspaceInfo(s), worktree: worktreeInfo(ctx, after, g), already_open: false };
  },

  async 'worktree.remove'(ctx) {
    const id = reqString(ctx.params, 'workspace_id');
    const force = optBool(ctx.params, 'force') ?? false;
    const v = await View.read(ctx);
    const s = v.session(id);
    const r = await call<{ removed: { path: string; branch: string } }>(ctx, 'remove-worktree', { session: s.id, force });
    const worktree = { path: r.removed.path, branch: r.removed.branch, is_bare: false, is_detached: false, is_prunable: false, is_linked_worktree: true, label: r.removed.branch, open_workspace_id: null };
    return { type: 'worktree_removed', workspace_id: herdrWorkspaceId(s.id), workspace: null, worktree, forced: force };
  },
};
