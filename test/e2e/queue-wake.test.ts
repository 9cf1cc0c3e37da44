// Mail that wakes an agent at rest (spec: "Mail that wakes an agent at rest"): the wake line waits
// in the delivery queue as `by: tuios mail`, and two wakes of one pane are at least 30 seconds
// apart. A real daemon and the Claude Code stand-in (test/helpers/screen-standin.ts) under the
// bundled rules. The stand-in is put on its permission prompt while each wake is due, so the
// line stays queued (nothing is typed over a prompt) and `list-queued` shows when it was queued;
// Escape then denies the prompt, the pane comes to rest and the line is typed. The gap has no
// setting, so this file runs for about 40 seconds.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { TestDaemon } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { screenStandin, type ScreenStandin } from '../helpers/screen-standin.js';
import { waitState } from '../helpers/agent-state.js';
import type { Queued } from '../../core/verbs/typing.js';

const WAKE_AFTER_MS = 5000;
const WAKE_GAP_MS = 30_000;
const LINE = /^You have 1 unread tuios message\. Read them with: tuios read-agent-messages -s fleet -w \S+ --unread$/;

let d: TestDaemon;
let s: ScreenStandin;
let w = '';

const queued = async () => (await d.call<{ queued: Queued[] }>('list-queued', { window: w })).queued;
const wakeSubmits = () => s.events().filter((e) => e.t === 'submit' && /^You have \d+ unread tuios message/.test(e.text ?? ''));

/** Puts the stand-in on its permission prompt: nothing queued is typed until it is answered. */
async function onPrompt(cmd: string): Promise<void> {
  const r = await d.call<{ state: string }>('ask-agent', { window: w, text: `run ${cmd}`, timeout: 30_000 });
  assert.is(r.state, 'needs_input');
}

/** Polls the queue until the wake line is in it; returns it and when the test first saw it. */
async function wakeQueued(deadline: number): Promise<{ m: Queued; seenAt: number; looks: number }> {
  let looks = 0;
  return waitFor(
    async () => {
      looks++;
      const m = (await queued()).find((x) => x.by === 'tuios mail');
      return m ? { m, seenAt: Date.now(), looks } : null;
    },
    { timeout: deadline, interval: 100, what: 'the wake line queued' },
  );
}

test.before(async () => {
  d = await TestDaemon.start();
  await d.ok(['new-session', 'fleet', 'sleep', '3600']);
  s = screenStandin(d.dir, 'woken');
  const cwd = join(d.home, 'project');
  mkdirSync(cwd, { recursive: true });
  w = (await d.call<{ id: string }>('new-window', { session: 'fleet', name: 'woken', argv: s.argv, env: s.env, cwd, cols: 120, rows: 40 })).id;
  await waitState(d, w, (a) => a.harness_id === 'claude-code' && a.state === 'idle', { timeout: 60_000, what: 'the stand-in attributed and at rest' });
});

test.after(async () => {
  await d?.stop();
});

test('the wake line is queued by tuios mail; a second one waits out the 30 s gap, then comes', async () => {
  // The first wake: queued 5 s after the mail, listed as tuios mail, held while the prompt is up.
  await onPrompt('touch a.txt');
  const mail1 = Date.now();
  await d.call('send-agent-message', { window: w, session: 'fleet', text: 'first' });
  const first = await wakeQueued(30_000);
  assert.is(first.m.by, 'tuios mail');
  assert.is(first.m.text, '(a mail wake line)', 'listed without its text');
  assert.is(first.m.status, 'waiting');
  assert.is(first.m.window_id, w);
  assert.ok(first.m.at - mail1 >= WAKE_AFTER_MS, `queued ${first.m.at - mail1} ms after the mail`);
  assert.is(wakeSubmits().length, 0, 'nothing typed over the prompt');
  const q1 = first.m.at;

  // Denied, the pane is at rest and the line is typed.
  await d.call('send-keys', { window: w, keys: ['Escape'] });
  await waitFor(() => wakeSubmits().length === 1, { timeout: 30_000, what: 'the first wake typed' });
  assert.match(wakeSubmits()[0]!.text!, LINE);
  await waitFor(async () => (await queued()).length === 0, { timeout: 30_000, what: 'the first wake taken' });
  await waitState(d, w, ['idle', 'done'], { timeout: 60_000, what: 'the stand-in idle or done' });

  // More mail well inside the gap: its own 5 s would end long before the 30 s do.
  await onPrompt('touch b.txt');
  const mail2 = Date.now();
  assert.ok(mail2 + WAKE_AFTER_MS < q1 + WAKE_GAP_MS - 5000, `the second mail is sent ${mail2 - q1} ms after the first wake, too late to tell the gap from the 5 s`);
  await d.call('send-agent-message', { window: w, session: 'fleet', text: 'second' });
  const second = await wakeQueued(q1 + WAKE_GAP_MS + 20_000 - Date.now());
  assert.is(second.m.by, 'tuios mail');
  assert.is.not(second.m.id, first.m.id);
  // Not before the gap (a few ms for timers rounding to the millisecond), then at the gap.
  assert.ok(second.m.at - q1 >= WAKE_GAP_MS - 5, `the second wake was queued ${second.m.at - q1} ms after the first`);
  assert.ok(second.seenAt - q1 >= WAKE_GAP_MS - 5, `the second wake was seen ${second.seenAt - q1} ms after the first`);
  assert.ok(second.looks > 1, 'the queue was looked at before the second wake came');
  assert.ok(second.m.at - q1 < WAKE_GAP_MS + 10_000, `the second wake came ${second.m.at - q1} ms after the first, long past the gap`);
  assert.is(wakeSubmits().length, 1, 'no second line typed yet');

  await d.call('send-keys', { window: w, keys: ['Escape'] });
  await waitFor(() => wakeSubmits().length === 2, { timeout: 30_000, what: 'the second wake typed' });
  // It counts only the mail not yet announced: the first wake marked the first message.
  assert.match(wakeSubmits()[1]!.text!, LINE);
  await waitFor(async () => (await queued()).length === 0, { timeout: 30_000, what: 'the second wake taken' });
});

test.run();
