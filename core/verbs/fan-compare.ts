// Comparing the attempts of a fan (spec: Comparing a fan, Fleets): compare-fan (`tuios fan
// compare`), verify-fan (`tuios fan verify SESSION -- CMD`) and diff-fan (`tuios fan diff A B`).
// keep-fan is in fan.ts.
import { z } from 'zod';
import { defineVerb } from '../rpc/verb.js';
import { TuiosError } from '../errors.js';
import { enforce } from '../security/access.js';
import type { Services } from '../daemon/services.js';
import type { Session } from '../model/model.js';
import type { Window } from '../model/window.js';
import type { Caller } from '../rpc/caller.js';
import { groupOf, worktreeOf, type WorktreeAttr } from '../git/fleet.js';
import { localSession } from '../git/sessions.js';
import { attemptChanges, diffAttempts } from '../git/fan-compare.js';
import { STATES } from '../agent-state/state.js';
import { table, str } from '../rpc/print-helpers.js';
import { cleanUntrusted } from '../mail/fence.js';
import { VERIFY_COMMAND_MAX, VERIFY_WAIT_MAX_MS, VERIFY_WAIT_MS } from '../limits.js';
import { ago } from '../activity/recap.js';
import { LS_CONCURRENCY } from '../limits.js';

interface Attempt {
  s: Session;
  wt: WorktreeAttr;
}

/** The fan a session belongs to, every attempt of it, in name order; refused for a session no fan made. */
function fanOf(svc: Services, verb: string, ref: string): { group: string; attempts: Attempt[]; named: Attempt } {
  const s = localSession(svc, verb, ref);
  const wt = worktreeOf(s);
  const group = groupOf(s);
  if (!wt || !group) throw new TuiosError('invalid_params', `The session ${s.name} is not an attempt of a fan.`, 'Name a session tuios fan made: tuios worktree ls', { field: 'session' });
  const attempts = [...svc.model.sessions.values()]
    .filter((o) => groupOf(o) === group && worktreeOf(o))
    .map((o) => ({ s: o, wt: worktreeOf(o)! }))
    .sort((a, b) => a.s.name.localeCompare(b.s.name));
  return { group, attempts, named: { s, wt } };
}

/** The attempt's agent: its first window that is not a verify window. */
function agentWindow(svc: Services, s: Session): Window | null {
  return svc.model.windowsOf(s).find((w) => w.name !== VERIFY_WINDOW) ?? null;
}

const VERIFY_WINDOW = 'verify';

const checkSchema = z.object({
  /** verify: the last verify-fan check; shell: the last command a shell in the attempt finished. */
  source: z.enum(['verify', 'shell']),
  command: z.string(),
  state: z.enum(['running', 'passed', 'failed', 'finished']),
  exit: z.number().int().nullable(),
  at: z.number(),
  window_id: z.string().nullable(),
});

/** The attempt's last check: a verify-fan result, else the exit of the last command a shell in it finished. */
function lastCheck(svc: Services, s: Session): z.infer<typeof checkSchema> | null {
  const v = svc.fanChecks.of(s.id);
  if (v) return { source: 'verify', command: cleanUntrusted(v.command).replace(/\n/g, ' '), state: v.state, exit: v.exit, at: v.ended_at ?? v.started_at, window_id: v.window_id };
  let best: { command: string; exit: number | null; at: number; w: Window } | null = null;
  for (const w of svc.model.windowsOf(s)) {
    const c = svc.activity.lastCommandOf(w);
    if (c && (!best || c.at > best.at)) best = { ...c, w };
  }
  if (!best) return null;
  const state = best.exit === null ? 'finished' : best.exit === 0 ? 'passed' : 'failed';
  return { source: 'shell', command: best.command, state, exit: best.exit, at: best.at, window_id: best.w.id };
}

const compareRowSchema = z.object({
  session: z.string(),
  session_id: z.string(),
  branch: z.string(),
  path: z.string(),
  window_id: z.string().nullable(),
  harness: z.string().nullable(),
  state: z.enum(STATES),
  files: z.number().int().nullable(),
  added: z.number().int().nullable(),
  deleted: z.number().int().nullable(),
  commits: z.number().int().nullable(),
  truncated: z.boolean(),
  check: checkSchema.nullable(),
  /** Why the changes could not be counted (the worktree is gone, git failed). */
  error: z.string().optional(),
});
export type CompareRow = z.infer<typeof compareRowSchema>;

export const compareFanSchema = z.object({
  group: z.string(),
  base: z.string(),
  base_commit: z.string(),
  attempts: z.array(compareRowSchema),
  /** A verify-fan check still runs in one of them. */
  running: z.boolean(),
});
export type CompareFanResult = z.infer<typeof compareFanSchema>;

function checkText(c: CompareRow['check']): string {
  if (!c) return '-';
  const what = c.state === 'running' ? 'running' : c.exit === null ? c.state : `${c.state} (exit ${c.exit})`;
  return `${c.source === 'verify' ? 'verify' : 'shell'}: ${c.command.slice(0, 40)} ${what}${c.state === 'running' ? '' : ` ${ago(Date.now() - c.at)} ago`}`;
}

/** Runs `fn` over items, at most `n` at a time. */
async function pool<T, R>(items: T[], n: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    }),
  );
  return out;
}

function enforceEach(svc: Services, caller: Caller, verb: string, access: 'read' | 'fan', attempts: Attempt[]): void {
  for (const a of attempts) enforce(svc, caller, { verb, access, target: null, sessionId: a.s.id });
}

export async function compareFan(svc: Services, caller: Caller, ref: string, signal: AbortSignal, count = true): Promise<CompareFanResult> {
  const { group, attempts, named } = fanOf(svc, 'fan compare', ref);
  enforceEach(svc, caller, 'compare-fan', 'read', attempts);
  const rows = await pool(attempts, LS_CONCURRENCY, async ({ s, wt }): Promise<CompareRow> => {
    const w = agentWindow(svc, s);
    const base = { session: s.name, session_id: s.id, branch: wt.branch, path: wt.path, window_id: w?.id ?? null, harness: w ? svc.agents.harnessOf(w) : null, state: w ? svc.agents.stateOf(w) : ('none' as const), check: lastCheck(svc, s) };
    // Without counting: the states and checks alone, no git (the compare view's reads while a check runs).
    if (!count) return { ...base, files: null, added: null, deleted: null, commits: null, truncated: false };
    try {
      const c = await attemptChanges(wt.path, wt.base_commit, signal);
      return { ...base, ...c };
    } catch (e) {
      return { ...base, files: null, added: null, deleted: null, commits: null, truncated: false, error: (e as Error).message.slice(0, 300) };
    }
  });
  return { group, base: named.wt.base, base_commit: named.wt.base_commit, attempts: rows, running: rows.some((r) => r.check?.source === 'verify' && r.check.state === 'running') };
}

const sessionParam = z.string().min(1).max(300).describe('An attempt of the fan (its session)');

export const compareFanVerb = defineVerb({
  name: 'compare-fan',
  summary: 'Every attempt of a fan side by side: what each changed against the fan\'s base, and its last check',
  help: 'One row per attempt: its agent and state, the files and lines it changed against the fan\'s base (committed and uncommitted work, untracked files included; its index and files are never touched), and its last check: the last verify-fan result, else the exit of the last command a shell in it finished (OSC 133). --no-count leaves the changes out (null) and runs no git: the states and checks alone.',
  target: 'none',
  mutates: false,
  cli: { positionals: ['session'], usage: 'fan compare SESSION [--no-count] [--json]' },
  params: z.object({ session: sessionParam, count: z.boolean().optional().describe('Count each attempt\'s changes (default true; --no-count: states and checks alone)') }),
  result: compareFanSchema,
  print: (r) =>
    `group ${r.group} from ${r.base}\n` +
    table([['SESSION', 'AGENT', 'STATE', 'FILES', '+/-', 'CHECK'], ...r.attempts.map((a) => [a.session, str(a.harness), a.state, a.error ? `error: ${a.error.slice(0, 40)}` : a.files === null ? '-' : `${a.files}${a.truncated ? '+' : ''}`, a.added === null ? '-' : `+${a.added} -${a.deleted}`, checkText(a.check)])]),
  run: ({ params, svc, caller, signal }) => compareFan(svc, caller, params.session, signal, params.count !== false),
});

const verifyRowSchema = z.object({ session: z.string(), window_id: z.string(), state: z.enum(['running', 'passed', 'failed']), exit: z.number().int().nullable() });

export const verifyFan = defineVerb({
  name: 'verify-fan',
  access: 'fan',
  summary: 'Run one check in every attempt of a fan, in a window named verify: it closes when the check passes and stays when it fails',
  help: 'The command is yours, never one read from the repository: it runs with /bin/sh -c in each attempt\'s worktree, in a new window named verify that holds no grants. A check that exits 0 passed and its window closes; any other exit failed and its window stays open to read. The call waits for every check (--timeout ms, default 10 minutes) unless --no-wait; compare-fan reports each attempt\'s last check. A caller inside a pane needs the fan grant.',
  target: 'none',
  mutates: true,
  cli: { positionals: ['session'], rest: 'command', command: true, usage: 'fan verify SESSION [--no-wait] [--timeout MS] -- CMD...' },
  params: z.object({
    session: sessionParam,
    command: z.array(z.string().max(VERIFY_COMMAND_MAX)).min(1).max(256).describe('The check: a shell command line'),
    timeout: z.number().int().min(0).max(VERIFY_WAIT_MAX_MS).optional().describe('How long the call waits for the checks, in ms'),
    wait: z.boolean().optional().describe('Wait for the checks (default true; --no-wait returns at once)'),
  }),
  result: z.object({ group: z.string(), command: z.string(), attempts: z.array(verifyRowSchema), passed: z.number().int(), failed: z.number().int(), running: z.number().int() }),
  print: (r) => `${r.command}\n` + table([['SESSION', 'CHECK', 'EXIT'], ...r.attempts.map((a) => [a.session, a.state, str(a.exit)])]) + `\n${r.passed} passed, ${r.failed} failed${r.running ? `, ${r.running} running` : ''}`,
  budgetMs: (p) => (p.wait === false ? 0 : (p.timeout ?? VERIFY_WAIT_MS)),
  async run({ params, svc, caller, signal }) {
    const command = params.command.join(' ');
    if (Buffer.byteLength(command) > VERIFY_COMMAND_MAX) throw new TuiosError('invalid_params', `The check is longer than ${VERIFY_COMMAND_MAX} bytes.`, 'Put it in a script and run the script.', { field: 'command' });
    if (!command.trim()) throw new TuiosError('invalid_params', 'The check is empty.', "Give it after --: tuios fan verify SESSION -- 'npm test'", { field: 'command' });
    if (/[\0]/.test(command)) throw new TuiosError('invalid_params', 'The check holds a NUL byte.', undefined, { field: 'command' });
    const { group, attempts } = fanOf(svc, 'fan verify', params.session);
    enforceEach(svc, caller, 'verify-fan', 'fan', attempts);
    const started: Array<{ a: Attempt; w: Window }> = [];
    for (const a of attempts) {
      // A check still running from before is replaced: its window goes with it.
      const prev = svc.fanChecks.of(a.s.id);
      const old = prev?.state === 'running' ? svc.model.windows.get(prev.window_id) : undefined;
      const w = svc.model.createWindow(a.s, { name: VERIFY_WINDOW, argv: ['/bin/sh', '-c', command], cwd: a.wt.path, grants: [] });
      svc.fanChecks.start(a.s.id, w.id, command);
      if (old) svc.model.closeWindow(old, { keepSession: true });
      started.push({ a, w });
    }
    const waitMs = params.wait === false ? 0 : (params.timeout ?? VERIFY_WAIT_MS);
    if (waitMs > 0) await svc.fanChecks.settled(attempts.map((a) => a.s.id), waitMs, signal);
    const rows = started.map(({ a, w }) => {
      const c = svc.fanChecks.of(a.s.id);
      return { session: a.s.name, window_id: w.id, state: c?.state ?? 'failed', exit: c?.exit ?? null };
    });
    return { group, command, attempts: rows, passed: rows.filter((r) => r.state === 'passed').length, failed: rows.filter((r) => r.state === 'failed').length, running: rows.filter((r) => r.state === 'running').length };
  },
});

const diffFileSchema = z.object({ path: z.string(), status: z.string(), added: z.number().int().nullable(), deleted: z.number().int().nullable(), binary: z.boolean() });

export const diffFan = defineVerb({
  name: 'diff-fan',
  summary: 'What two attempts of a fan did differently: the second\'s work against the first\'s, file by file',
  help: 'Both attempts\' work as it is (commits, uncommitted changes and untracked files), A against B: a file B added that A has not is A (added), one only A has is D. Neither worktree\'s index or files is touched. --patch adds the patch, cut at 2 MiB. Both must be attempts of the same fan.',
  target: 'none',
  mutates: false,
  cli: { positionals: ['a', 'b'], usage: 'fan diff A B [--patch] [--json]' },
  params: z.object({
    a: z.string().min(1).max(300).describe('One attempt (its session)'),
    b: z.string().min(1).max(300).describe('The other attempt, of the same fan'),
    patch: z.boolean().optional().describe('Add the patch'),
  }),
  result: z.object({ group: z.string(), a: z.string(), b: z.string(), files: z.array(diffFileSchema), added: z.number().int(), deleted: z.number().int(), truncated: z.boolean(), patch: z.string() }),
  print: (r) => {
    if (r.files.length === 0) return `${r.a} and ${r.b} have the same work`;
    const rows = table([['', 'FILE', '+', '-'], ...r.files.map((f) => [f.status, cleanUntrusted(f.path).replace(/\n/g, ' '), f.binary ? 'bin' : str(f.added), f.binary ? '' : str(f.deleted)])]);
    return `${r.a} -> ${r.b}: ${r.files.length}${r.truncated ? '+' : ''} files, +${r.added} -${r.deleted}\n${rows}${r.patch ? `\n${cleanUntrusted(r.patch)}` : ''}`;
  },
  async run({ params, svc, caller, signal }) {
    const fa = fanOf(svc, 'fan diff', params.a);
    const b = localSession(svc, 'fan diff', params.b);
    const wb = worktreeOf(b);
    if (!wb || groupOf(b) !== fa.group) throw new TuiosError('invalid_params', `${b.name} is not an attempt of the fan ${fa.group}.`, `Name two attempts of one fan: tuios fan compare ${fa.named.s.name}`, { field: 'b' });
    if (b.id === fa.named.s.id) throw new TuiosError('invalid_params', 'Name two different attempts.', undefined, { field: 'b' });
    enforceEach(svc, caller, 'diff-fan', 'read', [fa.named, { s: b, wt: wb }]);
    const d = await diffAttempts(fa.named.wt.path, wb.path, { signal, patch: params.patch });
    return { group: fa.group, a: fa.named.s.name, b: b.name, ...d };
  },
});
