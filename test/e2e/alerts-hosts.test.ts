// Alerts across linked hosts, as the person gets them: three linked daemons (a hub and two
// peers), the real OpenSSH client on a PTY the test owns attached to the hub. An item on a peer
// is one alert on the hub naming the host; an item answered on the peer within the hub's settle
// window raises none there. With nobody attached, the hub's hook (hosts = true) runs the shipped
// phone recipe once per item for the whole fleet.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { appendFileSync, chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { ROOT } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { prerequisite } from '../helpers/prereq.js';
import { hasSsh, makeKey, authorize as authorizePerson, sshPort } from '../helpers/ssh.js';
import { link, startHost, type Host } from '../helpers/link.js';
import { SshPty, bells, notifications } from '../helpers/pty-ssh.js';

const ssh = prerequisite('the OpenSSH client', hasSsh() ? '' : 'ssh or ssh-keygen is not installed (apt-get install openssh-client)');
const it = ssh.gate(test);
let hub: Host;
let peerA: Host;
let peerB: Host;
let client: SshPty | null = null;

async function agentOn(h: Host, session: string): Promise<string> {
  await h.d.ok(['new-session', session, '--window-name', 'agent', 'sleep', '3600']);
  return `${session}:agent`;
}
const approve = (h: Host, w: string, what: string) => h.d.ok(['set-agent-state', '-w', w, 'needs_input', '--kind', 'approval', '-m', what, '--harness', 'claude']);

test.before(async () => {
  if (!ssh.met) return;
  hub = await startHost('hub', { config: '[notifications.agent]\ncooldown_ms = 0\n' });
  peerA = await startHost('peer-a');
  peerB = await startHost('peer-b');
  await link(hub, peerA);
  await link(hub, peerB);
  const key = makeKey(join(hub.d.dir, 'keys'), 'person');
  authorizePerson(hub.d, key.pub);
  await hub.d.ok(['new-session', 'home', '--window-name', 'here']);
  client = new SshPty(hub.d, await sshPort(hub.d), key);
  await client.waitBytes((b) => b.includes('C-b ? help'), 'the first frame', 0, 60_000);
});

test.after(async () => {
  client?.kill();
  for (const h of [peerA, peerB, hub]) await h?.d.stop();
});

it('an item on a linked host is one alert on the hub, with the host name', async () => {
  const wa = await agentOn(peerA, 'api');
  const wb = await agentOn(peerB, 'web');
  const m = client!.mark();
  await approve(peerA, wa, 'approve Bash: deploy');
  await client!.waitBytes((x) => notifications(x).length > 0, 'the hub alert', m, 30_000);
  // A barrier from the other peer: anything more from the first would come before it.
  await approve(peerB, wb, 'approve Bash: build');
  const all = await client!.waitBytes((x) => notifications(x).length >= 2, 'the barrier alert', m, 30_000);
  assert.equal(notifications(all), ['9;tuios: peer-a:api: claude needs approval · approve Bash: deploy', '9;tuios: peer-b:web: claude needs approval · approve Bash: build']);
  assert.is(bells(all), 2);
});

it('an item answered on the peer within the settle window raises nothing on the hub', async () => {
  await hub.d.ok(['set-config', 'notifications.agent.settle_ms', '3000']);
  try {
    const wa = await agentOn(peerA, 'answered');
    const wb = await agentOn(peerB, 'held');
    const m = client!.mark();
    await approve(peerA, wa, 'approve Bash: rm');
    // Answered there: the agent works again.
    await peerA.d.ok(['set-agent-state', '-w', wa, 'working', '--harness', 'claude']);
    await approve(peerB, wb, 'approve Bash: ls');
    const all = await client!.waitBytes((x) => notifications(x).length >= 1, 'the held alert', m, 30_000);
    assert.equal(notifications(all), ['9;tuios: peer-b:held: claude needs approval · approve Bash: ls']);
    assert.not.match(client!.text(m), /answered: claude/);
  } finally {
    await hub.d.ok(['set-config', 'notifications.agent.settle_ms', '']);
  }
});

it('nobody attached: the hub\'s hook pushes once per item of the fleet (hosts = true), none for an item answered there', async () => {
  client!.kill();
  await waitFor(async () => (await hub.d.call<{ attached_clients: number }>('server-info')).attached_clients === 0, { what: 'the client to detach' });
  const pushes: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      pushes.push(body);
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/fleet`;
    const recipe = readFileSync(join(ROOT, 'skills', 'recipes.md'), 'utf8');
    const script = /`~\/\.config\/tuios\/alert\.sh`[^\n]*\n```sh\n([\s\S]*?)```/.exec(recipe)![1]!;
    const file = join(hub.d.dir, 'alert.sh');
    writeFileSync(file, script.replace('https://ntfy.sh/YOUR-PRIVATE-TOPIC', url));
    chmodSync(file, 0o755);
    appendFileSync(join(hub.d.dir, 'config', 'tuios', 'config.toml'), `\n[hooks]\nafter_agent_state = "${file}"\nafter_agent_state_on = "alerts"\n`);
    await hub.d.ok(['config-apply']);
    await hub.d.ok(['set-config', 'notifications.agent.hosts', 'true']);
    await hub.d.ok(['set-config', 'notifications.agent.settle_ms', '3000']);
    const answered = await agentOn(peerA, 'fleet-answered');
    const wa = await agentOn(peerA, 'fleet-a');
    const wb = await agentOn(peerB, 'fleet-b');
    await approve(peerA, answered, 'approve Bash: rm');
    await peerA.d.ok(['set-agent-state', '-w', answered, 'working', '--harness', 'claude']);
    await approve(peerA, wa, 'approve Bash: deploy');
    await waitFor(() => pushes.length >= 1, { what: 'the push for peer-a', timeout: 30_000 });
    await approve(peerB, wb, 'approve Bash: build');
    await waitFor(() => pushes.length >= 2, { what: 'the push for peer-b', timeout: 30_000 });
    assert.equal(pushes, ['peer-a:fleet-a: claude needs approval · approve Bash: deploy', 'peer-b:fleet-b: claude needs approval · approve Bash: build']);
  } finally {
    server.close();
  }
});

test.run();
