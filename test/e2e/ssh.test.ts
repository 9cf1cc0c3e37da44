// The built-in SSH server as a person uses it: the real OpenSSH client, run inside tmux for the
// TUI and plainly for exec, against a real daemon in temp folders. Keys come from ssh-keygen; the
// host key is pinned in known_hosts, so every connection also checks it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, statSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { TestDaemon } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { Terminal } from '../helpers/terminal.js';
import { prerequisite } from '../helpers/prereq.js';
import { hasSsh, makeKey, authorize, sshPort, sshCommandLine, runSsh, logLines, ssh2Connect, type SshKey } from '../helpers/ssh.js';

let d: TestDaemon;
let port = 0;
let key: SshKey;
const terminals: Terminal[] = [];
const ssh = prerequisite('the OpenSSH client', hasSsh() ? '' : 'ssh or ssh-keygen is not installed (apt-get install openssh-client; .ci/run does)');
const it = ssh.gate(test);

// Small limits, so each is reached in a test.
const CONFIG = `[ssh]
listen = "127.0.0.1:0"
max_auth_tries = 3
max_sessions = 6
`;

function term(command: string, cols = 160, rows = 48): Terminal {
  const t = new Terminal(d.env, command, cols, rows);
  terminals.push(t);
  return t;
}

function sshTerm(k: SshKey | null = key, extra: string[] = ['-t'], cols = 160, rows = 48): Terminal {
  return term(sshCommandLine(d, port, k, extra), cols, rows);
}

interface Status {
  connections: number;
  shells: number;
  auth_refused: number;
  requests_refused: number;
}
const status = () => d.call<Status>('ssh-status');
const info = () => d.call<{ attached_clients: number; pid: number }>('server-info');

/** Waits for a warn line of the daemon log that matches. */
async function logged(msg: RegExp, fields: (l: Record<string, unknown>) => boolean = () => true): Promise<Record<string, unknown>> {
  return waitFor(() => logLines(d).find((l) => msg.test(String(l.msg)) && fields(l)), { what: `a log line ${msg}` });
}

test.before(async () => {
  if (!ssh.met) return;
  d = await TestDaemon.start({ config: CONFIG });
  key = makeKey(join(d.dir, 'keys'), 'person');
  authorize(d, key.pub);
  port = await sshPort(d);
});

test.after(async () => {
  for (const t of terminals) t.kill();
  if (d) await d.stop();
});

it('the daemon prints the exact ssh command, and that command logs in', async () => {
  const m = /connect with: (ssh -p (\d+) (\S+)@(\S+))/.exec(d.stdout);
  assert.ok(m, `the start-up lines name the command:\n${d.stdout}`);
  assert.is(Number(m![2]), port);
  assert.is(m![4], '127.0.0.1');
  const r = await runSsh(d, port, key, ['-l', m![3]!], ['server-info', '--json']);
  assert.is(r.code, 0, r.stderr);
  assert.is(JSON.parse(r.stdout).pid, d.pid);
});

it('ssh with no session makes one: the TUI appears with the client\'s TERM and size, keys reach the shell', async () => {
  const t = sshTerm(key, ['-t'], 140, 40);
  await t.wait(/┌─ /, 'the first tile');
  await t.wait(/C-b \? help/, 'the status line');
  const ws = await d.call<{ windows: Array<{ id: string; cols: number; rows: number; focused: boolean }> }>('list-windows');
  assert.is(ws.windows.length, 1);
  const w = ws.windows[0]!;
  // The tile takes the terminal less the rail and the borders.
  assert.ok(w.cols > 80 && w.cols < 140 && w.rows > 30 && w.rows < 40, `pane ${w.cols}x${w.rows}`);
  // The client's TERM (tmux's own) reached the pane that ssh made.
  const clientTerm = t.tmux(['display-message', '-p', '#{default-terminal}']).trim();
  t.type('echo "term=$TERM size=$(stty size)"');
  t.keys('Enter');
  await t.wait(new RegExp(`term=${clientTerm} size=${w.rows} ${w.cols}`), 'the shell answering with TERM and size');
  t.type('echo typed-$((6*7))');
  t.keys('Enter');
  await t.wait(/typed-42/, 'the shell answering');
  t.kill();
  await waitFor(async () => (await status()).shells === 0, { what: 'the shell session to end' });
});

it('a tmux resize reaches the TUI as window-change and redraws; ~. disconnects and the daemon goes on', async () => {
  await d.ok(['new-session', 'main', '--window-name', 'first']);
  const t = sshTerm();
  await t.wait(/┌─ first /, 'the first tile');
  const before = (await d.call<{ windows: Array<{ name: string; cols: number }> }>('list-windows', { session: 'main' })).windows[0]!.cols;
  t.resize(100, 30);
  // The tile's top border ends at the new right edge, and the pane took the new width.
  await t.wait(/┌─ first ─+┐\s*\n/, 'the redrawn tile');
  await waitFor(async () => (await d.call<{ windows: Array<{ cols: number }> }>('list-windows', { session: 'main' })).windows[0]!.cols < before, { what: 'the pane to narrow' });
  const s = t.screen();
  assert.ok(s.split('\n').every((l) => l.length <= 100), 'nothing drawn past the new width');
  assert.match(s, /C-b \? help/);
  assert.is((await status()).shells, 1);
  assert.is((await info()).attached_clients, 1);
  // ssh's escape: a newline, then ~.
  t.keys('Enter');
  t.type('~.');
  await t.wait(/\[exited 255\]/, 'ssh to exit');
  await waitFor(async () => (await status()).shells === 0 && (await status()).connections === 0, { what: 'the session and the connection to close' });
  assert.is((await info()).attached_clients, 0, 'the client detached');
  // The daemon goes on: its panes too.
  await d.ok(['send-text', '-w', 'main:first', '--submit', 'echo still-here']);
  await d.waitScreen('main:first', /still-here/);
  t.kill();
});

it('over ssh the client is the person: its Inbox dismisses an item', async () => {
  await d.ok(['new-session', 'view', '--window-name', 'worker']);
  await d.ok(['new-window', '-s', 'view', 'other']);
  await d.ok(['set-agent-state', '-w', 'view:worker', 'working', '--harness', 'x']);
  await d.ok(['set-agent-state', '-w', 'view:worker', 'done', '-m', 'Updated the docs', '--harness', 'x']);
  const items = async () => (await d.call<{ items: Array<{ kind: string }> }>('list-attention')).items;
  await waitFor(async () => (await items()).some((i) => i.kind === 'done'), { what: 'the Done item' });
  await d.ok(['select-window', '-w', 'view:other']);
  const t = sshTerm();
  await t.wait(/\[view\]/, 'the view session');
  assert.not.match(t.screen(), /cannot answer or dismiss as you/);
  t.keys('C-b', 'i');
  await t.wait(/Ready for review\s+1/, 'the Ready for review group');
  t.keys('g');
  t.keys('d');
  await t.wait(/Dismissed it\. u undoes it/, 'the dismiss line');
  await waitFor(async () => !(await items()).some((i) => i.kind === 'done'), { what: 'the item closed' });
  t.keys('C-b', 'd');
  await t.wait(/\[exited 0\]/, 'ssh to end after the detach');
  t.kill();
});

it('alerts over ssh are in-band: an OSC 9 notification and a bell in the session stream', async () => {
  // ssh lands in the most recent session; the agent is in another one.
  await d.ok(['new-session', 'elsewhere', '--window-name', 'agent']);
  await d.ok(['new-session', 'alerts', '--window-name', 'here']);
  const c = await ssh2Connect(port, { privateKey: readFileSync(key.file, 'utf8') });
  let stream = '';
  const ch = await new Promise<import('ssh2').ClientChannel>((resolve, reject) => c.shell({ term: 'xterm-256color', cols: 120, rows: 40 }, (e, x) => (e ? reject(e) : resolve(x))));
  ch.on('data', (b: Buffer) => (stream += b.toString('utf8')));
  await waitFor(() => stream.includes('C-b ? help') && stream.includes('[alerts]'), { what: 'the first frame' });
  await d.ok(['set-agent-state', '-w', 'elsewhere:agent', 'needs_input', '--kind', 'approval', '-m', 'approve Bash: make', '--harness', 'x']);
  try {
    await waitFor(() => /\x1b\]9;tuios: [^\x07]*elsewhere[^\x07]*\x07\x07/.test(stream), { what: 'an OSC 9 notification and a bell in the ssh stream' }).catch((e: Error) => {
      throw new Error(`${e.message}: ${JSON.stringify(stream.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/ +/g, ' ').slice(-600))}`);
    });
  } finally {
    await d.ok(['set-agent-state', '-w', 'elsewhere:agent', 'none']);
    c.end();
  }
  await waitFor(async () => (await status()).shells === 0, { what: 'the session to end' });
});

it('an ssh typed in a pane is inside that pane: no nonce, and never into its own session', async () => {
  await d.ok(['new-session', 'inner', '--window-name', 'sh']);
  const line = sshCommandLine(d, port, key, ['-t']);
  // The pane's session is the most recent: attaching it to itself is refused.
  await d.ok(['send-text', '-w', 'inner:sh', '--submit', line]);
  await d.waitScreen('inner:sh', /attaching it to itself/, 30_000);
  await logged(/^ssh attach refused$/, (l) => l.code === 'forbidden');
  // With another session more recent, it attaches there, and says it cannot act as you.
  await d.ok(['new-session', 'target', '--window-name', 'work']);
  await d.ok(['send-text', '-w', 'inner:sh', '--submit', `clear; ${line}`]);
  await logged(/^client attached$/, (l) => l.mode === 'ssh' && l.inside === true);
  await d.waitScreen('inner:sh', /Attached from inside a pane/, 30_000);
  await d.ok(['send-keys', '-w', 'inner:sh', 'C-b', 'd']);
  await d.waitScreen('inner:sh', /detached/);
});

it('exec runs one verb read-only: list-agents --json prints JSON, a write verb is refused', async () => {
  // A pane that says it works (OSC 7501), so the list has a row to show.
  await d.ok(['new-session', 'exec-agents', '--window-name', 'bot', 'sh', '-c', "printf '\\033]7501;state=working;message=exec%%20check\\007'; sleep 3600"]);
  type Row = { window_id: string; name: string; state: string; message?: string };
  const here = await waitFor(async () => {
    const rows = (await d.call<{ agents: Row[] }>('list-agents')).agents;
    return rows.some((a) => a.name === 'bot' && a.state === 'working') ? rows : null;
  }, { what: 'the bot pane working' });
  const r = await runSsh(d, port, key, [], ['list-agents', '--json']);
  assert.is(r.code, 0, r.stderr);
  const j = JSON.parse(r.stdout) as { agents: Row[] };
  // The same rows the socket gives, the working bot among them with its message.
  assert.equal(j.agents.map((a) => a.window_id).sort(), here.map((a) => a.window_id).sort());
  const bot = j.agents.find((a) => a.name === 'bot');
  assert.is(bot?.state, 'working', JSON.stringify(j.agents));
  assert.is(bot?.message, 'exec check');
  const host = await runSsh(d, port, key, [], ['ssh', 'host-key']);
  assert.match(host.stdout, /^256 SHA256:\S+ tuios host key \(ED25519\)\n$/);
  const w = await runSsh(d, port, key, [], ['new-session', 'from-exec']);
  assert.is(w.code, 1);
  assert.match(w.stderr, /read-only/);
  assert.match(w.stderr, /exec_write = true/);
  assert.not.ok((await d.call<{ sessions: Array<{ name: string }> }>('list-sessions')).sessions.some((s) => s.name === 'from-exec'));
  const u = await runSsh(d, port, key, [], ['no-such-verb']);
  assert.is(u.code, 2);
  const stream = await runSsh(d, port, key, [], ['subscribe']);
  assert.is(stream.code, 2);
  assert.match(stream.stderr, /not available over ssh exec/);
});

it('refused: an unlisted key, a password, keyboard-interactive; each logged with the address and the key', async () => {
  const stranger = makeKey(join(d.dir, 'keys'), 'stranger');
  const r = await runSsh(d, port, stranger, [], ['list-agents']);
  assert.is(r.code, 255);
  assert.match(r.stderr, /Permission denied \(publickey\)/);
  const line = await logged(/^ssh auth refused$/, (l) => l.key === stranger.fingerprint);
  assert.is(line.peer, '127.0.0.1');
  assert.is(line.why, 'the key is not listed');
  assert.is(line.level, 'warn');
  // OpenSSH asked for a password sends none: we offer publickey alone.
  const pw = await runSsh(d, port, null, ['-o', 'PreferredAuthentications=password,keyboard-interactive', '-o', 'BatchMode=no', '-o', 'NumberOfPasswordPrompts=1'], ['list-agents']);
  assert.is(pw.code, 255);
  assert.match(pw.stderr, /Permission denied \(publickey\)/);
  // A client that sends one anyway is refused, and the password is in no log line.
  const secret = 'hunter2-not-logged';
  await ssh2Connect(port, { authHandler: [{ type: 'password', username: 'root', password: secret }, { type: 'keyboard-interactive', username: 'root', prompt: (_n: unknown, _i: unknown, _l: unknown, _p: unknown, cb: (a: string[]) => void) => cb([secret]) }] }).then(
    (c) => {
      c.end();
      assert.unreachable('a password logged in');
    },
    (e: Error) => assert.match(e.message, /authentication methods failed/),
  );
  await logged(/^ssh auth refused$/, (l) => l.method === 'password' && l.why === 'only public keys are accepted' && l.peer === '127.0.0.1');
  await logged(/^ssh auth refused$/, (l) => l.method === 'keyboard-interactive');
  const log = readFileSync(join(d.dir, 'state', 'tuios', 'daemon.log'), 'utf8');
  assert.not.ok(log.includes(secret), 'no password in the log');
});

it('authorized_keys options: from= and command= refuse, no-pty allows exec only, attempts are bounded', async () => {
  const far = makeKey(join(d.dir, 'keys'), 'far');
  const forced = makeKey(join(d.dir, 'keys'), 'forced', 'ecdsa');
  const nopty = makeKey(join(d.dir, 'keys'), 'nopty', 'rsa');
  authorize(d, `from="10.0.0.0/8" ${far.pub}`);
  authorize(d, `command="/bin/echo hi" ${forced.pub}`);
  authorize(d, `no-pty ${nopty.pub}`);
  assert.is((await runSsh(d, port, far, [], ['list-agents'])).code, 255);
  await logged(/^ssh auth refused$/, (l) => l.key === far.fingerprint && l.why === 'from= does not allow this address');
  assert.is((await runSsh(d, port, forced, [], ['list-agents'])).code, 255);
  await logged(/^ssh auth refused$/, (l) => l.key === forced.fingerprint && /command=/.test(String(l.why)));
  const ec = makeKey(join(d.dir, 'keys'), 'ec', 'ecdsa');
  authorize(d, ec.pub);
  const ecOk = await runSsh(d, port, ec, [], ['list-agents', '--json']);
  assert.is(ecOk.code, 0, `an ECDSA key logs in: ${ecOk.stderr}`);
  // RSA with rsa-sha2 logs in; without a pty it runs verbs, and its shell is refused.
  const ok = await runSsh(d, port, nopty, [], ['list-agents', '--json']);
  assert.is(ok.code, 0, ok.stderr);
  const t = sshTerm(nopty, ['-tt']);
  await t.wait(/PTY allocation request failed/, 'the pty refused');
  await t.wait(/\[exited \d+\]/, 'ssh to end');
  await logged(/^ssh refused: pty/, (l) => l.key === nopty.fingerprint);
  t.kill();
  // max_auth_tries = 3: the fourth key is never tried, and the closing is logged.
  const ks = [1, 2, 3, 4].map((i) => makeKey(join(d.dir, 'keys'), `try${i}`));
  const many = await runSsh(d, port, null, ks.flatMap((k) => ['-i', k.file]), ['list-agents']);
  assert.is(many.code, 255);
  await logged(/too many authentication attempts/, (l) => l.peer === '127.0.0.1');
  assert.not.ok(logLines(d).some((l) => l.key === ks[3]!.fingerprint), 'the fourth key was not offered');
});

it('refused: port forwarding (-R, -W), agent forwarding, X11, env and sftp; the session goes on', async () => {
  const before = (await status()).requests_refused;
  const r = await runSsh(d, port, key, ['-N', '-R', '0:127.0.0.1:9', '-o', 'ExitOnForwardFailure=yes'], []);
  assert.is(r.code, 255);
  assert.match(r.stderr, /remote port forwarding failed/);
  await logged(/^ssh refused: port forwarding$/, (l) => l.request === 'tcpip-forward' && l.key === key.fingerprint);
  const w = await runSsh(d, port, key, ['-W', '127.0.0.1:9'], []);
  assert.is(w.code, 255);
  assert.match(w.stderr, /open failed|forwarding failed/, w.stderr);
  await logged(/^ssh refused: port forwarding$/, (l) => l.to === '127.0.0.1:9');
  const s = await runSsh(d, port, key, ['-s'], ['sftp']);
  assert.is(s.code, 255);
  await logged(/^ssh refused: subsystem$/, (l) => l.name === 'sftp');
  // Agent forwarding (with a real agent), X11 and env are refused; the verb still runs.
  const withAgent = sshCommandLine(d, port, key, ['-A', '-X', '-o', 'SetEnv=TUIOS_SECRET_ENV=value-not-logged'], ['list-agents', '--json']).replace('IdentityAgent=none', 'IdentityAgent=SSH_AUTH_SOCK');
  const agentRun = execFileSync('ssh-agent', ['sh', '-c', `${withAgent} 2>&1`], { env: { ...d.env, DISPLAY: ':97' }, encoding: 'utf8' });
  assert.match(agentRun, /"agents"/);
  await logged(/^ssh refused: agent forwarding$/);
  await logged(/^ssh refused: X11 forwarding$/);
  await logged(/^ssh refused: env$/, (l) => l.name === 'TUIOS_SECRET_ENV');
  assert.not.ok(readFileSync(join(d.dir, 'state', 'tuios', 'daemon.log'), 'utf8').includes('value-not-logged'));
  assert.ok((await status()).requests_refused >= before + 5);
  await d.call('server-info');
});

it('max_sessions: past the limit a connection is closed at once; the others go on', async () => {
  await waitFor(async () => (await status()).connections === 0, { what: 'earlier connections to close' });
  const priv = readFileSync(key.file, 'utf8');
  const held = [];
  for (let i = 0; i < 6; i++) held.push(await ssh2Connect(port, { privateKey: priv }));
  const r = await runSsh(d, port, key, [], ['list-agents']);
  assert.is(r.code, 255);
  await logged(/too many sessions/, (l) => l.limit === 6);
  for (const c of held) c.end();
  await waitFor(async () => (await status()).connections === 0, { what: 'the held connections to close' });
  assert.is((await runSsh(d, port, key, [], ['list-agents'])).code, 0);
});

it('the host key: 0600, its fingerprint as ssh-keygen -lf prints it, the same after a restart', async () => {
  const file = join(d.dir, 'state', 'tuios', 'ssh_host_ed25519_key');
  assert.is(statSync(file).mode & 0o777, 0o600);
  assert.is(statSync(join(d.dir, 'state', 'tuios')).mode & 0o777, 0o700);
  const keygen = execFileSync('ssh-keygen', ['-lf', `${file}.pub`], { encoding: 'utf8' }).trim();
  const ours = (await d.ok(['ssh', 'host-key'])).trim();
  assert.is(ours, keygen);
  // What the client saw is that key: ssh-keyscan-free check, the pinned known_hosts line holds.
  await d.call('kill-server');
  await d.waitExit();
  await d.spawn();
  port = await sshPort(d);
  assert.is((await d.ok(['ssh', 'host-key'])).trim(), keygen);
  // The same known_hosts line (StrictHostKeyChecking=yes) still accepts the server.
  const r = await runSsh(d, port, key, [], ['ssh', 'host-key']);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout.trim(), keygen);
  assert.match(d.stdout, new RegExp(`connect with: ssh -p ${port} `));
});

it('idle_timeout closes a connection that sends nothing; exec_write = true lets exec change state', async () => {
  const idle = await TestDaemon.start({ config: '[ssh]\nlisten = "127.0.0.1:0"\nidle_timeout = 2\nexec_write = true\n' });
  try {
    authorize(idle, key.pub);
    const p = await sshPort(idle);
    const made = await runSsh(idle, p, key, [], ['new-session', 'from-exec']);
    assert.is(made.code, 0, made.stderr);
    assert.ok((await idle.call<{ sessions: Array<{ name: string }> }>('list-sessions')).sessions.some((x) => x.name === 'from-exec'));
    const priv = readFileSync(key.file, 'utf8');
    const quiet = await ssh2Connect(p, { privateKey: priv });
    const started = Date.now();
    await new Promise<void>((r) => quiet.once('close', () => r()));
    assert.ok(Date.now() - started >= 1500, 'not closed before the timeout');
    await waitFor(() => logLines(idle).find((l) => l.msg === 'ssh session closed: idle' && l.idle_timeout_s === 2), { what: 'the idle line' });
  } finally {
    await idle.stop();
  }
});

test.run();
