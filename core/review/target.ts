// Which pane a review or ship call is about, which repository it reads, and from which base
// (spec: Reviewing an agent's changes, "What is diffed"). Shared by the review and ship verbs.
import { existsSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { TuiosError } from '../errors.js';
import { git } from '../git/run.js';
import { repoAt, resolveCommit } from '../git/repo.js';
import { worktreeOf, groupOf, type WorktreeAttr } from '../git/fleet.js';
import type { Services } from '../daemon/services.js';
import type { Caller } from '../rpc/caller.js';
import type { Session } from '../model/model.js';
import type { Window } from '../model/window.js';

/** A session's agent pane: the first window an agent was seen in, else its focused window. */
export function agentPaneOf(svc: Services, s: Session): Window | null {
  const ws = svc.model.windowsOf(s);
  return ws.find((w) => svc.agents.holdsAgent(w)) ?? svc.model.focusedWindow(s) ?? ws[0] ?? null;
}

/**
 * The pane named (-w), the agent pane of the session named (-s), the caller's own pane, else the
 * most recent session's agent pane. A pane whose process runs on another machine is not_repo.
 */
export function reviewPane(svc: Services, caller: Caller, p: { session?: string; window?: string }, verb: string): Window {
  const named = p.session !== undefined ? svc.model.findSession(p.session) : null;
  let w: Window | null = null;
  if (p.window !== undefined) w = svc.model.findWindow(p.window, named ?? undefined);
  else if (named) w = agentPaneOf(svc, named);
  else w = svc.callerPane(caller) ?? (() => {
    const s = svc.model.mostRecentSession();
    return s ? agentPaneOf(svc, s) : null;
  })();
  if (!w) throw new TuiosError('window_not_found', `${verb} needs a pane: there is none to review.`, 'Name one with -w WINDOW or -s SESSION.');
  if (w.host) {
    throw new TuiosError('not_repo', `The pane ${w.name} runs on ${w.host}: its files are there, not here.`, `Attach to ${w.host} and review there, or bring the work here with: tuios worktree pull ${w.host}:SESSION`);
  }
  return w;
}

export interface PaneRepo {
  /** The top of the work tree the pane is in. */
  top: string;
  /** The worktree tuios made, when the pane is in its session's worktree. */
  wt: WorktreeAttr | null;
  session: Session;
}

function inside(dir: string, root: string): boolean {
  const a = resolve(dir);
  const b = resolve(root);
  return a === b || a.startsWith(b + sep);
}

/** The session's worktree when the pane is in it, else the repository holding the pane's folder. */
export async function paneRepo(svc: Services, w: Window, signal?: AbortSignal): Promise<PaneRepo> {
  const session = svc.model.sessionOf(w);
  const wt = worktreeOf(session);
  const cwd = w.currentCwd();
  if (wt && existsSync(wt.path) && inside(cwd, wt.path)) return { top: wt.path, wt, session };
  const repo = await repoAt(cwd, signal);
  return { top: repo.top, wt: wt && resolve(wt.path) === resolve(repo.top) ? wt : null, session };
}

export interface Base {
  /** As shown: the name given or recorded, the upstream, or HEAD. */
  label: string;
  /** The commit the diff is taken from before its merge base with HEAD; null: HEAD. */
  commit: string | null;
  source: 'named' | 'worktree' | 'upstream' | 'head';
}

/**
 * The base, in the spec's order: the one named; the worktree's recorded base; the merge base with
 * the branch's upstream; else HEAD (only what is not committed). `uncommitted` asks for HEAD.
 */
export async function baseFor(pr: PaneRepo, o: { base?: string; uncommitted?: boolean; signal?: AbortSignal }): Promise<Base> {
  const { top } = pr;
  if (o.uncommitted) return { label: 'HEAD', commit: null, source: 'head' };
  if (o.base) {
    const c = await resolveCommit(top, o.base, o.signal);
    if (!c) throw new TuiosError('invalid_params', `The base "${o.base.slice(0, 200)}" names no commit here.`, 'Name a branch, a tag or a commit.', { field: 'base' });
    return { label: o.base, commit: c, source: 'named' };
  }
  if (pr.wt) {
    // A worktree made from a detached HEAD records a commit: the main checkout's branch names it.
    const label = /^[0-9a-f]{40}$/.test(pr.wt.base) && pr.wt.main ? ((await git(['symbolic-ref', '--short', '-q', 'HEAD'], { cwd: pr.wt.main, signal: o.signal, okCodes: [0, 1] })).stdout.toString().trim() || pr.wt.base.slice(0, 12)) : pr.wt.base;
    return { label, commit: pr.wt.base_commit, source: 'worktree' };
  }
  const up = await git(['rev-parse', '-q', '--verify', '--symbolic-full-name', '@{upstream}'], { cwd: top, signal: o.signal, okCodes: [0, 1, 128] });
  const upName = up.code === 0 ? up.stdout.toString().trim().replace(/^refs\/remotes\//, '') : '';
  if (upName) {
    const c = await resolveCommit(top, '@{upstream}', o.signal);
    if (c) return { label: upName, commit: c, source: 'upstream' };
  }
  return { label: 'HEAD', commit: null, source: 'head' };
}

/** A session `against` names for review-diff: another attempt of the pane's fan. */
export function sameFan(a: Session, b: Session): boolean {
  const g = groupOf(a);
  return g !== null && g === groupOf(b) && a.id !== b.id;
}
