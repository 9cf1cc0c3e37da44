// Starting agents (spec: Fleets, States): start-agent (one agent in a new pane, ready when it is
// idle or done), fan-out (`tuios fan N`: N worktrees with an agent each, each prompt typed once its
// agent is ready) and keep-fan (`tuios fan keep`: keep one attempt, remove the others without
// losing uncommitted work).
import { z } from 'zod';
import { defineVerb } from '../rpc/verb.js';
import { TuiosError } from '../errors.js';
import { enforce, paneOf, readsEverySession } from '../security/access.js';
import { absoluteDir } from './params.js';
import type { Services } from '../daemon/services.js';
import type { Session } from '../model/model.js';
import type { Window } from '../model/window.js';
import { addWorktree, branchExists, deleteBranchIfEmpty, removeWorktree, statusOf, worktreePathFor } from '../git/repo.js';
import { shipMerge } from '../git/ship.js';
import { firstPrompts, groupOf, resolveHarness, worktreeOf, type FirstPrompt, type WorktreeAttr } from '../git/fleet.js';
import { callOnHost, callerDir, grantsFor, launcherOf, linkedHost, localSession, repoFor, startAgentWindow, worktreeSession } from '../git/sessions.js';
import { GIT_TRANSFER_TIMEOUT_MS, MAX_FAN, READY_WAIT_MS, START_AGENT_WAIT_MS } from '../limits.js';
import { PROMPT_MAX_BYTES } from '../limits.js';
import { removeAttempt, removedWorktreeSchema, promptStatusSchema } from './worktree.js';
import { table, str } from '../rpc/print-helpers.js';
import { STATES } from '../agent-state/state.js';
import { PANE_PROTOCOLS, readyNow, startProtocolWindow } from '../git/protocol-pane.js';

const grantsParam = z.array(z.string().max(32)).max(16).optional().describe('What the new panes may do through tuios (read,write,fan,respond,files,task,admin)');
const promptText = z.string().min(1).max(PROMPT_MAX_BYTES);

/** An agent's pane as start-agent and fan-out answer it: its state now and its first prompt's. */
const paneResultSchema = z.object({
  window_id: z.string(),
  name: z.string(),
  state: z.enum(STATES),
  /** idle or done, never unknown. */
  ready: z.boolean(),
  /** Absent when no first prompt was given. */
  prompt_status: promptStatusSchema.optional(),
  prompt_reason: z.string().optional(),
});

const startAgentSchema = paneResultSchema.extend({
  /** The linked host it was started on (-s HOST:SESSION). */
  host: z.string().optional(),
  session: z.string(),
  session_id: z.string(),
  harness: z.string(),
  program: z.string(),
  /** The protocol tuios speaks to the agent over (--protocol). */
  protocol: z.enum(PANE_PROTOCOLS).optional(),
});

const fanOutSchema = z.object({
  /** The linked host the fan ran on (--host). */
  host: z.string().optional(),
  group: z.string(),
  repo: z.string(),
  base: z.string().nullable(),
  base_commit: z.string().nullable(),
  attempts: z.array(paneResultSchema.extend({ session: z.string(), session_id: z.string(), branch: z.string(), path: z.string(), harness: z.string().nullable() })),
});
export type FanOutResult = z.infer<typeof fanOutSchema>;

/** Resolves with the promise's value, or null when `ms` passes or the call ends first. */
function within<T>(p: Promise<T>, ms: number, signal: AbortSignal): Promise<T | null> {
  return new Promise((resolve) => {
    const t = setTimeout(() => done(null), ms);
    const onAbort = () => done(null);
    const done = (v: T | null) => {
      clearTimeout(t);
      signal.removeEventListener('abort', onAbort);
      resolve(v);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(done, () => done(null));
  });
}

/** How long start-agent and fan wait for their agents: --timeout, default 5 minutes, 0 with --no-wait. */
function waitOf(p: { wait?: boolean; timeout?: number }): number {
  return p.wait === false ? 0 : (p.timeout ?? START_AGENT_WAIT_MS);
}

function paneResult(svc: Services, w: Window, fp: FirstPrompt | null): z.infer<typeof paneResultSchema> {
  const state = svc.agents.stateOf(w);
  return { window_id: w.id, name: w.name, state, ready: readyNow(svc, w), ...(fp ? { prompt_status: fp.status, ...(fp.reason ? { prompt_reason: fp.reason } : {}) } : {}) };
}

export const startAgent = defineVerb({
  name: 'start-agent',
  hostRefs: true,
  link: { untargeted: true },
  access: 'fan',
  summary: 'Start one agent in a new pane and return once it is ready (idle or done), its first prompt typed',
  help: 'With --protocol acp or codex, HARNESS is the agent\'s command (\'opencode acp\', codex) and the pane runs tuios agent-proto, which speaks to the agent over that protocol and reports its state from it: the call is ready on that report alone. The pane opens in -s SESSION, else the caller\'s session, else the most recent one (a new session when there is none), in the caller\'s folder (or --cwd). Ready is idle or done, never unknown. --prompt is typed once it is ready, through the same acknowledged path as ask-agent: prompt_status is taken, or stalled when within 5 s it neither worked, asked nor finished a turn. A pane not ready for 30 s on a screen no rule reads becomes an Inbox question. The call waits --timeout ms (default 5 minutes; the prompt is still typed later, prompt_status waiting); --no-wait returns at once. -s HOST:SESSION starts it in that session on a linked host (--cwd is then a folder there), and the call waits its own --timeout there, not the link\'s 90 s.',
  target: 'none',
  mutates: true,
  cli: { positionals: ['harness'], rest: 'args', short: { n: 'name', p: 'prompt', c: 'cwd' }, comma: ['grants'], usage: "start-agent HARNESS [--name N] [--prompt 'PROMPT'] [-s SESSION] [--grants G,...] [-- ARGS...] | start-agent --protocol acp|codex 'CMD' [...]" },
  params: z.object({
    harness: z.string().min(1).max(4096).describe('The harness: an id, alias or program name (claude, codex, ...); with --protocol, the agent\'s command'),
    protocol: z.enum(PANE_PROTOCOLS).optional().describe('Speak to the agent over this protocol (acp, codex): the pane runs tuios agent-proto'),
    name: z.string().min(1).max(128).optional().describe('The new window\'s name'),
    prompt: promptText.optional().describe('The first prompt, typed once the agent is ready'),
    session: z.string().min(1).max(300).optional().describe('The session (-s; HOST:SESSION on a linked machine)'),
    cwd: z.string().min(1).max(4096).optional().describe('The folder it starts in'),
    args: z.array(z.string().max(4096)).max(64).optional().describe('Arguments for the harness\'s program'),
    grants: grantsParam,
    timeout: z.number().int().min(0).max(READY_WAIT_MS).optional().describe('How long the call waits for ready (and the take), in ms'),
    wait: z.boolean().optional().describe('Wait for ready (default true; --no-wait returns at once)'),
    term: z.string().max(64).optional().describe('TERM of the client (used when the call makes a session)'),
  }),
  result: startAgentSchema,
  print: (r) => `${r.window_id}  ${r.name} ${r.state}${r.prompt_status ? ` prompt ${r.prompt_status}` : ''}`,
  budgetMs: (p) => waitOf(p),
  async run({ params, svc, caller, signal, remote }) {
    // A HOST:SESSION: the host runs this verb, so its answer is this record's result.
    if (remote) return { host: remote.host, ...((await callOnHost(svc, caller, 'start-agent', remote.host, params, signal, remote.session)) as z.infer<typeof startAgentSchema>) };
    let s: Session | null = params.session ? localSession(svc, 'start-agent', params.session) : null;
    if (!s) {
      const own = svc.callerPane(caller);
      s = own ? svc.model.sessionOf(own) : (svc.model.mostRecentSession() ?? null);
    }
    if (s) enforce(svc, caller, { verb: 'start-agent', access: 'write', target: null, sessionId: s.id });
    const grants = grantsFor(svc, caller, params.grants);
    if (!params.protocol) {
      if (params.harness.length > 64) throw new TuiosError('invalid_params', 'A harness is at most 64 characters.', 'Name a harness (claude, codex, ...), or give an agent\'s command with --protocol.', { field: 'harness' });
      await resolveHarness(svc, params.harness);
    }
    const cwd = params.cwd ? absoluteDir(params.cwd) : params.session && s ? s.cwd : (callerDir(svc, caller) ?? s?.cwd);
    let made = false;
    if (!s) {
      s = svc.model.createSession({ cwd, term: params.term });
      made = true;
      const by = launcherOf(svc, caller);
      if (by) s.attrs.set('launched_by', by);
    }
    let started;
    try {
      started = params.protocol
        ? await startProtocolWindow(svc, s, { protocol: params.protocol, command: params.harness, args: params.args, name: params.name, grants, cwd })
        : await startAgentWindow(svc, s, { harness: params.harness, name: params.name, args: params.args, grants, cwd });
    } catch (e) {
      if (made) svc.model.killSession(s);
      throw e;
    }
    const w = started.window;
    const fps = firstPrompts(svc);
    const waitMs = waitOf(params);
    const base = { session: s.name, session_id: s.id, harness: started.harness, program: started.program, ...(params.protocol ? { protocol: params.protocol } : {}) };
    if (params.prompt) {
      const done = fps.start(w, params.prompt);
      await within(done, waitMs, signal);
    } else if (waitMs > 0) {
      await fps.ready(w, waitMs, signal);
    }
    return { ...base, ...paneResult(svc, w, fps.statusOf(w)) };
  },
});

/** A branch stem from the prompt's first words: fan/retry-client. */
function stemFrom(text: string): string {
  const words = (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((x) => x.length >= 3).slice(0, 2);
  return `fan/${words.join('-').slice(0, 32) || 'attempt'}`;
}

export const fanOut = defineVerb({
  name: 'fan-out',
  mcp: { tool: 'tuios_fan', writes: true },
  link: { untargeted: true },
  access: 'fan',
  summary: 'N worktrees with an agent in each, each prompt typed once its agent is ready',
  help: '--agent a,b mixes harnesses (attempt i runs agent i mod the list). The prompt is typed into every attempt; --prompt repeated N times gives each its own. Branches are STEM-1..N (--branch STEM, default fan/ and the prompt\'s first words); the sessions share the group STEM, which selectors read as group:. Each prompt goes through the acknowledged path: prompt_status taken, stalled (not taken in 5 s), waiting (not ready yet: it is typed once ready) or not_ready. An agent 30 s on a screen no rule reads becomes an Inbox question. The call waits --timeout ms (default 5 minutes) unless --no-wait. --host HOST runs all of it on that linked host (write there): the worktrees in its clone (--repo is a folder there, absolute) under its state folder, the agents and the prompts there; the answer carries host and the attempts as that host names them, and waits the fan\'s own --timeout and checkouts, not the link\'s 90 s.',
  target: 'none',
  mutates: true,
  cli: {
    positionals: ['count', 'text'],
    aliases: ['fan'],
    subcommands: { keep: 'keep-fan', compare: 'compare-fan', verify: 'verify-fan', diff: 'diff-fan' },
    short: { a: 'agent', p: 'prompt', b: 'branch' },
    comma: ['agent', 'grants'],
    usage: "fan N --agent A[,B...] 'PROMPT' [--prompt P ...] [--branch STEM] [--base REF] [--repo PATH] [--grants G,...] [--host HOST] | fan keep SESSION [--merge] | fan compare SESSION | fan verify SESSION -- CMD | fan diff A B",
  },
  params: z.object({
    count: z.number().int().min(1).max(MAX_FAN).describe(`How many attempts (at most ${MAX_FAN})`),
    text: promptText.optional().describe('The prompt typed into every attempt'),
    prompt: z.array(promptText).max(MAX_FAN).optional().describe('A prompt per attempt (repeat it N times), or one for all'),
    agent: z.array(z.string().min(1).max(64)).min(1).max(MAX_FAN).describe('The harness of each attempt, in turn (claude,codex)'),
    branch: z.string().min(1).max(150).optional().describe('The branch stem and group (default fan/WORDS)'),
    base: z.string().min(1).max(200).optional().describe('What the branches start from (default: the checked-out branch)'),
    repo: z.string().min(1).max(4096).optional().describe('A folder of the repository (default: the caller\'s folder)'),
    grants: grantsParam,
    host: z.string().min(1).max(128).optional().describe('Run it on a linked machine (--repo is then a folder there, absolute)'),
    timeout: z.number().int().min(0).max(READY_WAIT_MS).optional().describe('How long the call waits for the prompts, in ms'),
    wait: z.boolean().optional().describe('Wait for the prompts (default true; --no-wait returns at once)'),
    term: z.string().max(64).optional().describe('TERM of the client'),
  }),
  result: fanOutSchema,
  print: (r) => `group ${r.group} from ${str(r.base)}\n` + table([['SESSION', 'BRANCH', 'AGENT', 'STATE', 'PROMPT'], ...r.attempts.map((a) => [a.session, a.branch, str(a.harness), a.state, str(a.prompt_status)])]),
  // A checkout per attempt, then the wait for the prompts.
  budgetMs: (p) => p.count * GIT_TRANSFER_TIMEOUT_MS + waitOf(p),
  async run({ params, svc, caller, signal }) {
    const host = linkedHost(svc, params.host);
    // The host runs this verb, so its answer is this record's result.
    if (host) return { host, ...((await callOnHost(svc, caller, 'fan-out', host, params, signal)) as FanOutResult) };
    const prompts = [...(params.text !== undefined ? [params.text] : []), ...(params.prompt ?? [])];
    if (prompts.length === 0) throw new TuiosError('invalid_params', 'fan needs a prompt.', "Give it after N: tuios fan 3 --agent claude 'PROMPT'", { field: 'text' });
    if (prompts.length !== 1 && prompts.length !== params.count) {
      throw new TuiosError('invalid_params', `fan ${params.count} got ${prompts.length} prompts: give one for every attempt, or ${params.count}.`, undefined, { field: 'prompt' });
    }
    for (const a of params.agent) await resolveHarness(svc, a);
    const grants = grantsFor(svc, caller, params.grants);
    const repo = await repoFor(svc, caller, params.repo, signal);
    // A stem no session and no branch uses yet.
    const inUse = async (stem: string) => {
      for (const s of svc.model.sessions.values()) if (groupOf(s) === stem) return true;
      return branchExists(repo.top, `${stem}-1`, signal);
    };
    const wanted = params.branch ?? stemFrom(prompts[0]!);
    let stem = wanted;
    for (let i = 2; await inUse(stem); i++) stem = `${wanted}-${i}`;
    const by = launcherOf(svc, caller);
    const made: Array<{ s: Session; w: Window; wt: WorktreeAttr; harness: string | null }> = [];
    try {
      for (let i = 0; i < params.count; i++) {
        const branch = `${stem}-${i + 1}`;
        const wt = await addWorktree(repo, { branch, base: params.base, path: worktreePathFor(svc.paths.stateDir, repo, branch), signal });
        try {
          const r = await worktreeSession(svc, { repo, wt, agent: { harness: params.agent[i % params.agent.length]! }, grants, group: stem, launchedBy: by, term: params.term });
          made.push({ s: r.session, w: r.window, wt: worktreeOf(r.session)!, harness: r.harness });
        } catch (e) {
          await removeWorktree(wt.path, { force: true }).catch(() => undefined);
          await deleteBranchIfEmpty(repo.top, wt.branch, wt.base_commit).catch(() => undefined);
          throw e;
        }
      }
    } catch (e) {
      // A fan is whole or not at all: what was made for it goes.
      for (const m of made) await removeAttempt(svc, m.s, m.wt, { force: true }).catch(() => undefined);
      throw e;
    }
    const fps = firstPrompts(svc);
    const outcomes = made.map((m, i) => fps.start(m.w, prompts.length === 1 ? prompts[0]! : prompts[i]!));
    const waitMs = waitOf(params);
    if (waitMs > 0) await within(Promise.all(outcomes), waitMs, signal);
    return {
      group: stem,
      repo: repo.name,
      base: made[0]?.wt.base ?? null,
      base_commit: made[0]?.wt.base_commit ?? null,
      attempts: made.map((m) => ({ session: m.s.name, session_id: m.s.id, branch: m.wt.branch, path: m.wt.path, harness: m.harness, ...paneResult(svc, m.w, fps.statusOf(m.w)) })),
    };
  },
});

export const keepFan = defineVerb({
  name: 'keep-fan',
  summary: 'Keep one attempt of a fan and remove the others, never losing uncommitted work',
  help: 'Every other session of the same group is removed (its session, its worktree, and its branch when it holds no commit past its base). An attempt with uncommitted work is kept and listed in kept_dirty, unless --force. A branch with commits is kept (branch_deleted: false). --merge first merges the kept branch into its base in the main checkout (which must have the base checked out and no uncommitted tracked change); a conflict is undone and nothing is removed.',
  target: 'none',
  mutates: true,
  cli: { positionals: ['session'], short: { f: 'force' }, usage: 'fan keep SESSION [--merge] [--force]' },
  params: z.object({
    session: z.string().min(1).max(300).describe('The attempt to keep'),
    merge: z.boolean().optional().describe('Merge its branch into the base first'),
    force: z.boolean().optional().describe('Remove the other attempts even with uncommitted work (it is lost)'),
  }),
  result: z.object({
    kept: z.string(),
    group: z.string(),
    merged: z.object({ into: z.string(), commit: z.string(), fast_forward: z.boolean() }).nullable(),
    removed: z.array(removedWorktreeSchema),
    /** Attempts kept for their uncommitted work: how many entries, and the first 50 as `XY path`. */
    kept_dirty: z.array(z.object({ session: z.string(), path: z.string(), dirty: z.number().int(), files: z.array(z.string()) })),
    /** Attempts not removed for another reason; the code is an error code, or a system one (ENOENT). */
    failed: z.array(z.object({ session: z.string(), error: z.object({ code: z.string(), message: z.string() }) })),
    notes: z.array(z.string()),
  }),
  print: (r) => {
    const lines = [`kept ${r.kept}${r.merged ? ` (merged into ${r.merged.into})` : ''}; removed ${r.removed.length ? r.removed.map((x) => x.session).join(', ') : 'none'}`];
    for (const n of r.notes) lines.push(n);
    return lines.join('\n');
  },
  async run({ params, svc, caller, signal }) {
    // Keeping a fan removes attempts: a pane without admin never does it, whatever else it holds
    // (spec: Who may do what); the person does, from a terminal or the compare view.
    if (caller.channel !== 'link' && paneOf(svc, caller).inside && !readsEverySession(svc, caller)) {
      throw new TuiosError('forbidden', 'fan keep is refused from inside a pane without admin: only the person keeps a fan and removes its other attempts.', 'Keep it from a terminal outside tuios, or with K in the compare view (ctrl+b F).');
    }
    const s = localSession(svc, 'fan keep', params.session);
    const wt = worktreeOf(s);
    const group = groupOf(s);
    if (!wt || !group) throw new TuiosError('invalid_params', `The session ${s.name} is not an attempt of a fan.`, 'Name a session tuios fan made: tuios worktree ls', { field: 'session' });
    const others = [...svc.model.sessions.values()].filter((o) => o.id !== s.id && groupOf(o) === group && worktreeOf(o));
    for (const o of [s, ...others]) enforce(svc, caller, { verb: 'keep-fan', access: 'write', target: null, sessionId: o.id });
    const notes: string[] = [];
    let merged: { merged: string; fast_forward: boolean } | null = null;
    if (params.merge) {
      if (!wt.main) throw new TuiosError('not_repo', `The repository of ${s.name} has no main checkout to merge into.`);
      if (/^[0-9a-f]{40}$/.test(wt.base)) throw new TuiosError('conflict', `${s.name} was made from a commit (${wt.base.slice(0, 12)}), not a branch, so it has no base to merge into.`, 'Merge it by hand.');
      // The ship merge (core/git/ship.ts): journalled, checkout_dirty and merge_conflict, undone with reset --merge.
      const m = await shipMerge(wt.main, wt.branch, wt.base, { journal: svc.ship, asPerson: caller.channel !== 'link' && !caller.restrictedTo && svc.placement(caller).kind === 'outside', signal });
      merged = { merged: m.commit, fast_forward: m.fast_forward };
      const st = await statusOf(wt.path, signal).catch(() => null);
      if (st && st.dirty > 0) notes.push(`${s.name} has ${st.dirty} uncommitted change${st.dirty === 1 ? '' : 's'}, which were not merged; they stay in its worktree.`);
    }
    const removed = [];
    const keptDirty = [];
    const failed = [];
    for (const o of others) {
      try {
        removed.push(await removeAttempt(svc, o, worktreeOf(o)!, { force: !!params.force, signal }));
      } catch (e) {
        const err = e as TuiosError;
        if (err.code === 'dirty_worktree') {
          // removeAttempt's dirty_worktree is core/git/repo.ts dirtyError's: it carries these two.
          const extra = err.extra as { dirty: number; files: string[] };
          keptDirty.push({ session: o.name, path: worktreeOf(o)!.path, dirty: extra.dirty, files: extra.files });
          notes.push(`${o.name} was kept: it has uncommitted work (remove it with tuios worktree rm ${o.name} --force, or keep it).`);
        } else failed.push({ session: o.name, error: { code: err.code ?? 'internal', message: err.message } });
      }
    }
    for (const r of removed) if (!r.branch_deleted) notes.push(`The branch ${r.branch} of ${r.session} holds commits, so it was kept.`);
    return { kept: s.name, group, merged: merged ? { into: wt.base, commit: merged.merged, fast_forward: merged.fast_forward } : null, removed, kept_dirty: keptDirty, failed, notes };
  },
});
