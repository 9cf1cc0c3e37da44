// Alerts as the person gets them: the real OpenSSH client on a PTY the test owns, attached to
// tuios's SSH server, reading the raw bytes its terminal receives. An approval in another
// session is one notification escape and one bell under sound_mode bell; a flip back within the
// settle window raises none; quiet hours hold it; a fan of five is one alert; with nobody
// attached the after-agent-state hook runs the shipped recipe (skills/recipes.md) and a local
// HTTP server receives one push.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, readFileSync, writeFileSync, appendFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { TestDaemon, ROOT } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { prerequisite } from '../helpers/prereq.js';
import { hasSsh, makeKey, authorize, sshPort, type SshKey } from '../helpers/ssh.js';
import { SshPty, bells, notifications } from '../helpers/pty-ssh.js';

let d: TestDaemon;
let port = 0;
let key: SshKey;
let client: SshPty | null = null;
const ssh = prerequisite('the OpenSSH client', hasSsh() ? '' : 'ssh or ssh-keygen is not installed (apt-get install openssh-client)');
const it = ssh.gate(test);

const set = (k: string, v: string) => d.ok(['set-config', k, v]);
const approve = (target: string, what = 'approve Bash: make') => d.ok(['set-agent-state', '-w', target, 'needs_input', '--kind', 'approval', '-m', what, '--harness', 'claude']);
async function agentIn(session: string): Promise<string> {
  await d.ok(['new-session', session, '--window-name', 'agent', 'sleep', '3600']);
  return `${session}:agent`;
}

test.before(async () => {
  if (!ssh.met) return;
  // cooldown 0: every test's bell is its own, whatever ran just before.
  d = await TestDaemon.start({ config: '[notifications.agent]\ncooldown_ms = 0\n\n[ssh]\nlisten = "127.0.0.1:0"\n' });
  key = makeKey(join(d.dir, 'keys'), 'person');
  authorize(d, key.pub);
  port = await sshPort(d);
  await d.ok(['new-session', 'home', '--window-name', 'here']);
  client = new SshPty(d, port, key);
  await client.waitBytes((b) => b.includes('C-b ? help') && b.includes('[home]'), 'the first frame');
});

test.after(async () => {
  client?.kill();
  await d?.stop();
});

it('an approval in another session: exactly one notification sequence and one bell (sound_mode bell)', async () => {
  await set('notifications.agent.sound_mode', 'bell');
  const w = await agentIn('fan-3');
  const m = client!.mark();
  await approve(w, 'approve Bash: go test');
  const b = await client!.waitBytes((x) => notifications(x).length > 0 && bells(x) > 0, 'the notification and the bell', m);
  // A barrier: a later alert elsewhere arrives after anything the first one could still send.
  const w2 = await agentIn('barrier-1');
  await approve(w2);
  const all = await client!.waitBytes((x) => notifications(x).length >= 2, 'the barrier alert', m);
  assert.equal(notifications(b), ['9;tuios: fan-3: claude needs approval · approve Bash: go test']);
  assert.is(notifications(all).length, 2);
  assert.is(bells(all), 2, 'one bell each');
  // The captured byte stream of one alert, for the record.
  const seq = /\x1b\]9;tuios: fan-3[^\x07]*\x07\x07/.exec(b)![0];
  assert.is(seq, '\x1b]9;tuios: fan-3: claude needs approval · approve Bash: go test\x07\x07');
});

it('the escape follows notifications.agent.escape: OSC 777 for terminals that take it', async () => {
  await set('notifications.agent.escape', 'osc777');
  try {
    const w = await agentIn('osc-1');
    const m = client!.mark();
    await approve(w);
    const b = await client!.waitBytes((x) => notifications(x).length > 0, 'an OSC 777 notification', m);
    assert.equal(notifications(b), ['777;notify;tuios;osc-1: claude needs approval · approve Bash: make']);
  } finally {
    await set('notifications.agent.escape', '');
  }
});

it('a flip back within the settle window raises none; a state that holds goes out after it', async () => {
  await set('notifications.agent.settle_ms', '1500');
  try {
    const flip = await agentIn('flip-1');
    const m = client!.mark();
    await approve(flip);
    await d.ok(['set-agent-state', '-w', flip, 'working', '--harness', 'claude']);
    const hold = await agentIn('hold-1');
    await approve(hold);
    const b = await client!.waitBytes((x) => notifications(x).length > 0, 'the held approval', m);
    await client!.waitBytes((x) => bells(x) > 0, 'its bell', m);
    assert.equal(notifications(client!.bytes(m)), ['9;tuios: hold-1: claude needs approval · approve Bash: make']);
    assert.not.match(client!.text(m), /flip-1: claude/);
    assert.is(bells(client!.bytes(m)), 1);
    assert.ok(b.length > 0);
  } finally {
    await set('notifications.agent.settle_ms', '');
  }
});

it('quiet hours hold the notification and the bell; the dock line is drawn', async () => {
  const now = new Date();
  const hh = (t: number) => {
    const x = new Date(t);
    return `${String(x.getHours()).padStart(2, '0')}:${String(x.getMinutes()).padStart(2, '0')}`;
  };
  await set('notifications.agent.quiet_hours', `${hh(now.getTime() - 3_600_000)}-${hh(now.getTime() + 3_600_000)}`);
  try {
    const w = await agentIn('quiet-1');
    const m = client!.mark();
    await approve(w);
    await client!.waitScreen(/quiet-1: claude needs approval/, 'the dock line');
    assert.equal(notifications(client!.bytes(m)), []);
    assert.is(bells(client!.bytes(m)), 0);
  } finally {
    await set('notifications.agent.quiet_hours', '');
  }
});

it('a fan of five is one alert: one dock message, one notification, one bell', async () => {
  const targets: string[] = [];
  for (let i = 1; i <= 5; i++) targets.push(await agentIn(`fan5-${i}`));
  const m = client!.mark();
  // The five together, as a fan's items arrive: one connection, the calls written at once.
  const rpc = await d.client();
  await Promise.all(targets.map((t) => rpc.call('set-agent-state', { window: t, state: 'needs_input', kind: 'approval', message: 'approve Bash: make', harness: 'claude' })));
  rpc.close();
  await client!.waitBytes((x) => notifications(x).length > 0, 'the fan alert', m);
  await client!.waitScreen(/5 agents need you in fan5-\d, fan5-\d, fan5-\d and 2 more/, 'the one dock message');
  const w2 = await agentIn('barrier-2');
  await approve(w2);
  const all = await client!.waitBytes((x) => notifications(x).length >= 2, 'the barrier alert', m);
  const n = notifications(all);
  assert.is(n.length, 2, JSON.stringify(n));
  assert.match(n[0]!, /^9;tuios: 5 agents need you in fan5-\d, fan5-\d, fan5-\d and 2 more$/);
  assert.is(bells(all), 2);
});

it('a click on the alert\'s dock message opens the item: the client goes to that pane', async () => {
  const w = await agentIn('click-1');
  const m = client!.mark();
  await approve(w, 'approve Bash: click');
  await client!.waitBytes((x) => notifications(x).length > 0, 'the alert', m);
  await client!.waitScreen(/click-1: claude needs approval/, 'the dock message');
  assert.not.match(client!.screen().split('\n').at(-1)!, /\[click-1\]/);
  // An SGR press and release on the status line (row 40 of 40, 1-based).
  client!.write('\x1b[<0;30;40M\x1b[<0;30;40m');
  await client!.waitScreen(/\[click-1\]/, 'the client on the pane\'s session');
  // Back home for the tests after.
  await d.ok(['set-agent-state', '-w', w, 'none']);
});

it('nobody attached: the after-agent-state hook runs the recipe and the HTTP server receives one push', async () => {
  client!.kill();
  await waitFor(async () => (await d.call<{ attached_clients: number }>('server-info')).attached_clients === 0, { what: 'the client to detach' });
  const pushes: Array<{ title: string; body: string }> = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      pushes.push({ title: String(req.headers.title ?? ''), body });
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/tuios-test-topic`;
    // The shipped recipe, word for word, with the topic URL replaced.
    const recipe = readFileSync(join(ROOT, 'skills', 'recipes.md'), 'utf8');
    const script = /`~\/\.config\/tuios\/alert\.sh`[^\n]*\n```sh\n([\s\S]*?)```/.exec(recipe)![1]!;
    assert.match(script, /https:\/\/ntfy\.sh\/YOUR-PRIVATE-TOPIC/);
    const file = join(d.dir, 'alert.sh');
    writeFileSync(file, script.replace('https://ntfy.sh/YOUR-PRIVATE-TOPIC', url));
    chmodSync(file, 0o755);
    appendFileSync(join(d.dir, 'config', 'tuios', 'config.toml'), `\n[hooks]\nafter_agent_state = "${file}"\nafter_agent_state_on = "alerts"\n`);
    await d.ok(['config-apply']);
    const w = await agentIn('push-1');
    await d.ok(['set-agent-state', '-w', w, 'working', '--harness', 'claude']);
    await approve(w, 'approve Bash: rm -rf build');
    await waitFor(() => pushes.length >= 1, { what: 'a push' });
    // A barrier: an errored pane pushes too; the approval's push and nothing from working came first.
    const w2 = await agentIn('push-2');
    await d.ok(['set-agent-state', '-w', w2, 'errored', '-m', 'boom', '--harness', 'claude']);
    await waitFor(() => pushes.length >= 2, { what: 'the barrier push' });
    assert.equal(pushes[0], { title: 'tuios: push-1', body: 'push-1: claude needs approval · approve Bash: rm -rf build' });
    assert.equal(pushes.length, 2);
    assert.equal(pushes[1], { title: 'tuios: push-2', body: 'push-2: claude stopped on an error · boom' });
  } finally {
    server.close();
  }
});

test.run();
