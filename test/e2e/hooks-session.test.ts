// The session integrations and the plugin harnesses through the real hook process (spec: Harness
// integrations, Session identity, Failure behaviour): a session integration stores the
// conversation id and changes no state; Antigravity, which parses stdout, gets `{}`; Pi's and
// Amp's forwarded events move the pane's state.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { TestDaemon, BIN } from '../helpers/daemon.js';
import { stateOf } from '../helpers/agent-state.js';

let d: TestDaemon;
let w = '';

function hook(harness: string, payload: Record<string, unknown>, env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [BIN, 'agent-hook', harness, '--explain', '--timeout', '3000'], { env: { ...d.env, TUIOS_PANE_ID: w, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (b) => (stdout += b));
    p.stderr.on('data', (b) => (stderr += b));
    p.on('close', (code) => resolve({ code, stdout, stderr }));
    p.stdin.end(JSON.stringify(payload));
  });
}

test.before(async () => {
  d = await TestDaemon.start();
  await d.ok(['new-session', 'sess']);
  w = (await d.json<{ windows: Array<{ id: string }> }>(['list-windows'])).windows[0]!.id;
});
test.after(() => d.stop());

test('Droid: SessionStart stores the conversation id and leaves the state alone', async () => {
  const before = (await stateOf(d, w)).state;
  const r = await hook('droid', { hook_event_name: 'SessionStart', session_id: 'droid-conv-1', source: 'startup' });
  assert.is(r.code, 0);
  assert.is(r.stdout, '');
  assert.match(r.stderr, /set-agent-session sent/);
  const after = await stateOf(d, w);
  assert.is(after.agent_session_id, 'droid-conv-1');
  assert.is(after.state, before, 'a session integration reports no state');
});

test('Antigravity: PreInvocation stores conversationId, and stdout is {}', async () => {
  const r = await hook('antigravity', { hook_event_name: 'PreInvocation', conversationId: 'agy-7' });
  assert.is(r.code, 0);
  assert.is(r.stdout.trim(), '{}');
  assert.is((await stateOf(d, w)).agent_session_id, 'agy-7');
  const none = await hook('antigravity', { hook_event_name: 'PostInvocation' });
  assert.is(none.stdout.trim(), '{}', 'nothing to report still prints {}');
});

test('Pi and Amp: the plugin events move the state', async () => {
  await hook('pi', { hook_event_name: 'session_start', session_id: 'pi-1', busy: false });
  assert.is((await stateOf(d, w)).state, 'idle');
  await hook('pi', { hook_event_name: 'agent_start', session_id: 'pi-1' });
  assert.is((await stateOf(d, w)).state, 'working');
  await hook('pi', { hook_event_name: 'ui_prompt_start', session_id: 'pi-1', prompt_kind: 'confirm', title: 'Run it?' });
  assert.is((await stateOf(d, w)).state, 'needs_input');
  await hook('pi', { hook_event_name: 'ui_prompt_end', session_id: 'pi-1', busy: true });
  assert.is((await stateOf(d, w)).state, 'working');
  await hook('pi', { hook_event_name: 'agent_settled', session_id: 'pi-1' });
  assert.is((await stateOf(d, w)).state, 'done');
  await hook('pi', { hook_event_name: 'session_shutdown', session_id: 'pi-1' });
  // Amp in a pane given to Amp from now on (a new conversation at rest takes the pane over).
  await hook('amp', { hook_event_name: 'agent.start', thread_id: 'T-1', message: 'hi' }, { TUIOS_AGENT: 'amp' });
  assert.is((await stateOf(d, w)).state, 'working');
  await hook('amp', { hook_event_name: 'agent.end', thread_id: 'T-1', status: 'cancelled' }, { TUIOS_AGENT: 'amp' });
  assert.is((await stateOf(d, w)).state, 'idle');
  const foreign = await hook('pi', { hook_event_name: 'agent_start', session_id: 'pi-1' }, { TUIOS_AGENT: 'amp' });
  assert.match(foreign.stderr, /TUIOS_AGENT names amp/);
});

test.run();
