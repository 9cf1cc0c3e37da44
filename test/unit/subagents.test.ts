// A pane's subagent records (core/agent-state/subagents.ts, spec: Each subagent): a launch names
// the next start of its type, tool calls move `now`, `last` and the count, a stop ends it as
// `done` or `stopped`, a failed Agent call as `failed`; the limits (16 listed, 64 running, 80
// bytes, one line), the retention after the end (a minute, five for a failure), the hour of silence, and
// the rate (a burst of 64, then 10 a second).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SubagentList } from '../../core/agent-state/subagents.js';

const launch = (l: SubagentList, description: string, type: string, t: number) => l.apply('subagent_update', { agent_type: type, text: description, status: 'running' }, t);

test('a launch names the next start of its type; tool calls move now, last and the count; a stop with a message is done', () => {
  const l = new SubagentList();
  launch(l, 'Research tmux', 'general-purpose', 1000);
  launch(l, 'Map the callers', 'Explore', 1000);
  assert.is(l.running, 0, 'a launch is not a subagent yet');
  assert.is(l.apply('subagent_start', { agent_id: 'a1', agent_type: 'Explore' }, 1100), 'changed');
  assert.is(l.apply('subagent_start', { agent_id: 'a2', agent_type: 'general-purpose' }, 1200), 'changed');
  assert.is(l.running, 2);
  let [e, g] = l.toJSON();
  assert.is(e!.description, 'Map the callers', 'the oldest launch of its type');
  assert.is(g!.description, 'Research tmux');
  assert.is(e!.started_at, 1100 * 1_000_000, 'ns since the epoch');
  l.apply('subagent_update', { agent_id: 'a1', text: 'Bash: go test ./...', call: 'start' }, 1300);
  [e] = l.toJSON();
  assert.is(e!.now, 'Bash: go test ./...');
  assert.is(e!.tools, 1);
  l.apply('subagent_update', { agent_id: 'a1', text: 'Bash: ok', call: 'end' }, 1400);
  [e] = l.toJSON();
  assert.is(e!.now, undefined, 'nothing runs between calls');
  assert.is(e!.last, 'Bash: go test ./...', 'the tool it ran last');
  assert.is(l.apply('subagent_stop', { agent_id: 'a1', text: 'The callers are in api/.' }, 2000), 'changed');
  [e] = l.toJSON();
  assert.equal({ state: e!.state, result: e!.result, ended_at: e!.ended_at }, { state: 'done', result: 'The callers are in api/.', ended_at: 2000 * 1_000_000 });
  assert.is(l.running, 1, 'the count says the running ones only');
  // The Agent call's result names it again by its id with its tool count, which stands when it says more.
  l.apply('subagent_update', { agent_id: 'a1', agent_type: 'Explore', text: 'Map the callers (14 tool calls)', status: 'done' }, 2100);
  [e] = l.toJSON();
  assert.is(e!.tools, 14);
  assert.is(e!.description, 'Map the callers', 'the count is not part of the description');
  assert.is(e!.state, 'done', 'the result does not change how it ended');
  // A background launch's result comes at once with 0: the calls heard after it still count.
  l.apply('subagent_start', { agent_id: 'bg', agent_type: 'Explore' }, 2200);
  l.apply('subagent_update', { agent_id: 'bg', text: 'Bg (0 tool calls)', status: 'done', tools: 0 }, 2200);
  l.apply('subagent_update', { agent_id: 'bg', text: 'Bash: ls', call: 'start' }, 2300);
  assert.is(l.toJSON()[2]!.tools, 1);
});

test('when no launch of its type waits, a start takes the oldest launch; without any it has no description', () => {
  const l = new SubagentList();
  launch(l, 'Write docs', 'general-purpose', 0);
  l.apply('subagent_start', { agent_id: 'x', agent_type: 'Plan' }, 10);
  l.apply('subagent_start', { agent_id: 'y', agent_type: 'Plan' }, 20);
  assert.equal(l.toJSON().map((s) => [s.id, s.type, s.description]), [['x', 'Plan', 'Write docs'], ['y', 'Plan', '']]);
  // A background task a Stop names by its id gives it its description.
  l.apply('subagent_update', { agent_id: 'y', agent_type: 'Plan', text: 'Check CI', status: 'running' }, 30);
  assert.is(l.toJSON()[1]!.description, 'Check CI');
});

test('a stop without a message, or after a stop was asked for, is stopped; a failed Agent call is failed with its error', () => {
  const l = new SubagentList();
  l.apply('subagent_start', { agent_id: 'a', agent_type: 't' }, 0);
  l.apply('subagent_start', { agent_id: 'b', agent_type: 't' }, 0);
  l.apply('subagent_start', { agent_id: 'c', agent_type: 't' }, 0);
  l.apply('subagent_stop', { agent_id: 'a' }, 10);
  l.apply('subagent_update', { agent_id: 'b', status: 'stopping', text: 'a stop was asked for' }, 10);
  l.apply('subagent_stop', { agent_id: 'b', text: 'I was stopped halfway.' }, 20);
  l.apply('subagent_update', { agent_id: 'c', status: 'failed', text: 'API Error: 500' }, 30);
  assert.equal(l.toJSON().map((s) => [s.id, s.state, s.result ?? '']), [['a', 'stopped', ''], ['b', 'stopped', 'I was stopped halfway.'], ['c', 'failed', 'API Error: 500']]);
  assert.is(l.running, 0);
});

test('a stop or a tool call for a subagent never seen starting changes nothing; session_start forgets them all', () => {
  const l = new SubagentList();
  assert.is(l.apply('subagent_stop', { agent_id: 'ghost', text: 'hi' }, 0), 'unchanged');
  assert.is(l.apply('subagent_update', { agent_id: 'ghost', text: 'Bash: ls', call: 'start' }, 0), 'unchanged');
  assert.equal(l.toJSON(), []);
  l.apply('subagent_start', { agent_id: 'a', agent_type: 't' }, 0);
  assert.is(l.apply('session_start', {}, 1), 'changed');
  assert.is(l.running, 0);
  assert.equal(l.toJSON(), []);
});

test('finished subagents stay a minute (done, stopped) or five (failed); a running one heard nothing of for an hour goes', () => {
  const l = new SubagentList();
  for (const id of ['d', 's', 'f', 'r']) l.apply('subagent_start', { agent_id: id, agent_type: 't' }, 0);
  l.apply('subagent_stop', { agent_id: 'd', text: 'ok' }, 1000);
  l.apply('subagent_stop', { agent_id: 's' }, 1000);
  l.apply('subagent_update', { agent_id: 'f', status: 'failed', text: 'boom' }, 1000);
  assert.is(l.nextExpiry(), 61_000);
  assert.not.ok(l.expire(60_999));
  assert.ok(l.expire(61_000));
  assert.equal(l.toJSON().map((s) => s.id), ['f', 'r']);
  assert.ok(l.expire(301_000));
  assert.equal(l.toJSON().map((s) => s.id), ['r']);
  // Each tool call counts as hearing from it.
  l.apply('subagent_update', { agent_id: 'r', text: 'Read: a', call: 'start' }, 3_000_000);
  assert.not.ok(l.expire(3_600_000));
  assert.ok(l.expire(3_000_000 + 3_600_000));
  assert.is(l.running, 0, 'a stop that never came leaves no count');
});

test('limits: at most 64 running (a start past it is not kept), 16 listed with the finished left out first, 80 bytes of text', () => {
  const l = new SubagentList();
  let t = 0;
  for (let i = 0; i < 70; i++) l.apply('subagent_start', { agent_id: `s${i}`, agent_type: 't' }, (t += 200));
  assert.is(l.running, 64, 'the count stays at 64');
  assert.is(l.toJSON().length, 16);
  assert.equal(l.toJSON().map((s) => s.id).slice(0, 2), ['s0', 's1'], 'in start order');
  l.apply('subagent_stop', { agent_id: 's0', text: 'done' }, (t += 200));
  assert.is(l.running, 63);
  assert.not.ok(l.toJSON().some((s) => s.id === 's0'), 'a finished one gives its place to a running one');
  const long = 'é'.repeat(100);
  l.apply('subagent_start', { agent_id: 'long', agent_type: 't' }, (t += 200));
  l.apply('subagent_update', { agent_id: 'long', text: `${long}\nsecond line`, status: 'running' }, (t += 200));
  const d = new SubagentList();
  d.apply('subagent_start', { agent_id: 'x', agent_type: 't' }, 0);
  d.apply('subagent_update', { agent_id: 'x', text: `${long}\u0007`, status: 'running' }, 0);
  const x = d.toJSON()[0]!;
  assert.is(Buffer.byteLength(x.description), 80, 'cut to 80 bytes on a character boundary');
  assert.ok(!/[\u0000-\u001f]/.test(x.description));
});

test('rate: a burst of 64 events, then 10 a second; a tool call past it is refused, starts and stops always count', () => {
  const l = new SubagentList();
  l.apply('subagent_start', { agent_id: 'a', agent_type: 't' }, 0);
  let took = 1;
  for (let i = 0; i < 100; i++) if (l.apply('subagent_update', { agent_id: 'a', text: `Bash: n${i}`, call: 'start' }, 0) !== 'rate_limited') took++;
  assert.is(took, 64, 'the burst');
  assert.is(l.toJSON()[0]!.now, 'Bash: n62', 'a refused call leaves the last taken one behind');
  assert.is(l.apply('subagent_start', { agent_id: 'b', agent_type: 't' }, 0), 'changed', 'a start past the rate is kept');
  assert.is(l.apply('subagent_update', { agent_id: 'a', text: 'Bash: later', call: 'start' }, 100), 'rate_limited', 'the start spent what came back');
  let later = 0;
  for (let i = 0; i < 30; i++) if (l.apply('subagent_update', { agent_id: 'a', text: `Bash: m${i}`, call: 'start' }, 1200) !== 'rate_limited') later++;
  assert.ok(later >= 9 && later <= 11, `about 10 a second (${later})`);
});

test.run();
