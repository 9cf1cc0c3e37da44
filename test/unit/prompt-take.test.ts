// The five-second take check over the real store and bus (no PTY): a prompt-start hook report
// after the submit is a take, and the start of the turn, even when the turn ends at once and no
// `working` is ever published (an instant answer); no other report counts, nor a report before
// the submit or of another pane. The hook maps and the daemon's list of prompt-start events agree.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Bus } from '../../core/bus.js';
import { Model, type PaneStarter } from '../../core/model/model.js';
import { AgentStore } from '../../core/agent-state/store.js';
import { ActivityLog } from '../../core/activity/log.js';
import { loadManifests } from '../../core/detection/manifest.js';
import { nullLogger } from '../../core/log.js';
import { watchDelivery, showsWorking } from '../../core/delivery/deliver.js';
import { setAgentState } from '../../core/verbs/agents.js';
import { mapHook } from '../../core/integrations/hooks/map.js';
import { PROMPT_SESSION_EVENTS, PROMPT_START_EVENTS } from '../../core/integrations/hooks/plan.js';
import type { VerbContext } from '../../core/rpc/verb.js';
import type { Services } from '../../core/daemon/services.js';
import type { Window } from '../../core/model/window.js';
import { ROOT } from '../helpers/daemon.js';

const starter: PaneStarter = {
  prepare: (_s, spec) => ({ name: spec.name ?? 'w', argv: ['x'], startCwd: '/', cols: 80, rows: 24, scrollback: 10, isShell: false, env: {} }),
  start: () => {},
};
const manifests = loadManifests(join(ROOT, 'manifests'), null, nullLogger);

function setup() {
  const bus = new Bus();
  const model = new Model(bus, nullLogger, starter, '/');
  const agents = new AgentStore({ bus, model, log: nullLogger, stallMs: 0 });
  const session = model.createSession({ name: 's' });
  const w = model.createWindow(session, { name: 'claude' });
  const other = model.createWindow(session, { name: 'other' });
  // A Claude Code pane at rest after its SessionStart report: its rules can show working, so
  // output alone is no take.
  agents.report(w, { state: 'idle', harness: 'claude-code' });
  const deps = { agents, manifests, bus };
  const activity = new ActivityLog(bus);
  const svc = { bus, model, agents, manifests, activity, snapshot: { markDirty() {} }, log: nullLogger } as unknown as Services;
  /** set-agent-state as a hook in the pane calls it (no conversation id or pid: no admission check). */
  const report = (win: Window, params: Record<string, unknown>) =>
    setAgentState.run({ params, svc, window: win, session: null, caller: { channel: 'socket', pid: process.pid, uid: process.getuid?.() ?? 0 }, signal: new AbortController().signal } as unknown as VerbContext<never>);
  return { bus, agents, w, other, deps, report };
}

test('the pane is one whose rules can show working', () => {
  const { w, deps } = setup();
  assert.ok(showsWorking(deps, w));
});

test('an instant answer: the prompt-start report is the take, and the idle after it ends the turn', async () => {
  const { w, deps, agents, report } = setup();
  const watch = watchDelivery(deps, w);
  const taken = watch.taken; // armed: the prompt was submitted
  // UserPromptSubmit's report is never published as working: the pane's level stays idle (here
  // the report applies only from needs_input, so it changes nothing).
  report(w, { state: 'working', event: 'UserPromptSubmit', activity: 'say hi', if_state: ['needs_input'] });
  assert.is(agents.stateOf(w), 'idle', 'no working was published');
  assert.is(await taken, true, 'taken on the prompt-start report');
  // The turn ends in under MIN_TURN_MS at rest, so completion_seq does not rise: the published
  // rest after the reported start is the end.
  report(w, { state: 'idle', message: 'stopped' });
  const end = await watch.ended(5000);
  watch.dispose();
  assert.is(end.how, 'state');
  assert.is(end.state, 'idle');
});

test('a prompt-start report, then done from the Stop hook: taken, and the turn ends', async () => {
  const { w, deps, agents, report } = setup();
  agents.report(w, { state: 'done' }); // the last turn's Stop
  const watch = watchDelivery(deps, w);
  const taken = watch.taken;
  // The Stop report landed first (done stays done: nothing published, no turn counted), the
  // prompt's report after it, under a condition that no longer holds.
  report(w, { state: 'done', event: 'Stop' });
  report(w, { state: 'working', event: 'UserPromptSubmit', if_state: ['idle'] });
  assert.is(await taken, true);
  agents.report(w, { state: 'idle' });
  const end = await watch.ended(5000);
  watch.dispose();
  assert.is(end.how, 'state');
});

test('a session the prompt opened (opencode\'s session.created) is a take, not the start of the turn', async () => {
  const { w, deps, agents, report } = setup();
  const watch = watchDelivery(deps, w);
  const taken = watch.taken;
  report(w, { state: 'idle', event: 'session.created', harness: 'opencode', session_start: 'startup' });
  assert.is(await taken, true, 'taken on the session the prompt opened');
  // Had the turn begun, a rest would end it; it has not, so an error at rest is no end.
  agents.report(w, { state: 'errored', message: 'a stray report' });
  assert.is((await watch.ended(300)).how, 'timeout', 'the turn has not begun');
  report(w, { state: 'working', event: 'chat.message', harness: 'opencode' });
  agents.report(w, { state: 'idle' });
  const end = await watch.ended(5000);
  watch.dispose();
  assert.is(end.how, 'state', 'the turn that chat.message began ends at rest');
});

test('no take from a report before the submit, another pane\'s, another event\'s, or another source\'s', async () => {
  const { w, other, deps, report } = setup();
  const watch = watchDelivery(deps, w);
  // Before the submit: the watch is not armed yet.
  report(w, { state: 'working', event: 'UserPromptSubmit', if_state: ['working'] });
  const taken = watch.taken;
  report(other, { state: 'working', event: 'UserPromptSubmit' });
  // A tool call's report, a report naming no event (a script, a status line), the same event
  // from a source that is not the pane's hook: none is a prompt start.
  report(w, { state: 'working', event: 'PreToolUse', activity: 'Bash: ls', if_state: ['working'] });
  report(w, { state: 'working', if_state: ['working'] });
  report(w, { state: 'working', event: 'UserPromptSubmit', source: 'transcript', if_state: ['working'] });
  // A prompt-start event with a state no prompt start reports.
  report(w, { state: 'idle', event: 'UserPromptSubmit', if_state: ['working'] });
  assert.is(await taken, false, 'the take window passed');
  watch.dispose();
});

test('the prompt-start event is published once per admitted report, with its event name', () => {
  const { bus, w, report } = setup();
  const seen: string[] = [];
  const turns: boolean[] = [];
  bus.on('prompt-started', (ev) => {
    if (ev.window_id !== w.id) return;
    seen.push(ev.event);
    turns.push(ev.turn);
  });
  report(w, { state: 'working', event: 'BeforeAgent' });
  report(w, { state: 'working', event: 'PostToolUse' });
  report(w, { state: 'idle', event: 'session.created' });
  assert.equal(seen, ['BeforeAgent', 'session.created']);
  assert.equal(turns, [true, false], 'a prompt start begins the turn; a session the prompt opened does not');
});

test('every hook map\'s prompt-start event is one the daemon knows, and reports working', () => {
  const FIX = join(ROOT, 'fixtures', 'hooks');
  const starts: string[] = [];
  for (const h of readdirSync(FIX)) {
    for (const name of readdirSync(join(FIX, h)).filter((n) => n.endsWith('.json'))) {
      const f = JSON.parse(readFileSync(join(FIX, h, name), 'utf8')) as { harness: string; event: string; payload: unknown };
      const plan = mapHook(f.harness, f.payload, {}, f.harness === 'copilot' ? f.event : undefined);
      if (!PROMPT_START_EVENTS.has(plan.event)) continue;
      starts.push(`${f.harness}:${plan.event}`);
      assert.is(plan.report?.state, 'working', `${h}/${name}`);
    }
  }
  for (const want of ['claude-code:UserPromptSubmit', 'codex:UserPromptSubmit', 'copilot:UserPromptSubmit', 'gemini-cli:BeforeAgent', 'cursor-agent:beforeSubmitPrompt', 'pi:agent_start', 'opencode:chat.message']) {
    assert.ok(starts.includes(want), `${want} maps to a prompt start (${starts.join(', ')})`);
  }
  const opened = mapHook('opencode', { hook_event_name: 'session.created', session_id: 'ses_1' }, {});
  assert.ok(PROMPT_SESSION_EVENTS.has(opened.event) && opened.session?.start === 'startup', 'opencode session.created opens a session');
  const amp = mapHook('amp', { hook_event_name: 'agent.start', message: 'hi' }, {});
  assert.ok(PROMPT_START_EVENTS.has(amp.event) && amp.report?.state === 'working', 'amp agent.start');
});

test.run();
