// When the daemon cannot make its `herdr` link (spec: herdr's command line), HERDR_BIN_PATH names
// the tuios program itself, and only herdr's `pane` and `notification` commands answer through it,
// as `tuios pane ...` and `tuios notification ...`.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, writeFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { TestDaemon, BIN } from '../helpers/daemon.js';
import { herdrLinkOf } from '../helpers/herdr-client.js';

let d: TestDaemon;

test.before(async () => {
  d = await TestDaemon.start({ start: false });
  // A folder that is not empty where the link goes: neither unlink nor symlink can replace it.
  mkdirSync(herdrLinkOf(d), { recursive: true });
  writeFileSync(join(herdrLinkOf(d), 'keep'), 'not a link\n');
  await d.spawn();
  await d.ok(['new-session', 'fb', '-n', 'sh', 'sh']);
});

test.after(async () => {
  await d.stop();
});

test('without the link, HERDR_BIN_PATH names tuios, and its pane and notification commands answer', async () => {
  await d.ok(['send-text', '-w', 'sh', '--submit', 'echo "bin=$HERDR_BIN_PATH"']);
  const screen = await d.waitScreen('sh', /^bin=\/\S+$/m);
  const bin = /^bin=(\/\S+)$/m.exec(screen)![1]!;
  assert.is(realpathSync(bin), realpathSync(BIN));
  // herdr's own command, through tuios: the report sets the pane's state and prints nothing.
  await d.ok(['send-text', '-w', 'sh', '--submit', `"$HERDR_BIN_PATH" pane report-agent "$HERDR_PANE_ID" --source fb --agent fb-agent --state working --seq 1; echo "rc=$?"`]);
  await d.waitScreen('sh', /^rc=0$/m);
  const st = await d.json<{ state: string; harness_id: string }>(['get-agent-state', '-w', 'sh']);
  assert.equal([st.state, st.harness_id], ['working', 'fb-agent']);
  await d.ok(['send-text', '-w', 'sh', '--submit', `"$HERDR_BIN_PATH" notification show 'Build done' --body 'All pass'; echo "nrc=$?"`]);
  await d.waitScreen('sh', /^nrc=0$/m);
});

test('without the link, a herdr command other than pane and notification is not herdr\'s: tab list fails', async () => {
  await d.ok(['send-text', '-w', 'sh', '--submit', `"$HERDR_BIN_PATH" tab list >/dev/null 2>&1; echo "trc=$?"`]);
  const screen = await d.waitScreen('sh', /^trc=\d+$/m);
  assert.not.match(screen, /^trc=0$/m);
});

test.run();
