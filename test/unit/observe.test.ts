// Observe-only access, the pure parts: the authorized_keys option that marks a key observe (with
// the other options it combines with), and a linked host's [hosts] observe, which takes write and
// respond away whatever they say and names itself in every refusal.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateHostKey, parseAuthorizedKeys } from '../../ssh-server/keys.js';
import { checkRight, policyFor, readOnlyBy, rightFor } from '../../link/policy.js';
import { parseConfig } from '../../core/config/config.js';
import { TuiosError } from '../../core/errors.js';
import { allVerbs } from '../../core/verbs/index.js';
import { observing, observeRefusal } from '../../tui/observe.js';

const pub = generateHostKey('watcher@test').public;

function refusal(fn: () => void): TuiosError {
  try {
    fn();
  } catch (e) {
    if (e instanceof TuiosError) return e;
    throw e;
  }
  throw new Error('no refusal');
}

test('observe on an authorized_keys line marks that key, alone or with other options, in any case', () => {
  const { keys, skipped } = parseAuthorizedKeys([`observe ${pub}`, `from="10.0.0.0/8",OBSERVE,expiry-time="20991231" ${pub}`, pub, `no-pty ${pub}`].join('\n'), 'f');
  assert.equal(skipped, []);
  assert.equal(keys.map((k) => k.observe), [true, true, false, false]);
  assert.equal(keys[1]!.from, ['10.0.0.0/8'], 'the other options still read');
  assert.ok(keys[1]!.expiresAt !== null);
});

test('[hosts] observe takes write and respond away; a refusal names observe and what allows it', () => {
  const c = parseConfig('[hosts.hub]\nobserve = true\nrespond = true\nfiles = true\n').config!;
  const p = policyFor(c, 'hub');
  assert.equal([p.observe, p.list, p.write, p.respond, p.files], [true, true, false, false, true]);
  const verb = (n: string) => allVerbs.find((v) => v.name === n)!;
  // Reads still run; every verb that mutates is refused, naming the key.
  checkRight(p, 'hub', rightFor(verb('capture-pane')), 'capture-pane');
  checkRight(p, 'hub', rightFor(verb('list-agents')), 'list-agents');
  for (const name of ['send-text', 'send-keys', 'resize-window', 'respond', 'focus-window', 'kill-session']) {
    const e = refusal(() => checkRight(p, 'hub', rightFor(verb(name)), name));
    assert.is(e.code, 'forbidden', name);
    assert.match(e.message, /only observes here \(\[hosts\.hub\] observe = true\)/, name);
    assert.match(e.hint ?? '', /\[hosts\.hub\] observe = false/, name);
  }
  assert.equal(readOnlyBy(p, 'hub')?.allow, 'On this machine, [hosts.hub] observe = false');
  // Without observe nothing changes: the defaults write, a write = false table names write.
  assert.is(policyFor(parseConfig('').config!, 'hub').observe, false);
  assert.match(readOnlyBy(policyFor(parseConfig('[hosts.hub]\nwrite = false\n').config!, 'hub'), 'hub')!.why, /write = false/);
  assert.is(readOnlyBy(policyFor(parseConfig('').config!, 'hub'), 'hub'), undefined);
});

test('a read-only caller observes; its refusals name the code and the setting', () => {
  const by = { why: 'its key is marked observe in authorized_keys', allow: 'The key\'s line without observe' };
  assert.is(observing({ connId: 1, channel: 'tui', pid: null, uid: null, readOnly: false, paneHint: null }), null);
  assert.equal(observing({ connId: 1, channel: 'tui', pid: null, uid: null, readOnly: true, readOnlyBy: by, paneHint: null }), by);
  assert.is(observeRefusal('Typing', by), 'Typing is refused (forbidden): its key is marked observe in authorized_keys. The key\'s line without observe allows it.');
});

test.run();
