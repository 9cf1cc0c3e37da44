// The attached client's alerts under the policy (tui/alerts.ts Dock): what reaches the client's
// stream (the escape in its form, BEL), the dock message, bursts as one, the settle window, quiet
// hours, the sound cooldown, cues under sound_mode system, mail and between_agents.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Dock, type Alert } from '../../tui/alerts.js';
import { parseConfig } from '../../core/config/config.js';
import { ALERT_BURST_MS } from '../../tui/limits.js';
import { ALERT_BURST_QUIET_MS } from '../../core/limits.js';
import { waitFor } from '../helpers/wait.js';

function rig(toml = '') {
  const r = parseConfig(toml);
  if (!r.config) throw new Error(r.error!);
  const out: string[] = [];
  const cues: string[] = [];
  const dock = new Dock(() => false, { changed: () => {}, notify: (s) => out.push(s), cue: (f) => cues.push(f) }, () => r.config!.notifications);
  return { dock, out, cues, bytes: () => out.join('') };
}

const approval = (session: string, what = ''): Alert => ({ windowId: `w-${session}`, session, who: 'claude', state: 'approval', what, needsYou: true });
const settle = (ms = ALERT_BURST_MS + 150) => new Promise((r) => setTimeout(r, ms));
const oscCount = (b: string) => (b.match(/\x1b\](9|777|99);/g) ?? []).length;
/** BEL outside every OSC: a ring, not a terminator. */
const bells = (b: string) => (b.replace(/\x1b\][^\x07\x1b]*(\x07|\x1b\\)/g, '').match(/\x07/g) ?? []).length;

test('one approval: the dock names its session, one OSC 9 and one bell reach the stream', async () => {
  const { dock, bytes } = rig();
  dock.alert(approval('fan-3', 'approve Bash: go test'));
  await waitFor(() => bytes() || null, { what: 'the alert' });
  assert.is(dock.current()!.text, 'fan-3: claude needs approval · approve Bash: go test');
  assert.equal(dock.current()!.opens, { windowId: 'w-fan-3' }, 'a click opens its pane');
  assert.is(bytes(), '\x1b]9;tuios: fan-3: claude needs approval · approve Bash: go test\x07\x07');
  assert.is(oscCount(bytes()), 1);
  assert.is(bells(bytes()), 1);
});

test('a fan of five is one dock message, one notification and one sound', async () => {
  const { dock, out, bytes } = rig();
  for (const s of ['fan-1', 'fan-2', 'fan-3', 'fan-4', 'fan-5']) dock.alert(approval(s));
  await settle();
  assert.is(out.length, 1);
  assert.is(dock.current()!.text, '5 agents need you in fan-1, fan-2, fan-3 and 2 more');
  assert.equal(dock.current()!.opens, { windowId: null }, 'a click on a burst opens the agents view');
  assert.is(oscCount(bytes()), 1);
  assert.is(bells(bytes()), 1);
  assert.match(bytes(), /5 agents need you/);
});

test('the burst: arrivals each within the quiet gap are one alert; a lone one goes out after the gap; a trickle closes at ALERT_BURST_MS', async () => {
  const a = rig();
  for (const s of ['fan-1', 'fan-2', 'fan-3']) {
    a.dock.alert(approval(s));
    await settle(ALERT_BURST_QUIET_MS / 3);
  }
  await settle();
  assert.is(a.out.length, 1);
  assert.match(a.bytes(), /3 agents need you in fan-1, fan-2 and fan-3/);
  const lone = rig();
  const t0 = Date.now();
  lone.dock.alert(approval('solo'));
  await waitFor(() => lone.bytes() || null, { what: 'the lone alert' });
  assert.ok(Date.now() - t0 < ALERT_BURST_MS, `a lone alert is not held the whole burst window (${Date.now() - t0} ms)`);
  const trickle = rig();
  const start = Date.now();
  let firstAt = 0;
  for (let i = 0; i < 12 && !firstAt; i++) {
    trickle.dock.alert(approval(`t-${i}`));
    await settle(ALERT_BURST_QUIET_MS / 2);
    if (trickle.out.length) firstAt = Date.now();
  }
  assert.ok(firstAt > 0 && firstAt - start <= ALERT_BURST_MS + ALERT_BURST_QUIET_MS, 'a burst that keeps coming still goes out');
});

test('escape osc777 and osc99 are written in their forms', async () => {
  for (const [esc, re] of [['osc777', /^\x1b\]777;notify;tuios;fan-1: claude needs approval\x07\x07$/], ['osc99', /^\x1b\]99;i=tuios:d=0;tuios\x1b\\\x1b\]99;i=tuios:d=1:p=body;fan-1: claude needs approval\x1b\\\x07$/]] as const) {
    const { dock, bytes } = rig(`[notifications.agent]\nescape = "${esc}"\n`);
    dock.alert(approval('fan-1'));
    await settle();
    assert.match(bytes(), re);
  }
});

test('a state that flips back within the settle window raises nothing; one that holds goes out after it', async () => {
  const { dock, bytes } = rig('[notifications.agent]\nsettle_ms = 300\n');
  dock.alert(approval('fan-1'));
  await settle(100);
  dock.cancel('w-fan-1');
  await settle(600);
  assert.is(bytes(), '');
  assert.is(dock.current(), null);
  const t0 = Date.now();
  dock.alert(approval('fan-2'));
  await waitFor(() => bytes() || null, { what: 'the settled alert' });
  assert.ok(Date.now() - t0 >= 300, 'waited out the settle window');
  assert.is(oscCount(bytes()), 1);
});

test('a flip back inside the burst window (settle 0) also raises nothing', async () => {
  const { dock, bytes } = rig();
  dock.alert(approval('fan-1'));
  dock.cancel('w-fan-1');
  await settle();
  assert.is(bytes(), '');
});

test('quiet hours hold the notification and the sound; the dock line stays', async () => {
  const now = new Date();
  const hh = (d: Date) => `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
  const q = `${hh(new Date(now.getTime() - 3_600_000))}-${hh(new Date(now.getTime() + 3_600_000))}`;
  const { dock, bytes } = rig(`[notifications.agent]\nquiet_hours = "${q}"\n`);
  dock.alert(approval('fan-1'));
  await settle();
  assert.is(bytes(), '');
  assert.is(dock.current()!.text, 'fan-1: claude needs approval');
});

test('the sound cooldown: a second burst within it notifies without a bell', async () => {
  const { dock, out } = rig('[notifications.agent]\ncooldown_ms = 60000\n');
  dock.alert(approval('fan-1'));
  await settle();
  dock.alert(approval('fan-2'));
  await settle();
  assert.is(out.length, 2);
  assert.is(bells(out[0]!), 1);
  assert.is(bells(out[1]!), 0);
  assert.is(oscCount(out[1]!), 1);
});

test('sound off, notify off: nothing reaches the stream, the dock still says it', async () => {
  const { dock, bytes } = rig('[notifications.agent]\nsound = false\nnotify = false\n');
  dock.alert(approval('fan-1'));
  await settle();
  assert.is(bytes(), '');
  assert.ok(dock.current());
});

test('a finished turn notifies without a bell; states without done raise nothing for it', async () => {
  const done: Alert = { windowId: 'w1', session: 's', who: 'claude', state: 'done', what: '', needsYou: false };
  const a = rig();
  a.dock.alert(done);
  await settle();
  assert.is(oscCount(a.bytes()), 1);
  assert.is(bells(a.bytes()), 0);
  const b = rig('[notifications.agent]\nstates = ["needs_input"]\n');
  b.dock.alert(done);
  await settle();
  assert.is(b.bytes(), '');
  assert.is(b.dock.current(), null);
});

test('sound_mode system plays the cue of the class instead of BEL', async () => {
  const { dock, bytes, cues } = rig('[notifications.agent]\nsound_mode = "system"\ncue_needs_input = "/cues/needs.wav"\n');
  dock.alert(approval('fan-1'));
  await settle();
  assert.equal(cues, ['/cues/needs.wav']);
  assert.is(bells(bytes()), 0);
  assert.is(oscCount(bytes()), 1);
});

test('mail follows [notifications.mail], its unset keys the agent table; mail between agents needs between_agents', async () => {
  const mail: Alert = { windowId: 'w9', key: 'item:9', session: 'api', who: 'docs', state: 'mail', what: 'docs: hello', needsYou: true };
  const a = rig('[notifications.mail]\nnotify = false\n');
  a.dock.alert(mail);
  await settle();
  assert.is(oscCount(a.bytes()), 0);
  assert.is(bells(a.bytes()), 1);
  assert.is(a.dock.current()!.text, 'api: docs wrote to you · docs: hello');
  const between: Alert = { windowId: null, key: 'mail:3', session: 'api', who: 'docs', state: 'mail', what: '', needsYou: false, to: 'web' };
  const off = rig();
  off.dock.alert(between);
  await settle();
  assert.is(off.dock.current(), null);
  const on = rig('[notifications.mail]\nbetween_agents = true\n');
  on.dock.alert(between);
  await settle();
  assert.is(on.dock.current()!.text, 'api: docs wrote to web');
});

test.run();
