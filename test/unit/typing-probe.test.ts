// What the typing path looks for on the screen before it sends the submit key.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { echoProbe, sameOccupant } from '../../core/delivery/typing.js';

test('the probe is the first visible characters of the first non-empty line, white space aside', () => {
  assert.is(echoProbe('Please create hello.txt'), 'Pleasecrea');
  assert.is(echoProbe('\n\n  fix   it\nsecond line'), 'fixit');
  assert.is(echoProbe('ab'), 'ab');
});

test('characters outside the basic plane count as one each; control characters are never looked for', () => {
  assert.is(echoProbe('😀😀😀😀😀😀😀😀😀😀😀😀'), '😀'.repeat(10));
  assert.is(echoProbe('\x1b[31mred'), '[31mred');
  assert.is(echoProbe('\x07\x07'), '');
  assert.is(echoProbe(''), '');
});

test('the occupant check: a program recognised meanwhile is the same one; another one, or none, is not', () => {
  assert.ok(sameOccupant('claude-code', 'claude-code'));
  assert.ok(sameOccupant(null, 'claude-code'), 'named by the detector only now');
  assert.ok(sameOccupant(null, null));
  assert.not.ok(sameOccupant('claude-code', 'codex'));
  assert.not.ok(sameOccupant('claude-code', null), 'the agent left the pane');
});

test.run();
