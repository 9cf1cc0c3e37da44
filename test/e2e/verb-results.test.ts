// Results the rest of the suite does not reach, checked against their verbs' result schemas (the
// test daemon runs with TUIOS_CHECK_RESULTS=1) and printed from the records: hosts rm and hosts ls
// with no host left, ssh status with the server off, explain-agent-detect on a pane whose program
// has exited, and list-windows' STATE for it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TestDaemon } from '../helpers/daemon.js';
import { freePort } from '../helpers/link.js';
import { waitFor } from '../helpers/wait.js';

const t = suite('verb-results');

t('hosts ls and hosts rm: a host that never answered, then none; their text and their JSON', async () => {
  const port = await freePort();
  const d = await TestDaemon.start({ config: `[link]\nname = "here"\n[hosts.gone]\naddress = "127.0.0.1"\nport = ${port}\n` });
  try {
    const down = await waitFor(async () => {
      const r = await d.call<{ self: string; hosts: Array<{ name: string; state: string; label: string; seen_ms: number | null }>; served: string[] }>('list-hosts');
      return r.hosts[0]?.state === 'down' ? r : null;
    }, { what: 'the host to be down' });
    assert.is(down.self, 'here');
    assert.equal(down.served, []);
    assert.is(down.hosts[0]!.seen_ms, null, 'never heard');
    const text = await d.ok(['hosts', 'ls']);
    assert.match(text, /^NAME +ADDRESS +STATE +AGENTS +INBOX\n/);
    assert.match(text, new RegExp(`^gone +127\\.0\\.0\\.1:${port} +never seen`, 'm'));
    assert.is(await d.ok(['hosts', 'rm', 'gone']), 'removed gone\n');
    assert.is(await d.ok(['hosts', 'ls']), 'no linked hosts (this machine is here); add one with: tuios hosts add NAME ADDRESS\n');
    const gone = await d.cli(['hosts', 'rm', 'gone']);
    assert.is(gone.code, 1);
    assert.match(gone.stderr, /There is no host gone/);
  } finally {
    await d.stop();
  }
});

t('ssh status with the server off; explain-agent-detect and list-windows on a pane whose program exited', async () => {
  const d = await TestDaemon.start();
  try {
    assert.equal(await d.call('ssh-status'), { enabled: false, listening: null });
    assert.is(await d.ok(['ssh', 'status']), 'ssh: off ([ssh] enabled = false)\n');
    await d.ok(['new-session', 'work', 'sh', '-c', 'exit 3']);
    const w = await waitFor(async () => (await d.call<{ windows: Array<{ id: string; running: boolean }> }>('list-windows')).windows.find((x) => !x.running), { what: 'the program to exit' });
    const e = await d.call<{ window_id: string; verdict: string; text: string; looks: unknown }>('explain-agent-detect', { window: w.id });
    assert.is(e.window_id, w.id);
    assert.is(e.verdict, 'none');
    assert.is(e.text, 'The pane\'s program has exited.');
    assert.is(await d.ok(['explain-agent-detect', '-w', w.id]), 'The pane\'s program has exited.\n');
    assert.match(await d.ok(['list-windows']), /^work +sh +\S+ +\S+ +- +\d+x\d+ +exited 3 +/m);
  } finally {
    await d.stop();
  }
});

t.run();
