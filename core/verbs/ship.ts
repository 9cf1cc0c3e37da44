// The ship verbs (spec: Shipping a worktree): ship-commit, ship-merge, ship-push, ship-pr and
// ship-status, reached as `tuios ship commit|merge|push|pr|status`. The pane is found as for
// review-diff; the git steps are core/git/ship.ts, each journalled before it runs.
import { z } from 'zod';
import { defineVerb } from '../rpc/verb.js';
import { TuiosError } from '../errors.js';
import { enforce } from '../security/access.js';
import type { Services } from '../daemon/services.js';
import type { Caller } from '../rpc/caller.js';
import type { Window } from '../model/window.js';
import type { Session } from '../model/model.js';
import { paneRepo, reviewPane } from '../review/target.js';
import { checkGh, createPr, lastSubject, pushPlan, shipCommit as commitWork, shipMerge as mergeWork, shipPush as pushWork, viewPr, type PullRequest, type PushPlan } from '../git/ship.js';
import { statusOf, dirtyError } from '../git/repo.js';
import { gitText } from '../git/run.js';
import { worktreeOf } from '../git/fleet.js';
import { SHIP_APPROVAL_WAIT_MS } from '../limits.js';
import { recordPr } from '../git/pr-poll.js';

declare module '../bus.js' {
  interface EventMap {
    /** A ship call's step as it starts (stage, commit, merge, push, pr); `ship_id` is the caller's progress_id. */
    'ship-progress': { session_id: string; window_id: string; op: string; step: string; ship_id: string | null };
  }
}

const refParams = {
  session: z.string().min(1).max(300).optional().describe('The worktree session: its agent pane (-s)'),
  window: z.string().min(1).max(300).optional().describe('The pane (-w); default: your own pane'),
  progress_id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/).optional().describe('A token this call\'s ship-progress events carry as ship_id'),
};

const prSchema = z.object({ number: z.number().int(), url: z.string(), state: z.enum(['open', 'merged', 'closed']), checks: z.enum(['pending', 'pass', 'fail', 'none']), title: z.string(), at: z.number() });

/** You (outside every pane, unrestricted, on this machine): git runs as you, with your hooks. */
function isPerson(svc: Services, caller: Caller): boolean {
  return caller.channel !== 'link' && !caller.restrictedTo && svc.placement(caller).kind === 'outside';
}

function paneFor(svc: Services, caller: Caller, params: { session?: string; window?: string }, window: Window | null, verb: string): Window {
  const w = params.window === undefined && params.session !== undefined ? reviewPane(svc, caller, params, verb) : window;
  return reviewPane(svc, caller, { window: (w ?? reviewPane(svc, caller, params, verb)).id }, verb);
}

function progressOf(svc: Services, w: Window, op: string, id: string | undefined) {
  return (step: string) => svc.bus.publish('ship-progress', { session_id: w.sessionId, window_id: w.id, op, step, ship_id: id ?? null });
}

/** Write on the pane, which must hold no grant the caller does not. */
function checkWrite(svc: Services, caller: Caller, verb: string, w: Window): void {
  enforce(svc, caller, { verb, access: 'write', target: w, sessionId: w.sessionId, types: true, blockedCheck: false });
}

/** The worktree tuios made for the pane's session; merge, push and pr need one. */
function worktreeFor(s: Session, verb: string) {
  const wt = worktreeOf(s);
  if (!wt) throw new TuiosError('not_repo', `${s.name} is not in a worktree tuios made, so ${verb} has no base to take it to.`, 'Use tuios worktree new or tuios fan for work you mean to ship.');
  return wt;
}

/** The newest checkpoint's label: the pane's last prompt, or the line its last turn ended with. */
async function lastTurnLabel(svc: Services, w: Window, signal: AbortSignal): Promise<string | null> {
  try {
    const list = await svc.checkpoints.store.list(svc.checkpoints.dirOf(w), w.id, { signal });
    return list.find((c) => c.label.trim())?.label ?? null;
  } catch {
    return null;
  }
}

export const shipCommit = defineVerb({
  name: 'ship-commit',
  summary: 'Commit the work in a pane\'s worktree: tracked changes and untracked files, as you',
  help: 'git runs with your environment: your name, email, signing and hooks make the commit; tuios adds nothing to the message. Without -m the message is the pane\'s last prompt, or the line its last turn ended with. A hook or signing that refuses leaves the index as it was. Refused while the agent is working or needs input, unless --force. From inside a pane git runs with no hooks, and it needs write on a pane that holds nothing the caller does not.',
  target: 'window',
  mutates: true,
  access: 'write',
  cli: { aliases: ['ship'], subcommands: { commit: 'ship-commit', merge: 'ship-merge', push: 'ship-push', pr: 'ship-pr', status: 'ship-status' }, short: { m: 'message', f: 'force' }, usage: "ship commit [-s SESSION|-w WINDOW] [-m 'MESSAGE'] [--force] | ship merge|push|pr|status ..." },
  params: z.object({
    ...refParams,
    message: z.string().min(1).max(10_000).optional().describe('The commit message (default: the last prompt)'),
    force: z.boolean().optional().describe('Commit even while the agent is working or needs input'),
  }),
  result: z.object({ session: z.string(), window_id: z.string(), path: z.string(), branch: z.string().nullable(), commit: z.string(), files: z.number().int(), message: z.string() }),
  print: (r) => `committed ${r.commit.slice(0, 12)} on ${r.branch ?? 'a detached HEAD'} (${r.files} file${r.files === 1 ? '' : 's'})`,
  async run({ params, svc, caller, window, signal }) {
    const w = paneFor(svc, caller, params, window, 'ship-commit');
    checkWrite(svc, caller, 'ship-commit', w);
    const state = svc.agents.stateOf(w);
    if (!params.force && state === 'working') throw new TuiosError('not_ready', `The agent in ${w.name} is working: it may still be writing files.`, 'Wait for its turn to end, or pass --force.', { state });
    if (!params.force && state === 'needs_input') throw new TuiosError('agent_blocked', `The agent in ${w.name} is waiting on a prompt, mid-turn.`, 'Answer it and let the turn end, or pass --force.', { state });
    const pr = await paneRepo(svc, w, signal);
    const message = params.message ?? (await lastTurnLabel(svc, w, signal));
    if (!message) throw new TuiosError('invalid_params', `${w.name} has no last prompt to take a message from.`, "Give one with -m 'MESSAGE'.", { field: 'message' });
    const r = await commitWork(pr.top, message, { journal: svc.ship, asPerson: isPerson(svc, caller), signal, progress: progressOf(svc, w, 'commit', params.progress_id) });
    return { session: pr.session.name, window_id: w.id, path: pr.top, branch: r.branch, commit: r.commit, files: r.files, message };
  },
});

export const shipMerge = defineVerb({
  name: 'ship-merge',
  summary: 'Merge a worktree\'s branch into the base it was made from, in the main checkout',
  help: 'The main checkout must have the base checked out and no uncommitted change to a tracked file (checkout_dirty). The worktree\'s own uncommitted work is refused (dirty_worktree): ship commit first. A conflict is undone with git reset --merge and its files listed (merge_conflict); the main checkout is then as it was. --squash makes one commit; --ff-only refuses a branch that cannot be fast-forwarded. Nothing is forced.',
  target: 'window',
  mutates: true,
  access: 'write',
  cli: { usage: 'ship merge [-s SESSION|-w WINDOW] [--squash] [--ff-only]' },
  params: z.object({
    ...refParams,
    squash: z.boolean().optional().describe('One commit of the branch\'s changes'),
    ff_only: z.boolean().optional().describe('Only a fast-forward'),
  }),
  result: z.object({ session: z.string(), branch: z.string(), into: z.string(), main: z.string(), commit: z.string(), fast_forward: z.boolean(), squashed: z.boolean() }),
  print: (r) => `merged ${r.branch} into ${r.into} (${r.commit.slice(0, 12)}${r.fast_forward ? ', fast-forward' : r.squashed ? ', squashed' : ''}) in ${r.main}`,
  async run({ params, svc, caller, window, signal }) {
    if (params.squash && params.ff_only) throw new TuiosError('invalid_params', '--squash and --ff-only do not go together.', 'Pick one.', { field: 'ff_only' });
    const w = paneFor(svc, caller, params, window, 'ship-merge');
    checkWrite(svc, caller, 'ship-merge', w);
    const s = svc.model.sessionOf(w);
    const wt = worktreeFor(s, 'ship merge');
    if (!wt.main) throw new TuiosError('not_repo', `The repository of ${s.name} has no main checkout to merge into.`);
    if (/^[0-9a-f]{40}$/.test(wt.base)) throw new TuiosError('conflict', `${s.name} was made from a commit (${wt.base.slice(0, 12)}), not a branch, so it has no base to merge into.`, 'Merge it by hand.');
    const st = await statusOf(wt.path, signal);
    if (st.dirty > 0) {
      const e = dirtyError(wt.path, st);
      throw new TuiosError('dirty_worktree', e.message, 'Commit it first with: tuios ship commit -s ' + s.name, e.extra);
    }
    const ahead = Number(await gitText(['rev-list', '--count', `refs/heads/${wt.base}..refs/heads/${wt.branch}`], { cwd: wt.main, signal }));
    if (ahead === 0) throw new TuiosError('conflict', `${wt.branch} holds no commit ${wt.base} lacks.`, 'Commit the work first: tuios ship commit -s ' + s.name, { reason: 'nothing_to_merge' });
    const r = await mergeWork(wt.main, wt.branch, wt.base, { journal: svc.ship, asPerson: isPerson(svc, caller), squash: params.squash, ffOnly: params.ff_only, signal, progress: progressOf(svc, w, 'merge', params.progress_id) });
    return { session: s.name, branch: wt.branch, into: wt.base, main: wt.main, commit: r.commit, fast_forward: r.fast_forward, squashed: r.squashed };
  },
});

const planSchema = z.object({ branch: z.string(), commit: z.string(), remote: z.string(), commits: z.number().int(), pr: z.string().nullable() });

/**
 * Sends work off this machine only with a yes: the confirm token of what is there now, and from a
 * pane (or a restricted connection) also the person's allow in the Inbox.
 */
async function approved(svc: Services, caller: Caller, w: Window, plan: PushPlan, p: { confirm?: string; request_id?: number; wait_ms?: number }, verb: string, signal: AbortSignal): Promise<void> {
  if (caller.channel === 'link') throw new TuiosError('forbidden', `${verb} is refused over a link: a push leaves from the machine that holds the work.`, 'Run it on that machine.');
  if (p.confirm !== plan.token) {
    const { token, ...what } = plan;
    throw new TuiosError('confirm_required', `${verb} would send ${plan.branch} (${plan.commit.slice(0, 12)}, ${plan.commits} commit${plan.commits === 1 ? '' : 's'}) to ${plan.remote}${plan.pr ? ` (${plan.pr})` : ''}.`, 'Call again with --confirm TOKEN (the CLI asks [y/N], or takes --yes).', { would_send: what, confirm: token });
  }
  if (isPerson(svc, caller)) return;
  const question = `Push ${plan.branch} (${plan.commit.slice(0, 7)}) to ${plan.remote}?`;
  const q = p.request_id !== undefined ? svc.asks.get(p.request_id) : svc.asks.ask(w.id, question, ['allow', 'deny']);
  if (!q || q.question !== question) throw new TuiosError('not_found', `There is no open question ${p.request_id} for this push.`, 'Call again without request_id to ask the person anew.');
  const o = await svc.asks.wait(q, p.wait_ms ?? SHIP_APPROVAL_WAIT_MS, signal);
  if (o.status === 'pending') throw new TuiosError('not_ready', 'The person has not answered yet; the question stays in the Inbox.', `Call again with --request-id ${q.id} to wait for it.`, { request_id: q.id });
  if (o.status === 'dismissed' || o.answer !== 'allow') throw new TuiosError('forbidden', `The person did not allow the push of ${plan.branch}.`);
}

const sendParams = {
  ...refParams,
  remote: z.string().min(1).max(200).optional().describe('The remote (default: the branch\'s upstream, else origin)'),
  confirm: z.string().max(64).optional().describe('The token of what is sent, from the first answer'),
  request_id: z.number().int().min(1).optional().describe('Wait again for the person\'s answer to this question'),
  wait_ms: z.number().int().min(0).max(10 * 60_000).optional().describe('How long to wait for the person\'s yes (default two minutes)'),
};

export const shipPush = defineVerb({
  name: 'ship-push',
  summary: 'Push a worktree\'s branch to its remote, after a yes; never forced',
  help: 'The first call answers confirm_required with what it would send and a token (a hash of the branch, its commit, the remote and the pull request); the push goes ahead only with the token of what is there now. From a pane, or a connection limited with restrict-connection, it also needs your allow in the Inbox ("Push BRANCH (abc1234) to origin?"); it waits two minutes, then answers not_ready with request_id to wait again. Over a link a push is refused.',
  target: 'window',
  mutates: true,
  access: 'write',
  budgetMs: (p) => (p.wait_ms ?? SHIP_APPROVAL_WAIT_MS) + 10 * 60_000,
  cli: { usage: 'ship push [-s SESSION|-w WINDOW] [--remote NAME] [--yes]' },
  params: z.object(sendParams),
  result: z.object({ session: z.string(), pushed: planSchema }),
  print: (r) => `pushed ${r.pushed.branch} (${r.pushed.commit.slice(0, 12)}) to ${r.pushed.remote}`,
  async run({ params, svc, caller, window, signal }) {
    const w = paneFor(svc, caller, params, window, 'ship-push');
    checkWrite(svc, caller, 'ship-push', w);
    const pr = await paneRepo(svc, w, signal);
    const plan = await pushPlan(pr.top, { remote: params.remote, signal });
    await approved(svc, caller, w, plan, params, 'ship-push', signal);
    await pushWork(pr.top, plan, { journal: svc.ship, asPerson: isPerson(svc, caller), signal, progress: progressOf(svc, w, 'push', params.progress_id) });
    const { token: _t, ...pushed } = plan;
    return { session: pr.session.name, pushed };
  },
});


export const shipPr = defineVerb({
  name: 'ship-pr',
  summary: 'Push a worktree\'s branch and open a pull request with your gh',
  help: 'Runs your own gh (gh pr create, gh pr view); tuios holds no GitHub token. Without gh, or with gh not logged in, it stops with gh_unavailable before anything is pushed. It asks first as ship push does (confirm_required, and your allow in the Inbox for a pane). A branch with an open pull request has it updated by the push. The pull request is recorded on the session: ship status shows it, and the rail\'s agent rows.',
  target: 'window',
  mutates: true,
  access: 'write',
  budgetMs: (p) => (p.wait_ms ?? SHIP_APPROVAL_WAIT_MS) + 10 * 60_000,
  cli: { usage: "ship pr [-s SESSION|-w WINDOW] [--draft] [--title T] [--body B] [--yes]" },
  params: z.object({
    ...sendParams,
    draft: z.boolean().optional().describe('Open it as a draft'),
    title: z.string().min(1).max(300).optional().describe('Its title (default: the newest commit\'s subject)'),
    body: z.string().max(60_000).optional().describe('Its description'),
  }),
  result: z.object({ session: z.string(), pushed: planSchema, pr: prSchema, created: z.boolean() }),
  print: (r) => `PR #${r.pr.number} ${r.pr.state} ${r.pr.checks}  ${r.pr.url}${r.created ? '' : ' (updated by the push)'}`,
  async run({ params, svc, caller, window, signal }) {
    const w = paneFor(svc, caller, params, window, 'ship-pr');
    checkWrite(svc, caller, 'ship-pr', w);
    const s = svc.model.sessionOf(w);
    const wt = worktreeFor(s, 'ship pr');
    await checkGh(wt.path, signal);
    const existing = await viewPr(wt.path, wt.branch, signal);
    const open = existing && existing.state === 'open' ? existing : null;
    const plan = await pushPlan(wt.path, { remote: params.remote, pr: open ? `PR #${open.number}` : 'new pull request', signal });
    await approved(svc, caller, w, plan, params, 'ship-pr', signal);
    const progress = progressOf(svc, w, 'pr', params.progress_id);
    await pushWork(wt.path, plan, { journal: svc.ship, asPerson: isPerson(svc, caller), signal, progress });
    if (!open) {
      progress('pr');
      await createPr(wt.path, { branch: plan.branch, base: wt.base, title: params.title ?? (await lastSubject(wt.path, signal)), body: params.body ?? '', draft: !!params.draft, signal });
    }
    const now = await viewPr(wt.path, wt.branch, signal);
    if (!now) throw new TuiosError('gh_unavailable', 'gh made the pull request but does not find it.', 'Look with gh pr view.');
    recordPr(svc.bus, s, now);
    const { token: _t, ...pushed } = plan;
    return { session: s.name, pushed, pr: now, created: !open };
  },
});

export const shipStatus = defineVerb({
  name: 'ship-status',
  summary: 'A worktree\'s pull request and its checks, and what the last start found of an unfinished ship step',
  help: '--refresh asks gh again (gh pr view) and records the answer on the session. recovered lists what the daemon found at its last start of a ship step a killed daemon left (undone or kept, in a sentence).',
  target: 'window',
  mutates: false,
  cli: { usage: 'ship status [-s SESSION|-w WINDOW] [--refresh]' },
  params: z.object({ ...refParams, refresh: z.boolean().optional().describe('Ask gh again') }),
  result: z.object({
    session: z.string(),
    branch: z.string().nullable(),
    pr: prSchema.nullable(),
    recovered: z.array(z.object({ op: z.string(), step: z.string(), cwd: z.string(), branch: z.string().nullable(), outcome: z.string(), at: z.number() })),
  }),
  print: (r) => [r.pr ? `PR #${r.pr.number} ${r.pr.state} ${r.pr.checks}  ${r.pr.url}` : 'no pull request recorded', ...r.recovered.map((f) => `at start: an unfinished ${f.op} (${f.step}) in ${f.cwd}: ${f.outcome}`)].join('\n'),
  async run({ params, svc, caller, window, signal }) {
    const w = paneFor(svc, caller, params, window, 'ship-status');
    enforce(svc, caller, { verb: 'ship-status', access: 'read', target: null, sessionId: w.sessionId });
    const s = svc.model.sessionOf(w);
    const wt = worktreeOf(s);
    let pr = (s.attrs.get('pr') as PullRequest | undefined) ?? null;
    if (params.refresh && wt) {
      pr = await viewPr(wt.path, wt.branch, signal);
      if (pr) recordPr(svc.bus, s, pr);
    }
    return { session: s.name, branch: wt?.branch ?? null, pr, recovered: svc.ship.found };
  },
});
