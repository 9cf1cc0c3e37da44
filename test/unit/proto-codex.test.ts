// The Codex app-server adapter of tuios agent-proto (proto/codex.ts), one case per row of the
// spec's tables (Headless agents over a protocol) in the Codex column, each replaying traffic
// captured from the real `codex app-server` 0.171.0 (fixtures/protocol/codex/0.171.0, written by
// scripts/capture-codex-proto.ts) into a RecordingSink: what the pane side would be told.
//
// Three inputs 0.171 cannot be made to send against a fake model API are added to captured
// traffic in the shape `codex app-server generate-ts` gives, and each case says so: turn/plan/
// updated (it answers update_plan "unsupported call" here), model/rerouted (OpenAI's own
// rerouting), and a file change approval with grantRoot or for an item not seen.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CodexAgent, contextValue, firstLine } from '../../proto/codex.js';
import { commandApproval, fileChangeApproval } from '../../proto/codex-approval.js';
import { METHOD_NOT_FOUND } from '../../proto/codex-wire.js';
import { CODEX_APPROVALS_PENDING_MAX } from '../../proto/codex-limits.js';
import { RecordingSink, type Answer } from '../helpers/proto-sink.js';
import { Replay, incoming, insertAfter, isIn, readFixture, replaceLine, type FixtureLine } from '../helpers/codex-replay.js';

async function replay(lines: FixtureLine[], answer?: Answer): Promise<{ sink: RecordingSink; r: Replay; agent: CodexAgent }> {
  const r = new Replay(lines);
  const agent = new CodexAgent({ command: ['codex'], cwd: '/work', env: {}, log: () => undefined, launch: r.launch });
  const sink = new RecordingSink(answer);
  await r.play(agent, sink);
  return { sink, r, agent };
}

const accept: Answer = (req) => req.options.find((o) => o.kind === 'allow_once')!.id;
const deny: Answer = (req) => req.options.find((o) => o.kind === 'deny')!.id;
const threadOf = (lines: FixtureLine[]) => lines.find((l) => l.dir === 'in' && l.msg?.result?.thread)!.msg.result.thread.id as string;
const turnOf = (lines: FixtureLine[]) => lines.find(isIn('turn/started'))!.msg.params.turn.id as string;

// --- The state table -------------------------------------------------------------------------

test('the conversation opened: initialize, initialized, thread/start in the pane folder; opened names codex 0.171.0 and the model', async () => {
  const lines = readFixture('approval-accept');
  const { sink, r } = await replay(lines, accept);
  assert.equal(r.sent.slice(0, 3).map((m) => m.method), ['initialize', 'initialized', 'thread/start']);
  assert.is(r.sent[2].params.cwd, '/work');
  assert.equal(sink.events[0], { call: 'opened', agent: 'codex 0.171.0', model: 'fake-model' });
});

test('a prompt was sent: turn/start on the thread thread/start opened, with the text', async () => {
  const lines = readFixture('approval-accept');
  const { r } = await replay(lines, accept);
  const start = r.sent.find((m) => m.method === 'turn/start');
  assert.equal(start.params, { threadId: threadOf(lines), input: [{ type: 'text', text: 'Please create hello.txt', text_elements: [] }] });
});

test('the turn ended: done with the reply\'s first line, the reply streamed whole', async () => {
  const { sink } = await replay(readFixture('approval-accept'), accept);
  assert.equal(sink.of('turnEnded'), [{ call: 'turnEnded', end: { kind: 'done', reply: 'Done! I created hello.txt.' } }]);
  assert.is(sink.reply, 'Done! I created hello.txt.\nIt is empty.');
  assert.equal(sink.of('toolCall').map((e) => [e.phase, e.title, e.failed]), [
    ['start', "/bin/bash -lc 'touch hello.txt'", undefined],
    ['end', "/bin/bash -lc 'touch hello.txt'", false],
  ]);
});

test('the turn was cancelled: turn/interrupt names the thread and the turn; interrupted ends it cancelled', async () => {
  const lines = readFixture('cancel');
  const { sink, r } = await replay(lines);
  const interrupt = r.sent.find((m) => m.method === 'turn/interrupt');
  assert.equal(interrupt.params, { threadId: threadOf(lines), turnId: turnOf(lines) });
  assert.equal(sink.of('turnEnded').map((e) => e.end), [{ kind: 'cancelled' }]);
});

test('the turn failed: failed with the turn\'s error (HTTP 500 from the model API, retries off)', async () => {
  const { sink } = await replay(readFixture('failed'));
  assert.equal(sink.of('turnEnded').map((e) => e.end), [{ kind: 'failed', why: 'We’re currently experiencing high demand, which may cause temporary errors.' }]);
});

test('the agent refused the turn (derived: turn/start answered with an error): failed with its message', async () => {
  let lines = readFixture('cancel');
  // Codex's answer to turn/start becomes a JSON-RPC error; the turn's notifications go.
  lines = replaceLine(lines, (l) => l.dir === 'in' && l.msg?.result?.turn !== undefined, (l) => incoming({ id: l.msg.id, error: { code: -32600, message: 'input is empty' } }));
  lines = lines.filter((l) => !(l.dir === 'in' && /^(turn|item|thread\/status|thread\/tokenUsage)/.test(l.msg?.method ?? '')) && l.do !== 'cancel' && !(l.dir === 'out' && l.msg?.method === 'turn/interrupt') && !(l.dir === 'in' && l.msg?.id === 4));
  const { sink } = await replay(lines);
  assert.equal(sink.of('turnEnded').map((e) => e.end), [{ kind: 'failed', why: 'input is empty' }]);
});

test('the agent asked permission: the command\'s line, one-line, and Codex\'s own answers with their kinds', async () => {
  const { sink } = await replay(readFixture('approval-accept'), accept);
  const [p] = sink.of('permission');
  assert.equal(p!.req, {
    title: "Run /bin/bash -lc 'touch hello.txt'",
    oneLine: true,
    detail: ['Do you want to run touch hello.txt?'],
    options: [
      { id: 'accept', label: 'accept', kind: 'allow_once' },
      { id: 'acceptWithExecpolicyAmendment', label: 'acceptWithExecpolicyAmendment: touch hello.txt', kind: 'allow_more' },
      // 0.171 offers no decline here: cancel is the one-call deny (and Codex ends the turn on it).
      { id: 'cancel', label: 'cancel', kind: 'deny' },
    ],
  });
});

test('the permission was answered: accept goes back as the decision, the command runs, the turn goes on to done', async () => {
  const { sink, r } = await replay(readFixture('approval-accept'), accept);
  assert.equal(r.sent.filter((m) => m.method === undefined), [{ id: 0, result: { decision: 'accept' } }]);
  assert.equal(sink.of('permissionAnswered').map((e) => e.choice), ['accept']);
  assert.is(sink.events.findIndex((e) => e.call === 'permissionAnswered') < sink.events.findIndex((e) => e.call === 'turnEnded'), true);
});

test('the permission denied: cancel goes back; Codex interrupts the turn, which ends cancelled', async () => {
  const { sink, r } = await replay(readFixture('approval-deny'), deny);
  assert.equal(r.sent.filter((m) => m.method === undefined), [{ id: 0, result: { decision: 'cancel' } }]);
  assert.equal(sink.of('turnEnded').map((e) => e.end), [{ kind: 'cancelled' }]);
});

test('a turn cancelled while its permission is on screen: the question is withdrawn, never answered', async () => {
  const { sink, r } = await replay(readFixture('cancel-approval'));
  assert.equal(r.sent.filter((m) => m.method === undefined), []);
  assert.equal(sink.of('permissionAborted').length, 1);
  assert.equal(sink.of('turnEnded').map((e) => e.end), [{ kind: 'cancelled' }]);
});

test('the agent exited: exited with how (killed while idle)', async () => {
  const { sink } = await replay(readFixture('exit'));
  assert.equal(sink.of('exited').length, 1);
  assert.match(sink.of('exited')[0]!.why, /^was killed by SIGKILL/);
});

test('the agent did not start: codex refused its options before initialize; exited says so and start rejects', async () => {
  const r = new Replay(readFixture('start-fails'));
  const agent = new CodexAgent({ command: ['codex', '--no-such-option'], cwd: '/work', env: {}, log: () => undefined, launch: r.launch });
  const sink = new RecordingSink();
  let rejected = false;
  const started = agent.start(sink).catch(() => (rejected = true));
  await r.play(agent, sink);
  await started;
  assert.is(rejected, true);
  assert.equal(sink.events, [{ call: 'exited', why: "exited with status 2: error: unexpected argument '--no-such-option' found" }]);
});

test('the agent did not start: a command that is not there', async () => {
  const agent = new CodexAgent({ command: ['/nonexistent/tuios-test/codex'], cwd: '/', env: process.env, log: () => undefined });
  const sink = new RecordingSink();
  await agent.start(sink).then(
    () => assert.unreachable('started'),
    () => undefined,
  );
  assert.equal(sink.events.map((e) => e.call), ['exited']);
  assert.match((sink.events[0] as { why: string }).why, /^did not start: .*ENOENT/);
});

// --- The metadata table ----------------------------------------------------------------------

test('model: thread/start\'s model, then model/rerouted\'s toModel (derived: rerouting is OpenAI\'s own)', async () => {
  let lines = readFixture('approval-accept');
  const thread = threadOf(lines);
  const turn = turnOf(lines);
  lines = insertAfter(lines, isIn('turn/started'), incoming({ method: 'model/rerouted', params: { threadId: thread, turnId: turn, fromModel: 'fake-model', toModel: 'gpt-5.3-codex', reason: 'highRiskCyberActivity' } }));
  const { sink } = await replay(lines, accept);
  assert.equal(sink.of('meta').filter((e) => e.key === 'model').map((e) => e.value), ['fake-model', 'gpt-5.3-codex']);
});

test('context: last.totalTokens of modelContextWindow, once per change; nothing while the window is unknown', async () => {
  assert.is(contextValue({ last: { totalTokens: 120 }, modelContextWindow: 258400 }), '0%');
  assert.is(contextValue({ last: { totalTokens: 108_528 }, modelContextWindow: 258_400 }), '42%');
  assert.is(contextValue({ last: { totalTokens: 120 }, modelContextWindow: null }), null);
  assert.is(contextValue({ last: {}, modelContextWindow: 1000 }), null);
  // Captured: two thread/tokenUsage/updated of 120 of 258400, one value.
  const { sink } = await replay(readFixture('approval-accept'), accept);
  assert.equal(sink.of('meta').filter((e) => e.key === 'context').map((e) => e.value), ['0%']);
  // The same turn with the window unknown (derived: modelContextWindow null) feeds no context.
  const lines = readFixture('approval-accept').map((l) => (l.dir === 'in' && l.msg?.method === 'thread/tokenUsage/updated' ? incoming({ ...l.msg, params: { ...l.msg.params, tokenUsage: { ...l.msg.params.tokenUsage, modelContextWindow: null } } }) : l));
  const unknown = await replay(lines, accept);
  assert.equal(unknown.sink.of('meta').filter((e) => e.key === 'context'), []);
});

test('cost: Codex sends none, so no fixture feeds it', async () => {
  const answers: Record<string, Answer | undefined> = { 'approval-accept': accept, 'approval-deny': deny, cancel: undefined, 'cancel-approval': undefined, failed: undefined, 'file-change': accept, 'user-input': undefined, exit: undefined };
  for (const [name, answer] of Object.entries(answers)) {
    const { sink } = await replay(readFixture(name), answer);
    assert.equal(sink.of('meta').filter((e) => e.key === 'cost'), [], name);
  }
});

test('plan: turn/plan/updated, completed steps of all steps, and the plan itself (derived: 0.171 runs no update_plan here)', async () => {
  let lines = readFixture('approval-accept');
  const thread = threadOf(lines);
  const turn = turnOf(lines);
  const plan = (statuses: string[]) =>
    incoming({ method: 'turn/plan/updated', params: { threadId: thread, turnId: turn, explanation: null, plan: statuses.map((status, i) => ({ step: `Step ${i + 1}`, status })) } });
  lines = insertAfter(lines, isIn('turn/started'), plan(['completed', 'inProgress', 'pending']), plan(['completed', 'inProgress', 'pending']), plan(['completed', 'completed', 'completed']));
  const { sink } = await replay(lines, accept);
  assert.equal(sink.of('plan')[0]!.entries, [
    { text: 'Step 1', done: true },
    { text: 'Step 2', done: false },
    { text: 'Step 3', done: false },
  ]);
  assert.is(sink.of('plan').length, 3);
  assert.equal(sink.of('meta').filter((e) => e.key === 'plan').map((e) => e.value), ['1/3', '3/3']);
});

// --- Approvals -------------------------------------------------------------------------------

test('a file change approval is the pane\'s: never one-line, the files it saw, Codex\'s file decisions', async () => {
  const lines = readFixture('file-change');
  const { sink, r } = await replay(lines, accept);
  const [p] = sink.of('permission');
  const path = lines.filter(isIn('item/started')).find((l) => l.msg.params.item.type === 'fileChange')!.msg.params.item.changes[0].path as string;
  assert.equal(p!.req, {
    title: `Edit ${path}`,
    oneLine: false,
    detail: [`A ${path}`],
    options: [
      { id: 'accept', label: 'accept', kind: 'allow_once' },
      { id: 'acceptForSession', label: 'acceptForSession', kind: 'allow_more' },
      { id: 'decline', label: 'decline', kind: 'deny' },
      { id: 'cancel', label: 'cancel', kind: 'other' },
    ],
  });
  assert.equal(r.sent.filter((m) => m.method === undefined), [{ id: 0, result: { decision: 'accept' } }]);
  assert.equal(sink.of('turnEnded').map((e) => e.end.kind), ['done']);
});

test('a file change approval for an item not seen, with grantRoot (derived): the pane\'s, files unknown, grantRoot under the title', async () => {
  let lines = readFixture('file-change');
  lines = lines.filter((l) => !(l.dir === 'in' && (l.msg?.method === 'item/started' || l.msg?.method === 'item/completed') && l.msg.params.item.type === 'fileChange'));
  lines = replaceLine(lines, isIn('item/fileChange/requestApproval'), (l) => incoming({ ...l.msg, params: { ...l.msg.params, grantRoot: '/work/project' } }));
  const { sink } = await replay(lines, accept);
  const [p] = sink.of('permission');
  assert.is(p!.req.title, 'Change files');
  assert.is(p!.req.oneLine, false);
  assert.equal(p!.req.detail, ['which files is not known: this change was not seen', 'and allow writes under /work/project for the rest of the session (grantRoot)']);
});

test('one-line only when the title holds the whole command: never a long or multi-line command, never input to a running one', () => {
  const base = { kind: 'command', threadId: 't', turnId: 'u', itemId: 'i', startedAtMs: 0, environmentId: null };
  assert.is(commandApproval({ ...base, command: 'npm test' }).req.oneLine, true);
  assert.is(commandApproval({ ...base, command: 'cat <<EOF\nhi\nEOF' }).req.oneLine, false);
  assert.is(commandApproval({ ...base, command: 'x'.repeat(501) }).req.oneLine, false);
  assert.is(commandApproval({ ...base, command: 'x'.repeat(501) }).req.title.length <= 505, true);
  assert.is(commandApproval({ ...base, kind: 'writeStdin', command: 'python3' }).req.oneLine, false);
  assert.is(commandApproval({ ...base }).req.oneLine, false);
  // No availableDecisions: the whole enum, decline the one-call deny and cancel not.
  assert.equal(commandApproval({ ...base, command: 'ls' }).req.options.map((o) => [o.id, o.kind]), [
    ['accept', 'allow_once'],
    ['acceptForSession', 'allow_more'],
    ['decline', 'deny'],
    ['cancel', 'other'],
  ]);
  assert.is(fileChangeApproval({}, { changes: [{ path: 'a', kind: 'update', movePath: null }] }).req.oneLine, false);
});

// --- Safety ----------------------------------------------------------------------------------

test('a request tuios does not handle is answered method-not-found (-32601), and the turn goes on', async () => {
  const { sink, r } = await replay(readFixture('user-input'));
  const answers = r.sent.filter((m) => m.method === undefined);
  assert.is(answers.length, 1);
  assert.is(answers[0].id, 0);
  assert.is(answers[0].error.code, METHOD_NOT_FOUND);
  assert.equal(sink.of('permission'), []);
  assert.equal(sink.of('turnEnded').map((e) => e.end.kind), ['done']);
});

test('at most CODEX_APPROVALS_PENDING_MAX approvals wait on the pane; past it Codex is answered not approved (derived flood)', async () => {
  const lines = readFixture('approval-accept');
  const open = lines.findIndex((l) => l.dir === 'in' && l.msg?.result?.thread);
  const approval = lines.find(isIn('item/commandExecution/requestApproval'))!;
  const flood = Array.from({ length: CODEX_APPROVALS_PENDING_MAX + 2 }, (_, i) => incoming({ ...approval.msg, id: 100 + i }));
  const over = [100 + CODEX_APPROVALS_PENDING_MAX, 101 + CODEX_APPROVALS_PENDING_MAX].map((id) => ({ dir: 'out' as const, msg: { id } }));
  const { sink, r } = await replay([...lines.slice(0, open + 1), ...flood, ...over]);
  assert.is(sink.of('permission').length, CODEX_APPROVALS_PENDING_MAX);
  assert.equal(r.sent.filter((m) => m.method === undefined).map((m) => [m.id, m.error?.code]), [
    [100 + CODEX_APPROVALS_PENDING_MAX, METHOD_NOT_FOUND],
    [101 + CODEX_APPROVALS_PENDING_MAX, METHOD_NOT_FOUND],
  ]);
});

test('firstLine skips blank lines and trims', () => {
  assert.is(firstLine('\n  \n  Done.  \nMore'), 'Done.');
  assert.is(firstLine(''), '');
});

test.run();
