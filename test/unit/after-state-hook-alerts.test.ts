// The after-agent-state hook under the alert policy: `on = "alerts"` runs it only for the
// transitions [notifications.agent] selects (after the settle window, outside quiet hours);
// `on = "all"` runs it for every transition and says which are alerts (TUIOS_ALERT).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Bus } from '../../core/bus.js';
import { Model, type PaneStarter } from '../../core/model/model.js';
import { AfterStateHook } from '../../core/integrations/hook-runner.js';
import { parseConfig } from '../../core/config/config.js';
import type { AgentStateEvent } from '../../core/agent-state/store.js';
import { nullLogger } from '../../core/log.js';
import { waitFor } from '../helpers/wait.js';

const starter: PaneStarter = {
  prepare: (_s, spec) => ({ name: spec.name ?? 'w', argv: ['x'], startCwd: '/', cols: 80, rows: 24, scrollback: 10, isShell: false, env: {} }),
  start: () => {},
};

function setup(on: 'all' | 'alerts', toml = '', clients = 0) {
  const dir = mkdtempSync(join(tmpdir(), 'tuios-hook-alerts-'));
  const bus = new Bus();
  const model = new Model(bus, nullLogger, starter, '/');
  const s = model.createSession({ name: 'fan-3' });
  const w = model.createWindow(s, { name: 'win' });
  const n = parseConfig(toml).config!.notifications;
  const cmd = `echo "$TUIOS_NEW_STATE|$TUIOS_ALERT|$TUIOS_CLIENTS|$TUIOS_ALERT_TEXT" >> ${dir}/runs`;
  const hook = new AfterStateHook(bus, model, nullLogger, () => ({ command: cmd, timeoutMs: 10_000, on, notifications: n, clients }), { PATH: process.env.PATH });
  const publish = (state: AgentStateEvent['state'], old: AgentStateEvent['state'], kind = '' as AgentStateEvent['kind'], message = '') =>
    bus.publish('agent-state', { window_id: w.id, session_id: s.id, name: w.name, harness: 'claude', state, old_state: old, kind, message, source: 'report', completion_seq: 1, needs_you: state === 'needs_input' });
  const runs = () => (existsSync(`${dir}/runs`) ? readFileSync(`${dir}/runs`, 'utf8').split('\n').filter(Boolean) : []);
  const host = (state: string, old: string, o: { kind?: string; message?: string; gone?: boolean } = {}) =>
    bus.publish('host-agent-state', { host: 'peer-a', window_id: 'p1', name: 'win', session: 'api', harness: 'claude', state, old_state: old, kind: o.kind ?? '', message: o.message ?? '', needs_you: state === 'needs_input', gone: !!o.gone });
  return { hook, publish, runs, host };
}
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('on = "alerts": an approval runs the hook once with its line; working and idle run nothing', async () => {
  const { hook, publish, runs } = setup('alerts');
  publish('working', 'idle');
  publish('needs_input', 'working', 'approval', 'approve Bash: go test');
  publish('idle', 'needs_input');
  await waitFor(() => runs().length >= 1 || null, { what: 'a hook run' });
  await pause(300);
  assert.equal(runs(), ['needs_input|1|0|fan-3: claude needs approval · approve Bash: go test']);
  hook.dispose();
});

test('on = "alerts": a flip back within settle_ms runs nothing; a state that holds runs after it', async () => {
  const { hook, publish, runs } = setup('alerts', '[notifications.agent]\nsettle_ms = 300\n');
  publish('needs_input', 'working', 'approval');
  await pause(100);
  publish('working', 'needs_input');
  await pause(500);
  assert.equal(runs(), []);
  publish('errored', 'working', '', 'boom');
  await waitFor(() => runs().length >= 1 || null, { what: 'the settled run' });
  assert.match(runs()[0]!, /^errored\|1\|/);
  hook.dispose();
});

test('on = "alerts": quiet hours and states the table leaves out run nothing', async () => {
  const now = new Date();
  const hh = (d: Date) => `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
  const q = `${hh(new Date(now.getTime() - 3_600_000))}-${hh(new Date(now.getTime() + 3_600_000))}`;
  const quiet = setup('alerts', `[notifications.agent]\nquiet_hours = "${q}"\n`);
  quiet.publish('needs_input', 'working', 'approval');
  const only = setup('alerts', '[notifications.agent]\nstates = ["errored"]\n');
  only.publish('needs_input', 'working', 'approval');
  only.publish('done', 'working');
  await pause(500);
  assert.equal(quiet.runs(), []);
  assert.equal(only.runs(), []);
  quiet.hook.dispose();
  only.hook.dispose();
});

test('on = "all" (the default contract): every transition runs, TUIOS_ALERT says which alert; TUIOS_CLIENTS counts clients', async () => {
  const { hook, publish, runs } = setup('all', '', 2);
  publish('working', 'idle');
  publish('done', 'working');
  await waitFor(() => runs().length >= 2 || null, { what: 'two runs' });
  assert.equal(runs().sort(), ['done|1|2|fan-3: claude finished', 'working|0|2|fan-3: claude working'].sort());
  hook.dispose();
});

test('linked hosts: nothing unless [notifications.agent] hosts = true; then the policy, the host named, an answer there cancels', async () => {
  const off = setup('alerts');
  off.host('needs_input', 'working', { kind: 'approval', message: 'deploy' });
  const on = setup('alerts', '[notifications.agent]\nhosts = true\nsettle_ms = 300\n');
  on.host('needs_input', 'working', { kind: 'approval', message: 'answered' });
  await pause(100);
  on.host('working', 'needs_input');
  on.host('needs_input', 'working', { kind: 'approval', message: 'deploy' });
  await waitFor(() => on.runs().length >= 1 || null, { what: 'the host run' });
  await pause(500);
  assert.equal(off.runs(), []);
  assert.equal(on.runs(), ['needs_input|1|0|peer-a:api: claude needs approval · deploy']);
  off.hook.dispose();
  on.hook.dispose();
});

test.run();
