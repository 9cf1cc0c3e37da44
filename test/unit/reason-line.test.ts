// `R` in the agents view (spec: Reject with a reason): which harnesses it is offered for, and the
// reason as sent: one line, no control characters, at most 500 bytes; empty sends none.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { reasonText, takesReason } from '../../tui/agents-view.js';

test('offered where the harness passes a reason on: Claude Code, opencode and Kilo', () => {
  for (const h of ['claude-code', 'opencode', 'kilo']) assert.ok(takesReason(h), h);
  for (const h of ['qwen', 'codex', null, undefined, '']) assert.not.ok(takesReason(h), String(h));
});

test('the reason is one line, without control characters, cut to 500 bytes on a character boundary', () => {
  assert.is(reasonText('  use\n make\tclean  '), 'use make clean');
  assert.is(reasonText('a\u001b[31mb\u0007c'), reasonText('a\u001b[31mb\u0007c').replace(/[\u0000-\u001f\u007f]/g, ''));
  assert.not.match(reasonText('a\u001b[31mb\u0007c'), /[\u0000-\u001f\u007f]/);
  const long = reasonText('é'.repeat(400));
  assert.ok(Buffer.byteLength(long) <= 500);
  assert.is(long, 'é'.repeat(250));
  assert.is(reasonText('   '), '');
});

test.run();
