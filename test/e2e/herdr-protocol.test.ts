// herdr_protocol in [agents] (spec: herdr's pane state protocol): herdr's variables in every pane
// (the default), only in a pane that starts an agent that reports to herdr by itself ("agents"),
// or in none ("off"). A stand-in `crush` on the daemon's PATH prints what it finds.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TestDaemon } from '../helpers/daemon.js';
import { removeDir, tempDir } from '../helpers/worktree-repos.js';

const tools = tempDir('tuios-herdr-protocol-');
const bin = join(tools, 'bin');
mkdirSync(bin, { recursive: true });
// Prints herdr's variables it was started with (or none), then waits.
writeFileSync(join(bin, 'crush'), '#!/bin/sh\necho "vars=[$(env | grep -c "^HERDR_")] env=[$HERDR_ENV] pane=[$HERDR_PANE_ID]"\nexec cat\n');
chmodSync(join(bin, 'crush'), 0o755);
const PATH = `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`;

/** What a shell pane and a `crush` pane of a daemon with this config find. */
async function varsUnder(config: string): Promise<{ shell: string; crush: string; sock: string }> {
  const d = await TestDaemon.start({ config, env: { PATH } });
  try {
    await d.ok(['new-session', 'p', '-n', 'shell', 'sh']);
    await d.ok(['new-window', '-s', 'p', 'crush', 'crush']);
    await d.ok(['send-text', '-w', 'shell', '--submit', 'echo "vars=[$(env | grep -c "^HERDR_")] env=[$HERDR_ENV] pane=[$HERDR_PANE_ID]"']);
    const shell = (await d.waitScreen('shell', /^vars=\[\d+\] .*$/m)).match(/^vars=\[\d+\] .*$/m)![0];
    const crush = (await d.waitScreen('crush', /^vars=\[\d+\] .*$/m)).match(/^vars=\[\d+\] .*$/m)![0];
    return { shell, crush, sock: d.socket };
  } finally {
    await d.stop();
  }
}

test.after(() => removeDir(tools));

test('the default: every pane gets herdr\'s variables', async () => {
  const r = await varsUnder('');
  assert.match(r.shell, /^vars=\[6\] env=\[1\] pane=\[w[0-9a-f]{12}:p[0-9a-f]{12}\]$/);
  assert.match(r.crush, /^vars=\[6\] env=\[1\] pane=\[w[0-9a-f]{12}:p[0-9a-f]{12}\]$/);
});

test('herdr_protocol = "agents": only a pane that starts a known reporter (crush) gets them', async () => {
  const r = await varsUnder('[agents]\nherdr_protocol = "agents"\n');
  assert.is(r.shell, 'vars=[0] env=[] pane=[]');
  assert.match(r.crush, /^vars=\[6\] env=\[1\] pane=\[w[0-9a-f]{12}:p[0-9a-f]{12}\]$/);
});

test('herdr_protocol = "off" (or false): no pane gets them', async () => {
  for (const value of ['"off"', 'false']) {
    const r = await varsUnder(`[agents]\nherdr_protocol = ${value}\n`);
    assert.is(r.shell, 'vars=[0] env=[] pane=[]', value);
    assert.is(r.crush, 'vars=[0] env=[] pane=[]', value);
  }
});

test.run();
