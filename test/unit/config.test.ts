import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfig } from '../../core/config/config.js';

test('an empty file is the defaults', () => {
  const r = parseConfig('');
  assert.is(r.error, null);
  assert.is(r.config!.daemon.scrollback, 5000);
});

test('an unknown key is a warning that names it, and the rest applies', () => {
  const r = parseConfig('[daemon]\nscrollback = 100\ncolour = "red"\n[nope]\nx = 1\n');
  assert.is(r.error, null);
  assert.is(r.config!.daemon.scrollback, 100);
  assert.equal(r.warnings.sort(), ['config.toml: unknown key "daemon.colour" is ignored', 'config.toml: unknown key "nope" is ignored'].sort());
});

test('a value of the wrong type refuses the file and says where', () => {
  const r = parseConfig('[daemon]\nscrollback = "lots"\n');
  assert.is(r.config, null);
  assert.match(r.error!, /daemon\.scrollback/);
});

test('a file that does not parse says why', () => {
  const r = parseConfig('[daemon\n');
  assert.is(r.config, null);
  assert.match(r.error!, /does not parse/);
});

test.run();
