// While an ask-human question is open, the asking pane reads as needing the person on the rail,
// though its agent state is unchanged (spec: Questions an agent asks you): the client draws it
// from the open Inbox item.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { askText, needWord, needsYouRow, railGroup } from '../../tui/rows.js';

const row = (items: Array<{ kind: string; summary: string }>) => ({ state: 'idle', kind: '', message: 'at the prompt', finishedUnread: false, items }) as never;

test('an idle pane with an open question needs you, says question, and carries the question', () => {
  const r = row([{ kind: 'ask', summary: 'Deploy the branch to staging?' }]);
  assert.ok(needsYouRow(r));
  assert.is(railGroup(r), 'needs');
  assert.is(needWord(r), 'question');
  assert.is(askText(r), 'Deploy the branch to staging?');
});

test('once the question is answered or dismissed the pane is back to its own state', () => {
  const r = row([]);
  assert.not.ok(needsYouRow(r));
  assert.is.not(railGroup(r), 'needs');
});

test.run();
