// The opencode plugin's status line feed (spec: What feeds it): the real opencode from npm in a
// tuios pane, against the local fake model API, with `tuios integration install opencode` in its
// temp HOME. The fake model is priced so a turn costs ($0.10 a prompt token, $0.20 a completion
// token: each call the fake answers, 10 and 5 tokens, costs $2.00). After a turn the pane's
// metadata has `model` (the model of the last assistant message) and `cost` (the sum of the
// session's assistant messages), written through `tuios agent-statusline opencode`, whose
// throttle file beside the socket shows it came that way.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN } from '../helpers/daemon.js';
import { RealAgent } from '../helpers/real-agent.js';
import { waitFor } from '../helpers/wait.js';
import { stateFilePath } from '../../core/integrations/statusline/state-file.js';

const t = suite('opencode plugin: model and cost');
const oc = new RealAgent('opencode', {
  subscribe: ['agent-state', 'agent-meta'],
  async prepare(a) {
    const file = join(a.run.home, '.config', 'opencode', 'opencode.json');
    const cfg = JSON.parse(readFileSync(file, 'utf8')) as { permission: Record<string, string>; provider: { fake: { models: Record<string, Record<string, unknown>> } } };
    // Dollars per million tokens.
    cfg.provider.fake.models['fake-model']!.cost = { input: 100_000, output: 200_000 };
    cfg.permission.bash = 'allow';
    writeFileSync(file, JSON.stringify(cfg, null, 2));
    const inst = await a.d.cli(['integration', 'install', 'opencode', '--command', BIN], { env: { HOME: a.run.home, XDG_CONFIG_HOME: join(a.run.home, '.config') } });
    assert.is(inst.code, 0, inst.stderr);
  },
});
const it = oc.gate(t);
// uvu says nothing of a failing before hook: say it.
t.before(() =>
  oc.start().catch((e: unknown) => {
    console.error('set-up failed:', e);
    throw e;
  }),
);
t.after(() => oc.stop());

interface Meta {
  meta?: Record<string, string>;
}

it('the plugin is installed at version 3', async () => {
  const st = JSON.parse((await oc.d.ok(['integration', 'status', 'opencode', '--json'], { env: { HOME: oc.run.home, XDG_CONFIG_HOME: join(oc.run.home, '.config') } })).trim()) as { integrations: Array<{ state: string; version: number }> };
  assert.is(st.integrations[0]!.state, 'installed');
  assert.is(st.integrations[0]!.version, 3);
});

it('a turn: the model and the session\'s cost reach the pane through agent-statusline', async () => {
  // opencode at its prompt has no session yet: the plugin first reports with the prompt.
  await oc.waitState((x) => x.harness_id === 'opencode' && x.state === 'idle', { timeout: 120_000, what: 'opencode at its prompt' });
  const file = stateFilePath(oc.d.socket, (await oc.d.call<{ window_id: string }>('get-agent-state', { window: oc.window })).window_id)!;
  assert.not.ok(existsSync(file), 'no throttle file before a turn');
  const from = oc.states.length;
  const asked = await oc.d.call<{ state: string; delivery: string; ended_by: string; waited_ms: number }>('ask-agent', { window: oc.window, text: 'Please create hello.txt', timeout: 180_000 });
  assert.is(asked.delivery, 'acked', 'the prompt was taken');
  // A turn said to end before its tool ran names what ended it and what the pane published.
  assert.ok(existsSync(join(oc.run.cwd, 'hello.txt')), `the tool ran before the turn's end (ended_by ${asked.ended_by}, state ${asked.state}, after ${asked.waited_ms} ms; ${oc.published(from)})`);
  assert.ok(oc.states.slice(from).some((e) => e.source === 'report'), `the plugin reported the turn: ${oc.published(from)}`);
  const meta = await waitFor(async () => {
    const m = (await oc.d.call<Meta>('get-agent-state', { window: oc.window })).meta ?? {};
    return m.model && m.cost && m.cost !== '$0.00' ? m : null;
  }, { timeout: 60_000, what: 'model and cost on the pane' }).catch(async (e) => {
    throw new Error(`${(e as Error).message}\nmeta: ${JSON.stringify((await oc.d.call<Meta>('get-agent-state', { window: oc.window })).meta)}\n${oc.published()}`);
  });
  assert.is(meta.model, 'fake-model');
  // At least one priced call; the turn's two calls make $4.00 once the last one is summed (the turn's end sends what the interval held).
  assert.match(meta.cost!, /^\$\d+\.\d\d$/);
  await waitFor(async () => ((await oc.d.call<Meta>('get-agent-state', { window: oc.window })).meta?.cost === '$4.00' ? true : null), { timeout: 60_000, what: 'the cost of both calls ($4.00)' }).catch(async (e) => {
    throw new Error(`${(e as Error).message}\nmeta: ${JSON.stringify((await oc.d.call<Meta>('get-agent-state', { window: oc.window })).meta)}`);
  });
  assert.ok(existsSync(file), 'the values came through the status line wrapper (its throttle file)');
  const st = JSON.parse(readFileSync(file, 'utf8')) as { sent: Record<string, string> };
  assert.is(st.sent.model, 'fake-model');
});

t.run();
