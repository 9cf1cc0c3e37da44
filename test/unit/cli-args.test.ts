import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseVerbArgs, UsageError, type VerbRow } from '../../core/cli/args.js';
import { allVerbs } from '../../core/verbs/index.js';
import { verbTableRow } from '../../core/rpc/describe.js';

const table: VerbRow[] = allVerbs.map(verbTableRow);
const verb = (n: string) => table.find((v) => v.name === n)!;

test('new-window NAME COMMAND ARGS: flags after the command belong to it', () => {
  const p = parseVerbArgs(verb('new-window'), ['-s', 'work', 'api', 'ls', '-la', '--color']);
  assert.equal(p.params, { session: 'work', name: 'api', argv: ['ls', '-la', '--color'] });
});

test('new-window flags before the command are ours', () => {
  const p = parseVerbArgs(verb('new-window'), ['api', '--cwd', '/tmp', '--env', 'A=1', '--env', 'B=x=y', 'sh']);
  assert.equal(p.params, { name: 'api', cwd: '/tmp', env: { A: '1', B: 'x=y' }, argv: ['sh'] });
});

test('wait-for window-output -w W PATTERN --timeout MS', () => {
  const p = parseVerbArgs(verb('wait-for'), ['window-output', '-w', 'api', 'ready', '--timeout', '500']);
  assert.equal(p.params, { condition: 'window-output', window: 'api', pattern: 'ready', timeout: 500 });
});

test('comma lists and repeats both fill an array', () => {
  const p = parseVerbArgs(verb('wait-for'), ['agent-state', '--until', 'idle,done', '--until', 'errored']);
  assert.equal(p.params.until, ['idle', 'done', 'errored']);
});

test('an enum value outside the set is a usage error', () => {
  assert.throws(() => parseVerbArgs(verb('wait-for'), ['agent-state', '--until', 'sleeping']), (e: unknown) => e instanceof UsageError);
});

test('send-text --submit TEXT and --json / --server are the CLI\'s', () => {
  const p = parseVerbArgs(verb('send-text'), ['-w', 'x', '--submit', 'hello world', '--json', '--server', '/tmp/s']);
  assert.equal(p.params, { window: 'x', submit: true, text: 'hello world' });
  assert.ok(p.json);
  assert.is(p.server, '/tmp/s');
});

test('send-keys: every word is a key, -- lets a dash through', () => {
  const p = parseVerbArgs(verb('send-keys'), ['-w', 'x', 'C-c', 'Up', '--', '-n']);
  assert.equal(p.params.keys, ['C-c', 'Up', '-n']);
});

test('a number flag refuses words; an unknown flag is a usage error', () => {
  assert.throws(() => parseVerbArgs(verb('resize-window'), ['--cols', 'wide']), (e: unknown) => e instanceof UsageError);
  assert.throws(() => parseVerbArgs(verb('list-sessions'), ['--bogus']), (e: unknown) => e instanceof UsageError);
  assert.throws(() => parseVerbArgs(verb('list-sessions'), ['extra']), (e: unknown) => e instanceof UsageError);
});

test('a required positional that is missing is named', () => {
  try {
    parseVerbArgs(verb('set-session-name'), []);
    assert.unreachable();
  } catch (e) {
    assert.instance(e, UsageError);
    assert.match((e as Error).message, /NAME/);
  }
});

test('shorts: -x/-y for size, -e and -S for capture', () => {
  assert.equal(parseVerbArgs(verb('resize-window'), ['-x', '100', '-y', '30']).params, { cols: 100, rows: 30 });
  assert.equal(parseVerbArgs(verb('capture-pane'), ['-e', '-S', '50']).params, { escapes: true, lines: 50 });
});

test('--no-FLAG sets a boolean false', () => {
  assert.equal(parseVerbArgs(verb('send-text'), ['--no-submit', 't']).params, { submit: false, text: 't' });
});

test.run();
