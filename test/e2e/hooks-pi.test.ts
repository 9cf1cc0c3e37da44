// The real Pi from npm in a tuios pane, against the local fake model API, with `tuios integration
// install pi` in its temp HOME: the extension loads, and the pane's states come from it
// (`source: report`, harness pi): idle at the start, working during the turn, done at its end,
// with Pi's session id stored. Then uninstall removes the extension.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { BIN } from '../helpers/daemon.js';
import { RealAgent } from '../helpers/real-agent.js';

const t = suite('Pi extension');
const pi = new RealAgent('pi', {
  async prepare(a) {
    const inst = await a.d.cli(['integration', 'install', 'pi', '--command', BIN], { env: { HOME: a.run.home } });
    assert.is(inst.code, 0, inst.stderr);
  },
});
const it = pi.gate(t);
t.before(() => pi.start());
t.after(() => pi.stop());

it('the integration is installed and current', async () => {
  const st = JSON.parse((await pi.d.ok(['integration', 'status', 'pi', '--json'], { env: { HOME: pi.run.home } })).trim()) as { integrations: Array<{ state: string; version: number; program?: string }> };
  assert.is(st.integrations[0]!.state, 'installed');
  assert.is(st.integrations[0]!.program, BIN);
});

it('session_start reports idle from the extension, with Pi\'s session id', async () => {
  const r = await pi.waitState((x) => x.source === 'report' && x.harness_id === 'pi' && x.state === 'idle', { timeout: 90_000, what: 'the session_start report' });
  assert.ok(r.agent_session_id, 'the session id is stored');
  assert.ok(pi.states.some((e) => e.state === 'idle' && e.source === 'report'), `an idle event from the report: ${pi.published()}`);
});

it('a turn: working from agent_start, done at its end', async () => {
  const from = pi.states.length;
  const asked = await pi.d.call<{ state: string; delivery: string }>('ask-agent', { window: pi.window, text: 'Please create hello.txt', timeout: 120_000 });
  assert.is(asked.delivery, 'acked', 'the prompt was taken');
  assert.is(asked.state, 'done', `the turn ended done: ${JSON.stringify(asked)}`);
  await pi.waitState((x) => x.state === 'done' && x.source === 'report', { timeout: 90_000, what: 'the turn to end on done' });
  const states = pi.states.slice(from).filter((s) => s.source === 'report').map((s) => s.state);
  assert.ok(states.includes('working'), `working was reported: ${JSON.stringify(states)}`);
  assert.ok(existsSync(join(pi.run.cwd, 'hello.txt')), 'the tool ran');
});

it('uninstall removes the extension', async () => {
  const un = await pi.d.cli(['integration', 'uninstall', 'pi'], { env: { HOME: pi.run.home } });
  assert.is(un.code, 0, un.stderr);
  assert.not.ok(existsSync(join(pi.run.home, '.pi', 'agent', 'extensions', 'tuios-agent-state.ts')));
});

t.run();
