// Where a config refusal points: lineOfKey finds the line that sets a key under a [table], as a
// dotted key, in an array of tables, or the table itself; parseErrorWhere reads smol-toml's line.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'smol-toml';
import { lineOfKey, parseErrorWhere } from '../../core/config/toml-where.js';

const TEXT = `# top
daemon.respond_from_shell = "no"

[notifications.agent]
settle_ms = 5
"quiet_hours" = "x"

[[hosts.list]]
name = "a"

[ssh]
listen = 1
`;

test('a key under its table, a dotted key, a quoted key, an array of tables', () => {
  assert.is(lineOfKey(TEXT, ['daemon', 'respond_from_shell']), 2);
  assert.is(lineOfKey(TEXT, ['notifications', 'agent', 'settle_ms']), 5);
  assert.is(lineOfKey(TEXT, ['notifications', 'agent', 'quiet_hours']), 6);
  assert.is(lineOfKey(TEXT, ['hosts', 'list', 0, 'name']), 9);
  assert.is(lineOfKey(TEXT, ['ssh', 'listen']), 12);
});

test('the table when it is what was refused; nothing for a key no line sets', () => {
  assert.is(lineOfKey(TEXT, ['ssh']), 11);
  assert.is(lineOfKey(TEXT, ['notifications', 'agent']), 4);
  assert.is(lineOfKey(TEXT, ['ssh', 'max_sessions']), null);
  assert.is(lineOfKey(TEXT, []), null);
});

test('a parse error says its line and column', () => {
  let where = '';
  try {
    parse('a = 1\nb = = 2\n');
  } catch (e) {
    where = parseErrorWhere(e);
  }
  assert.match(where, /^ \(line 2, column \d+\)$/);
  assert.is(parseErrorWhere(new Error('plain')), '');
});

test.run();
