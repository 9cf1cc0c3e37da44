// get-config and set-config through the real CLI against a real daemon: a mail key cleared follows
// the agent key, the file keeps the person's other text, the validator's warnings are printed,
// bad input is a typed error with nothing written, and a pane may set only alert and look keys.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TestDaemon, BIN } from '../helpers/daemon.js';

const TUIOS = `${process.execPath} ${BIN}`;
let d: TestDaemon;
let file: string;
const MINE = '# my own words, kept\n[daemon]\nscrollback = 3000 # enough\n\n[notifications.mail]\ndock = false   # no dock for mail\n';

test.before(async () => {
  d = await TestDaemon.start({ config: MINE });
  file = join(d.dir, 'config', 'tuios', 'config.toml');
});

test.after(async () => {
  await d.stop();
});

test('"" clears a mail key, and get-config then prints (follows notifications.agent.dock)', async () => {
  assert.is((await d.ok(['get-config', 'notifications.mail.dock'])).trim(), 'false');
  const out = await d.ok(['set-config', 'notifications.mail.dock', '']);
  assert.match(out, /notifications\.mail\.dock = \(follows notifications\.agent\.dock\)/, out);
  assert.is((await d.ok(['get-config', 'notifications.mail.dock'])).trim(), '(follows notifications.agent.dock)');
  const text = readFileSync(file, 'utf8');
  assert.ok(text.startsWith('# my own words, kept\n[daemon]\nscrollback = 3000 # enough\n'), text);
  assert.not.match(text, /dock = false/);
});

test('set-config writes the key, applies it at once and keeps the rest of the file', async () => {
  await d.ok(['set-config', 'notifications.agent.sound_mode', 'bell']);
  await d.ok(['set-config', 'notifications.agent.escape', 'osc777']);
  await d.ok(['set-config', 'notifications.agent.states', 'needs_input,errored']);
  assert.is((await d.ok(['get-config', 'notifications.agent.escape'])).trim(), 'osc777');
  assert.is((await d.ok(['get-config', 'notifications.agent.states'])).trim(), 'needs_input,errored');
  const j = await d.json<{ value: string; source: string }>(['get-config', 'notifications.agent.escape', '--json']);
  assert.equal([j.value, j.source], ['osc777', 'file']);
  assert.is((await d.json<{ source: string }>(['get-config', 'notifications.agent.cooldown_ms', '--json'])).source, 'default');
  const text = readFileSync(file, 'utf8');
  assert.match(text, /scrollback = 3000 # enough/);
  assert.match(text, /\[notifications\.agent\]\nsound_mode = "bell"\nescape = "osc777"\nstates = \[/, text);
  // The rail key of the spec's step 2 is set the same way.
  await d.ok(['set-config', 'appearance.sidebar.enabled', 'true']);
  assert.is((await d.ok(['get-config', 'appearance.sidebar.enabled'])).trim(), 'true');
});

test('the validator warns when between_agents is on and mail alerts are off', async () => {
  await d.ok(['set-config', 'notifications.mail.enabled', 'false']);
  const out = await d.ok(['set-config', 'notifications.mail.between_agents', 'true']);
  assert.match(out, /warning: .*between_agents is on but mail alerts are off/);
  const j = await d.json<{ warnings: string[] }>(['set-config', 'notifications.mail.enabled', 'true', '--json']);
  assert.equal(j.warnings, []);
});

test('bad input is a typed error and nothing is written', async () => {
  const before = readFileSync(file, 'utf8');
  for (const [args, re] of [
    [['set-config', 'notifications.agent.sound_mode', 'loud'], /bell, system/],
    [['set-config', 'notifications.agent.quiet_hours', '10pm-7am'], /HH:MM-HH:MM/],
    [['set-config', 'notifications.agent.nope', '1'], /There is no config key/],
    [['set-config', 'notifications.agent', '1'], /table/],
    [['get-config', 'nope.x'], /invalid_params/],
  ] as const) {
    const r = await d.cli([...args]);
    assert.is.not(r.code, 0, args.join(' '));
    assert.match(r.stderr + r.stdout, re, r.stderr + r.stdout);
    assert.match(r.stderr + r.stdout, /\(invalid_params\)/);
  }
  assert.is(readFileSync(file, 'utf8'), before);
});

test('from inside a pane: alert keys may be set, hooks may not', async () => {
  await d.ok(['new-session', 'cfg', 'sleep', '3600']);
  const w = (await d.call<{ id: string }>('new-window', { session: 'cfg', name: 'sh', argv: ['sh'], cols: 200, rows: 50 })).id;
  await d.call('send-text', { window: w, text: `${TUIOS} set-config hooks.timeout_ms 500 2>&1; echo "R""C=$?"; ${TUIOS} set-config notifications.agent.settle_ms 100 2>&1; echo "R""C2=$?"\n` });
  const screen = await d.waitScreen(w, /RC2=\d+/, 30_000);
  assert.match(screen, /forbidden/);
  assert.match(screen, /RC=[1-9]/);
  assert.match(screen, /RC2=0/);
  assert.is((await d.ok(['get-config', 'hooks.timeout_ms'])).trim(), '10000');
  assert.is((await d.ok(['get-config', 'notifications.agent.settle_ms'])).trim(), '100');
});

test.run();
