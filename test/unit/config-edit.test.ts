// set-config's text edit (core/config/edit.ts) and key reading (core/config/keys.ts): the rest of
// config.toml stays as written, a value is read as its key takes it, bad input is a typed error.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setKeyText } from '../../core/config/edit.js';
import { keyInfo, parseValue, effectiveValue } from '../../core/config/keys.js';
import { parseConfig } from '../../core/config/config.js';
import { TuiosError } from '../../core/errors.js';

const FILE = `# my config, with comments
[daemon]
scrollback = 2000 # lots

[notifications.agent]
# the bell, please
sound_mode = "system"
cue_needs_input = "/s/a.wav"

[ssh]
enabled = false
`;

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.instance(e, TuiosError);
    return (e as TuiosError).code;
  }
  return 'no error';
}

test('a key in its table is replaced in place; comments, order and other tables stay', () => {
  const next = setKeyText(FILE, ['notifications', 'agent', 'sound_mode'], 'bell');
  assert.is(next, FILE.replace('sound_mode = "system"', 'sound_mode = "bell"'));
});

test('a key missing from its table is added at the end of that table', () => {
  const next = setKeyText(FILE, ['notifications', 'agent', 'settle_ms'], 1500);
  assert.is(next, FILE.replace('cue_needs_input = "/s/a.wav"\n', 'cue_needs_input = "/s/a.wav"\nsettle_ms = 1500\n'));
});

test('a missing table is added at the end of the file; an empty file gets just the table', () => {
  const next = setKeyText(FILE, ['notifications', 'mail', 'dock'], false);
  assert.is(next, `${FILE}\n[notifications.mail]\ndock = false\n`);
  assert.is(setKeyText('', ['notifications', 'mail', 'between_agents'], true), '[notifications.mail]\nbetween_agents = true\n');
});

test('clearing takes the line out, and nothing else; clearing an absent key changes nothing', () => {
  const next = setKeyText(FILE, ['notifications', 'agent', 'cue_needs_input'], undefined);
  assert.is(next, FILE.replace('cue_needs_input = "/s/a.wav"\n', ''));
  assert.is(setKeyText(FILE, ['notifications', 'mail', 'dock'], undefined), FILE);
});

test('lists and strings are written as TOML; the file reads back with the value', () => {
  const next = setKeyText(FILE, ['notifications', 'agent', 'states'], ['needs_input', 'errored']);
  assert.match(next, /states = \[ "needs_input", "errored" \]|states = \["needs_input", "errored"\]/);
  assert.equal(parseConfig(next).config!.notifications.agent.states, ['needs_input', 'errored']);
  const q = setKeyText('', ['notifications', 'agent', 'quiet_hours'], 'a "quoted" \\ value');
  assert.is((parseConfig(q).config ?? { notifications: null }).notifications, null); // not HH:MM, but it reads back as written
});

test('a key written another way (dotted, inline table) is refused with conflict, nothing written', () => {
  assert.is(code(() => setKeyText('[notifications]\nagent.dock = true\n', ['notifications', 'agent', 'dock'], false)), 'conflict');
  assert.is(code(() => setKeyText('notifications = { agent = { dock = true } }\n', ['notifications', 'agent', 'dock'], false)), 'conflict');
  assert.is(code(() => setKeyText('[daemon\nx', ['notifications', 'agent', 'dock'], false)), 'conflict');
});

test('keys: an unknown key, a table and a malformed name are typed errors that say what there is', () => {
  assert.is(code(() => keyInfo('notifications.agent.nope')), 'invalid_params');
  try {
    keyInfo('notifications.agent.nope');
  } catch (e) {
    assert.match((e as TuiosError).hint ?? '', /sound_mode/);
  }
  assert.is(code(() => keyInfo('notifications.agent')), 'invalid_params');
  assert.is(code(() => keyInfo('Notifications..x')), 'invalid_params');
  assert.is(code(() => keyInfo('x'.repeat(300))), 'invalid_params');
  assert.is(keyInfo('notifications.mail.dock').kind, 'boolean');
  assert.equal(keyInfo('notifications.agent.escape').choices, ['osc9', 'osc777', 'osc99']);
});

test('values are read as the key takes them, and refused when they are not', () => {
  assert.is(parseValue(keyInfo('notifications.mail.dock'), 'off'), false);
  assert.is(parseValue(keyInfo('notifications.agent.settle_ms'), '1500'), 1500);
  assert.equal(parseValue(keyInfo('notifications.agent.states'), 'needs_input, errored'), ['needs_input', 'errored']);
  assert.is(parseValue(keyInfo('notifications.agent.quiet_hours'), '22:00-07:00'), '22:00-07:00');
  for (const [k, v] of [
    ['notifications.mail.dock', 'maybe'],
    ['notifications.agent.settle_ms', 'soon'],
    ['notifications.agent.settle_ms', '-1'],
    ['notifications.agent.escape', 'osc8'],
    ['notifications.agent.states', 'working'],
    ['notifications.agent.quiet_hours', '10pm'],
  ] as const) assert.is(code(() => parseValue(keyInfo(k), v)), 'invalid_params', `${k} ${v}`);
});

test('effective value: a mail key unset follows the agent key; an unset key reads its default', () => {
  const c = parseConfig('[notifications.agent]\ndock = false\n').config!;
  assert.equal(effectiveValue(c, {}, ['notifications', 'mail', 'dock']), { value: false, source: 'follows', follows: 'notifications.agent.dock' });
  assert.equal(effectiveValue(c, { notifications: { agent: { dock: false } } }, ['notifications', 'agent', 'dock']), { value: false, source: 'file', follows: null });
  assert.equal(effectiveValue(c, {}, ['notifications', 'agent', 'escape']), { value: 'osc9', source: 'default', follows: null });
  assert.equal(effectiveValue(c, {}, ['notifications', 'agent', 'quiet_hours']), { value: null, source: 'unset', follows: null });
});

test.run();
