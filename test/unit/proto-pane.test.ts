// The pane side of agent-proto without a process: the permission timing rules (a digit counts
// after 0.5 s on screen, a paste and Enter never answer), the first answer winning between the
// pane and the Inbox, the sanitising of everything the agent says, and the order of reports,
// metadata and activity. The agent and the daemon are the ProtoAgent and PaneDaemon interfaces,
// driven by the test; the real ones are the e2e's (agent-proto, agent-proto-opencode).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ProtoPane, type PaneDaemon } from '../../proto/pane.js';
import { PermissionQuestion, PERMISSION_SETTLE_MS } from '../../proto/permission.js';
import { KeyReader } from '../../proto/keys.js';
import { paneText, paneLine } from '../../proto/sanitize.js';
import type { ProtoAgent, ProtoPermissionRequest } from '../../proto/agent.js';

function rig() {
  let clock = 1_000_000;
  const screen: string[] = [];
  const reports: Array<{ state: string; message?: string; kind?: string }> = [];
  const metas: Array<Record<string, string>> = [];
  const acts: Array<[string, string, string]> = [];
  let holdResolve: ((b: 'allow' | 'deny' | null) => void) | null = null;
  let holdSignal: AbortSignal | null = null;
  const prompts: string[] = [];
  let cancels = 0;
  const daemon: PaneDaemon = {
    report: async (r) => void reports.push(r),
    hold: (_tool, _line, signal) => {
      holdSignal = signal;
      return new Promise((res) => (holdResolve = res));
    },
    meta: (v) => void metas.push(v),
    activity: (e, t, s) => void acts.push([e, t, s]),
  };
  const agent: ProtoAgent = {
    start: async () => undefined,
    prompt: async (t) => void prompts.push(t),
    cancel: async () => void cancels++,
    close: async () => undefined,
  };
  const pane = new ProtoPane(agent, daemon, (s) => void screen.push(s), () => clock);
  return {
    pane,
    screen: () => screen.join(''),
    reports,
    metas,
    acts,
    prompts,
    cancels: () => cancels,
    tick: (ms: number) => (clock += ms),
    inbox: (b: 'allow' | 'deny' | null) => holdResolve?.(b),
    holdAborted: () => holdSignal?.aborted ?? null,
  };
}

const REQ: ProtoPermissionRequest = {
  title: 'touch hello.txt',
  oneLine: true,
  detail: [],
  options: [
    { id: 'once', label: 'Allow once', kind: 'allow_once' },
    { id: 'always', label: 'Always allow', kind: 'allow_more' },
    { id: 'no', label: 'Reject', kind: 'deny' },
  ],
};

const tickle = () => new Promise((r) => setTimeout(r, 5));

test('a digit counts only after the question was 0.5 s on screen', () => {
  const q = new PermissionQuestion(REQ.options, 1000);
  assert.is(q.answer({ kind: 'char', ch: '1' }, 1000), null);
  assert.is(q.answer({ kind: 'char', ch: '1' }, 1000 + PERMISSION_SETTLE_MS - 1), null);
  assert.is(q.answer({ kind: 'char', ch: '1' }, 1000 + PERMISSION_SETTLE_MS)!.id, 'once');
  assert.is(q.answer({ kind: 'char', ch: '3' }, 5000)!.id, 'no');
  assert.is(q.answer({ kind: 'char', ch: '4' }, 5000), null);
  assert.is(q.answer({ kind: 'char', ch: '0' }, 5000), null);
});

test('a paste and Enter never answer', () => {
  const q = new PermissionQuestion(REQ.options, 0);
  assert.is(q.answer({ kind: 'paste', text: '1' }, 10_000), null);
  assert.is(q.answer({ kind: 'enter' }, 10_000), null);
  const keys = new KeyReader();
  // A bracketed paste holding a digit, and a digit with Enter in one read: neither is a key.
  assert.equal(keys.read('\x1b[200~1\x1b[201~'), [{ kind: 'paste', text: '1' }]);
  assert.equal(keys.read('1\r'), [{ kind: 'paste', text: '1' }, { kind: 'enter' }]);
  assert.equal(keys.read('2'), [{ kind: 'char', ch: '2' }]);
});

test('a paste split across reads arrives whole, its line breaks never submit', () => {
  const keys = new KeyReader();
  assert.equal(keys.read('\x1b[200~one\rtw'), []);
  assert.equal(keys.read('o\x1b[201~\r'), [{ kind: 'paste', text: 'one\rtwo' }, { kind: 'enter' }]);
});

test('the Inbox offers allow once and deny: the options for exactly one call', () => {
  const q = new PermissionQuestion(REQ.options, 0);
  assert.is(q.inboxOption('allow')!.id, 'once');
  assert.is(q.inboxOption('deny')!.id, 'no');
});

test('a question in the pane: needs_input, keys too early ignored, then answered, then working', async () => {
  const r = rig();
  r.pane.opened({ agent: 'fake 1' });
  r.pane.input('do it');
  r.pane.input('\r');
  assert.equal(r.prompts, ['do it']);
  const ctl = new AbortController();
  const answer = r.pane.permission({ ...REQ, oneLine: false }, ctl.signal);
  await r.pane.settled();
  assert.equal(r.reports.map((x) => x.state), ['idle', 'working', 'needs_input']);
  assert.is(r.reports[2]!.kind, 'approval');
  r.pane.input('1');
  r.tick(499);
  r.pane.input('1');
  r.pane.input('\r');
  r.pane.input('\x1b[200~2\x1b[201~');
  r.tick(1);
  r.pane.input('2');
  assert.is(await answer, 'always');
  await r.pane.settled();
  assert.equal(r.reports.map((x) => x.state), ['idle', 'working', 'needs_input', 'working']);
  assert.match(r.screen(), /1 Allow once/);
  assert.match(r.screen(), /answered: Always allow/);
});

test('first answer wins: a key in the pane ends the Inbox hold', async () => {
  const r = rig();
  r.pane.opened({});
  const answer = r.pane.permission(REQ, new AbortController().signal);
  await r.pane.settled();
  await tickle();
  assert.is(r.holdAborted(), false);
  r.tick(600);
  r.pane.input('3');
  assert.is(await answer, 'no');
  assert.is(r.holdAborted(), true);
  // The Inbox answering after it changes nothing.
  r.inbox('allow');
  await tickle();
  assert.not.match(r.screen(), /from the Inbox/);
});

test('first answer wins: the Inbox answer is written into the pane with who gave it', async () => {
  const r = rig();
  r.pane.opened({});
  const answer = r.pane.permission(REQ, new AbortController().signal);
  await r.pane.settled();
  await tickle();
  r.inbox('allow');
  assert.is(await answer, 'once');
  assert.match(r.screen(), /answered from the Inbox by the person: Allow once/);
  r.tick(600);
  r.pane.input('3');
  await r.pane.settled();
  assert.equal(r.reports.map((x) => x.state), ['idle', 'needs_input', 'working']);
});

test('a request that is not one line is not held for the Inbox', async () => {
  const r = rig();
  r.pane.opened({});
  void r.pane.permission({ ...REQ, oneLine: false }, new AbortController().signal);
  await r.pane.settled();
  await tickle();
  assert.is(r.holdAborted(), null);
});

test('metadata: each key once per change, all again at each turn start; activity with the last state', async () => {
  const r = rig();
  r.pane.opened({ model: 'M' });
  r.pane.meta('model', 'M');
  r.pane.meta('model', 'M');
  r.pane.meta('context', '10% ctx');
  r.pane.input('first');
  r.pane.input('\r');
  r.pane.toolCall({ id: 't', title: 'ls', phase: 'start' });
  r.pane.toolCall({ id: 't', title: '', phase: 'end', failed: true });
  r.pane.turnEnded({ kind: 'done', reply: 'Listed.' });
  await r.pane.settled();
  assert.equal(r.metas, [{ model: 'M' }, { context: '10% ctx' }, { model: 'M', context: '10% ctx' }]);
  assert.equal(r.acts, [['UserPromptSubmit', 'first', 'working'], ['PreToolUse', 'ls', 'working'], ['PostToolUseFailure', 'ls', 'working'], ['Stop', 'Listed.', 'done']]);
  assert.equal(r.reports.at(-1), { state: 'done', message: 'Listed.' });
});

test('cancel, failure and exit reports', async () => {
  const r = rig();
  r.pane.opened({});
  r.pane.input('go\r'.slice(0, 2));
  r.pane.input('\r');
  r.pane.input('\x03');
  assert.is(r.cancels(), 1);
  r.pane.turnEnded({ kind: 'cancelled' });
  r.pane.input('x');
  r.pane.input('\r');
  r.pane.turnEnded({ kind: 'failed', why: 'the model API answered 500' });
  r.pane.exited('it exited with code 3');
  await r.pane.settled();
  assert.equal(r.reports.map((x) => [x.state, x.message ?? '']), [['idle', ''], ['working', ''], ['idle', ''], ['working', ''], ['errored', 'the model API answered 500'], ['errored', 'it exited with code 3']]);
});

test('nothing the agent says reaches the pane as an escape sequence or a control character', async () => {
  const r = rig();
  r.pane.opened({ agent: 'evil\x1b]0;title\x07', model: 'm\x1b[31m' });
  r.pane.replyText('a\x1b]52;c;aGk=\x07b\x1b]7501;state=errored\x1b\\c\x1b[2Jd\x07e\x9b31mf\x9d0;x\x9cg\u202eh\x1bPq#0\x1b\\i\r\n');
  r.pane.toolCall({ id: '1', title: 't\x1b]2;x\x07', phase: 'start' });
  r.pane.plan([{ text: 'p\x1b[1m', done: false }]);
  void r.pane.permission({ title: 'x\x1b]0;y\x07', oneLine: false, detail: ['d\x1b[K'], options: [{ id: '1', label: 'ok\x07', kind: 'allow_once' }] }, new AbortController().signal);
  r.pane.turnEnded({ kind: 'failed', why: 'w\x1b]0;t\x07' });
  // The pane writes its own sequences (erase line, carriage return); strip those and nothing is left.
  const own = r.screen().replace(/\r\x1b\[2K/g, '').replace(/\r\n/g, '\n');
  assert.not.match(own, /[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
  assert.match(own, /abcdefghi/);
});

test('paneText keeps line breaks and drops every sequence; paneLine makes one cut line', () => {
  assert.is(paneText('x\x1b]0;t\x07y\x1b[?1049hz\n\x1b(0w\x1bcq'), 'xyz\nwq');
  assert.is(paneText('unterminated \x1b]52;c;abc'), 'unterminated ');
  assert.is(paneLine('a\nb\tc', 80), 'a b c');
  assert.is(paneLine('x'.repeat(100), 10), 'xxxxxxx...');
});

test.run();
