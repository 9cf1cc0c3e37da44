// What a hook report writes of tuios's own metadata keys (spec: Agent metadata): a prompt sets
// `prompt` and clears `now`; a tool call sets `now`; a failed tool and the turn's end clear it;
// a tool's result leaves it naming the call.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { activityMeta } from '../../core/verbs/agents.js';
import { MetaTable } from '../../core/agent-state/meta.js';

test('UserPromptSubmit sets prompt and clears now; PreToolUse sets now; a failure and Stop clear it; PostToolUse keeps it', () => {
  const m = new MetaTable();
  const feed = (event: string | undefined, text: string) => {
    const v = activityMeta(event, text);
    if (v) m.set(v, 'report', null, 0);
    return m.toJSON();
  };
  assert.equal(feed('PreToolUse', 'Bash: make'), { now: 'Bash: make' });
  assert.equal(feed('UserPromptSubmit', 'make the backoff configurable'), { prompt: 'make the backoff configurable' });
  assert.equal(feed('PreToolUse', 'Edit: api/retry.go'), { prompt: 'make the backoff configurable', now: 'Edit: api/retry.go' });
  assert.equal(feed('PostToolUse', 'Edit: finished'), { prompt: 'make the backoff configurable', now: 'Edit: api/retry.go' });
  assert.equal(feed('PostToolUseFailure', 'Edit: no such file'), { prompt: 'make the backoff configurable' });
  feed('PreToolUse', 'Bash: go test');
  assert.equal(feed('Stop', 'All done.'), { prompt: 'make the backoff configurable' }, 'the turn ends: nothing runs');
  assert.equal(feed('BeforeAgent', 'second prompt'), { prompt: 'second prompt' }, "Gemini's prompt event");
  assert.equal(feed(undefined, 'Bash: ls'), { prompt: 'second prompt', now: 'Bash: ls' }, 'a report with no event is a tool call, as before');
});

test('prompt is cut to the metadata value limit (80 characters)', () => {
  const m = new MetaTable();
  m.set(activityMeta('UserPromptSubmit', 'x'.repeat(100))!, 'report', null, 0);
  assert.is(m.toJSON().prompt!.length, 80);
});

test.run();
