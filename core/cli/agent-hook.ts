// `tuios agent-hook HARNESS`: a harness's hook reports for itself (spec: Harness integrations).
// It reads the payload, maps it with core/agent/hooks, finds the pane, asks the daemon which verbs
// and params it takes, and sends only those. Whatever happens it exits 0 within its budget and
// prints nothing a harness could read as an answer (`{}` where the harness parses stdout), except
// the context lines of a reported SessionStart and a decision the person made.
import { isatty } from 'node:tty';
import { RpcClient } from '../rpc/client.js';
import { resolveSocket } from '../config/paths.js';
import { out, err } from './out.js';
import { readStdinCapped } from './stdin.js';
import { hookHarness, type HookHarness } from '../integrations/hooks/harnesses.js';
import { mapHook } from '../integrations/hooks/map.js';
import { mapCodexNotify } from '../integrations/hooks/map-claude.js';
import type { HookPlan } from '../integrations/hooks/plan.js';
import { contextLines } from '../integrations/hooks/context.js';
import { hookProcess } from '../integrations/hooks/ancestry.js';
import { findPane } from '../integrations/hooks/find-pane.js';
import { feedAtTurnEnd } from '../integrations/statusline/feed.js';
import { autoReviewed, readTail } from '../integrations/hooks/codex-rollout.js';
import { permissionRequestOutput, type PersonDecision } from '../integrations/hooks/decision.js';
import { HOOK_META_SOURCE } from '../agent-state/meta.js';
import { HOOK_HOLD_MAX_MS, HOOK_STDIN_MAX_BYTES, HOOK_TIMEOUT_MS } from '../limits.js';

const USAGE = 'usage: tuios agent-hook HARNESS [--explain] [-w WINDOW] [-s SESSION] [--event NAME] [--timeout MS] [--integration N]';

interface HookArgs {
  harness: string;
  explain: boolean;
  window?: string;
  session?: string;
  event?: string;
  timeoutMs: number;
  server?: string;
  /** Codex's notify passes its payload as the last argument. */
  positional: string[];
}

function parseArgs(argv: string[]): HookArgs | string {
  const a: HookArgs = { harness: '', explain: false, timeoutMs: HOOK_TIMEOUT_MS, positional: [] };
  for (let i = 0; i < argv.length; i++) {
    const x = argv[i]!;
    const val = () => argv[++i];
    if (x === '--explain') a.explain = true;
    else if (x === '-w' || x === '--window') a.window = val();
    else if (x === '-s' || x === '--session') a.session = val();
    else if (x === '--event') a.event = val();
    else if (x === '--server') a.server = val();
    else if (x === '--integration') val();
    else if (x === '--timeout') {
      const n = Number(val());
      if (Number.isFinite(n) && n >= 50 && n <= 10_000) a.timeoutMs = n;
    } else if (!a.harness && !x.startsWith('-')) a.harness = x;
    else a.positional.push(x);
  }
  return a.harness ? a : 'a harness is required';
}

class Hook {
  /**
   * When the hook's code began, node's start and the bundle's load behind it: the budget is for the
   * daemon (and the payload), and counts from here. On a busy machine that start alone took 0.5 s
   * (4 busy loops on 2 cores), so a budget from the process's start left nothing for the report,
   * and Claude Code's Stop was lost: the pane read working until its idle_prompt notification a
   * minute later.
   */
  readonly started = performance.now();
  private printed = false;
  private finished = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly args: HookArgs,
    private readonly h: HookHarness | undefined,
  ) {}

  explain(line: string): void {
    if (this.args.explain) err(`agent-hook: ${line}\n`);
  }

  print(text: string): void {
    this.printed = true;
    out(text);
  }

  /** Ends the process: `{}` for a harness that parses stdout and got nothing else. */
  finish(): never {
    if (!this.finished) {
      this.finished = true;
      const now = performance.now();
      this.explain(`exit 0 after ${Math.round(now)} ms, ${Math.round(now - this.started)} ms since it ran`);
      if (!this.printed && this.h?.stdoutJson) out('{}\n');
    }
    process.exit(0);
  }

  /** The deadline: whatever is still in flight, the hook exits 0 then. */
  arm(ms: number, why: string): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.explain(why);
      this.finish();
    }, Math.max(1, ms));
  }
}

/** What the daemon takes: the params of each verb the hook may send, or null when it has no such verb. */
async function verbParams(c: RpcClient, names: string[]): Promise<Map<string, Set<string> | null>> {
  const got = await Promise.all(
    names.map((n) =>
      c.call<{ verbs: Array<{ params: Array<{ name: string }> }> }>('list-verbs', { verb: n }).then(
        (r) => new Set((r.verbs[0]?.params ?? []).map((p) => p.name)),
        () => null,
      ),
    ),
  );
  return new Map(names.map((n, i) => [n, got[i]!]));
}

function pick(params: Record<string, unknown>, takes: Set<string>, left: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    if (takes.has(k)) out[k] = v;
    else left.push(k);
  }
  return out;
}

export async function agentHookCommand(argv: string[]): Promise<never> {
  const parsed = parseArgs(argv);
  const args: HookArgs = typeof parsed === 'string' ? { harness: '', explain: argv.includes('--explain'), timeoutMs: HOOK_TIMEOUT_MS, positional: [] } : parsed;
  const h = hookHarness(args.harness);
  const hook = new Hook(args, h);
  const elapsed = () => performance.now() - hook.started;
  hook.arm(args.timeoutMs - elapsed() - 15, `gave up after ${args.timeoutMs} ms (--timeout)`);
  if (typeof parsed === 'string') {
    hook.explain(`${parsed}\n${USAGE}`);
    return hook.finish();
  }
  if (!h) {
    hook.explain(`tuios does not know the harness ${args.harness}`);
    return hook.finish();
  }
  try {
    await run(hook, args, h, elapsed);
  } catch (e) {
    hook.explain(`failed: ${e instanceof Error ? e.message : String(e)}`);
  }
  return hook.finish();
}

async function planFor(args: HookArgs, h: HookHarness): Promise<HookPlan> {
  const last = args.positional[args.positional.length - 1];
  if (h.id === 'codex' && last && last.trimStart().startsWith('{')) {
    const n = mapCodexNotify(last);
    if (n) return n;
  }
  // At most HOOK_STDIN_MAX_BYTES; a payload past it is read as none.
  const text = isatty(0) ? '' : ((await readStdinCapped(HOOK_STDIN_MAX_BYTES)) ?? '');
  if (text.trim() === '') return { event: args.event ?? '', why: 'stdin is empty' };
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    return { event: args.event ?? '', why: 'the payload is not JSON' };
  }
  return mapHook(h.id, payload, process.env, args.event);
}

async function run(hook: Hook, args: HookArgs, h: HookHarness, elapsed: () => number): Promise<void> {
  const plan = await planFor(args, h);
  hook.explain(`event ${plan.event || '(none)'}`);
  if (h.id === 'codex' && plan.event === 'PermissionRequest' && plan.session?.transcript) {
    const tail = readTail(plan.session.transcript);
    if (tail && autoReviewed(tail)) {
      hook.explain('Codex\'s automatic reviewer decides this call: nothing is reported');
      return;
    }
  }
  const sends = !!(plan.report || plan.activities?.length || (plan.sessionOnly && plan.session) || plan.contextLines || plan.meta);
  if (!sends) {
    hook.explain(`nothing to report: ${plan.why ?? 'no mapping'}`);
    return;
  }
  const env = process.env;
  const { socket } = resolveSocket(env, args.server);
  let client: RpcClient;
  try {
    client = await RpcClient.connect(socket, { timeoutMs: Math.max(1, args.timeoutMs - elapsed() - 30), pane: env.TUIOS_PANE_ID ?? null });
  } catch (e) {
    hook.explain(`no daemon answers on ${socket} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): nothing reported`);
    return;
  }
  const proc = hookProcess();
  const verbs = await verbParams(client, ['set-agent-state', 'report-agent-activity', 'set-agent-session', 'request-approval', 'resolve-pane']);

  // The pane: --window, TUIOS_PANE_ID, the session id, the parent chain.
  const found = await findPane({ window: args.window, env, proc, resolve: verbs.get('resolve-pane') ? (p) => client.call('resolve-pane', p) : null });
  if (!found) {
    hook.explain('no pane: not run inside tuios (no --window, no TUIOS_PANE_ID, no pane leads its session or its parents)');
    return;
  }
  const { window, via } = found;
  hook.explain(`pane ${window} (from ${via})`);
  const target: Record<string, unknown> = { window, ...(args.session ?? (args.window ? undefined : env.TUIOS_SESSION) ? { session: args.session ?? env.TUIOS_SESSION } : {}) };
  // A session passed alongside a pane id only narrows the lookup; a stale name must not fail it.
  if (!args.window) delete target.session;

  let reported = false;
  let paneShort = '';
  let sessionName = '';
  if (plan.report) {
    const takes = verbs.get('set-agent-state');
    const r = plan.report;
    if (!takes) hook.explain('the daemon has no set-agent-state');
    else if (r.if_state && !takes.has('if_state')) hook.explain(`unsupported: if_state (the report ${r.state} is not sent without its condition)`);
    else {
      const left: string[] = [];
      const params = pick(
        {
          ...target,
          state: r.state,
          message: r.message || undefined,
          kind: r.kind,
          harness: h.id,
          if_state: r.if_state,
          activity: r.activity || undefined,
          harness_pid: proc.harnessPid ?? undefined,
          agent_session_id: plan.session?.id,
          transcript_path: plan.session?.transcript,
          session_start: plan.session?.start,
          event: plan.event || undefined,
        },
        takes,
        left,
      );
      if (left.length) hook.explain(`unsupported: ${left.join(', ')}`);
      try {
        const res = await client.call<{ applied: boolean; state: string; short_id?: string; session?: string }>('set-agent-state', params);
        reported = true;
        paneShort = res.short_id ?? window.slice(0, 12);
        sessionName = res.session ?? env.TUIOS_SESSION ?? '';
        hook.explain(`set-agent-state ${r.state}${r.kind ? ` (${r.kind})` : ''}: ${res.applied ? 'applied' : `not applied, ${res.state} stands`}`);
      } catch (e) {
        hook.explain(`set-agent-state refused (${(e as { code?: string }).code ?? 'error'}): ${(e as Error).message}`);
      }
    }
  }
  // The model the harness named: display only, never over what another feed shows, and only with
  // a report the daemon took (a foreign conversation's is refused, and its model with it).
  if (plan.meta && reported) {
    await client.call('set-agent-meta', { ...target, values: plan.meta, source: HOOK_META_SOURCE }).then(
      () => hook.explain(`set-agent-meta model=${plan.meta!.model}`),
      (e) => hook.explain(`set-agent-meta refused (${(e as { code?: string }).code ?? 'error'}): ${(e as Error).message}`),
    );
  }
  // A turn's end sends what the pane's status line feed held back (spec: The status line feed).
  if ((h.id === 'claude-code' || h.id === 'opencode' || h.id === 'kilo') && reported && (plan.report?.state === 'done' || plan.report?.state === 'errored')) {
    await feedAtTurnEnd({ call: (v, p) => client.call(v, p), window, socket, explain: (l) => hook.explain(l) });
  }
  if (plan.sessionOnly && plan.session) {
    const takes = verbs.get('set-agent-session');
    if (!takes) hook.explain('the daemon has no set-agent-session: the session id is not sent');
    else await client.call('set-agent-session', pick({ ...target, session_id: plan.session.id, harness: h.id, harness_pid: proc.harnessPid ?? undefined }, new Set([...takes, 'window', 'session']), [])).then(
      () => hook.explain('set-agent-session sent'),
      (e) => hook.explain(`set-agent-session refused: ${(e as Error).message}`),
    );
  }
  if (plan.activities?.length) {
    const takes = verbs.get('report-agent-activity');
    if (!takes) hook.explain('unknown_verb: the daemon has no report-agent-activity; the activity is not sent');
    else
      for (const a of plan.activities) {
        await client.call('report-agent-activity', pick({ ...target, ...a, harness: h.id, agent_session_id: plan.session?.id, harness_pid: proc.harnessPid ?? undefined }, takes, [])).then(
          () => hook.explain(`activity ${a.type}`),
          (e) => hook.explain(`activity ${a.type} refused (${(e as { code?: string }).code ?? 'error'}): ${(e as Error).message}`),
        );
      }
  }
  // The context lines, only for a pane the environment named and a report the daemon took.
  if (plan.contextLines && h.contextLines && via === 'TUIOS_PANE_ID' && (reported || !plan.report)) {
    if (!plan.report) {
      // A compaction reports nothing; the pane is checked to be one before anything is printed.
      const r = await client.call<{ short_id?: string; session?: string }>('get-agent-state', target).catch(() => null);
      if (r?.short_id) {
        paneShort = r.short_id;
        sessionName = r.session ?? '';
      }
    }
    if (paneShort) hook.print(contextLines(paneShort, sessionName));
  }
  if (plan.approval && reported && verbs.get('request-approval')) await holdForInbox(hook, client, plan, h, target, args);
  client.close();
}

/** The one hook that may wait: a permission prompt the Inbox may answer (spec: the hold). */
async function holdForInbox(hook: Hook, client: RpcClient, plan: HookPlan, h: HookHarness, target: Record<string, unknown>, _args: HookArgs): Promise<void> {
  const ask = plan.approval!;
  hook.arm(HOOK_HOLD_MAX_MS, 'the hold ran past its 305 s limit: nothing printed');
  let res: { held: boolean; why?: string; decision?: PersonDecision | null };
  try {
    res = await client.call('request-approval', { ...target, harness: h.id, tool: ask.tool, input: ask.input, ...(ask.suggestions ? { suggestions: ask.suggestions } : {}), ...(ask.plan ? { plan: true } : {}) });
  } catch (e) {
    hook.explain(`request-approval failed: ${(e as Error).message}; the harness asks in the pane`);
    return;
  }
  if (!res.held) return hook.explain(`not held: ${res.why ?? 'approvals are off'}`);
  const d = res.decision;
  if (!d || (d.behavior !== 'allow' && d.behavior !== 'deny')) return hook.explain(`the hold ended with no decision: ${res.why ?? 'the harness asks in the pane'}`);
  hook.explain(`the person answered: ${d.behavior}`);
  hook.print(permissionRequestOutput(h.id, d, ask.plan ? { input: ask.input } : null));
}
