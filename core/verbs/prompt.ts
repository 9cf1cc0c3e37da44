// peek-prompt and respond: reading a pane's prompt and answering it without attaching.
import { z } from 'zod';
import { defineVerb } from '../rpc/verb.js';
import { TuiosError } from '../errors.js';
import { DEFAULT_RESPOND_WAIT_MS, PROMPT_SETTLE_MS, PROMPT_SETTLE_MAX_MS, PROMPT_QUIET_MS } from '../limits.js';
import { readPrompt, answerBytes, type Prompt } from '../delivery/prompt.js';
import { fence } from '../mail/fence.js';
import { paneOf, enforce } from '../security/access.js';
import { typePrompt } from '../delivery/typing.js';
import { inputOf } from '../delivery/deliver.js';
import { assessPrompt, checkRiskAck } from '../delivery/prompt-risk.js';
import type { Services } from '../daemon/services.js';
import type { Window } from '../model/window.js';
import type { Caller } from '../rpc/caller.js';
import { STATES } from '../agent-state/state.js';


/** A prompt on the wire, as peek-prompt answers it: its text is the pane's, untrusted. */
export const promptInfoSchema = z.object({
  window_id: z.string(),
  name: z.string(),
  prompt_id: z.string(),
  rule: z.string(),
  kind: z.string(),
  message: z.string(),
  lines: z.array(z.string()),
  fenced: z.string(),
  options: z.array(z.object({ n: z.number().int(), label: z.string(), selected: z.boolean() })),
  /** The actions it offers now: approve, approve_always, deny, choose, text. */
  offered: z.array(z.string()),
  waited_ms: z.number().int(),
  untrusted: z.literal(true),
  risk: z.object({ risky: z.boolean(), ack: z.array(z.string()), detail: z.array(z.string()), root: z.string().nullable() }),
});
export type PromptInfo = z.infer<typeof promptInfoSchema>;

/**
 * What respond keeps for one daemon (never for the process: tests run several daemons in one):
 * the prompts it answered (a prompt answered and asked again is a new prompt id) and each pane's
 * chain of answers in flight, dropped once it runs out.
 */
interface RespondState {
  answered: Set<string>;
  locks: Map<string, Promise<unknown>>;
}
const respondStates = new WeakMap<Services, RespondState>();

function respondState(svc: Services): RespondState {
  let s = respondStates.get(svc);
  if (!s) respondStates.set(svc, (s = { answered: new Set(), locks: new Map() }));
  return s;
}

function withLock<T>(locks: Map<string, Promise<unknown>>, id: string, fn: () => Promise<T>): Promise<T> {
  const prev = locks.get(id) ?? Promise.resolve();
  const run = prev.then(fn, fn);
  const tail = run.then(
    () => undefined,
    () => undefined,
  );
  locks.set(id, tail);
  void tail.then(() => {
    if (locks.get(id) === tail) locks.delete(id);
  });
  return run;
}

function promptJson(p: Prompt, w: Window): Omit<PromptInfo, 'risk'> {
  return {
    window_id: p.window_id,
    name: w.name,
    prompt_id: p.prompt_id,
    rule: p.rule,
    kind: p.kind,
    message: p.message,
    lines: p.lines,
    fenced: fence(w.name, p.lines.join('\n')),
    options: p.options,
    offered: p.offered,
    waited_ms: Date.now() - p.since,
    untrusted: true,
  };
}

export const peekPrompt = defineVerb({
  name: 'peek-prompt',
  summary: 'The prompt a pane waits on, as it shows it (untrusted), its options and the answers it takes',
  target: 'window',
  mutates: false,
  params: z.object({}),
  result: promptInfoSchema,
  print: (r) => {
    const out = [`${r.name} waits ${Math.round(r.waited_ms / 1000)}s on ${r.kind}${r.message ? `: ${r.risk.risky ? 'risky: ' : ''}${r.message}` : ''}`, `prompt ${r.prompt_id} (rule ${r.rule})`, '', r.fenced];
    if (r.options.length) out.push('', ...r.options.map((o) => `${o.selected ? '❯' : ' '} ${o.n}. ${o.label}`));
    out.push('', `answers: ${r.offered.join(', ') || 'none (answer it in the pane)'}`);
    if (r.risk.risky) out.push(...r.risk.detail.map((d) => `risk: ${d}`), `allow with: --risk-ack ${JSON.stringify(r.risk.ack.join(','))}`);
    return out.join('\n');
  },
  run({ window, svc }) {
    const w = window!;
    const p = readPrompt(svc, w);
    if (!p) {
      const s = svc.agents.stateOf(w);
      throw new TuiosError('not_found', s === 'needs_input' ? `${w.name} waits on a prompt no rule with answers reads; answer it in the pane.` : `${w.name} is not waiting on a prompt (it is ${s}).`);
    }
    return { ...promptJson(p, w), risk: assessPrompt(svc, w, p) };
  },
});

function allowsCall(p: Prompt, action: string, choice: string | undefined): boolean {
  if (action === 'deny') return false;
  if (action !== 'choose') return true;
  const deny = p.answers.deny?.option?.toLowerCase();
  const opt = p.options.find((o) => o.n === Number(choice));
  return !(deny && opt && opt.label.toLowerCase().startsWith(deny));
}

/** Who may answer (spec: Who may answer): the person, a shell with respond_from_shell, or a pane holding respond. */
function checkAnswerer(svc: Services, caller: Caller, w: Window, nonce: string | undefined): { by: string; pane: Window | null } {
  const placement = svc.placement(caller);
  if (placement.kind === 'outside') {
    if (svc.person.verifies(caller, placement, nonce)) return { by: 'human', pane: null };
    if (svc.config.current.daemon.respond_from_shell) return { by: 'shell', pane: null };
    throw new TuiosError('not_human', 'respond needs the attach nonce of a client attached now.', 'Answer from the Inbox, or set respond_from_shell = true under [daemon] to answer from a terminal outside tuios.');
  }
  const { window: pane } = paneOf(svc, caller);
  try {
    if (!pane) throw new Error('unnamed pane');
    enforce(svc, caller, { verb: 'respond', access: 'respond', target: w });
    enforce(svc, caller, { verb: 'respond', access: 'read', target: w });
  } catch {
    throw new TuiosError('not_human', 'respond is refused: the caller runs inside a pane without the respond grant, and only the person may answer a prompt.', 'The person answers from the Inbox, or gives a supervisor pane respond: tuios set-pane-grants.');
  }
  return { by: pane.id, pane };
}

export const respond = defineVerb({
  name: 'respond',
  mcp: { tool: 'tuios_respond', writes: true },
  access: 'none',
  link: { right: 'respond' },
  summary: 'Answer the prompt a pane waits on: approve, approve_always, deny, choose N, or text',
  help: 'Checks under a lock: the pane is on needs_input with a prompt a rule reads, the prompt is the one peeked (--prompt-id), not already answered, and offers the action. Then waits (5 s) for the pane to leave needs_input. A risky allow needs --risk-ack naming exactly the rules it matched.',
  target: 'window',
  mutates: true,
  cli: { positionals: ['action', 'choice'], comma: ['risk_ack'], usage: "respond -w WINDOW [--prompt-id ID] approve|approve_always|deny|choose N|text 'ANSWER'" },
  params: z.object({
    action: z.enum(['approve', 'approve_always', 'deny', 'choose', 'text']).describe('The answer'),
    choice: z.string().max(4096).optional().describe('choose: the option number; text: the answer'),
    prompt_id: z.string().max(64).optional().describe('The prompt id peek-prompt gave (refused when the prompt changed)'),
    risk_ack: z.array(z.string().max(64)).max(32).optional().describe('The risk rules an allow acknowledges'),
    timeout: z.number().int().min(0).max(60_000).optional().describe('How long to wait for the pane to leave needs_input (ms)'),
    nonce: z.string().max(128).optional().describe('The attach nonce'),
  }),
  result: z.object({
    window_id: z.string(),
    pressed: z.enum(['approve', 'approve_always', 'deny', 'choose', 'text']),
    prompt_id: z.string(),
    /** human, shell, or the answering pane's window id. */
    by: z.string(),
    by_pane: z.string().optional(),
    state: z.enum(STATES),
    /** How the pane left needs_input: its state did, its prompt left the screen, it closed, or the wait ran out. */
    ended: z.enum(['state', 'prompt', 'gone', 'timeout']),
  }),
  print: (r) => `pressed ${r.pressed}; ${r.ended === 'timeout' ? `the pane is still ${r.state}` : `it is ${r.state} now`}`,
  async run({ params, window, svc, caller, signal }) {
    const w = window!;
    const who = checkAnswerer(svc, caller, w, params.nonce);
    const { answered, locks } = respondState(svc);
    return withLock(locks, w.id, async () => {
      await settle(svc, w, signal);
      const p = readPrompt(svc, w);
      // 1-3: on needs_input with a prompt a rule reads, the one the caller read, not answered yet.
      if (!p) throw new TuiosError('prompt_changed', `${w.name} shows no prompt tuios can answer now; nothing was pressed.`, 'Read it again with peek-prompt.');
      if (params.prompt_id && params.prompt_id !== p.prompt_id) throw new TuiosError('prompt_changed', 'The prompt changed since it was read; nothing was pressed.', 'Read it again with peek-prompt.', { prompt_id: p.prompt_id });
      if (answered.has(p.prompt_id)) throw new TuiosError('prompt_changed', 'This prompt was already answered; nothing was pressed.', 'Read it again with peek-prompt.');
      // 4: the action must be one the rule offers for what is on the screen now.
      if (!p.offered.includes(params.action)) {
        throw new TuiosError('invalid_params', `${params.action} is not offered by this prompt.`, `Offered: ${p.offered.join(', ') || 'none'}`, { field: 'action', offered: p.offered });
      }
      // Any answer but a deny may allow the call: a chosen option counts unless it is the deny option.
      if (allowsCall(p, params.action, params.choice)) checkRiskAck(svc, w, p, params.risk_ack ?? [], who.pane !== null);
      if (params.action === 'text') {
        if (!params.choice) throw new TuiosError('invalid_params', 'text needs the answer to type.', undefined, { field: 'choice' });
        answered.add(p.prompt_id);
        await typePrompt(w, params.choice, inputOf(svc, w), () => {});
      } else {
        const choice = params.action === 'choose' ? Number(params.choice) : undefined;
        const bytes = answerBytes(p, params.action, choice, w);
        answered.add(p.prompt_id);
        await w.typeJob(() => w.write(bytes));
      }
      if (answered.size > 4096) answered.delete(answered.values().next().value!);
      svc.log.info('prompt answered', { window: w.id, action: params.action, by: who.by, rule: p.rule });
      const ended = await waitLeave(svc, w, params.timeout ?? DEFAULT_RESPOND_WAIT_MS, signal);
      return { window_id: w.id, pressed: params.action, prompt_id: p.prompt_id, by: who.by, ...(who.pane ? { by_pane: who.pane.id } : {}), state: svc.agents.stateOf(w), ended };
    });
  },
});

/**
 * Waits until the prompt has stood PROMPT_SETTLE_MS and the pane has been quiet a moment: a
 * harness may drop keys that arrive while its prompt is still coming up (Claude Code 2.1.332 lost
 * a digit pressed within 100 ms of tuios seeing the prompt, and took one at 300 ms).
 */
async function settle(svc: Services, w: Window, signal: AbortSignal): Promise<void> {
  const until = Date.now() + PROMPT_SETTLE_MAX_MS;
  for (;;) {
    const since = svc.agents.recordOf(w)?.enteredAt ?? 0;
    const now = Date.now();
    const wait = Math.max(since + PROMPT_SETTLE_MS - now, w.lastOutputAt + PROMPT_QUIET_MS - now);
    if (wait <= 0 || now >= until || signal.aborted || svc.agents.stateOf(w) !== 'needs_input') return;
    await new Promise((r) => setTimeout(r, Math.min(wait, until - now)));
  }
}

/** Waits for the pane to leave needs_input: `state` it did, `prompt` its prompt left the screen, `gone`, `timeout`. */
function waitLeave(svc: Services, w: Window, ms: number, signal: AbortSignal): Promise<'state' | 'prompt' | 'gone' | 'timeout'> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (how: 'state' | 'prompt' | 'gone' | 'timeout') => {
      if (done) return;
      done = true;
      a.dispose();
      b.dispose();
      o.dispose();
      clearTimeout(t);
      resolve(how);
    };
    const a = svc.bus.on('agent-state', (ev) => {
      if (ev.window_id === w.id && ev.state !== 'needs_input') finish('state');
    });
    const b = svc.bus.on('window-closed', (ev) => {
      if (ev.window_id === w.id) finish('gone');
    });
    const o = w.onOutput(() => {
      if (!readPrompt(svc, w) && svc.agents.stateOf(w) === 'needs_input') {
        // Give the state a moment to follow the screen before reporting only the screen.
        setTimeout(() => finish(svc.agents.stateOf(w) === 'needs_input' ? 'prompt' : 'state'), 300).unref();
      }
    });
    const t = setTimeout(() => finish('timeout'), ms);
    signal.addEventListener('abort', () => finish('timeout'));
  });
}
