// The alert policy (core/alerts/policy.ts): every rule of [notifications.agent] and
// [notifications.mail], read through the real config parser so the schema's defaults apply.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfig } from '../../core/config/config.js';
import { alertClass, decide, inQuietHours, notificationEscape, policyWarnings, resolveMail, SoundCooldown, transitionAlerts, cueFile, escapeText } from '../../core/alerts/policy.js';
import { Settler } from '../../core/alerts/settle.js';
import { ALERT_NOTIFY_TEXT_MAX, ALERT_SETTLING_MAX } from '../../core/limits.js';

function notif(toml: string) {
  const r = parseConfig(toml);
  if (!r.config) throw new Error(r.error ?? 'no config');
  return { n: r.config.notifications, warnings: r.warnings };
}
const noon = new Date(2026, 0, 5, 12, 0);
const at = (h: number, m = 0) => new Date(2026, 0, 5, h, m);

test('defaults: every output on for needs_input, errored and done; a bell for what needs you, none for done', () => {
  const { n } = notif('');
  assert.equal(decide(n, { kind: 'approval' }, noon), { dock: true, notify: true, sound: true, governs: 'needs_input', settleMs: 0, quiet: false });
  assert.is(decide(n, { kind: 'errored' }, noon)!.sound, true);
  const done = decide(n, { kind: 'done' }, noon)!;
  assert.is(done.dock && done.notify, true);
  assert.is(done.sound, false);
  assert.is(n.agent.sound_mode, 'bell');
  assert.is(n.agent.escape, 'osc9');
});

test('kinds answer to states: approval, question, plan and ask to needs_input; held and mail to mail; others nothing', () => {
  for (const k of ['approval', 'question', 'plan', 'ask', 'needs_input']) assert.is(alertClass(k), 'needs_input');
  assert.is(alertClass('errored'), 'errored');
  assert.is(alertClass('done'), 'done');
  assert.is(alertClass('mail'), 'mail');
  assert.is(alertClass('held'), 'mail');
  for (const k of ['resume', 'waiting', 'working', 'idle']) assert.is(alertClass(k), null);
  assert.is(decide(notif('').n, { kind: 'resume' }, noon), null);
});

test('transitions: into needs_input or errored, done only from working, never a state to itself', () => {
  assert.ok(transitionAlerts('needs_input', 'working'));
  assert.ok(transitionAlerts('errored', 'idle'));
  assert.ok(transitionAlerts('done', 'working'));
  assert.not.ok(transitionAlerts('done', 'idle'));
  assert.not.ok(transitionAlerts('needs_input', 'needs_input'));
  assert.not.ok(transitionAlerts('working', 'needs_input'));
  assert.not.ok(transitionAlerts('idle', 'working'));
});

test('states chooses which transitions fire; enabled = false fires none', () => {
  const { n } = notif('[notifications.agent]\nstates = ["needs_input"]\n');
  assert.ok(decide(n, { kind: 'question' }, noon));
  assert.is(decide(n, { kind: 'errored' }, noon), null);
  assert.is(decide(n, { kind: 'done' }, noon), null);
  const off = notif('[notifications.agent]\nenabled = false\n').n;
  assert.is(decide(off, { kind: 'approval' }, noon), null);
});

test('dock, notify and sound each turn one output off; all three off is no alert', () => {
  const { n } = notif('[notifications.agent]\nnotify = false\nsound = false\n');
  assert.equal(decide(n, { kind: 'approval' }, noon), { dock: true, notify: false, sound: false, governs: 'needs_input', settleMs: 0, quiet: false });
  assert.is(decide(notif('[notifications.agent]\nnotify = false\nsound = false\ndock = false\n').n, { kind: 'approval' }, noon), null);
});

test('a mail key left out follows the agent key; a mail key set wins', () => {
  const follows = notif('[notifications.agent]\nnotify = false\n').n;
  assert.equal(resolveMail(follows), { between_agents: false, enabled: true, notify: false, dock: true, sound: true });
  assert.is(decide(follows, { kind: 'mail' }, noon)!.notify, false);
  const own = notif('[notifications.agent]\nnotify = false\n[notifications.mail]\nnotify = true\nsound = false\n').n;
  assert.equal(decide(own, { kind: 'mail' }, noon), { dock: true, notify: true, sound: false, governs: 'mail', settleMs: 0, quiet: false });
  // The agent table's states never choose mail; its enabled does when the mail table leaves it out.
  assert.ok(decide(notif('[notifications.agent]\nstates = []\n').n, { kind: 'mail' }, noon));
  assert.is(decide(notif('[notifications.agent]\nenabled = false\n').n, { kind: 'mail' }, noon), null);
  assert.ok(decide(notif('[notifications.agent]\nenabled = false\n[notifications.mail]\nenabled = true\n').n, { kind: 'mail' }, noon));
});

test('between_agents: off by default, so mail between two agents raises nothing; on, it alerts', () => {
  assert.is(decide(notif('').n, { kind: 'mail', betweenAgents: true }, noon), null);
  assert.ok(decide(notif('').n, { kind: 'mail' }, noon));
  assert.ok(decide(notif('[notifications.mail]\nbetween_agents = true\n').n, { kind: 'mail', betweenAgents: true }, noon));
});

test('the validator warns when between_agents is on and mail alerts are off, also when off comes from the agent table', () => {
  assert.equal(notif('[notifications.mail]\nbetween_agents = true\n').warnings, []);
  assert.match(notif('[notifications.mail]\nbetween_agents = true\nenabled = false\n').warnings.join('\n'), /between_agents is on but mail alerts are off/);
  assert.match(notif('[notifications.agent]\nenabled = false\n[notifications.mail]\nbetween_agents = true\n').warnings.join('\n'), /between_agents/);
  assert.match(notif('[notifications.agent]\nsound_mode = "system"\n').warnings.join('\n'), /no cue file/);
  assert.match(notif('[notifications.agent]\nquiet_hours = "08:00-08:00"\n').warnings.join('\n'), /same time/);
});

test('quiet hours: inside them notification and sound are held back and the dock stays; across midnight too', () => {
  assert.ok(inQuietHours('09:00-17:00', at(12)));
  assert.ok(inQuietHours('09:00-17:00', at(9)));
  assert.not.ok(inQuietHours('09:00-17:00', at(17)));
  assert.not.ok(inQuietHours('09:00-17:00', at(8, 59)));
  assert.ok(inQuietHours('22:00-07:00', at(23, 30)));
  assert.ok(inQuietHours('22:00-07:00', at(3)));
  assert.not.ok(inQuietHours('22:00-07:00', at(7)));
  assert.not.ok(inQuietHours('22:00-07:00', at(12)));
  assert.not.ok(inQuietHours(undefined, at(12)));
  assert.not.ok(inQuietHours('10:00-10:00', at(10)));
  const { n } = notif('[notifications.agent]\nquiet_hours = "09:00-17:00"\n');
  assert.equal(decide(n, { kind: 'approval' }, noon), { dock: true, notify: false, sound: false, governs: 'needs_input', settleMs: 0, quiet: true });
  assert.equal(decide(n, { kind: 'approval' }, at(18))!.quiet, false);
  // Mail has no quiet hours of its own: the agent table's hold it.
  assert.is(decide(notif('[notifications.agent]\nquiet_hours = "09:00-17:00"\n[notifications.mail]\nnotify = true\n').n, { kind: 'mail' }, noon)!.notify, false);
  // Quiet with the dock off is no alert at all.
  assert.is(decide(notif('[notifications.agent]\nquiet_hours = "09:00-17:00"\ndock = false\n').n, { kind: 'approval' }, noon), null);
});

test('bad values keep the last good config with a message that names the key', () => {
  for (const [toml, key] of [
    ['[notifications.agent]\nquiet_hours = "10pm-7am"\n', 'notifications.agent.quiet_hours'],
    ['[notifications.agent]\nsound_mode = "loud"\n', 'notifications.agent.sound_mode'],
    ['[notifications.agent]\nescape = "osc8"\n', 'notifications.agent.escape'],
    ['[notifications.agent]\nsettle_ms = 600000\n', 'notifications.agent.settle_ms'],
    ['[notifications.agent]\nstates = ["working"]\n', 'notifications.agent.states'],
    ['[notifications.mail]\ndock = "yes"\n', 'notifications.mail.dock'],
  ] as const) {
    const r = parseConfig(toml);
    assert.is(r.config, null, toml);
    assert.ok(r.error!.includes(key), r.error!);
  }
  // Sound mode, cooldown, cues, quiet hours and escape exist in the agent table only.
  const r = parseConfig('[notifications.mail]\nsound_mode = "bell"\nquiet_hours = "22:00-07:00"\n');
  assert.equal(r.warnings.filter((w) => /unknown key/.test(w)).length, 2);
});

test('the settle window comes from the agent table, for mail too', () => {
  const { n } = notif('[notifications.agent]\nsettle_ms = 1500\n');
  assert.is(decide(n, { kind: 'approval' }, noon)!.settleMs, 1500);
  assert.is(decide(n, { kind: 'mail' }, noon)!.settleMs, 1500);
});

test('sound_mode system: a done turn sounds only with its own cue; cues by class', () => {
  const { n } = notif('[notifications.agent]\nsound_mode = "system"\ncue_done = "/s/done.wav"\ncue_mail = "/s/mail.wav"\n');
  assert.is(decide(n, { kind: 'done' }, noon)!.sound, true);
  assert.is(cueFile(n.agent, 'done'), '/s/done.wav');
  assert.is(cueFile(n.agent, 'mail'), '/s/mail.wav');
  assert.is(cueFile(n.agent, 'needs_input'), undefined);
});

test('the escape: OSC 9, OSC 777 and OSC 99 in their forms, with no control character from the text', () => {
  const text = 'fan-3: claude needs approval \x1b]0;evil\x07 · go\x9b';
  assert.is(notificationEscape('osc9', text), '\x1b]9;tuios: fan-3: claude needs approval ]0;evil · go\x07');
  assert.is(notificationEscape('osc777', 'a b'), '\x1b]777;notify;tuios;a b\x07');
  assert.is(notificationEscape('osc99', 'a b'), '\x1b]99;i=tuios:d=0;tuios\x1b\\\x1b]99;i=tuios:d=1:p=body;a b\x1b\\');
  for (const e of ['osc9', 'osc777', 'osc99'] as const) {
    const inner = notificationEscape(e, text).replace(/^\x1b\]|\x07$|\x1b\\$/g, '').replace(/\x1b\\\x1b\]/g, '');
    assert.not.match(inner, /[\x00-\x1f\x7f-\x9f]/);
  }
  assert.is([...escapeText('x'.repeat(1000))].length, ALERT_NOTIFY_TEXT_MAX);
});

test('the sound cooldown: one sound per window, then another', () => {
  const c = new SoundCooldown(() => 2000);
  assert.ok(c.take(10_000));
  assert.not.ok(c.take(11_999));
  assert.ok(c.take(12_000));
  const none = new SoundCooldown(() => 0);
  assert.ok(none.take(1));
  assert.ok(none.take(1));
});

test('the settler: fires after its window, not when cancelled, once per key, 0 at once, bounded', async () => {
  const s = new Settler();
  const fired: string[] = [];
  s.hold('now', 0, () => fired.push('now'));
  assert.equal(fired, ['now']);
  s.hold('a', 30, () => fired.push('a'));
  s.hold('b', 30, () => fired.push('b'));
  s.hold('b', 30, () => fired.push('b2'));
  assert.ok(s.cancel('a'));
  await new Promise((r) => setTimeout(r, 80));
  assert.equal(fired, ['now', 'b2']);
  for (let i = 0; i < ALERT_SETTLING_MAX + 3; i++) s.hold(`k${i}`, 60_000, () => fired.push(`k${i}`));
  assert.is(s.size, ALERT_SETTLING_MAX);
  assert.equal(fired.slice(2), ['k0', 'k1', 'k2']);
  s.dispose();
  assert.is(s.size, 0);
});

test.run();
