// An approval on the rail (issue: the row read `approval · approve…`, neither tool nor command
// visible at the shipped width): `approve` is not said after the word `approval`, and where
// `approval · Tool: command` does not fit, the tool and command stand in for the word.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { askText, secondLine } from '../../tui/rows.js';
import { RAIL_WIDTH } from '../../tui/limits.js';

const approval = (message: string, harness = 'claude-code') =>
  ({ state: 'needs_input', kind: 'approval', message, harness, finishedUnread: false, items: [], context: null, subagents: 0, meta: {}, queued: 0, stateSince: 0 }) as never;
/** The width drawRow gives the second line on the shipped rail. */
const W = RAIL_WIDTH - 1 - 4;

test('the word approval is said once: approve comes off the front of the message', () => {
  assert.is(askText(approval('approve Bash: touch hello.txt')), 'Bash: touch hello.txt');
  assert.is(askText(approval('Approve: Edit src/app.ts')), 'Edit src/app.ts');
  assert.is(askText(approval('approved already?')), 'approved already?', 'only the word approve');
  assert.is(askText(approval('approve')), 'approve', 'a message of the word alone stays');
});

test('on the shipped rail the command shows: Bash: touch hello.txt, not approval · approve…', () => {
  const line = secondLine(approval('approve Bash: touch hello.txt'), 'needs', { width: W, ageInline: '' });
  assert.is(line, 'Bash: touch hello.txt');
  // Where it all fits, the word, the harness and the command.
  assert.is(secondLine(approval('approve Bash: make'), 'needs', { width: 60, ageInline: '' }), 'approval · claude-code · Bash: make');
  assert.is(secondLine(approval('approve Bash: make'), 'needs', { width: 21, ageInline: '' }), 'approval · Bash: make', 'the harness goes first');
  // A question keeps its word: only an approval's `Tool: command` reads as one without it.
  const q = { ...(approval('Which colour do you want for the button?') as object), kind: 'question' } as never;
  assert.match(secondLine(q, 'needs', { width: W, ageInline: '' }), /^question · /);
});

test.run();
