// Turning detection off or widening it, and the user's own manifests, on real daemons and PTYs:
// [daemon] agent_autodetect / agent_binaries with their environment variables, and
// TUIOS_HARNESS_DIR with a manifest that adds a harness and one that fails to load.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, writeFileSync, copyFileSync, chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestDaemon } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { agentRow, waitRow, type AgentRow } from '../helpers/agent-state.js';

const bin = mkdtempSync(join(tmpdir(), 'tuios-standins-'));
for (const n of ['claude', 'cfgbot', 'envbot', 'mybot']) {
  copyFileSync('/usr/bin/sleep', join(bin, n));
  chmodSync(join(bin, n), 0o755);
}

/** Opens a window named `name` in `session` running `argv`; its id. */
const open = async (d: TestDaemon, session: string, name: string, ...argv: string[]) => (await d.ok(['new-window', '-s', session, name, ...argv])).trim();

test('agent_autodetect = false: no pane is marked by its process, a report still works, and the option wins over the env', async () => {
  const d = await TestDaemon.start({ config: '[daemon]\nagent_autodetect = false\nagent_detect_seconds = 0.3\n', env: { TUIOS_AGENT_AUTODETECT: '1' } });
  try {
    await d.ok(['new-session', 'off']);
    const native = await open(d, 'off', 'native', join(bin, 'claude'), '600');
    // explain reads the process on demand: the pane does run a recognisable agent.
    await waitFor(async () => (await d.json<{ harness: string | null }>(['explain-agent-detect', '-w', 'native'])).harness === 'claude-code', { what: 'explain to see claude' });
    // Ten detector intervals go by and nothing marks the pane.
    const t0 = Date.now();
    let marked = false;
    await waitFor(async () => {
      if ((await agentRow(d, native)) !== undefined) marked = true;
      return marked || Date.now() - t0 > 3000;
    }, { interval: 200, what: 'ten detector intervals' });
    assert.not.ok(marked, 'detection is off');
    await d.ok(['set-agent-state', '-w', 'native', 'working', '--harness', 'claude-code']);
    assert.is((await agentRow(d, native))?.state, 'working');
  } finally {
    await d.stop();
  }
});

test('agent_binaries and TUIOS_AGENT_BINARIES mark names as agents; a user manifest in TUIOS_HARNESS_DIR adds a harness, and a broken one is dropped whole while the daemon goes on', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tuios-harnesses-'));
  writeFileSync(join(dir, 'mybot.toml'), 'id = "mybot"\nname = "My Bot"\nsource = "a test stand-in"\n[detect]\ncomm = ["mybot"]\n');
  writeFileSync(join(dir, 'broken.toml'), 'id = "broken"\nname = "Broken"\n[detect]\ncomm = ["brokenbot"]\nexe_glob = 3\n');
  const d = await TestDaemon.start({ config: '[daemon]\nagent_binaries = ["cfgbot"]\n', env: { TUIOS_AGENT_BINARIES: 'envbot, other', TUIOS_HARNESS_DIR: dir, TUIOS_AGENT_DETECT_SECONDS: '0.3' } });
  try {
    await d.ok(['new-session', 'wide']);
    const ids: Record<string, string> = {};
    for (const n of ['cfgbot', 'envbot', 'mybot']) ids[n] = await open(d, 'wide', n, join(bin, n), '600');
    // A row at all is the mark: list-agents lists agent panes only.
    const marked = async (n: string, what: string) => (await waitRow(d, ids[n]!, () => true, { timeout: 20_000, what })) as AgentRow & { identity: string };
    for (const n of ['cfgbot', 'envbot']) {
      const a = await marked(n, `${n} marked`);
      assert.equal([a.harness_id, a.identity], [n, 'list'], n);
    }
    const m = await marked('mybot', 'mybot attributed');
    assert.equal([m.harness_id, m.identity, m.state], ['mybot', 'manifest', 'unknown']);
    const e = await d.json<{ predicate: string; manifest_failures: Array<{ file: string; reason: string }>; text: string }>(['explain-agent-detect', '-w', 'mybot']);
    assert.is(e.predicate, 'comm=mybot');
    assert.equal(e.manifest_failures.map((f) => f.file), [join(dir, 'broken.toml')]);
    assert.match(e.manifest_failures[0]!.reason, /exe_glob/);
  } finally {
    await d.stop();
  }
});

test.run();
