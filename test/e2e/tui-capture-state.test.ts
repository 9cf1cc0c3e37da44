// "This state is wrong" from the agents view, as a person does it in tmux: ! on an agent's row
// asks what it should be, one key answers, and the capture's path is said in the dock line; the
// help lists the key.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { TestDaemon, BIN } from '../helpers/daemon.js';
import { Terminal } from '../helpers/terminal.js';
import { parseFixture } from '../../core/detection/fixture.js';

let d: TestDaemon;
let t: Terminal | null = null;

test.before(async () => {
  d = await TestDaemon.start();
});

test.after(async () => {
  t?.kill();
  await d.stop();
});

test('! on an agent row asks what it should be, saves the capture and says where', async () => {
  await d.ok(['new-session', 'view', '--window-name', 'worker', 'sh', '-c', "printf 'hello from worker\\n'; exec sleep 3600"]);
  await d.waitScreen('view:worker', /hello from worker/);
  await d.ok(['set-agent-state', '-w', 'view:worker', 'working', '--harness', 'x']);
  t = new Terminal(d.env, `${process.execPath} ${BIN} attach -s view`, 200, 48);
  await t.wait(/┌─ /);
  t.keys('C-b', 'i');
  await t.wait(/worker/, 'the agent row');
  t.keys('g');

  // Any other key than a state's saves nothing.
  t.type('!');
  await t.wait(/What should it be\?\s+i idle\s+w working\s+n needs input\s+d done\s+e errored\s+u unknown/, 'the question');
  t.type('z');
  await t.wait(/Nothing saved\./);
  assert.not.ok(existsSync(join(d.dir, 'state', 'tuios', 'captures')), 'no capture');

  t.type('!');
  await t.wait(/What should it be\?/, 'the question again');
  t.type('i');
  const screen = await t.wait(/Saved: \S+\.screen \(tuios said working; you said idle\)/, 'the path in the dock line');
  const path = /Saved: (\S+\.screen)/.exec(screen)![1]!;
  assert.is(dirname(path), join(d.dir, 'state', 'tuios', 'captures', 'x'));
  const f = parseFixture(readFileSync(path, 'utf8'), path);
  assert.is(f.expect.state, 'idle');
  assert.is(f.lines[0], 'hello from worker');
  assert.match(f.obtained, /from window worker; the person said it should be idle$/);
  const v = f.extra.verdict as { state: string; source: string };
  assert.equal([v.state, v.source], ['working', 'report']);

  // The help lists it.
  t.type('?');
  await t.wait(/! wrong state: save what tuios saw/, 'the key in the help');
  t.kill();
});

test.run();
