// Mail verbs: send-agent-message, read-agent-messages, ask-human, answer-ask, and the
// agent-message condition of wait-for. Who sent a message is the daemon's reading of the
// connection; `--from` is only a claim, and only the person (verified) is `human`.
import { z } from 'zod';
import { defineVerb, type VerbContext } from '../rpc/verb.js';
import { TuiosError } from '../errors.js';
import type { WaitParams } from './wait.js';
import { fence } from '../mail/fence.js';
import type { Message, SenderKind } from '../mail/mail.js';
import { BODY_MAX_BYTES, DEFAULT_ASK_MS, SELECT_MAX_MESSAGES } from '../limits.js';
import { agentPanes } from './agents.js';
import { confirmToken } from '../agent-state/selector.js';
import type { Services } from '../daemon/services.js';
import type { Caller } from '../rpc/caller.js';
import type { Window } from '../model/window.js';
import type { RemoteTarget } from '../hosts/target.js';
import type { MailOutcome } from '../hosts/remote.js';
import { str } from '../rpc/print-helpers.js';

const nonceParam = z.string().max(128).optional().describe('The attach nonce (acting as the person)');

interface Sender {
  kind: SenderKind;
  pane: Window | null;
  name: string;
  verified: boolean;
  claimedHuman: boolean;
  key: string;
}

/** Who is sending: the kernel's placement first, the claim second. */
function senderOf(svc: Services, caller: Caller, from: string | undefined, nonce: string | undefined): Sender {
  const p = svc.placement(caller);
  if (p.kind !== 'outside') {
    if (from === 'human') throw new TuiosError('forbidden', 'A pane cannot send as human: only the person speaks as the person.', 'Leave --from out; the message goes from your pane.');
    const pane = p.kind === 'pane' ? p.window : svc.callerPane(caller);
    return { kind: 'pane', pane, name: from ?? pane?.name ?? 'a pane', verified: false, claimedHuman: false, key: pane ? `pane:${pane.id}` : `inside:${caller.pid}` };
  }
  if (svc.person.verifies(caller, p, nonce)) return { kind: 'human', pane: null, name: 'human', verified: true, claimedHuman: false, key: 'human' };
  return { kind: 'shell', pane: null, name: from ?? 'shell', verified: false, claimedHuman: from === 'human', key: `shell:${caller.pid}` };
}

/** A message on the wire (read-agent-messages, wait-for agent-message), its body fenced as data. */
export const messageSchema = z.object({
  id: z.number().int(),
  thread: z.number().int(),
  to: z.string(),
  to_session_id: z.string().nullable(),
  from: z.string(),
  from_pane: z.string().nullable(),
  from_kind: z.enum(['pane', 'shell', 'human', 'link']),
  verified_human: z.boolean(),
  claimed_human: z.boolean(),
  subject: z.string(),
  body: z.string(),
  at: z.number(),
  read: z.boolean(),
  reply_to: z.number().int().nullable(),
  announced: z.boolean(),
  host: z.string().optional(),
  held_for: z.object({ window_id: z.string(), name: z.string() }).optional(),
  released_from: z.number().int().optional(),
  from_window: z.object({ id: z.string(), short_id: z.string(), name: z.string() }).nullable(),
  fenced: z.string(),
});

/** wait-for agent-message: the message that arrived, as read-agent-messages shows one. */
export const messageWaitSchema = z.object({ message: messageSchema, waited_ms: z.number().int(), untrusted: z.literal(true) });

export type MessageWaitResult = z.input<typeof messageWaitSchema>;

/** What became of mail to an agent on a linked host (core/hosts/remote.ts MailOutcome). */
const mailOutcomeSchema = z.discriminatedUnion('delivered', [
  z.object({ delivered: z.literal(true), host: z.string(), message_id: z.number().int(), thread: z.number().int(), held: z.boolean(), held_for: z.string().nullable() }),
  z.object({ delivered: z.literal(false), host: z.string(), queued: z.literal(true), waiting: z.number().int(), reason: z.string() }),
]);

function messageJson(m: Message, svc: Services): z.infer<typeof messageSchema> {
  const w = m.from_pane ? svc.model.windows.get(m.from_pane) : undefined;
  return { ...m, from_window: w ? { id: w.id, short_id: w.shortId, name: w.name } : null, fenced: fence(m.from === 'human' && !m.verified_human ? `${m.from} (claimed)` : m.from, m.body) };
}

export const sendAgentMessage = defineVerb({
  name: 'send-agent-message',
  mcp: { tool: 'tuios_send_mail' },
  hosted: 'mail',
  hostRefs: true,
  humanMailbox: true,
  access: 'none',
  summary: 'Leave a message in a pane\'s inbox (or human\'s) without touching its keyboard',
  help: '-w human writes to the person. --from is a claim; a pane cannot send as human or to itself. --select sends one message to each matching pane after confirmation (--confirm TOKEN), at most 32. -s HOST:SESSION (or -w HOST:SESSION:WINDOW) mails an agent on a linked host through the outbox here: delivered when that host answers within 10 s, else it waits, in order, and goes when the link is back (queued: true).',
  target: 'none',
  mutates: true,
  cli: { positionals: ['text'], usage: 'send-agent-message [-s S] -w WINDOW|human [--reply-to ID] [--subject S] TEXT' },
  params: z.object({
    text: z.string().describe('The message'),
    window: z.string().max(300).optional().describe('The recipient pane, or human'),
    session: z.string().max(300).optional().describe('The recipient\'s session'),
    subject: z.string().max(500).optional().describe('A subject line'),
    reply_to: z.number().int().min(1).optional().describe('The message this answers (same thread)'),
    from: z.string().max(128).optional().describe('The name to sign with (a claim)'),
    select: z.string().max(1000).optional().describe('A selector: one message to each matching pane'),
    confirm: z.string().max(64).optional().describe('The confirm token of exactly the selected set'),
    nonce: nonceParam,
  }),
  result: z.object({
    // Mail here: one row per message sent. Mail for a linked host: none, and `host` says what became of it.
    sent: z.array(z.object({ id: z.number().int(), thread: z.number().int(), to: z.string(), verified_human: z.boolean() })),
    host: mailOutcomeSchema.optional(),
  }),
  print: (r) => {
    // Mail for another machine says what became of it; mail here says nothing, as before.
    const h = r.host;
    if (!h) return '';
    if (h.delivered) return h.held ? `delivered to ${h.host}, held there for the person (it was for ${str(h.held_for)})` : `delivered to ${h.host}`;
    return `queued for ${h.host}: ${str(h.waiting)} waiting (${str(h.reason)}); it goes when the link is back`;
  },
  run({ params, svc, caller, signal, remote }) {
    if (Buffer.byteLength(params.text) > BODY_MAX_BYTES) throw new TuiosError('invalid_params', `A message is at most ${BODY_MAX_BYTES} bytes.`, 'Send a shorter message, or attach a file.', { field: 'text' });
    const s = senderOf(svc, caller, params.from, params.nonce);
    // A selector writes only to panes of this machine (spec: Selectors).
    if (remote && !params.select) return sendToHost(svc, caller, s, remote, params, signal);
    let targets: Array<Window | 'human'>;
    if (params.select) {
      const panes = agentPanes(svc, { session: params.session, select: params.select }).filter((w) => w !== s.pane);
      const token = confirmToken(panes.map((w) => w.id));
      if (params.confirm !== token) {
        throw new TuiosError('confirm_required', `The selector matches ${panes.length} panes; a write by selector needs the confirm token of exactly that set.`, 'Check the panes in `available`, then send again with --confirm TOKEN (or --yes at a terminal).', {
          available: panes.map((w) => ({ id: w.id, name: w.name, session: svc.model.sessions.get(w.sessionId)?.name })),
          confirm: token,
        });
      }
      if (panes.length > SELECT_MAX_MESSAGES) throw new TuiosError('limit_reached', `A message by selector goes to at most ${SELECT_MAX_MESSAGES} panes; this one matches ${panes.length}.`, 'Narrow the selector.');
      targets = panes;
    } else if (params.window === 'human') {
      targets = ['human'];
    } else {
      if (!params.window) throw new TuiosError('invalid_params', 'Name the recipient with -w (a pane, or human), or use --select.', undefined, { field: 'window' });
      const scope = params.session ? svc.model.findSession(params.session) : undefined;
      targets = [svc.model.findWindow(params.window, scope)];
    }
    const sent: Message[] = [];
    for (const t of targets) {
      if (t !== 'human' && s.pane && t.id === s.pane.id) throw new TuiosError('invalid_params', 'A pane cannot send a message to itself.', undefined, { field: 'window' });
      if (!svc.mail.allow(s.key)) throw new TuiosError('rate_limited', 'This sender is sending messages too fast.', 'Wait a moment and send again.');
      sent.push(
        svc.mail.send({
          to: t === 'human' ? 'human' : t.id,
          to_session_id: t === 'human' ? null : t.sessionId,
          from: s.name,
          from_pane: s.pane?.id ?? null,
          from_kind: s.kind,
          verified_human: s.verified,
          claimed_human: s.claimedHuman,
          subject: params.subject,
          body: params.text,
          reply_to: params.reply_to ?? null,
        }),
      );
    }
    return { sent: sent.map((m) => ({ id: m.id, thread: m.thread, to: m.to, verified_human: m.verified_human })) };
  },
});

/** Mail for an agent on a linked host: charged here like any send, carried by the link's outbox. */
async function sendToHost(svc: Services, caller: Caller, s: Sender, t: RemoteTarget, p: { text: string; subject?: string }, signal: AbortSignal): Promise<{ sent: []; host: MailOutcome }> {
  if (caller.channel === 'link') throw new TuiosError('forbidden', 'Mail from a linked host does not travel on to another machine.');
  if (!svc.remote) throw new TuiosError('unsupported', 'This daemon has no link between hosts.');
  if (t.session === undefined && t.window === undefined) throw new TuiosError('invalid_params', `Name the session on ${t.host} with -s ${t.host}:SESSION.`, undefined, { field: 'session' });
  if (!svc.mail.allow(s.key)) throw new TuiosError('rate_limited', 'This sender is sending messages too fast.', 'Wait a moment and send again.');
  // -w HOST:SESSION:WINDOW names the window in its session; -s HOST:SESSION the session's agent.
  let session = t.session ?? '';
  let window: string | null = null;
  if (t.window !== undefined) {
    const c = t.window.indexOf(':');
    if (c > 0) {
      session = t.window.slice(0, c);
      window = t.window.slice(c + 1);
    } else window = t.window;
  }
  const r = await svc.remote.sendMail(t.host, { to_session: session, to_window: window, from: s.name, from_kind: s.kind, subject: p.subject ?? '', body: p.text }, signal);
  return { sent: [], host: r };
}

/** Whose mailbox a read names: the caller's own pane by default, another pane, or human. */
function mailboxOf(svc: Services, caller: Caller, window: string | undefined, session: string | undefined): { to: string; sessionId: string | null; own: boolean } {
  if (window === 'human') return { to: 'human', sessionId: null, own: false };
  const own = svc.callerPane(caller);
  if (!window) {
    if (!own) throw new TuiosError('window_not_found', 'Outside a pane, name the mailbox with -w (a pane, or human).', undefined, { field: 'window' });
    return { to: own.id, sessionId: own.sessionId, own: true };
  }
  const w = svc.model.findWindow(window, session ? svc.model.findSession(session) : undefined);
  return { to: w.id, sessionId: w.sessionId, own: own?.id === w.id };
}

export const readAgentMessages = defineVerb({
  name: 'read-agent-messages',
  mcp: { tool: 'tuios_read_mail', data: true },
  hosted: 'mail',
  access: 'none',
  summary: 'Read a mailbox (your pane\'s by default; -w human for the person\'s), every body fenced as data',
  help: 'Reading your own mailbox marks it read. Reading human\'s marks it read only for the person (the attach nonce, outside every pane); any other read is a peek (peek_forced). --peek marks nothing read.',
  target: 'none',
  mutates: false,
  params: z.object({
    window: z.string().max(300).optional().describe('The mailbox: a pane, or human'),
    session: z.string().max(300).optional().describe('The pane\'s session'),
    unread: z.boolean().optional().describe('Only unread messages'),
    thread: z.number().int().min(1).optional().describe('Only this thread'),
    peek: z.boolean().optional().describe('Only look: mark nothing read, even in your own mailbox'),
    nonce: nonceParam,
  }),
  result: z.object({ mailbox: z.string(), messages: z.array(messageSchema), marked_read: z.boolean(), peek_forced: z.boolean(), untrusted: z.literal(true) }),
  print: (r) => {
    const head = r.peek_forced ? 'peek_forced: nothing was marked read\n' : '';
    if (r.messages.length === 0) return head + 'no messages';
    return head + r.messages.map((m) => `#${m.thread} message ${m.id}, ${new Date(m.at).toISOString()}${m.subject ? `: ${m.subject}` : ''}\n${m.fenced}`).join('\n\n');
  },
  run({ params, svc, caller }) {
    const box = mailboxOf(svc, caller, params.window, params.session);
    const msgs = svc.mail.messagesFor(box.to, box.sessionId, { unread: params.unread, thread: params.thread });
    let markRead = box.own;
    let peekForced = false;
    if (box.to === 'human') {
      const p = svc.placement(caller);
      markRead = svc.person.verifies(caller, p, params.nonce);
      peekForced = !markRead;
    }
    if (params.peek) markRead = false;
    const out = msgs.map((m) => messageJson(m, svc));
    if (markRead) svc.mail.markRead(msgs);
    return { mailbox: box.to, messages: out, marked_read: markRead && msgs.length > 0, peek_forced: peekForced, untrusted: true as const };
  },
});

const askedSchema = z.object({ question_id: z.number().int(), item_id: z.number().int() });

export const askHuman = defineVerb({
  name: 'ask-human',
  access: 'self',
  summary: 'Ask the person a question with fixed answers (-o A -o B ...) and wait for the answer',
  help: 'The question is an Inbox row; the call waits (2 minutes by default) and returns the answer, pending, or dismissed. A late answer arrives as mail from human, verified. At most 160 bytes for the question, 60 per answer.',
  target: 'none',
  mutates: true,
  cli: { positionals: ['question'], short: { o: 'options' }, usage: "ask-human 'QUESTION' -o ANSWER -o ANSWER [...] [--timeout MS]" },
  params: z.object({
    question: z.string().max(1024).describe('One line'),
    options: z.array(z.string().max(256)).max(16).describe('The answers (-o, repeated)'),
    timeout: z.number().int().min(0).max(24 * 3_600_000).optional().describe('How long to wait, in ms (default 2 minutes)'),
  }),
  // The question and its Inbox item, with the outcome (core/mail/ask.ts AskOutcome).
  result: z.discriminatedUnion('status', [
    askedSchema.extend({ status: z.literal('answered'), answer: z.string(), index: z.number().int() }),
    askedSchema.extend({ status: z.literal('pending') }),
    askedSchema.extend({ status: z.literal('dismissed'), reason: z.string() }),
  ]),
  print: (r) => (r.status === 'answered' ? String(r.answer) : String(r.status)),
  async run({ params, svc, caller, signal }) {
    const p = svc.placement(caller);
    const pane = p.kind === 'pane' ? p.window : p.kind === 'inside' ? svc.callerPane(caller) : null;
    const q = svc.asks.ask(pane?.id ?? null, params.question, params.options);
    const o = await svc.asks.wait(q, params.timeout ?? DEFAULT_ASK_MS, signal);
    return { question_id: q.id, item_id: q.item.id, ...o };
  },
});

export const answerAsk = defineVerb({
  name: 'answer-ask',
  access: 'person',
  summary: 'Answer a question an agent asked (the person only)',
  target: 'none',
  mutates: true,
  cli: { positionals: ['id', 'answer'] },
  params: z.object({
    id: z.number().int().min(1).describe('The question id (or its Inbox item\'s ref.ask_id)'),
    answer: z.union([z.string().max(256), z.number().int()]).describe('One of its answers, or its number'),
    nonce: nonceParam,
  }),
  // mailed: nobody waited any more, so the answer went to the asking pane as mail from human.
  result: z.object({ answer: z.string(), index: z.number().int(), mailed: z.boolean() }),
  print: 'fields',
  run({ params, svc, caller }) {
    const a = typeof params.answer === 'string' && /^\d+$/.test(params.answer) ? Number(params.answer) : params.answer;
    return svc.asks.answer(params.id, a);
  },
});

export const releaseAgentMessage = defineVerb({
  name: 'release-agent-message',
  link: { untargeted: true },
  access: 'person',
  summary: 'Pass on mail a linked host sent an agent here that [hosts] hold_mail held for you (the person only)',
  help: 'The agent gets it as a new message with the sender and the machine it came from, marked released_from, and the held row closes. Reading a held message and doing nothing drops it. Needs the attach nonce of a client attached now, like dismissing; over a link it needs respond too.',
  target: 'none',
  mutates: true,
  cli: { positionals: ['id'], usage: 'release-agent-message ID' },
  params: z.object({
    id: z.number().int().min(1).describe('The held message (its Inbox row\'s ref.message_id)'),
    nonce: nonceParam,
  }),
  result: z.object({ released: z.object({ id: z.number().int(), thread: z.number().int(), to: z.string(), released_from: z.number().int(), host: z.string().nullable() }) }),
  print: 'fields',
  run({ params, svc, caller }) {
    const held = svc.mail.find(params.id);
    if (!held || held.to !== 'human' || !held.held_for) throw new TuiosError('not_found', `There is no held message ${params.id}.`, 'Held mail is in the Inbox as [held for ...] rows: tuios list-attention');
    if (held.read) throw new TuiosError('conflict', 'That held message was read or passed on already; the agent will not get it.');
    const w = svc.model.windows.get(held.held_for.window_id);
    if (!w) throw new TuiosError('window_not_found', `${held.held_for.name}, the pane it was for, is gone.`);
    const m = svc.mail.send({
      to: w.id,
      to_session_id: w.sessionId,
      from: held.from,
      from_pane: null,
      from_kind: held.from_kind,
      verified_human: false,
      claimed_human: false,
      subject: held.subject,
      body: held.body,
      reply_to: null,
      host: held.host,
      released_from: held.id,
    });
    svc.mail.markRead([held]);
    return { released: { id: m.id, thread: m.thread, to: w.id, released_from: held.id, host: held.host ?? null } };
  },
});

/** wait-for agent-message: a message that arrives after the wait began (never one already there). */
export function waitMessage(ctx: VerbContext<WaitParams>, deadline: number): Promise<MessageWaitResult> {
  const { svc } = ctx;
  // The dispatcher resolved -w/-s (it leaves -w human to us, see humanMailbox).
  const p = ctx.params as WaitParams & { window?: string; session?: string };
  const box = p.window === 'human' ? { to: 'human', sessionId: null, own: false } : ctx.window ? { to: ctx.window.id, sessionId: ctx.window.sessionId, own: svc.callerPane(ctx.caller)?.id === ctx.window.id } : mailboxOf(svc, ctx.caller, undefined, undefined);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const sub = svc.bus.on('mail', (ev) => {
      if (ev.op !== 'new' || ev.to !== box.to) return;
      if (ctx.params.from && ev.from !== ctx.params.from) return;
      const m = svc.mail.find(ev.message_id);
      if (!m) return;
      cleanup();
      if (box.own) svc.mail.markRead([m]);
      resolve({ message: messageJson(m, svc), waited_ms: Date.now() - started, untrusted: true });
    });
    const t = setTimeout(() => {
      cleanup();
      reject(new TuiosError('timeout', `No message for ${box.to === 'human' ? 'human' : 'the pane'} within ${deadline - started} ms.`));
    }, Math.max(0, deadline - Date.now()));
    const onAbort = () => {
      cleanup();
      reject(new TuiosError('timeout', 'The caller went away.'));
    };
    const cleanup = () => {
      sub.dispose();
      clearTimeout(t);
      ctx.signal.removeEventListener('abort', onAbort);
    };
    ctx.signal.addEventListener('abort', onAbort);
  });
}

