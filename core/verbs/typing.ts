// Driving agents with a receipt: ask-agent (type a prompt once, know it was taken, return what the
// pane printed), and the delivery queue (queue-prompt, list-queued, cancel-queued).
import { ASK_READY_WAIT_MS, ASK_SELECT_MAX, ASK_TURN_MS } from '../limits.js';
import { z } from 'zod';
import { defineVerb, type VerbContext } from '../rpc/verb.js';
import { TuiosError, ERROR_CODES, type ErrorBody } from '../errors.js';
import { table } from '../rpc/print-helpers.js';
import { deliverPrompt, stalledError } from '../delivery/deliver.js';
import { sameOccupant } from '../delivery/typing.js';
import { agentPanes } from './agents.js';
import { confirmToken } from '../agent-state/selector.js';
import { enforce, paneOf } from '../security/access.js';
import { fence } from '../mail/fence.js';
import { isReady, STATES, type AgentState } from '../agent-state/state.js';
import type { Services } from '../daemon/services.js';
import type { Window } from '../model/window.js';
import type { Caller } from '../rpc/caller.js';
import { messageParts, partsParam, makeStagePaste } from './paste.js';


/** What ask-agent answers for one pane: its turn ended (or the wait did), and what it printed. */
export const askReplySchema = z.object({
  window_id: z.string(),
  name: z.string(),
  delivery: z.literal('acked'),
  pre_submit_state: z.enum(STATES),
  state: z.enum(STATES),
  ended_by: z.enum(['turn', 'state', 'timeout', 'gone']),
  transition_observed: z.boolean(),
  completion_seq: z.number().int(),
  /** The pane's text since the prompt, fenced: untrusted. */
  reply: z.string(),
  reply_lines: z.number().int(),
  untrusted: z.literal(true),
  waited_ms: z.number().int(),
});
export type AskReply = z.infer<typeof askReplySchema>;

/** An error as a result carries it: code, message, hint and the code's own fields. */
const errorBodySchema = z.object({ code: z.enum(ERROR_CODES), message: z.string(), hint: z.string().optional() });

/** ask-agent --select: a row per pane, its reply or why it got none. */
const askPanesSchema = z.object({
  panes: z.array(
    z.discriminatedUnion('ok', [
      askReplySchema.extend({ ok: z.literal(true) }),
      z.object({ ok: z.literal(false), window_id: z.string(), name: z.string(), error: errorBodySchema }),
    ]),
  ),
});

/** A queued message on the wire (list-queued, cancel-queued). */
export const queuedSchema = z.object({
  id: z.string(),
  window_id: z.string(),
  /** human, a pane's window id, link:HOST, shell, tuios mail. */
  by: z.string(),
  status: z.enum(['waiting', 'typing', 'stalled']),
  at: z.number(),
  typed_at: z.number().nullable(),
  text: z.string(),
});
export type Queued = z.infer<typeof queuedSchema>;

/** Each daemon's asks in flight, asker pane → target pane: a cycle of asks would wait on itself forever. */
const askingOf = new WeakMap<Services, Map<string, Set<string>>>();

function asksOf(svc: Services): Map<string, Set<string>> {
  let m = askingOf.get(svc);
  if (!m) askingOf.set(svc, (m = new Map()));
  return m;
}

function wouldCycle(asking: Map<string, Set<string>>, from: string, to: string): boolean {
  const seen = new Set<string>();
  const stack = [to];
  while (stack.length) {
    const cur = stack.pop()!;
    if (cur === from) return true;
    if (seen.has(cur)) continue;
    seen.add(cur);
    for (const n of asking.get(cur) ?? []) stack.push(n);
  }
  return false;
}

export function whoQueues(svc: Services, caller: Caller, nonce: string | undefined): string {
  // A linked machine's call, the person there included: it is neither a pane here nor a shell here.
  if (caller.channel === 'link') return `link:${caller.host ?? '?'}`;
  const p = svc.placement(caller);
  if (p.kind === 'outside') return svc.person.verifies(caller, p, nonce) ? 'human' : 'shell';
  const { window } = paneOf(svc, caller);
  return window?.id ?? 'pane';
}

async function waitReady(svc: Services, w: Window, ms: number, signal: AbortSignal): Promise<AgentState> {
  const s = svc.agents.stateOf(w);
  if (s !== 'working') return s;
  return new Promise((resolve) => {
    const done = (st: AgentState) => {
      sub.dispose();
      clearTimeout(t);
      resolve(st);
    };
    const sub = svc.bus.on('agent-state', (ev) => {
      if (ev.window_id === w.id && ev.state !== 'working') done(ev.state);
    });
    const t = setTimeout(() => done(svc.agents.stateOf(w)), ms);
    signal.addEventListener('abort', () => done(svc.agents.stateOf(w)));
  });
}

interface AskOne {
  w: Window;
  text: string;
  force: boolean;
  allowBlocked: boolean;
  turnMs: number;
}

async function askOne(ctx: VerbContext<unknown>, o: AskOne): Promise<AskReply> {
  const { svc, caller, signal } = ctx;
  const w = o.w;
  const started = Date.now();
  let state = svc.agents.stateOf(w);
  if (state === 'working' && !o.force) state = await waitReady(svc, w, ASK_READY_WAIT_MS, signal);
  if (state === 'needs_input' && !o.allowBlocked) {
    throw new TuiosError('agent_blocked', `${w.name} is waiting on a prompt (needs_input); text typed there would answer it.`, 'Answer the prompt first (tuios peek-prompt / respond, or the Inbox), or queue the message: tuios queue -w ' + w.shortId + ' TEXT', { typed: false });
  }
  if (state === 'unknown' && !o.force) {
    throw new TuiosError('not_ready', `${w.name} is present but nothing says it is at its prompt (unknown): it may be in the middle of a long tool call.`, 'Pass force to type anyway, or queue the message.', { typed: false });
  }
  if (!isReady(state) && state !== 'unknown' && !o.force && !(state === 'needs_input' && o.allowBlocked)) {
    throw new TuiosError('not_ready', `${w.name} is ${state}.`, 'Queue the message for its next rest: tuios queue -w ' + w.shortId + ' TEXT', { typed: false });
  }
  const harness0 = svc.agents.harnessOf(w);
  const marker = w.screen.markCursorLine();
  const recheck = () => {
    // Right before the text and again right before Enter: the grants, the prompt, the occupant.
    enforce(svc, caller, { verb: 'ask-agent', access: 'write', target: w, types: true, blockedCheck: !o.allowBlocked });
    if (!o.allowBlocked && svc.agents.stateOf(w) === 'needs_input') throw new TuiosError('agent_blocked', `${w.name} turned to a prompt before Enter; nothing was submitted.`, undefined, { typed: false });
    if (!sameOccupant(harness0, svc.agents.harnessOf(w))) throw new TuiosError('conflict', `The program in ${w.name} changed before Enter; nothing was submitted.`, undefined, { typed: false });
  };
  const asker = paneOf(svc, caller).window;
  if (asker) {
    const asking = asksOf(svc);
    if (wouldCycle(asking, asker.id, w.id)) throw new TuiosError('conflict', `${w.name} is already asking this pane: a cycle of asks would wait on itself.`, undefined, { typed: false });
    if (!asking.has(asker.id)) asking.set(asker.id, new Set());
    asking.get(asker.id)!.add(w.id);
  }
  try {
    const d = await deliverPrompt(svc, w, o.text, recheck);
    try {
      if (!d.taken) throw stalledError(w);
      const end = await d.watch.ended(o.turnMs, signal);
      const e = w.screen;
      const bottom = e.viewportTop + e.rows;
      const from = marker && marker.line >= 0 ? marker.line : e.viewportTop;
      const lines = e.rangeLines(from, bottom);
      while (lines.length && lines[lines.length - 1] === '') lines.pop();
      return {
        window_id: w.id,
        name: w.name,
        delivery: 'acked',
        pre_submit_state: d.preState,
        state: end.state,
        ended_by: end.how,
        transition_observed: end.how !== 'timeout',
        completion_seq: svc.agents.recordOf(w)?.completionSeq ?? 0,
        reply: fence(w.name, lines.join('\n')),
        reply_lines: lines.length,
        untrusted: true,
        waited_ms: Date.now() - started,
      };
    } finally {
      d.watch.dispose();
    }
  } finally {
    marker?.dispose();
    if (asker) asksOf(svc).get(asker.id)?.delete(w.id);
  }
}

export const askAgent = defineVerb({
  name: 'ask-agent',
  mcp: { tool: 'tuios_ask_agent', writes: true, data: true },
  summary: 'Type a prompt at an agent at its prompt, check it was taken, and return what the pane printed',
  help: 'Refuses a pane on needs_input (agent_blocked) and an unknown one (unless force); waits for a working one. The prompt is typed once: a retry with the same --op-id replays the result and never types again. --select asks every matching pane (with --confirm, at most 16).',
  target: 'window-optional',
  mutates: true,
  types: true,
  cli: { positionals: ['text'], usage: "ask-agent -w WINDOW 'PROMPT' [--timeout MS] [--op-id ID]" },
  params: z.object({
    text: z.string().describe('The prompt (one line, unless the pane takes a bracketed paste)'),
    op_id: z.string().max(128).optional().describe('An operation id: a same-id retry replays the result'),
    force: z.boolean().optional().describe('Type into an unknown or working pane anyway'),
    allow_blocked: z.boolean().optional().describe('Type into a pane on needs_input (it answers the prompt; needs respond from a pane)'),
    timeout: z.number().int().min(1000).max(24 * 3_600_000).optional().describe('How long to wait for the turn to end (default 10 minutes)'),
    from: z.string().max(128).optional().describe('Who asks (a claim; a pane cannot say human)'),
    select: z.string().max(1000).optional().describe('A selector: ask every matching pane'),
    confirm: z.string().max(64).optional().describe('The confirm token of exactly the selected set'),
  }),
  result: z.union([askReplySchema, askPanesSchema]),
  print: (r) => ('panes' in r ? r.panes.map((p) => `${p.name}: ${p.ok ? String(p.state) : p.error.code}`).join('\n') : r.reply),
  async run(ctx) {
    const { params, svc, caller, window } = ctx;
    if (params.from === 'human' && svc.placement(caller).kind !== 'outside') {
      throw new TuiosError('forbidden', 'A pane cannot ask as human: no ask is recorded as the person\'s.');
    }
    const one = (w: Window) => askOne(ctx as VerbContext<unknown>, { w, text: params.text, force: !!params.force, allowBlocked: !!params.allow_blocked, turnMs: params.timeout ?? ASK_TURN_MS });
    if (params.select) {
      if (paneOf(svc, caller).window && svc.placement(caller).kind === 'inside') throw new TuiosError('forbidden', 'A selector is refused from a pane this daemon cannot name.');
      const panes = agentPanes(svc, { select: params.select }).filter((w) => w.id !== paneOf(svc, caller).window?.id);
      const token = confirmToken(panes.map((w) => w.id));
      if (params.confirm !== token) {
        throw new TuiosError('confirm_required', `The selector matches ${panes.length} panes; an ask by selector needs the confirm token of exactly that set.`, 'Check `available`, then ask again with --confirm TOKEN.', {
          available: panes.map((w) => ({ id: w.id, name: w.name })),
          confirm: token,
        });
      }
      if (panes.length > ASK_SELECT_MAX) throw new TuiosError('limit_reached', `An ask by selector reaches at most ${ASK_SELECT_MAX} panes; this one matches ${panes.length}.`, 'Narrow the selector.');
      for (const w of panes) enforce(svc, caller, { verb: 'ask-agent', access: 'write', target: w, types: true, blockedCheck: false });
      const rows = await Promise.all(panes.map((w) => svc.ops.run(params.op_id ? `${params.op_id}:${w.id}` : undefined, () => one(w)).then((r) => ({ ok: true as const, ...r }), (e: TuiosError) => ({ ok: false as const, window_id: w.id, name: w.name, error: e.toBody ? e.toBody() : ({ code: 'internal', message: String(e) } satisfies ErrorBody) }))));
      return { panes: rows };
    }
    if (!window) throw new TuiosError('window_not_found', 'ask-agent needs a pane (-w) or --select.');
    return svc.ops.run(params.op_id ? `${params.op_id}:${window.id}` : undefined, () => one(window));
  },
});

export const queuePrompt = defineVerb({
  name: 'queue-prompt',
  summary: 'Queue a message for an agent: typed when it next comes to rest, never over a prompt, never twice',
  target: 'window',
  mutates: true,
  types: true,
  cli: { positionals: ['text'], aliases: ['queue'], subcommands: { ls: 'list-queued', rm: 'cancel-queued' }, usage: 'queue -w WINDOW TEXT | queue ls | queue rm ID' },
  params: z.object({
    text: z.string().optional().describe('The message'),
    parts: partsParam.optional().describe('The message in parts, instead of text: words ({text}), paste blocks ({paste}) and blocks sent ahead ({staged})'),
    from: z.string().max(128).optional().describe('A pane can queue only as itself'),
    nonce: z.string().max(128).optional().describe('The attach nonce (queued as human)'),
  }),
  result: z.object({ id: z.string(), window_id: z.string(), position: z.number().int(), by: z.string() }),
  print: (r) => r.id,
  async run({ params, svc, caller, window }) {
    const w = window!;
    if ((params.text === undefined) === (params.parts === undefined)) throw new TuiosError('invalid_params', 'queue-prompt takes the message as text or as parts, one of them.', 'Give TEXT, or parts.', { field: 'text' });
    const by = whoQueues(svc, caller, params.nonce);
    if (params.from && params.from !== by && !(by === 'human' && params.from === 'human')) {
      throw new TuiosError('forbidden', 'A message is queued as whoever sends it; `from` cannot name another.', 'Leave --from out.');
    }
    // Access was decided once, by the dispatcher, from this record (write, types): a pane queueing
    // to a pane on its prompt is refused now, at queue time, unless it holds respond (spec: Queued
    // messages). The queue checks the grants again right before it types (core/delivery/queue.ts).
    const parts = params.parts ? await messageParts(svc, caller, by, params.parts) : undefined;
    const m = svc.queue.add(w, params.text ?? '', by, by === 'human' ? null : caller, parts ? { parts } : {});
    return { id: m.id, window_id: w.id, position: svc.queue.list(w).indexOf(m) + 1, by };
  },
});

function queuedJson(m: import('../delivery/queue.js').QueuedMessage): Queued {
  return { id: m.id, window_id: m.window_id, by: m.by, status: m.status, at: m.at, typed_at: m.typed_at, text: m.wake ? '(a mail wake line)' : m.text };
}

export const listQueued = defineVerb({
  name: 'list-queued',
  summary: 'Messages waiting in the delivery queue (every pane, or -w)',
  target: 'window-optional',
  mutates: false,
  cli: { aliases: ['queue-ls'] },
  params: z.object({
    all: z.boolean().optional().describe('Every pane, even from inside one'),
    // Kept so the verb can tell a pane named with -w from the one the dispatcher implies.
    window: z.string().max(300).optional().describe('Only this pane\'s queue'),
  }),
  result: z.object({ queued: z.array(queuedSchema) }),
  print: (r) => {
    if (r.queued.length === 0) return 'nothing queued';
    return table([['ID', 'PANE', 'BY', 'STATUS', 'TEXT'], ...r.queued.map((m) => [m.id, m.window_id.slice(0, 12), m.by.length === 32 ? m.by.slice(0, 12) : m.by, m.status, m.text.split('\n')[0]!.slice(0, 60)])]);
  },
  run({ params, svc, window, caller }) {
    // With no -w: a pane lists its own queue; the person's shell lists every pane's, not the
    // queue of whichever pane happens to be focused in the most recent session.
    const one = params.window !== undefined || svc.callerPane(caller) !== null;
    const ms = params.all || !window || !one ? svc.queue.list() : svc.queue.list(window);
    return { queued: ms.map(queuedJson) };
  },
});

export const cancelQueued = defineVerb({
  name: 'cancel-queued',
  summary: 'Drop a queued message before it is typed',
  target: 'none',
  mutates: true,
  cli: { positionals: ['id'], aliases: ['queue-rm'] },
  params: z.object({ id: z.string().max(32).describe('The message id (q3)'), nonce: z.string().max(128).optional().describe('The attach nonce') }),
  result: z.object({ dropped: queuedSchema }),
  print: 'none',
  run({ params, svc, caller }) {
    const by = whoQueues(svc, caller, params.nonce);
    // You any; a pane only what it queued; a shell every message but yours.
    const m = svc.queue.cancel(params.id, (x) => by === 'human' || x.by === by || (by === 'shell' && x.by !== 'human'));
    return { dropped: queuedJson(m) };
  },
});

export const stagePaste = makeStagePaste(whoQueues);
