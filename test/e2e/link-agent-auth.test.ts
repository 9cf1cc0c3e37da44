// A link that authenticates through ssh-agent (SSH_AUTH_SOCK in the daemon's environment), with no
// identity in [hosts]: the hub's key lives only in an agent this test starts, and a key the peer
// does not list is refused with the reason `auth`.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../helpers/wait.js';
import { prerequisite } from '../helpers/prereq.js';
import { startHost, waitHost, type Host } from '../helpers/link.js';

let agent: ChildProcess | null = null;
let sock = '';
let key = '';
let peer: Host;
let hub: Host;
const sshAgent = prerequisite('ssh-agent');
const it = sshAgent.gate(test);

test.before(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tuios-agent-'));
  sock = join(dir, 'agent.sock');
  key = join(dir, 'id_ed25519');
  try {
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key]);
    agent = spawn('ssh-agent', ['-D', '-a', sock], { stdio: 'ignore' });
    await waitFor(() => existsSync(sock), { what: 'ssh-agent\'s socket' });
    execFileSync('ssh-add', ['-q', key], { env: { ...process.env, SSH_AUTH_SOCK: sock }, stdio: 'pipe' });
  } catch (e) {
    return sshAgent.missing(`ssh-agent or ssh-add did not run here (apt-get install openssh-client; .ci/run does): ${(e as Error).message.split('\n')[0]}`);
  }
  peer = await startHost('peer');
  writeFileSync(join(peer.d.dir, 'config', 'tuios', 'authorized_keys'), readFileSync(`${key}.pub`));
  hub = await startHost('hub', { env: { SSH_AUTH_SOCK: sock } });
});

test.after(async () => {
  await hub?.d.stop();
  await peer?.d.stop();
  agent?.kill('SIGTERM');
});

it('the key in ssh-agent logs the link in; the private key file is never named', async () => {
  await hub.d.ok(['hosts', 'add', 'peer', '127.0.0.1', '--port', String(peer.port), '--yes']);
  await waitHost(hub, 'peer', (h) => h.state === 'up', 'up through ssh-agent');
  assert.not.match(readFileSync(join(hub.d.dir, 'config', 'tuios', 'config.toml'), 'utf8'), /identity/);
});

it('a key the peer does not list is refused with the reason auth', async () => {
  writeFileSync(join(peer.d.dir, 'config', 'tuios', 'authorized_keys'), '');
  await hub.d.call('kill-server').catch(() => undefined);
  await hub.d.waitExit();
  await hub.d.spawn();
  const h = await waitHost(hub, 'peer', (x) => x.state === 'down' && x.reason === 'auth', 'auth');
  assert.match(String(h.detail), /did not accept ssh-agent/);
});

test.run();
