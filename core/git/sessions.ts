// The pieces the worktree, fan and start-agent verbs share: which repository a caller means, a
// call carried to a linked host, the grants of a pane tuios starts, and a
// worktree session (a session in a new worktree, its first window a shell or an agent).
import { isAbsolute, resolve } from 'node:path';
import type { Services } from '../daemon/services.js';
import type { Caller } from '../rpc/caller.js';
import type { Session } from '../model/model.js';
import type { Window } from '../model/window.js';
import { readCwd } from '../pty/procfs.js';
import { TuiosError } from '../errors.js';
import { paneOf } from '../security/access.js';
import { checkGrantChange, grantsOf, parseGrants, GRANTS } from '../security/grants.js';
import { repoAt, type NewWorktree, type RepoInfo } from './repo.js';
import { resolveHarness, type WorktreeAttr } from './fleet.js';
import { forwardCall } from '../hosts/forward.js';

/** Refuses a verb that does not travel to another machine: nothing is dialled, nothing is made. */
export function refuseHost(verb: string, host: string | undefined): void {
  if (host === undefined || host === '' || host === 'local') return;
  throw new TuiosError('unsupported', `${verb} does not reach another machine (${host}) over the link between hosts. Nothing was started.`, `Run it on ${host} itself (ssh ${host} tuios ...).`, { field: 'host' });
}

/** A session named by the caller, on this machine: HOST:SESSION is refused (see refuseHost). */
export function localSession(svc: Services, verb: string, ref: string): Session {
  const colon = ref.indexOf(':');
  if (colon > 0 && ref.slice(0, colon) !== 'local') refuseHost(verb, ref.slice(0, colon));
  return svc.model.findSession(colon >= 0 && (colon === 0 || ref.slice(0, colon) === 'local') ? ref.slice(colon + 1) : ref);
}

/** The linked host `--host` names, or null for this machine; an unknown host is refused before anything runs. */
export function linkedHost(svc: Services, host: string | undefined): string | null {
  if (host === undefined || host === '' || host === 'local') return null;
  if (!svc.remote) throw new TuiosError('unsupported', `This daemon has no link between hosts, so ${host.slice(0, 64)} cannot be reached. Nothing was started.`, `Run it on ${host.slice(0, 64)} itself, or leave --host out to run it here.`, { field: 'host' });
  if (!svc.remote.has(host)) throw new TuiosError('host_not_found', `There is no linked host "${host.slice(0, 64)}".`, 'List them with: tuios hosts ls; add one with: tuios hosts add NAME ADDRESS', { field: 'host' });
  return host;
}

/**
 * Runs a verb on a linked host for this caller, as a targeted call travels (forwardCall: a caller
 * in a pane needs admin, the person is vouched for only when verified here). A repository named
 * with --repo is that host's folder, so it must be absolute: this machine's folder means nothing there.
 */
export async function callOnHost(svc: Services, caller: Caller, verb: string, host: string, params: Record<string, unknown>, signal: AbortSignal, session?: string): Promise<unknown> {
  const def = svc.dispatcher.get(verb);
  if (!def) throw new TuiosError('unknown_verb', `There is no verb "${verb}".`);
  for (const k of ['repo', 'cwd'] as const) {
    const v = params[k];
    if (typeof v === 'string' && !isAbsolute(v)) throw new TuiosError('invalid_params', `--${k} ${v} is a relative folder, and the call runs on ${host}.`, `Name the folder on ${host} by its absolute path.`, { field: k });
  }
  const out: Record<string, unknown> = { ...params };
  delete out.host;
  return forwardCall(svc, def, { host, session }, out, caller, signal);
}

/** The folder a caller runs in: its process's folder (the CLI's), else its pane's. */
export function callerDir(svc: Services, caller: Caller): string | null {
  if (caller.pid !== null) {
    const d = readCwd(caller.pid);
    if (d) return d;
  }
  const w = svc.callerPane(caller);
  return w ? w.currentCwd() : null;
}

/** The repository a call means: --repo (relative to the caller's folder), else the caller's folder's. */
export async function repoFor(svc: Services, caller: Caller, repoParam: string | undefined, signal?: AbortSignal): Promise<RepoInfo> {
  const here = callerDir(svc, caller);
  let dir: string | null;
  if (repoParam) dir = isAbsolute(repoParam) ? repoParam : here ? resolve(here, repoParam) : null;
  else dir = here;
  if (!dir) throw new TuiosError('not_repo', 'tuios cannot tell which repository you mean: the caller\'s folder cannot be read.', 'Name it with --repo PATH (an absolute path over the socket).', { field: 'repo' });
  return repoAt(dir, signal);
}

/** The grants of a pane tuios starts for a caller: --grants checked against the caller, else its own. */
export function grantsFor(svc: Services, caller: Caller, given: string[] | undefined): string[] | undefined {
  const { window: pane, inside } = paneOf(svc, caller);
  if (given) {
    const bad = given.filter((g) => g !== 'none' && !(GRANTS as readonly string[]).includes(g));
    if (bad.length) throw new TuiosError('invalid_params', `Unknown grant ${bad.join(', ')}.`, `Grants: ${GRANTS.join(', ')}, or none.`, { field: 'grants' });
    const grants = parseGrants(given);
    // A pane never starts a pane that holds more than it does.
    if (inside && pane) checkGrantChange(pane, pane, grants, svc.permissions.current);
    return grants;
  }
  if (inside && pane && grantsOf(pane, svc.permissions.current).from === 'explicit') return pane.attrs.get('grants') as string[];
  return undefined;
}

/** The pane a call comes from, recorded on what it launched (`launched_by`), or null from outside. */
export function launcherOf(svc: Services, caller: Caller): string | null {
  const { window, inside } = paneOf(svc, caller);
  return inside && window ? window.id : null;
}

/** A free session name for a worktree: REPO-BRANCH with / as -, suffixed when taken. */
export function sessionNameFor(svc: Services, repoName: string, branch: string): string {
  // eslint-disable-next-line no-control-regex
  const stem = `${repoName}-${branch}`.replace(/[/:\x00-\x1f\x7f]+/g, '-').slice(0, 100);
  for (let i = 1; ; i++) {
    const name = i === 1 ? stem : `${stem}-${i}`;
    if (!svc.model.sessionByName(name)) return name;
  }
}

export interface AgentSpec {
  harness: string;
  /** The window's name (default: the harness id). */
  name?: string;
  args?: string[];
  grants?: string[];
}

/** An agent in a new window of `s`. The harness's program must be on the daemon's PATH. */
export async function startAgentWindow(svc: Services, s: Session, a: AgentSpec & { cwd?: string }): Promise<{ window: Window; harness: string; program: string }> {
  const { manifest, program } = await resolveHarness(svc, a.harness);
  const w = svc.model.createWindow(s, { name: a.name ?? manifest.id, argv: [program, ...(a.args ?? [])], cwd: a.cwd, grants: a.grants });
  svc.model.touch(s);
  return { window: w, harness: manifest.id, program };
}

/** A session in a worktree tuios just made, its first window the agent (or a shell), its attributes set. */
export async function worktreeSession(
  svc: Services,
  o: { repo: RepoInfo; wt: NewWorktree; agent?: AgentSpec; grants?: string[]; group?: string | null; launchedBy: string | null; name?: string; pulledFrom?: string; term?: string },
): Promise<{ session: Session; window: Window; harness: string | null }> {
  const s = svc.model.createSession({ name: o.name ?? sessionNameFor(svc, o.repo.name, o.wt.branch), cwd: o.wt.path, term: o.term });
  const attr: WorktreeAttr = {
    path: o.wt.path,
    branch: o.wt.branch,
    base: o.wt.base,
    base_commit: o.wt.base_commit,
    repo: o.repo.commonDir,
    main: o.repo.main,
    name: o.repo.name,
    created_at: Date.now(),
    ...(o.pulledFrom ? { pulled_from: o.pulledFrom } : {}),
  };
  s.attrs.set('worktree', attr);
  if (o.group) s.attrs.set('group', o.group);
  if (o.launchedBy) s.attrs.set('launched_by', o.launchedBy);
  try {
    if (o.agent) {
      const r = await startAgentWindow(svc, s, { ...o.agent, grants: o.agent.grants ?? o.grants, cwd: o.wt.path });
      svc.snapshot.markDirty();
      return { session: s, window: r.window, harness: r.harness };
    }
    const w = svc.model.createWindow(s, { cwd: o.wt.path, grants: o.grants });
    svc.model.touch(s);
    svc.snapshot.markDirty();
    return { session: s, window: w, harness: null };
  } catch (e) {
    svc.model.killSession(s);
    throw e;
  }
}
