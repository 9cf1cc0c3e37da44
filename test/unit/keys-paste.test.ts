import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeKey, encodeKeys } from '../../core/pty/keys.js';
import { encodePaste, sanitizePaste } from '../../core/pty/paste.js';

const normal = { applicationCursorKeys: false };
const app = { applicationCursorKeys: true };

test('named keys', () => {
  assert.is(encodeKey('Enter', normal), '\r');
  assert.is(encodeKey('Tab', normal), '\t');
  assert.is(encodeKey('Escape', normal), '\x1b');
  assert.is(encodeKey('BSpace', normal), '\x7f');
  assert.is(encodeKey('PageUp', normal), '\x1b[5~');
  assert.is(encodeKey('PageDown', normal), '\x1b[6~');
  assert.is(encodeKey('Home', normal), '\x1b[H');
  assert.is(encodeKey('End', normal), '\x1b[F');
  assert.is(encodeKey('Insert', normal), '\x1b[2~');
  assert.is(encodeKey('Delete', normal), '\x1b[3~');
  assert.is(encodeKey('F1', normal), '\x1bOP');
  assert.is(encodeKey('F5', normal), '\x1b[15~');
  assert.is(encodeKey('F12', normal), '\x1b[24~');
});

test('arrows follow the cursor-key mode', () => {
  assert.is(encodeKey('Up', normal), '\x1b[A');
  assert.is(encodeKey('Up', app), '\x1bOA');
  assert.is(encodeKey('Left', app), '\x1bOD');
  assert.is(encodeKey('C-Up', app), '\x1b[1;5A');
  assert.is(encodeKey('S-F3', normal), '\x1b[1;2R');
});

test('ctrl and meta on characters', () => {
  assert.is(encodeKey('C-c', normal), '\x03');
  assert.is(encodeKey('C-a', normal), '\x01');
  assert.is(encodeKey('C-[', normal), '\x1b');
  assert.is(encodeKey('M-x', normal), '\x1bx');
  assert.is(encodeKey('C-M-a', normal), '\x1b\x01');
  assert.is(encodeKey('M-Enter', normal), '\x1b\r');
});

test('anything else is text', () => {
  assert.is(encodeKey('hello', normal), null);
  assert.is(encodeKeys(['echo hi', 'Enter'], normal), 'echo hi\r');
  assert.is(encodeKeys(['Enter'], normal, true), 'Enter');
});

test('a paste drops controls, keeps tabs, and turns newlines into CR', () => {
  assert.is(sanitizePaste('a\x1b[201~b\x07c\td'), 'a[201~bc\td');
  assert.is(encodePaste('one\ntwo\r\nthree', false), 'one\rtwo\rthree');
  assert.is(encodePaste('x', true), '\x1b[200~x\x1b[201~');
  assert.is(encodePaste('a\u009bb', false), 'ab');
});

test.run();
