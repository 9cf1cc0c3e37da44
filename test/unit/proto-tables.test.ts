// The two tables of Headless agents over a protocol, row by row: the state a protocol pane
// reports for each thing that happens (proto/state.ts), and the ACP column of the metadata table
// with the rest of what an ACP agent's messages mean (proto/acp-read.ts, proto/meta.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { reportFor, harnessFor } from '../../proto/state.js';
import { agentOf, modelOf, modelOption, permissionOf, planOf, stopOf, textOf, usageOf } from '../../proto/acp-read.js';
import { MetaTracker, contextValue, costValue } from '../../proto/meta.js';

// ---- the first table: what happened -> the report ----

test('the conversation opened: idle', () => {
  assert.equal(reportFor({ kind: 'opened' }, null), { state: 'idle' });
});

test('a prompt was sent: working', () => {
  assert.equal(reportFor({ kind: 'prompt' }, 'idle'), { state: 'working' });
});

test("the turn ended: done, with the reply's first line", () => {
  assert.equal(reportFor({ kind: 'done', reply: '\n\nFixed the test.\nThen more.' }, 'working'), { state: 'done', message: 'Fixed the test.' });
});

test('the turn was cancelled: idle', () => {
  assert.equal(reportFor({ kind: 'cancelled' }, 'working'), { state: 'idle' });
});

test('the turn failed, or the agent refused: errored, with why', () => {
  assert.equal(reportFor({ kind: 'failed', why: 'the model API answered 500' }, 'working'), { state: 'errored', message: 'the model API answered 500' });
  assert.equal(reportFor({ kind: 'failed', why: stopOf('refusal') === 'done' ? '' : (stopOf('refusal') as { failed: string }).failed }, 'working'), { state: 'errored', message: 'the agent refused' });
});

test("the agent asked permission: needs_input, kind approval, with the request's line", () => {
  assert.equal(reportFor({ kind: 'permission', line: 'touch hello.txt' }, 'working'), { state: 'needs_input', kind: 'approval', message: 'touch hello.txt' });
});

test('the permission was answered: working, only if still on needs_input', () => {
  assert.equal(reportFor({ kind: 'answered' }, 'needs_input'), { state: 'working' });
  assert.is(reportFor({ kind: 'answered' }, 'done'), null);
  assert.is(reportFor({ kind: 'answered' }, 'idle'), null);
});

test('the agent exited or did not start: errored', () => {
  assert.equal(reportFor({ kind: 'exited', why: 'it exited with code 3' }, 'working'), { state: 'errored', message: 'it exited with code 3' });
  assert.is(reportFor({ kind: 'exited', why: 'it did not start: spawn nope ENOENT' }, null)!.state, 'errored');
});

test('the harness is the manifest\'s, else the protocol\'s name', () => {
  assert.is(harnessFor('opencode', 'acp'), 'opencode');
  assert.is(harnessFor(null, 'acp'), 'acp');
  assert.is(harnessFor('Not A Harness!', 'codex'), 'codex');
});

test('a report message is one line, masked and cut', () => {
  const r = reportFor({ kind: 'failed', why: 'bad key sk-abcdefghijklmnopqrstuvwx\nsecond line ' + 'x'.repeat(300) }, 'working')!;
  assert.not.ok(r.message!.includes('sk-abcdef'));
  assert.not.ok(r.message!.includes('\n'));
  assert.ok([...r.message!].length <= 100);
});

// ---- the second table, ACP column ----

test("model: the name of session/new's models.currentModelId", () => {
  assert.is(modelOf({ sessionId: 's', models: { currentModelId: 'anthropic/claude-sonnet-4', availableModels: [{ modelId: 'x', name: 'X' }, { modelId: 'anthropic/claude-sonnet-4', name: 'Claude Sonnet 4' }] } }), 'Claude Sonnet 4');
  assert.is(modelOf({ models: { currentModelId: 'm9', availableModels: [] } }), 'm9');
  assert.is(modelOf({ sessionId: 's' }), null);
  assert.is(modelOf({ models: { currentModelId: 7 } }), null);
  // opencode 1.18.33 sends no models but the stable config options (captured from `opencode acp`).
  const oc = { sessionId: 'ses_1', configOptions: [{ id: 'model', name: 'Model', category: 'model', type: 'select', currentValue: 'fake/fake-model', options: [{ value: 'opencode/big-pickle', name: 'OpenCode Zen/Big Pickle' }, { value: 'fake/fake-model', name: 'Fake/Fake Model' }] }, { id: 'mode', category: 'mode', currentValue: 'build', options: [] }] };
  assert.is(modelOf(oc), 'Fake/Fake Model');
  assert.is(modelOption([{ category: 'model', currentValue: 'x/y', options: [] }]), 'x/y');
  assert.is(modelOption([{ category: 'mode', currentValue: 'build' }]), null);
});

test('context: usage_update used of size', () => {
  assert.equal(usageOf({ sessionUpdate: 'usage_update', used: 53000, size: 200000 }), { context: '27% ctx', cost: null });
  assert.is(usageOf({ used: 10 }).context, null);
  assert.is(usageOf({ used: 'many', size: 100 }).context, null);
  assert.is(contextValue(300, 200), '100% ctx');
});

test('cost: usage_update cost.amount in cost.currency', () => {
  assert.equal(usageOf({ used: 1, size: 100, cost: { amount: 1.2, currency: 'USD' } }), { context: '1% ctx', cost: '$1.20' });
  assert.is(usageOf({ used: 1, size: 100, cost: { amount: 3, currency: 'eur' } }).cost, '3.00 EUR');
  // Each field on its own: a cost without usage still counts, a broken cost costs only itself.
  assert.equal(usageOf({ cost: { amount: 0.5, currency: 'USD' } }), { context: null, cost: '$0.50' });
  assert.equal(usageOf({ used: 50, size: 100, cost: { amount: 'lots' } }), { context: '50% ctx', cost: null });
  assert.is(costValue(-1, 'USD'), null);
});

test('plan: completed entries of all entries', () => {
  const p = planOf({ entries: [{ content: 'a', status: 'completed' }, { content: 'b', status: 'in_progress' }, { content: 'c', status: 'pending' }] });
  assert.is(p.value, 'plan 1/3');
  assert.equal(p.entries, [{ text: 'a', done: true }, { text: 'b', done: false }, { text: 'c', done: false }]);
  assert.is(planOf({ entries: [] }).value, null);
  assert.is(planOf({}).value, null);
});

test("the agent's name and version from initialize", () => {
  assert.is(agentOf({ protocolVersion: 1, agentInfo: { name: 'opencode', version: '1.2' } }), 'opencode 1.2');
  assert.is(agentOf({ protocolVersion: 1 }), null);
});

test('reply text is the text blocks only', () => {
  assert.is(textOf({ type: 'text', text: 'hi' }), 'hi');
  assert.is(textOf({ type: 'image', data: 'x' }), '');
});

test('each key once per change, every key again at a turn start', () => {
  const m = new MetaTracker();
  assert.equal(m.set('model', 'Fake'), { model: 'Fake' });
  assert.is(m.set('model', 'Fake'), null);
  assert.equal(m.set('context', '27% ctx'), { context: '27% ctx' });
  assert.equal(m.set('context', '28% ctx'), { context: '28% ctx' });
  assert.equal(m.turnStart(), { model: 'Fake', context: '28% ctx' });
  assert.equal(m.set('context', null), { context: '' });
  assert.is(m.set('context', null), null);
  assert.equal(m.turnStart(), { model: 'Fake' });
  // Values are cleaned like any metadata: one line, no controls, at most 80 characters.
  assert.equal(m.set('model', 'a\x1b]0;t\x07b\n' + 'y'.repeat(200))!.model!.includes('\x1b'), false);
});

// ---- permissions, ACP side ----

test('a command whose title is its command is one line, with the agent\'s words for each answer', () => {
  const r = permissionOf({
    sessionId: 's',
    toolCall: { toolCallId: 't', title: 'touch hello.txt', kind: 'execute', rawInput: { command: 'touch hello.txt', description: 'make it' } },
    options: [
      { optionId: 'a', name: 'Allow once', kind: 'allow_once' },
      { optionId: 'b', name: 'Always allow', kind: 'allow_always' },
      { optionId: 'c', name: 'Reject', kind: 'reject_once' },
      { optionId: 'd', name: 'Never', kind: 'reject_always' },
    ],
  });
  assert.is(r.oneLine, true);
  assert.equal(r.options.map((o) => [o.id, o.label, o.kind]), [['a', 'Allow once', 'allow_once'], ['b', 'Always allow', 'allow_more'], ['c', 'Reject', 'deny'], ['d', 'Never', 'other']]);
});

test('an edit, a diff, a title that is not the command, extra input: answered in the pane only', () => {
  const opts = [{ optionId: 'a', name: 'Allow', kind: 'allow_once' }];
  assert.is(permissionOf({ toolCall: { title: 'Edit a.ts', kind: 'edit', rawInput: { filePath: 'a.ts' } }, options: opts }).oneLine, false);
  assert.is(permissionOf({ toolCall: { title: 'touch x', kind: 'execute', rawInput: { command: 'touch x' }, content: [{ type: 'diff', path: '/a', newText: 'x' }] }, options: opts }).oneLine, false);
  const other = permissionOf({ toolCall: { title: 'Run a command', kind: 'execute', rawInput: { command: 'rm -rf build' } }, options: opts });
  assert.is(other.oneLine, false);
  assert.equal(other.detail, ['$ rm -rf build']);
  assert.is(permissionOf({ toolCall: { title: 'ls', kind: 'execute', rawInput: { command: 'ls', workdir: '/' } }, options: opts }).oneLine, false);
});

test('stopReason: end_turn done, cancelled cancelled, the rest failed', () => {
  assert.is(stopOf('end_turn'), 'done');
  assert.is(stopOf('cancelled'), 'cancelled');
  assert.equal(stopOf('max_tokens'), { failed: 'the model reached its token limit' });
  assert.equal(stopOf(undefined), { failed: 'the turn stopped (no reason)' });
});

test.run();
