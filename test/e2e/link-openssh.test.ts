// A host that runs only OpenSSH's sshd: the hub dials it, sshd refuses the tuios-link subsystem,
// and the link runs over exec of `tuios link-serve --stdio` there, which hands the session to the
// daemon's link socket. The sshd is started by this test on a high loopback port with its own
// host key and authorized keys; the hub trusts that key through its ~/.ssh/known_hosts. Counted
// as skipped, with the reason, where sshd is not installed or does not start; under CI, which
// installs it, that is a failure (test/helpers/prereq.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { BIN } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { prerequisite } from '../helpers/prereq.js';
import { freePort, hubKey, startHost, waitHost, STANDIN_ASKS, type Host } from '../helpers/link.js';

const SSHD = '/usr/sbin/sshd';
const sshdHere = prerequisite('OpenSSH sshd');
const it = sshdHere.gate(test);
let sshd: ChildProcess | null = null;
let sshdLog = '';
let box: Host;
let hub: Host;

async function startSshd(dir: string, port: number, authorized: string): Promise<void> {
  const key = join(dir, 'ssh_host_ed25519_key');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key]);
  chmodSync(key, 0o600);
  writeFileSync(join(dir, 'authorized_keys'), authorized);
  const cfg = join(dir, 'sshd_config');
  writeFileSync(
    cfg,
    [`Port ${port}`, 'ListenAddress 127.0.0.1', `HostKey ${key}`, `PidFile ${join(dir, 'sshd.pid')}`, `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`, 'StrictModes no', 'UsePAM no', 'PasswordAuthentication no', 'KbdInteractiveAuthentication no', 'PermitRootLogin prohibit-password', 'LogLevel VERBOSE', ''].join('\n'),
  );
  try {
    mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  } catch {
    // sshd says so below if it needs it
  }
  execFileSync(SSHD, ['-t', '-f', cfg]);
  sshd = spawn(SSHD, ['-D', '-e', '-f', cfg], { stdio: ['ignore', 'ignore', 'pipe'] });
  sshd.stderr!.on('data', (d) => (sshdLog += d));
  await waitFor(() => (sshd!.exitCode !== null ? Promise.reject(new Error(`sshd exited: ${sshdLog}`)) : /Server listening/.test(sshdLog)), { what: 'sshd to listen' });
}

test.before(async () => {
  if (!existsSync(SSHD)) {
    return sshdHere.missing(`${SSHD} is not installed (apt-get install openssh-server; .ci/run does)`);
  }
  box = await startHost('box', { ssh: false });
  const port = await freePort();
  // The hub's key logs in to sshd; the hub knows sshd's host key from its own ~/.ssh/known_hosts.
  const serve = `${process.execPath} ${BIN} link-serve --stdio --server ${box.d.socket}`;
  hub = await startHost('hub', {
    config: [
      '[hosts.box]', 'address = "127.0.0.1"', `port = ${port}`, `identity = "${join('~', 'hub_key')}"`, `command = "${serve}"`,
      '[hosts.empty]', 'address = "127.0.0.1"', `port = ${port}`, `identity = "${join('~', 'hub_key')}"`, 'command = "tuios-not-installed-here link-serve --stdio"',
    ].join('\n'),
    start: false,
  });
  const key = hubKey(hub);
  execFileSync('cp', [key, join(hub.d.home, 'hub_key')]);
  const sshdDir = join(box.d.dir, 'sshd');
  mkdirSync(sshdDir);
  try {
    await startSshd(sshdDir, port, readFileSync(`${key}.pub`, 'utf8'));
  } catch (e) {
    return sshdHere.missing(`sshd did not start here: ${(e as Error).message.split('\n')[0]}`);
  }
  mkdirSync(join(hub.d.home, '.ssh'), { recursive: true });
  const pub = readFileSync(join(sshdDir, 'ssh_host_ed25519_key.pub'), 'utf8').trim().split(/\s+/);
  writeFileSync(join(hub.d.home, '.ssh', 'known_hosts'), `[127.0.0.1]:${port} ${pub[0]} ${pub[1]}\n`);
  await hub.d.spawn();
});

test.after(async () => {
  sshd?.kill('SIGTERM');
  await hub?.d.stop();
  await box?.d.stop();
});

it('the link runs over exec of tuios link-serve --stdio, and the host key comes from ~/.ssh/known_hosts', async () => {
  const h = await waitHost(hub, 'box', (x) => x.state === 'up', 'up over OpenSSH');
  assert.is((h as unknown as { via: string }).via, 'exec');
  await box.d.ok(['new-session', 'api', 'sleep', '3600']);
  const w = await box.d.call<{ id: string }>('new-window', { session: 'api', name: 'agent', argv: ['sh', '-c', STANDIN_ASKS] });
  await box.d.waitScreen(w.id, /^$/m);
  await box.d.call('send-text', { window: w.id, text: 'over-openssh\n' });
  const item = await waitFor(async () => (await hub.d.call<{ items: Array<{ host?: string; summary: string; label: string }> }>('list-attention')).items.find((i) => i.host === 'box'), { what: 'box\'s approval on the hub' });
  assert.match(item.summary, /over-openssh/);
  assert.is(item.label, 'box:api/agent');
  const out = await hub.d.ok(['send-agent-message', '-w', 'box:api:agent', 'mail over OpenSSH']);
  assert.match(out, /delivered to box/);
  const m = await box.d.call<{ messages: Array<{ body: string }> }>('read-agent-messages', { window: w.id });
  assert.equal(m.messages.map((x) => x.body), ['mail over OpenSSH']);
  // The served side names the hub by what its Hello said.
  assert.equal((await box.d.call<{ served: string[] }>('list-hosts')).served, ['hub']);
});

it('a host whose sshd runs no tuios is down with the reason "no tuios"', async () => {
  const h = await waitHost(hub, 'empty', (x) => x.state === 'down' && x.reason === 'no tuios', 'no tuios');
  assert.match(String(h.detail), /not found|tuios-not-installed-here/);
});

it('with the daemon there stopped, the link is down with the reason "no daemon"', async () => {
  try {
    await box.d.call('kill-server');
  } catch {
    // it may close the connection first
  }
  await box.d.waitExit();
  const h = await waitHost(hub, 'box', (x) => x.state === 'down' && x.reason === 'no daemon', 'no daemon', 60_000);
  assert.match(String(h.detail), /no daemon is running/);
  assert.match(h.label, /seen \d+[smhd] ago, no daemon/);
});

test.run();
