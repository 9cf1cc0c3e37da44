// herdr_protocol in [agents] (core/config/schema.ts) and which panes get herdr's variables
// (core/pty/env.ts herdrVarsWanted).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfig } from '../../core/config/config.js';
import { herdrVarsWanted } from '../../core/pty/env.js';

test('herdr_protocol: "all" by default; "agents", "off", and true/false as all/off', () => {
  assert.is(parseConfig('').config!.agents.herdr_protocol, 'all');
  assert.is(parseConfig('[agents]\nherdr_protocol = "agents"\n').config!.agents.herdr_protocol, 'agents');
  assert.is(parseConfig('[agents]\nherdr_protocol = "off"\n').config!.agents.herdr_protocol, 'off');
  assert.is(parseConfig('[agents]\nherdr_protocol = false\n').config!.agents.herdr_protocol, 'off');
  assert.is(parseConfig('[agents]\nherdr_protocol = true\n').config!.agents.herdr_protocol, 'all');
});

test('herdr_protocol: another value refuses the file and says where', () => {
  const r = parseConfig('[agents]\nherdr_protocol = "some"\n');
  assert.is(r.config, null);
  assert.match(r.error!, /agents\.herdr_protocol/);
});

test('herdrVarsWanted: every pane, a pane that starts a known reporter, or none', () => {
  assert.ok(herdrVarsWanted('all', ['/bin/bash'], true));
  assert.not.ok(herdrVarsWanted('agents', ['/bin/bash'], true));
  for (const p of ['crush', '/usr/local/bin/crush', 'kiro-cli', 'cmd']) assert.ok(herdrVarsWanted('agents', [p], false), p);
  assert.not.ok(herdrVarsWanted('agents', ['claude'], false));
  assert.not.ok(herdrVarsWanted('off', ['crush'], false));
});

test.run();
