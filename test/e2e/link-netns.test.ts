// The fault test: a hub and a peer in network namespaces of their own (deploy/netns-hosts.sh),
// joined by a veth pair, with an agent on the peer changing state all the while. The veth is
// taken down mid-stream and brought back: mail sent meanwhile waits and arrives in order, each
// message once; the peer's rows go down and come back. Runs only as root where `ip netns` works;
// otherwise it is counted as skipped with the reason (test/helpers/prereq.ts; under CI, a failure).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { prerequisite } from '../helpers/prereq.js';
import { link, startHost, waitHost, type Host } from '../helpers/link.js';

const SCRIPT = join(ROOT, 'deploy', 'netns-hosts.sh');
const PREFIX = `tl${process.pid % 1000}`;
const netns = prerequisite('network namespaces (root, ip netns)');
const it = netns.gate(test);
let hub: Host | undefined;
let build: Host | undefined;
let window = '';

function whyNot(): string {
  if (process.getuid?.() !== 0) return 'not root (ip netns needs it)';
  const probe = `${PREFIX}-probe`;
  const add = spawnSync('ip', ['netns', 'add', probe], { encoding: 'utf8' });
  if (add.status !== 0) return `ip netns does not work here: ${(add.stderr || add.error?.message || '').trim()}`;
  spawnSync('ip', ['netns', 'del', probe]);
  return '';
}

const inNs = (h: string) => ['ip', 'netns', 'exec', `${PREFIX}-${h}`];

test.before(async () => {
  const why = whyNot();
  if (why) return netns.missing(why);
  try {
    execFileSync(SCRIPT, ['up', PREFIX], { stdio: 'pipe' });
    build = await startHost('build', { prefix: inNs('build'), listen: '10.231.1.2:2222' });
    hub = await startHost('hub', { prefix: inNs('hub'), ssh: false });
    await link(hub, build, { address: '10.231.1.2', port: 2222 });
  } catch (e) {
    // uvu prints nothing for a failed hook: say what it was.
    const err = e as Error & { stderr?: Buffer };
    console.error(`the namespaces did not come up: ${err.message}${err.stderr ? `\n${err.stderr.toString()}` : ''}`);
    throw e;
  }
  await build.d.ok(['new-session', 'api', 'sleep', '3600']);
  // An agent that works and rests in turns, so deltas stream the whole time.
  const flip = `i=0; while :; do i=$((i+1)); printf '\\033]7501;state=working;message=step%%20%s\\007' $i; sleep 0.2; printf '\\033]7501;state=idle\\007'; sleep 0.2; done`;
  window = (await build.d.call<{ id: string }>('new-window', { session: 'api', name: 'agent', argv: ['sh', '-c', flip] })).id;
});

test.after(async () => {
  await hub?.d.stop();
  await build?.d.stop();
  if (netns.met) spawnSync(SCRIPT, ['down', PREFIX]);
});

it('the veth taken down mid-stream and brought back: mail waits and arrives in order, once; the rows go down and come back', async () => {
  if (!hub || !build) throw new Error('the hosts did not start');
  const h = hub;
  const b = build;
  await waitFor(async () => (await h.d.call<{ agents: Array<{ host: string; name: string }> }>('list-agents', { all_hosts: true })).agents.some((a) => a.host === 'build' && a.name === 'agent'), { what: 'the agent mirrored' });
  assert.match(await h.d.ok(['send-agent-message', '-w', 'build:api:agent', 'm0: before the cut']), /delivered to build/);

  execFileSync(SCRIPT, ['cut', 'build', PREFIX]);
  // The link still looks up for a while (a pulled cable sends no FIN): the first send waits for
  // an answer that does not come, and the ones after it wait behind it.
  const sent: string[] = [];
  for (const n of ['m1', 'm2', 'm3']) {
    const body = `${n}: sent while the veth is down`;
    const out = await h.d.ok(['send-agent-message', '-w', 'build:api:agent', body], { timeoutMs: 30_000 });
    assert.match(out, /queued for build/);
    sent.push(body);
  }
  await waitHost(h, 'build', (x) => x.state === 'down', 'down after the cut', 60_000);
  const rows = (await h.d.call<{ agents: Array<{ host: string; down: boolean; counted: boolean }> }>('list-agents', { all_hosts: true })).agents.filter((a) => a.host === 'build');
  assert.ok(rows.length > 0 && rows.every((a) => a.down && !a.counted), 'the rows are kept, muted');
  assert.is((await waitHost(h, 'build', (x) => x.mail_waiting === 3, 'three waiting')).mail_waiting, 3);

  execFileSync(SCRIPT, ['mend', 'build', PREFIX]);
  await waitHost(h, 'build', (x) => x.state === 'up' && x.mail_waiting === 0, 'up, nothing waiting', 90_000);
  const got = await waitFor(async () => {
    const m = (await b.d.call<{ messages: Array<{ body: string }> }>('read-agent-messages', { window })).messages.map((x) => x.body);
    return m.length >= 4 ? m : null;
  }, { what: 'the mail on build' });
  assert.equal(got, ['m0: before the cut', ...sent], 'in order, each once');
  // The rows come back live: the agent keeps changing, and the hub hears it again.
  const before = (await h.d.call<{ agents: Array<{ host: string; name: string; message: string; down: boolean }> }>('list-agents', { all_hosts: true })).agents.find((a) => a.host === 'build' && a.name === 'agent');
  await waitFor(async () => {
    const a = (await h.d.call<{ agents: Array<{ host: string; name: string; message: string; state: string; down: boolean }> }>('list-agents', { all_hosts: true })).agents.find((x) => x.host === 'build' && x.name === 'agent');
    return a && !a.down && a.state === 'working' && a.message !== before?.message;
  }, { what: 'build\'s agent live again' });
});

test.run();
