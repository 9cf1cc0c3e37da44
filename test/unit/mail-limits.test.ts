// The limits of mail, the Inbox and holds that an e2e run cannot reach in reasonable time: 256
// messages per session (the oldest read one goes first), the 10-second undo window, ask-human's
// two-minute default wait, and hold_seconds kept between 10 and 300.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Bus } from '../../core/bus.js';
import { Inbox } from '../../core/inbox/inbox.js';
import { MailStore } from '../../core/mail/mail.js';
import { AskStore } from '../../core/mail/ask.js';
import { DEFAULT_ASK_MS, MAILBOX_MAX } from '../../core/limits.js';
import { askHuman } from '../../core/verbs/mail.js';
import { parseConfig } from '../../core/config/config.js';

const log = { debug() {}, info() {}, warn() {}, error() {} } as never;
const model = { windows: new Map(), sessions: new Map() } as never;
const agents = { harnessOf: () => null } as never;

function stores() {
  const bus = new Bus(log);
  const inbox = new Inbox(bus, model, agents);
  const mail = new MailStore(bus, inbox);
  return { bus, inbox, mail };
}

const msg = (to: string, session: string | null, body: string) => ({ to, to_session_id: session, from: 'a', from_pane: null, from_kind: 'shell' as const, verified_human: false, claimed_human: false, body, reply_to: null });

test('a session keeps 256 messages; past that the oldest read one goes, else the oldest', () => {
  const { mail } = stores();
  assert.is(MAILBOX_MAX, 256);
  for (let i = 0; i < MAILBOX_MAX; i++) mail.send(msg('w1', 's1', `m${i}`));
  mail.markRead(mail.messagesFor('w1', 's1').filter((m) => m.body === 'm10'));
  mail.send(msg('w1', 's1', 'newest'));
  let box = mail.messagesFor('w1', 's1');
  assert.is(box.length, MAILBOX_MAX);
  assert.not.ok(box.some((m) => m.body === 'm10'), 'the read one went first');
  assert.ok(box.some((m) => m.body === 'm0'));
  mail.send(msg('w1', 's1', 'one more'));
  box = mail.messagesFor('w1', 's1');
  assert.is(box.length, MAILBOX_MAX);
  assert.not.ok(box.some((m) => m.body === 'm0'), 'then the oldest');
  // Another session's box is its own.
  mail.send(msg('w2', 's2', 'elsewhere'));
  assert.is(mail.messagesFor('w2', 's2').length, 1);
});

test('the person\'s box is capped too, and a dropped message closes its Inbox item', () => {
  const { mail, inbox } = stores();
  for (let i = 0; i < MAILBOX_MAX + 5; i++) mail.send(msg('human', null, `h${i}`));
  assert.is(mail.messagesFor('human', null).length, MAILBOX_MAX);
  assert.is(inbox.list().filter((i) => i.kind === 'mail').length, MAILBOX_MAX, 'one open item per kept message');
});

test('undo works for 10 seconds after a dismiss, not after', () => {
  const { inbox } = stores();
  const real = Date.now;
  let now = real();
  Date.now = () => now;
  try {
    const a = inbox.open('mail', { summary: 'a' });
    inbox.dismiss(a);
    now += 9_900;
    assert.is(inbox.undoLast()?.id, a.id, 'within 10 s it comes back');
    inbox.dismiss(a);
    now += 10_100;
    assert.is(inbox.undoLast(), null, 'after 10 s it stays dismissed');
  } finally {
    Date.now = real;
  }
});

test('ask-human waits two minutes unless --timeout says otherwise', async () => {
  const { bus, inbox, mail } = stores();
  const asks = new AskStore(bus, inbox, mail, model);
  const waited: number[] = [];
  const wait = asks.wait.bind(asks);
  asks.wait = (q, ms, signal) => {
    waited.push(ms);
    return wait(q, 0, signal);
  };
  const svc = { placement: () => ({ kind: 'outside' }), callerPane: () => null, asks } as never;
  const run = askHuman.run as (ctx: unknown) => Promise<{ status: string }>;
  const ctx = (p: Record<string, unknown>) => ({ params: { question: 'Ship?', options: ['yes', 'no'], ...p }, svc, caller: {}, signal: new AbortController().signal });
  assert.is((await run(ctx({}))).status, 'pending');
  await run(ctx({ timeout: 5000 }));
  assert.equal(waited, [DEFAULT_ASK_MS, 5000]);
  assert.is(DEFAULT_ASK_MS, 120_000);
  asks.dispose();
});

test('[agents.approvals] hold_seconds is kept between 10 and 300, 120 by default; approvals are off by default', () => {
  const held = (t: string) => parseConfig(t).config!.agents.approvals;
  assert.is(held('').hold_seconds, 120);
  assert.equal(held('').enabled, []);
  assert.is(held('[agents.approvals]\nhold_seconds = 2\n').hold_seconds, 10);
  assert.is(held('[agents.approvals]\nhold_seconds = 9999\n').hold_seconds, 300);
  assert.is(held('[agents.approvals]\nhold_seconds = 45\n').hold_seconds, 45);
});

test.run();
