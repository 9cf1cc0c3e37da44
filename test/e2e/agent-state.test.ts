// Agent state with real PTYs: reports from inside panes, OSC sequences a program writes, events,
// transition-based waits and the after-agent-state hook.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { TestDaemon, BIN } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { stateOf, waitState, type AgentState } from '../helpers/agent-state.js';
import type { RpcClient } from '../../core/rpc/client.js';

let d: TestDaemon;
let hookDir: string;
const NODE = process.execPath;
const TUIOS = `${NODE} ${BIN}`;

interface Ev {
  type: string;
  window_id?: string;
  state?: string;
  old_state?: string;
  source?: string;
  title?: string;
  body?: string;
}

async function events(c: RpcClient, types: string[]): Promise<Ev[]> {
  const got: Ev[] = [];
  await c.stream('subscribe', { types }, (e) => got.push(e as Ev));
  return got;
}

/** The whole get-agent-state answer: this file reads fields the shared AgentState type leaves out. */
const state = async (w: string) => (await stateOf(d, w)) as AgentState & Record<string, unknown>;

test.before(async () => {
  const tmp = await import('node:fs').then((fs) => fs.mkdtempSync('/tmp/tuios-hook-'));
  hookDir = tmp;
  d = await TestDaemon.start({
    config: `[hooks]\nafter_agent_state = 'env | grep ^TUIOS_ | sort > ${tmp}/hook.$TUIOS_WINDOW_NAME.$TUIOS_NEW_STATE'\n`,
    env: { TUIOS_AGENT_STALL_SECONDS: '0' },
  });
  await d.ok(['new-session', 'agents']);
});

test.after(async () => {
  await d.stop();
});

test('a script writing OSC 7501 moves the state and raises agent-state events', async () => {
  const c = await d.client();
  const evs = await events(c, ['agent-state']);
  await d.ok(['new-window', '-s', 'agents', 'prog', 'sh', '-c', "read go; printf '\\033]7501;state=working;message=building%%20docs;progress=40\\007'; read go; printf '\\033]7501;state=done;message=built\\007'; sleep 60"]);
  await d.waitScreen('prog', /^$/m);
  await d.ok(['send-keys', '-w', 'prog', 'Enter']);
  await waitState(d, 'prog', 'working', { timeout: 20_000, what: 'working from OSC 7501' });
  const s = await state('prog');
  assert.is(s.source, 'program');
  assert.is(s.message, 'building docs');
  assert.is(s.progress, 40);
  await d.ok(['send-keys', '-w', 'prog', 'Enter']);
  await waitState(d, 'prog', 'done', { timeout: 20_000, what: 'done from OSC 7501' });
  await waitFor(() => evs.some((e) => e.state === 'done' && e.old_state === 'working'), { what: 'the working→done event' });
  const s2 = await state('prog');
  assert.is(s2.completion_seq, 1, 'an explicit done counts as a finished turn');
  assert.is(s2.finished_unread, true);
  c.close();
});

test('tuios status writes OSC 7501 from a script in a pane', async () => {
  await d.ok(['new-window', '-s', 'agents', 'st', 'sh', '-c', `read go; ${TUIOS} status needs_input -m 'insert the key' --kind question; sleep 60`]);
  await d.ok(['send-keys', '-w', 'st', 'Enter']);
  await waitState(d, 'st', 'needs_input', { timeout: 20_000, what: 'needs_input from tuios status' });
  const s = await state('st');
  assert.is(s.blocked_by, 'question');
  assert.is(s.needs_you, true);
  assert.is(s.ready, false);
});

test('OSC 9;4 is agent state only on a pane known to hold an agent; OSC 9 raises a notification', async () => {
  const c = await d.client();
  const evs = await events(c, ['notification', 'agent-state']);
  await d.ok(['new-window', '-s', 'agents', 'bar', 'sh', '-c', "read go; printf '\\033]9;4;1;30\\007'; read go; printf '\\033]9;4;1;60\\033]9;Build finished\\007'; sleep 60"]);
  await d.ok(['send-keys', '-w', 'bar', 'Enter']);
  await waitFor(async () => {
    const r = await d.call<{ progress: string | null }>('capture-pane', { window: 'bar' });
    return r.progress === '4;1;30';
  }, { what: 'the progress report kept on the pane' });
  assert.is((await state('bar')).state, 'none', 'a plain pane drawing a progress bar gets no state');
  // Mark the pane as an agent's (a low-ranked claim), then the bar is read as working.
  await d.ok(['set-agent-state', '-w', 'bar', 'idle', '--source', 'detect', '--harness', 'test-agent']);
  await d.ok(['send-keys', '-w', 'bar', 'Enter']);
  await waitState(d, 'bar', 'working', { timeout: 20_000, what: 'working from OSC 9;4' });
  assert.is((await state('bar')).source, 'osc');
  await waitFor(() => evs.some((e) => e.type === 'notification' && e.body === 'Build finished'), { what: 'the notification event' });
  c.close();
});

test('set-agent-state from inside a pane sets its own pane; a loser is told what stands', async () => {
  await d.ok(['new-window', '-s', 'agents', 'self', 'sh', '-c', `read go; ${TUIOS} set-agent-state working -m 'from the pane' --harness myagent; echo rc=$?; ${TUIOS} get-agent-state; sleep 60`]);
  // Another window has the focus, so a report that went to the focused window would show there.
  await d.ok(['new-window', '-s', 'agents', 'focused', 'sleep', '60']);
  await d.ok(['select-window', '-w', 'focused']);
  await d.ok(['send-keys', '-w', 'self', 'Enter']);
  // get-agent-state with no flags, from inside the pane, prints its own state's name.
  await d.waitScreen('self', /rc=0\r?\nworking$/m);
  assert.is((await state('focused')).state, 'none', 'the focused window is not the caller');
  const s = await state('self');
  assert.is(s.state, 'working');
  assert.is(s.message, 'from the pane');
  assert.is(s.source, 'report');
  assert.is(s.harness_id, 'myagent');
  assert.is(s.identity, 'report');
  assert.is(s.confidence, 'certain');
  const lose = await d.call<{ applied: boolean; state: string }>('set-agent-state', { window: 'self', state: 'idle', source: 'detect' });
  assert.equal([lose.applied, lose.state], [false, 'working']);
  for (const source of ['screen', 'program']) {
    const refused = await d.cli(['set-agent-state', '-w', 'self', 'idle', '--source', source]);
    assert.is(refused.code, 1, source);
    assert.match(refused.stderr, /invalid_params/);
  }
  assert.is((await state('self')).state, 'working', 'a refused call changes nothing');
  const got = await d.json<Record<string, unknown>>(['get-agent-state', '-w', 'self']);
  for (const k of ['state', 'needs_you', 'ready', 'blocked_by', 'identity', 'confidence', 'evidence_age_ms', 'harness_id', 'source']) assert.ok(k in got, k);
});

test('list-windows --json carries agent_state; list-agents lists agent panes only, in every session', async () => {
  await d.ok(['new-session', 'elsewhere', 'sleep', '600']);
  await d.ok(['set-agent-state', '-s', 'elsewhere', 'idle', '--harness', 'otherbot']);
  const ws = await d.json<{ windows: Array<{ name: string; agent_state: { state: string } }> }>(['list-windows']);
  assert.is(ws.windows.find((w) => w.name === 'self')!.agent_state.state, 'working');
  const la = await d.json<{ agents: Array<{ name: string } & Record<string, unknown>> }>(['list-agents']);
  const names = la.agents.map((a) => a.name);
  for (const k of ['session', 'state', 'needs_you', 'ready', 'blocked_by', 'completion_seq', 'finished_unread', 'meta', 'queued', 'harness_id', 'identity', 'confidence', 'evidence_age_ms']) {
    assert.ok(la.agents.every((a) => k in a), `every row has ${k}`);
  }
  assert.is(la.agents.find((a) => a.name === 'prog')!.completion_seq, 1);
  assert.ok(names.includes('self') && names.includes('prog'));
  assert.ok(la.agents.some((a) => a.session === 'elsewhere' && a.harness_id === 'otherbot'), 'another session\'s agent is listed');
  assert.not.ok(names.includes('bash'), 'a plain shell is not an agent');
  const sel = await d.json<{ agents: Array<{ name: string }>; confirm: string }>(['list-agents', '--select', 'harness:myagent state:working']);
  assert.equal(sel.agents.map((a) => a.name), ['self']);
  assert.match(sel.confirm, /^[0-9a-f]{16}$/);
});

test('wait-for agent-state returns on a transition into the set', async () => {
  await d.ok(['set-agent-state', '-w', 'self', 'working']);
  // One connection: the daemon reads its lines in order, so the wait is listening before the report.
  const c = await d.client();
  const waiting = c.call<{ state: string; transition_observed: boolean }>('wait-for', { condition: 'agent-state', window: 'self', until: ['idle', 'done'], timeout: 30000 });
  await c.call('set-agent-state', { window: 'self', state: 'idle' });
  const out = await waiting;
  assert.is(out.state, 'idle');
  assert.is(out.transition_observed, true);
  c.close();
});

test('wait-for agent-state on a pane already resting in the target state times out with 124 and says so', async () => {
  const r = await d.cli(['wait-for', 'agent-state', '-w', 'self', '--until', 'idle', '--timeout', '600']);
  assert.is(r.code, 124);
  assert.match(r.stderr, /already idle/);
});

/** Resolves once the daemon holds `n` waits: the wait is subscribed and its baseline read. */
async function waitsListening(n: number): Promise<void> {
  await waitFor(async () => (await d.call<{ waits: number }>('server-info')).waits >= n, { what: `${n} wait(s) listening` });
}

test('wait-for agent-state: the pane closing or leaving (none) ends it with exit 1', async () => {
  await d.ok(['new-window', '-s', 'agents', 'doomed', 'sleep', '60']);
  await d.ok(['set-agent-state', '-w', 'doomed', 'working']);
  const closing = d.cli(['wait-for', 'agent-state', '-w', 'doomed', '--until', 'idle', '--timeout', '60000']);
  await waitsListening(1);
  await d.ok(['close-window', '-w', 'doomed']);
  const r = await closing;
  assert.is(r.code, 1, r.stderr);
  assert.match(r.stderr, /window_not_found/);
  assert.match(r.stderr, /closed while the wait ran/);

  await d.ok(['new-window', '-s', 'agents', 'leaving', 'sleep', '60']);
  await d.ok(['set-agent-state', '-w', 'leaving', 'working']);
  const leaving = d.cli(['wait-for', 'agent-state', '-w', 'leaving', '--until', 'idle', '--timeout', '60000']);
  await waitsListening(1);
  await d.ok(['set-agent-state', '-w', 'leaving', 'none']);
  const r2 = await leaving;
  assert.is(r2.code, 1, r2.stderr);
  assert.match(r2.stderr, /agent left leaving/);
});

test('wait-for agent-state --select: the first matching pane, or --every for all of them', async () => {
  for (const n of ['sel1', 'sel2']) {
    await d.ok(['new-window', '-s', 'agents', n, 'sleep', '60']);
    await d.ok(['set-agent-state', '-w', n, 'working', '--harness', 'selbot']);
  }
  const first = d.cli(['wait-for', 'agent-state', '--select', 'harness:selbot', '--until', 'done', '--timeout', '60000', '--json']);
  await waitsListening(1);
  await d.ok(['set-agent-state', '-w', 'sel2', 'done']);
  const r = await first;
  assert.is(r.code, 0, r.stderr);
  assert.is(JSON.parse(r.stdout).name, 'sel2');

  await d.ok(['set-agent-state', '-w', 'sel2', 'working']);
  const every = d.cli(['wait-for', 'agent-state', '--select', 'harness:selbot', '--every', '--until', 'done', '--timeout', '60000', '--json']);
  await waitsListening(1);
  await d.ok(['set-agent-state', '-w', 'sel1', 'done']);
  await d.ok(['set-agent-state', '-w', 'sel2', 'done']);
  const r2 = await every;
  assert.is(r2.code, 0, r2.stderr);
  assert.equal(JSON.parse(r2.stdout).panes.map((p: { name: string }) => p.name).sort(), ['sel1', 'sel2']);
});

test('the after-agent-state hook runs with the window, session, harness, states and message', async () => {
  await d.ok(['new-window', '-s', 'agents', 'hooked', 'sleep', '60']);
  await d.ok(['set-agent-state', '-w', 'hooked', 'needs_input', '-m', 'approve Bash: make', '--harness', 'claude-code']);
  const file = join(hookDir, 'hook.hooked.needs_input');
  await waitFor(() => existsSync(file) && readFileSync(file, 'utf8').includes('TUIOS_NEW_STATE'), { what: 'the hook output' });
  const env = Object.fromEntries(readFileSync(file, 'utf8').trim().split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
  assert.is(env.TUIOS_WINDOW_NAME, 'hooked');
  assert.is(env.TUIOS_SESSION, 'agents');
  assert.is(env.TUIOS_HARNESS, 'claude-code');
  assert.is(env.TUIOS_OLD_STATE, 'none');
  assert.is(env.TUIOS_NEW_STATE, 'needs_input');
  assert.is(env.TUIOS_KIND, 'approval');
  assert.is(env.TUIOS_MESSAGE, 'approve Bash: make');
  assert.match(env.TUIOS_WINDOW_ID!, /^[0-9a-f]{32}$/);
});

test('set-agent-meta limits: reserved keys refused, values cut, metadata clears with the agent', async () => {
  await d.ok(['set-agent-meta', '-w', 'hooked', 'model=opus', `summary=${'x'.repeat(200)}`]);
  const s = await state('hooked');
  const meta = s.meta as Record<string, string>;
  assert.is(meta.model, 'opus');
  assert.is(meta.summary!.length, 80);
  const r = await d.cli(['set-agent-meta', '-w', 'hooked', 'now=Bash']);
  assert.is(r.code, 1);
  assert.match(r.stderr, /tuios's own/);
  const many = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v']));
  const tooMany = await d.cli(['set-agent-meta', '-w', 'hooked', ...Object.entries(many).map(([k, v]) => `${k}=${v}`)]);
  assert.is(tooMany.code, 1);
  await d.ok(['set-agent-state', '-w', 'hooked', 'none']);
  assert.equal((await state('hooked')).meta, {});
});

test.run();
