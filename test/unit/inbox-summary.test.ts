// An Inbox item keeps its last summary until it closes (issue: the approval's item went to an
// empty summary just before it closed): a needs_input or errored reading with no message leaves
// what the item says as it was, and no `attention` update goes out for it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Bus, type BusEvent } from '../../core/bus.js';
import { Model, type PaneStarter } from '../../core/model/model.js';
import { Inbox } from '../../core/inbox/inbox.js';
import { nullLogger } from '../../core/log.js';
import type { AgentStateEvent } from '../../core/agent-state/store.js';

const starter: PaneStarter = {
  prepare: (_s, spec) => ({ name: spec.name ?? 'w', argv: ['x'], startCwd: '/', cols: 80, rows: 24, scrollback: 10, isShell: false, env: {} }),
  start: () => {},
};

function setup() {
  const bus = new Bus();
  const model = new Model(bus, nullLogger, starter, '/');
  const inbox = new Inbox(bus, model, { harnessOf: () => null, stateOf: () => 'needs_input' } as never);
  const s = model.createSession({ name: 'sess' });
  const w = model.createWindow(s, { name: 'win' });
  const seen: Array<BusEvent<'attention'>> = [];
  bus.on('attention', (e) => seen.push(e));
  const publish = (state: AgentStateEvent['state'], kind: string, message: string, old = 'working') =>
    bus.publish('agent-state', { window_id: w.id, session_id: s.id, name: w.name, harness: 'codex', state, old_state: old as AgentStateEvent['state'], kind: kind as AgentStateEvent['kind'], message, source: 'screen', completion_seq: 0, needs_you: state === 'needs_input' });
  return { inbox, w, seen, publish };
}

test('an approval keeps its summary through a reading with no message, then closes with it', () => {
  const { inbox, w, seen, publish } = setup();
  publish('needs_input', 'approval', 'approve Bash: touch hello.txt');
  const item = inbox.approvalItem(w.id)!;
  assert.is(item.summary, 'approve Bash: touch hello.txt');
  publish('needs_input', 'approval', '', 'needs_input');
  assert.is(item.summary, 'approve Bash: touch hello.txt', 'an empty message does not empty the item');
  publish('needs_input', 'approval', '   ', 'needs_input');
  assert.is(item.summary, 'approve Bash: touch hello.txt', 'nor does one of blanks');
  publish('working', '', '', 'needs_input');
  const ops = seen.map((e) => `${e.op}:${e.item.summary}`);
  assert.equal(ops, ['open:approve Bash: touch hello.txt', 'close:approve Bash: touch hello.txt'], 'no update to an empty summary went out');
});

test('a new message still replaces the summary; errored keeps its last one too', () => {
  const { inbox, w, publish } = setup();
  publish('needs_input', 'approval', 'approve Bash: touch a');
  publish('needs_input', 'approval', 'approve Bash: touch b', 'needs_input');
  assert.is(inbox.approvalItem(w.id)!.summary, 'approve Bash: touch b');
  publish('errored', '', 'HTTP 500', 'working');
  const err = inbox.list().find((i) => i.kind === 'errored')!;
  assert.is(err.summary, 'HTTP 500');
  publish('errored', '', '', 'errored');
  assert.is(err.summary, 'HTTP 500');
  inbox.update(err, { summary: '' });
  assert.is(err.summary, 'HTTP 500', 'update() itself keeps the last summary');
});

test.run();
