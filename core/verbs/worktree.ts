// Worktree verbs (spec: Fleets, Other machines): new-worktree, list-worktrees, diff-worktree,
// remove-worktree and pull-worktree, reached from the CLI as `tuios worktree new|ls|diff|rm|pull`.
import { z } from 'zod';
import { PassThrough } from 'node:stream';
import { existsSync } from 'node:fs';
import { defineVerb } from '../rpc/verb.js';
import { TuiosError } from '../errors.js';
import { enforce, readableSessions } from '../security/access.js';
import type { Services } from '../daemon/services.js';
import type { Session } from '../model/model.js';
import type { Caller } from '../rpc/caller.js';
import { addWorktree, deleteBranchIfEmpty, diffWorktree, dirtyError, removeWorktree, repoAt, resolveCommit, statusOf, worktreePathFor } from '../git/repo.js';
import { git, gitText } from '../git/run.js';
import { listHaves, packWorktree, unpackWorktree, type PullProgress, type UnpackResult } from '../git/transfer.js';
import { firstPrompts, groupOf, worktreeOf, type WorktreeAttr } from '../git/fleet.js';
import { callOnHost, grantsFor, launcherOf, linkedHost, localSession, repoFor, worktreeSession } from '../git/sessions.js';
import type { RemoteTarget } from '../hosts/target.js';
import { WORKTREE_PACK_STREAM } from '../git/pack-stream.js';
import type { RepoInfo } from '../git/repo.js';
import { table, str } from '../rpc/print-helpers.js';
import { STATES } from '../agent-state/state.js';
import { prToken, type PullRequest } from '../git/ship.js';
import { DIFF_LINK_MAX_BYTES, DIFF_LINK_PART_BYTES, GIT_DIFF_BUDGET_MS, GIT_TRANSFER_TIMEOUT_MS, LS_CONCURRENCY } from '../limits.js';

const branchParam = z.string().min(1).max(200).describe('The branch');
const repoParam = z.string().min(1).max(4096).optional().describe('A folder of the repository (default: the caller\'s folder)');
const hostParam = z.string().min(1).max(128).optional().describe('Run it on a linked machine (--repo is then a folder there, absolute)');
const grantsParam = z.array(z.string().max(32)).max(16).optional().describe('What the new pane may do through tuios (read,write,fan,respond,files,task,admin)');

/** Where a first prompt stands (core/git/fleet.ts PromptStatus). */
export const promptStatusSchema = z.enum(['waiting', 'typing', 'taken', 'stalled', 'not_ready', 'failed']);

/** What a removed worktree session answers (remove-worktree, and each of keep-fan's removed). */
export const removedWorktreeSchema = z.object({ session: z.string(), path: z.string(), branch: z.string(), branch_deleted: z.boolean() });

const newWorktreeSchema = z.object({
  /** The linked host it was made on (--host). */
  host: z.string().optional(),
  session: z.string(),
  session_id: z.string(),
  window_id: z.string(),
  path: z.string(),
  branch: z.string(),
  base: z.string(),
  base_commit: z.string(),
  repo: z.string(),
  harness: z.string().nullable(),
});

/** A worktree tuios made, as list-worktrees answers it. */
export const worktreeRowSchema = z.object({
  repo: z.string(),
  repo_dir: z.string(),
  main: z.string().nullable(),
  path: z.string(),
  exists: z.boolean(),
  branch: z.string(),
  base: z.string(),
  base_commit: z.string(),
  session: z.string(),
  session_id: z.string(),
  group: z.string().nullable(),
  window_id: z.string().nullable(),
  harness: z.string().nullable(),
  state: z.enum(STATES),
  prompt_status: promptStatusSchema.nullable(),
  /** Uncommitted entries, untracked files included; null when the worktree is gone or git failed. */
  dirty: z.number().int().nullable(),
  ahead: z.number().int().nullable(),
  head: z.string().nullable(),
  pulled_from: z.string().optional(),
  error: z.string().optional(),
  /** The pull request ship pr recorded (spec: The pull request on the rail). */
  pr: z.object({ number: z.number().int(), url: z.string(), state: z.enum(['open', 'merged', 'closed']), checks: z.enum(['pending', 'pass', 'fail', 'none']) }).nullable(),
});
export type WorktreeRow = z.infer<typeof worktreeRowSchema>;

const diffWorktreeSchema = z.object({
  /** The linked host it was read on (HOST:SESSION). */
  host: z.string().optional(),
  session: z.string(),
  path: z.string(),
  branch: z.string(),
  base: z.string(),
  base_commit: z.string().nullable(),
  from: z.string().nullable(),
  files: z.array(z.object({ path: z.string(), status: z.string(), added: z.number().int().nullable(), deleted: z.number().int().nullable(), binary: z.boolean() })),
  added: z.number().int(),
  deleted: z.number().int(),
  patch: z.string(),
  /** Over the link: the patch in parts, and patch empty. */
  patch_parts: z.array(z.string()).optional(),
  truncated: z.boolean(),
  skipped: z.array(z.object({ path: z.string(), bytes: z.number().int() })),
  commits: z.number().int(),
});
type DiffWorktreeResult = z.infer<typeof diffWorktreeSchema>;

const pullWorktreeSchema = z.object({
  session: z.string(),
  session_id: z.string(),
  /** SESSION, or HOST:SESSION for a pull from a linked host. */
  from: z.string(),
  path: z.string(),
  branch: z.string(),
  head: z.string(),
  base: z.string(),
  base_commit: z.string(),
  counts: z.object({ staged: z.number().int(), modified: z.number().int(), deleted: z.number().int(), untracked: z.number().int() }),
  skipped: z.array(z.object({ path: z.string(), bytes: z.number().int() })),
  bytes: z.number().int(),
  pack_bytes: z.number().int(),
  /** A pull from a linked host: the host. */
  host: z.string().optional(),
  /** A pull on this machine: the commits the pack left out (the clone had them). */
  prerequisites: z.number().int().optional(),
});

function prOf(s: Session): WorktreeRow['pr'] {
  const pr = s.attrs.get('pr') as PullRequest | undefined;
  return pr && typeof pr.number === 'number' ? { number: pr.number, url: pr.url, state: pr.state, checks: pr.checks } : null;
}

/** A worktree session named by a caller, on this machine, with its worktree record. */
function worktreeSessionOf(svc: Services, verb: string, ref: string): { s: Session; wt: WorktreeAttr } {
  const s = localSession(svc, verb, ref);
  const wt = worktreeOf(s);
  if (!wt) throw new TuiosError('not_repo', `The session ${s.name} is not in a worktree tuios made.`, 'List them with: tuios worktree ls');
  return { s, wt };
}

/** The linked host and its session a HOST:SESSION names (the dispatcher parsed it: hostRefs), else null. */
function onHost(remote: RemoteTarget | null): { host: string; session: string } | null {
  return remote?.session ? { host: remote.host, session: remote.session } : null;
}

/** Cuts a byte string at a character boundary. */
function cutUtf8(b: Buffer, end: number): number {
  while (end > 0 && end < b.length && (b[end]! & 0xc0) === 0x80) end--;
  return end;
}

/**
 * A diff answered over the link: the patch in parts no longer than one text the link carries, and
 * cut (truncated) until the whole answer fits in one link frame.
 */
function diffForLink<T extends { patch: string; truncated: boolean }>(d: T): Omit<T, 'patch'> & { patch: string; patch_parts: string[] } {
  let b = Buffer.from(d.patch);
  let truncated = d.truncated;
  for (;;) {
    const parts: string[] = [];
    for (let off = 0; off < b.length; ) {
      let end = cutUtf8(b, Math.min(b.length, off + DIFF_LINK_PART_BYTES));
      if (end <= off) end = Math.min(b.length, off + DIFF_LINK_PART_BYTES);
      parts.push(b.subarray(off, end).toString('utf8'));
      off = end;
    }
    const out = { ...d, patch: '', patch_parts: parts, truncated };
    if (Buffer.byteLength(JSON.stringify(out)) <= DIFF_LINK_MAX_BYTES || b.length === 0) return out;
    b = b.subarray(0, cutUtf8(b, Math.floor(b.length / 2)));
    truncated = true;
  }
}

function check(svc: Services, caller: Caller, verb: string, access: 'read' | 'write', s: Session): void {
  enforce(svc, caller, { verb, access, target: null, sessionId: s.id });
}

/** The session's agent pane: the first window an agent was seen in, else its first window. */
function agentPane(svc: Services, s: Session) {
  const ws = svc.model.windowsOf(s);
  return ws.find((w) => svc.agents.holdsAgent(w)) ?? ws[0] ?? null;
}

/** Removes a worktree session: its session, its worktree, and its branch when that holds nothing new. */
export async function removeAttempt(svc: Services, s: Session, wt: WorktreeAttr, o: { force: boolean; signal?: AbortSignal }): Promise<z.infer<typeof removedWorktreeSchema>> {
  if (existsSync(wt.path) && !o.force) {
    const st = await statusOf(wt.path, o.signal);
    if (st.dirty > 0) throw dirtyError(wt.path, st);
  }
  const cwd = wt.main ?? wt.repo;
  // Its panes' turn checkpoints go with it: their refs live in the repository the worktree shares.
  const refsIn = existsSync(wt.path) ? wt.path : cwd;
  if (existsSync(refsIn)) for (const w of svc.model.windowsOf(s)) await svc.checkpoints.store.remove(refsIn, w.id, { signal: o.signal }).catch(() => 0);
  if (existsSync(wt.path)) await removeWorktree(wt.path, { force: o.force, signal: o.signal });
  else if (existsSync(cwd)) await git(['worktree', 'prune'], { cwd, signal: o.signal, okCodes: [0, 1, 128] }); // removed by hand: forget its record
  if (svc.model.sessions.has(s.id)) svc.model.killSession(s);
  const branchDeleted = existsSync(cwd) ? await deleteBranchIfEmpty(cwd, wt.branch, wt.base_commit, o.signal).catch(() => false) : false;
  return { session: s.name, path: wt.path, branch: wt.branch, branch_deleted: branchDeleted };
}

export const newWorktree = defineVerb({
  name: 'new-worktree',
  link: { untargeted: true },
  access: 'fan',
  summary: 'A git worktree on a new branch and a session in it, optionally with an agent',
  help: 'The worktree goes under the state folder (worktrees/REPO-HASH/BRANCH); its base (--base, else the checked-out branch) is recorded for diffs, fan keep --merge and reviews. --agent starts that harness in the session\'s first window; otherwise it runs your shell. An existing branch is checked out instead of made.',
  target: 'none',
  mutates: true,
  cli: { positionals: ['branch'], short: { a: 'agent' }, comma: ['grants'], usage: 'worktree new BRANCH [--agent HARNESS] [--base REF] [--repo PATH] [--host HOST]' },
  params: z.object({
    branch: branchParam,
    agent: z.string().min(1).max(64).optional().describe('A harness to start in the worktree (claude, codex, ...)'),
    base: z.string().min(1).max(200).optional().describe('What the branch starts from (default: the checked-out branch)'),
    repo: repoParam,
    name: z.string().min(1).max(128).optional().describe('The session name (default REPO-BRANCH)'),
    grants: grantsParam,
    host: hostParam,
    term: z.string().max(64).optional().describe('TERM of the client'),
  }),
  result: newWorktreeSchema,
  print: (r) => `${r.session}  ${r.path}  (${r.branch} from ${r.base})`,
  // The checkout of a large repository (worktree add is bounded at this).
  budgetMs: () => GIT_TRANSFER_TIMEOUT_MS,
  async run({ params, svc, caller, signal }) {
    const host = linkedHost(svc, params.host);
    // The host runs this verb, so its answer is this record's result.
    if (host) return { host, ...((await callOnHost(svc, caller, 'new-worktree', host, params, signal)) as z.infer<typeof newWorktreeSchema>) };
    const grants = grantsFor(svc, caller, params.grants);
    const repo = await repoFor(svc, caller, params.repo, signal);
    const wt = await addWorktree(repo, { branch: params.branch, base: params.base, path: worktreePathFor(svc.paths.stateDir, repo, params.branch), signal });
    try {
      const r = await worktreeSession(svc, { repo, wt, agent: params.agent ? { harness: params.agent } : undefined, grants, launchedBy: launcherOf(svc, caller), name: params.name, term: params.term });
      return { session: r.session.name, session_id: r.session.id, window_id: r.window.id, path: wt.path, branch: wt.branch, base: wt.base, base_commit: wt.base_commit, repo: repo.name, harness: r.harness };
    } catch (e) {
      await removeWorktree(wt.path, { force: true }).catch(() => undefined);
      if (wt.created_branch) await deleteBranchIfEmpty(repo.top, wt.branch, wt.base_commit).catch(() => undefined);
      throw e;
    }
  },
});

async function pool<T, R>(items: T[], n: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  }));
  return out;
}

export const listWorktrees = defineVerb({
  name: 'list-worktrees',
  summary: 'The worktrees tuios made, grouped by repository, with their agent and uncommitted work',
  help: 'Each entry: path, branch, base, base_commit, session, group, the agent pane (harness, state, first prompt), dirty (uncommitted entries, untracked files included), ahead (commits past the base) and head. --group narrows to one fan.',
  target: 'none',
  mutates: false,
  cli: {
    aliases: ['worktree', 'worktrees'],
    subcommands: { new: 'new-worktree', ls: 'list-worktrees', list: 'list-worktrees', diff: 'diff-worktree', rm: 'remove-worktree', remove: 'remove-worktree', pull: 'pull-worktree' },
    usage: 'worktree ls [--json] [--group GLOB] | worktree new|diff|rm|pull ...',
  },
  params: z.object({
    group: z.string().min(1).max(200).optional().describe('Only this fan group'),
  }),
  result: z.object({
    repositories: z.array(z.object({ repo: z.string(), name: z.string(), main: z.string().nullable(), worktrees: z.array(worktreeRowSchema) })),
    worktrees: z.array(worktreeRowSchema),
  }),
  print: (r) => {
    if (r.repositories.length === 0) return 'no worktrees';
    return r.repositories
      .map((g) => `${g.name}${g.main ? `  (${g.main})` : ''}\n` + table([['SESSION', 'BRANCH', 'BASE', 'AGENT', 'STATE', 'DIRTY', 'AHEAD', 'PR', 'PATH'], ...g.worktrees.map((w) => [w.session, w.branch, w.base, str(w.harness), w.state + (w.prompt_status ? ` (prompt ${w.prompt_status})` : ''), str(w.dirty), str(w.ahead), w.pr ? prToken(w.pr) : '-', w.path])]).replace(/^/gm, '  '))
      .join('\n\n');
  },
  async run({ params, svc, caller, signal }) {
    const may = readableSessions(svc, caller);
    const sessions = [...svc.model.sessions.values()].filter((s) => worktreeOf(s) && may(s.id) && (!params.group || groupOf(s) === params.group));
    const rows = await pool(sessions, LS_CONCURRENCY, async (s) => {
      const wt = worktreeOf(s)!;
      const w = agentPane(svc, s);
      const exists = existsSync(wt.path);
      let dirty: number | null = null;
      let head: string | null = null;
      let ahead: number | null = null;
      let error: string | undefined;
      if (exists) {
        try {
          const [st, h] = await Promise.all([statusOf(wt.path, signal), resolveCommit(wt.path, 'HEAD', signal)]);
          dirty = st.dirty;
          head = h;
          if (h) ahead = Number(await gitText(['rev-list', '--count', `${wt.base_commit}..${h}`], { cwd: wt.path, signal }));
        } catch (e) {
          error = e instanceof Error ? e.message : String(e);
        }
      }
      const fp = w ? firstPrompts(svc).statusOf(w) : null;
      return {
        repo: wt.name,
        repo_dir: wt.repo,
        main: wt.main,
        path: wt.path,
        exists,
        branch: wt.branch,
        base: wt.base,
        base_commit: wt.base_commit,
        session: s.name,
        session_id: s.id,
        group: groupOf(s),
        window_id: w?.id ?? null,
        harness: w ? svc.agents.harnessOf(w) : null,
        state: w ? svc.agents.stateOf(w) : 'none',
        prompt_status: fp?.status ?? null,
        dirty,
        ahead,
        head,
        ...(wt.pulled_from ? { pulled_from: wt.pulled_from } : {}),
        pr: prOf(s),
        ...(error ? { error } : {}),
      };
    });
    const byRepo = new Map<string, { repo: string; name: string; main: string | null; worktrees: typeof rows }>();
    for (const r of rows) {
      let g = byRepo.get(r.repo_dir);
      if (!g) byRepo.set(r.repo_dir, (g = { repo: r.repo_dir, name: r.repo, main: r.main, worktrees: [] }));
      g.worktrees.push(r);
    }
    const repositories = [...byRepo.values()].sort((a, b) => a.name.localeCompare(b.name));
    for (const g of repositories) g.worktrees.sort((a, b) => a.branch.localeCompare(b.branch));
    return { repositories, worktrees: repositories.flatMap((g) => g.worktrees) };
  },
});

export const diffWorktreeVerb = defineVerb({
  name: 'diff-worktree',
  hostRefs: true,
  link: { untargeted: true, right: 'files' },
  summary: 'What a worktree session changed against its base: commits and uncommitted work together',
  help: 'Untracked files show with status U; ignored files are left out. The working state is read through a temporary copy of the index, so the worktree, its index and what was staged are never changed. A diff stops at 400 files or 2 MiB of text (truncated); all its git calls are bounded at 10 s together. --stat leaves the patch out. HOST:SESSION reads a worktree on a linked host, which needs files = true in that host\'s [hosts] table for this machine (a diff is the files\' content, as a pull is); over the link the patch is cut to fit one answer (truncated).',
  target: 'none',
  mutates: false,
  cli: { positionals: ['session'], usage: 'worktree diff [HOST:]SESSION [--stat]' },
  params: z.object({
    session: z.string().min(1).max(300).describe('The worktree session'),
    stat: z.boolean().optional().describe('Counts only, no patch'),
  }),
  result: diffWorktreeSchema,
  print: (r) => {
    const files = r.files;
    const head = `${r.session}: ${files.length} file${files.length === 1 ? '' : 's'}, +${r.added} -${r.deleted}, ${r.commits} commit${r.commits === 1 ? '' : 's'} past ${r.base}${r.truncated ? ' (truncated)' : ''}`;
    const list = files.map((f) => `${f.status} ${f.path}  ${f.added === null ? 'binary' : `+${f.added} -${f.deleted}`}`).join('\n');
    return [head, list, r.patch ? '\n' + r.patch.replace(/\n$/, '') : ''].filter(Boolean).join('\n');
  },
  async run({ params, svc, caller, signal, remote }) {
    const there = onHost(remote);
    if (there) {
      // The host runs this verb for a link caller: its answer is this record's result, the patch in parts.
      const r = (await callOnHost(svc, caller, 'diff-worktree', there.host, { stat: params.stat }, signal, there.session)) as DiffWorktreeResult;
      const { patch_parts: parts, ...rest } = r;
      return { host: there.host, ...rest, patch: Array.isArray(parts) ? parts.filter((x) => typeof x === 'string').join('') : (rest.patch ?? '') };
    }
    const { s, wt } = worktreeSessionOf(svc, 'worktree diff', params.session);
    check(svc, caller, 'diff-worktree', 'read', s);
    if (!existsSync(wt.path)) throw new TuiosError('not_repo', `The worktree ${wt.path} of ${s.name} is gone.`, 'Remove the session with: tuios worktree rm ' + s.name + ' --force');
    const d = await diffWorktree(wt.path, wt.base_commit, { signal, patch: !params.stat, budgetMs: GIT_DIFF_BUDGET_MS });
    const out = { session: s.name, path: wt.path, branch: wt.branch, base: wt.base, ...d };
    return caller.channel === 'link' ? diffForLink(out) : out;
  },
});

export const removeWorktreeVerb = defineVerb({
  name: 'remove-worktree',
  hostRefs: true,
  link: { untargeted: true },
  summary: 'Remove a worktree session: its session, its worktree, and its branch if it holds nothing new',
  help: 'Refuses a worktree with uncommitted work (tracked changes or untracked files) with dirty_worktree, listing them, unless --force. A branch with commits its base lacks is kept (branch_deleted: false). HOST:SESSION removes one on a linked host, which needs write there, with the same refusal.',
  target: 'none',
  mutates: true,
  cli: { positionals: ['session'], short: { f: 'force' }, usage: 'worktree rm [HOST:]SESSION [--force]' },
  params: z.object({
    session: z.string().min(1).max(300).describe('The worktree session'),
    force: z.boolean().optional().describe('Remove it even with uncommitted work (it is lost)'),
  }),
  result: z.object({
    /** The linked host it was removed on (HOST:SESSION). */
    host: z.string().optional(),
    removed: removedWorktreeSchema,
  }),
  print: (r) => `removed ${r.removed.session} (${r.removed.path})${r.removed.branch_deleted ? '' : `; branch ${r.removed.branch} kept`}`,
  async run({ params, svc, caller, signal, remote }) {
    const there = onHost(remote);
    // The host runs this verb, so its answer is this record's result.
    if (there) return { host: there.host, ...((await callOnHost(svc, caller, 'remove-worktree', there.host, { force: params.force }, signal, there.session)) as { removed: z.infer<typeof removedWorktreeSchema> }) };
    const { s, wt } = worktreeSessionOf(svc, 'worktree rm', params.session);
    check(svc, caller, 'remove-worktree', 'write', s);
    return { removed: await removeAttempt(svc, s, wt, { force: !!params.force, signal }) };
  },
});

/** The base of a pulled worktree: the sender's when this clone has it, else where HEAD meets this clone's. */
async function pulledBase(dest: RepoInfo, r: { base: string | null; base_commit: string | null; head: string }) {
  const baseCommit = r.base_commit ?? (dest.head ? (await git(['merge-base', dest.head, r.head], { cwd: dest.top, okCodes: [0, 1] })).stdout.toString().trim() || r.head : r.head);
  const base = r.base_commit ? (r.base ?? r.base_commit) : dest.branch ?? baseCommit;
  return { base, baseCommit };
}

/**
 * worktree pull HOST:SESSION: the host packs its session's worktree into a `worktree-pack` link
 * stream (core/git/pack-stream.ts) against the commits this clone has, and it is unpacked here. A
 * refusal there (forbidden, not found) or a link that drops ends the stream with its reason,
 * which this call answers; unpackWorktree leaves nothing behind.
 */
async function pullFromHost(svc: Services, caller: Caller, host: string, session: string, params: { repo?: string; branch?: string; term?: string; progress_id?: string }, signal: AbortSignal) {
  const remote = svc.remote;
  if (!remote) throw new TuiosError('unsupported', 'This daemon has no link between hosts.', `Run it on ${host} itself.`);
  if (caller.channel === 'link') throw new TuiosError('forbidden', 'A call from a linked host does not travel on to another machine.');
  // As for any call that reaches another machine: a caller in a pane needs admin.
  enforce(svc, caller, { verb: 'pull-worktree', access: 'admin', target: null });
  const dest = await repoFor(svc, caller, params.repo, signal);
  const haves = await listHaves(dest.top, signal);
  const from = `${host}:${session}`;
  const progress = (p: PullProgress) => svc.bus.publish('worktree-progress', { session_id: from, phase: p.phase, bytes: p.bytes, objects: p.objects ?? 0, files: p.files ?? 0, pull_id: params.progress_id ?? null });
  const st = remote.openStream(host, WORKTREE_PACK_STREAM, { session, haves, early_base: true });
  let r;
  try {
    r = await unpackWorktree(st, { repo: dest, dest: (branch) => worktreePathFor(svc.paths.stateDir, dest, branch), branch: params.branch, onProgress: progress, signal });
  } catch (e) {
    // The other side's reason, typed, over the cut it caused here.
    if (st.closeReason) {
      const m = /^([a-z_]+): (.*)$/s.exec(st.closeReason);
      if (m && m[1] !== 'closed' && !(e instanceof TuiosError && e.code === m[1])) throw new TuiosError(m[1] as 'forbidden', m[2]!);
    }
    throw e;
  } finally {
    if (!st.destroyed) st.destroy();
  }
  return { ...(await openPulled(svc, caller, dest, r, from, params.term)), host };
}

/** The session in a pulled worktree, and what the pull answers: the same here and from a host. */
async function openPulled(svc: Services, caller: Caller, dest: RepoInfo, r: UnpackResult, from: string, term: string | undefined) {
  const { base, baseCommit } = await pulledBase(dest, r);
  const wt = { path: r.path, branch: r.branch, base, base_commit: baseCommit, created_branch: true };
  const sess = await worktreeSession(svc, { repo: dest, wt, grants: grantsFor(svc, caller, undefined), launchedBy: launcherOf(svc, caller), pulledFrom: from, term });
  return {
    session: sess.session.name,
    session_id: sess.session.id,
    from,
    path: r.path,
    branch: r.branch,
    head: r.head,
    base,
    base_commit: baseCommit,
    counts: r.counts,
    skipped: r.skipped,
    bytes: r.bytes,
    pack_bytes: r.pack_bytes,
  };
}

export const pullWorktree = defineVerb({
  name: 'pull-worktree',
  hostRefs: true,
  access: 'fan',
  summary: 'Bring a worktree session\'s commits and uncommitted work into a new worktree of another clone',
  help: 'The commits arrive as commits (the same hashes), the uncommitted work as uncommitted work: modified, staged, deleted and untracked files as they were. The source worktree and its index are not touched. The new worktree has the same branch name, suffixed (-2) when the clone has that branch; a session opens in it. A transfer that fails midway leaves nothing behind. HOST:SESSION pulls from a linked host over the link, which needs files = true in that host\'s [hosts] table for this machine. Progress goes out as worktree-progress events (tuios subscribe worktree-progress: phase, bytes, objects (of the packs), files (sent as they are), and pull_id, the --progress-id the caller gave); at a terminal the CLI draws them on stderr as one line, and prints nothing of them when stderr is not a terminal or with --json.',
  target: 'none',
  mutates: true,
  cli: { positionals: ['session'], short: { b: 'branch' }, usage: 'worktree pull [HOST:]SESSION [--repo PATH] [--branch NAME]' },
  params: z.object({
    session: z.string().min(1).max(300).describe('The session whose worktree is pulled (HOST:SESSION on a linked machine)'),
    repo: repoParam,
    branch: z.string().min(1).max(200).optional().describe('The branch name here (default: the source\'s)'),
    term: z.string().max(64).optional().describe('TERM of the client'),
    progress_id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/).optional().describe('A token this pull\'s worktree-progress events carry as pull_id'),
  }),
  result: pullWorktreeSchema,
  print: (r) => `${r.session}  ${r.path}  (${r.branch} at ${r.head.slice(0, 12)}, ${Math.round(r.bytes / 1024)} KB)`,
  async run({ params, svc, caller, signal, remote }) {
    const there = onHost(remote);
    if (there) return pullFromHost(svc, caller, there.host, there.session, params, signal);
    const src = localSession(svc, 'worktree pull', params.session);
    check(svc, caller, 'pull-worktree', 'read', src);
    const srcWt = worktreeOf(src);
    const srcDir = srcWt?.path ?? src.cwd;
    const from = await repoAt(srcDir, signal);
    const dest = await repoFor(svc, caller, params.repo, signal);
    if (dest.commonDir === from.commonDir) {
      throw new TuiosError('conflict', `${src.name} is already a worktree of ${dest.name}.`, 'Pull into another clone with --repo PATH.', { field: 'repo' });
    }
    const progress = (p: PullProgress) => svc.bus.publish('worktree-progress', { session_id: src.id, phase: p.phase, bytes: p.bytes, objects: p.objects ?? 0, files: p.files ?? 0, pull_id: params.progress_id ?? null });
    const haves = await listHaves(dest.top, signal);
    const branchHint = params.branch ?? from.branch ?? srcWt?.branch ?? 'pulled';
    const destPath = worktreePathFor(svc.paths.stateDir, dest, branchHint);
    const pipe = new PassThrough({ highWaterMark: 1024 * 1024 });
    const unpacked = unpackWorktree(pipe, { repo: dest, dest: destPath, branch: params.branch, onProgress: progress, signal }).catch((e: unknown) => {
      pipe.destroy();
      throw e;
    });
    const packed = packWorktree(from.top, pipe, { haves, base: srcWt ? { name: srcWt.base, commit: srcWt.base_commit } : undefined, signal, earlyBase: true });
    const [u, p] = await Promise.allSettled([unpacked, packed]);
    // The side that failed first has the reason; the other only saw its stream cut.
    const isCut = (e: unknown) => e instanceof TuiosError && e.extra.reason === 'cut';
    if (p.status === 'rejected' && (u.status === 'fulfilled' || isCut(u.reason) || !isCut(p.reason))) throw p.reason;
    if (u.status === 'rejected') throw u.reason;
    if (p.status === 'rejected') throw p.reason;
    return { ...(await openPulled(svc, caller, dest, u.value, src.name, params.term)), prerequisites: p.value.header.prerequisites.length };
  },
});
