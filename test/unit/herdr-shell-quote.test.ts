// agent.start's command line (herdr/shell-quote.ts): each argument quoted for sh and the other
// POSIX shells, or fish; in any other shell an argument that needs quoting has no line.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { commandLine, shellName } from '../../herdr/shell-quote.js';

const TRICKY = ['plain', "it's", 'two words', '$HOME', '', 'a"b\\c', '*', '~', 'x;y', "'", '\\'];

test('POSIX shells: plain arguments as they are, the rest single-quoted; sh reads each back as given', () => {
  const line = commandLine(['printf', '%s\\n', ...TRICKY], 'sh')!;
  assert.ok(line.startsWith('printf '));
  const out = execFileSync('/bin/sh', ['-c', line], { encoding: 'utf8' });
  assert.equal(out.split('\n').slice(0, -1), TRICKY);
  for (const sh of ['bash', 'zsh', 'dash', 'ksh']) assert.is(commandLine(['a b'], sh), "'a b'");
});

test('fish: single quotes with \\\\ and \\\' escaped', () => {
  assert.is(commandLine(['codex', "it's", 'a\\b', 'ok'], 'fish'), "codex 'it\\'s' 'a\\\\b' ok");
});

test('another shell: a plain line passes; an argument that needs quoting has none', () => {
  assert.is(commandLine(['codex', '--model', 'gpt-5'], 'tcsh'), 'codex --model gpt-5');
  assert.is(commandLine(['codex', 'two words'], 'tcsh'), null);
  assert.is(commandLine(['codex', ''], 'csh'), null);
});

test('a control character is never typed, in any shell', () => {
  assert.is(commandLine(['codex', 'a\x03b'], 'sh'), null);
  assert.is(commandLine(['codex', 'a\nb'], 'fish'), null);
});

test('shellName: the base name, a login shell\'s dash taken off', () => {
  assert.is(shellName('/usr/bin/fish'), 'fish');
  assert.is(shellName('-bash'), 'bash');
});

test.run();
