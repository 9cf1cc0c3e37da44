// The SSH server's small parts: where a local client's process is (/proc/net/tcp), the caller a
// session acts as, the sizes and TERM it takes from a client, the listen address, exec's word
// splitting, the start-up command line, and the subsystem registry the link registers into.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Socket } from 'node:net';
import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
import { canonicalIp, procAddress, parseProcNetTcp, isLoopback, findPeerProcess } from '../../ssh-server/peer.js';
import { sshCaller } from '../../ssh-server/caller.js';
import { clampSize, cleanTerm, parseListen } from '../../ssh-server/server.js';
import { shellWords } from '../../ssh-server/exec.js';
import { connectCommand } from '../../ssh-server/index.js';
import { SubsystemRegistry } from '../../ssh-server/subsystems.js';
import { MAX_COLS, MAX_ROWS } from '../../core/limits.js';

test('addresses: IPv4, IPv4-mapped IPv6 and IPv6 compare in one canonical form', () => {
  assert.is(canonicalIp('127.0.0.1'), '127.0.0.1');
  assert.is(canonicalIp('::ffff:127.0.0.1'), '127.0.0.1');
  assert.is(canonicalIp('::1'), '0:0:0:0:0:0:0:1');
  assert.is(canonicalIp('[fe80::1%eth0]'), 'fe80:0:0:0:0:0:0:1');
  assert.is(canonicalIp('not an address'), null);
  assert.ok(isLoopback('127.3.4.5'));
  assert.ok(isLoopback('::1'));
  assert.ok(isLoopback('::ffff:127.0.0.1'));
  assert.not.ok(isLoopback('10.0.0.1'));
});

test('/proc/net/tcp rows: little-endian words, the owner uid and the socket inode', () => {
  // 127.0.0.1:46846 -> 127.0.0.1:2222, uid 1000, inode 123456 (as a little-endian host prints it).
  const text = [
    '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
    '   0: 0100007F:B6FE 0100007F:08AE 01 00000000:00000000 00:00000000 00000000  1000        0 123456 1 0000000000000000 20 4 30 10 -1',
    '   1: garbage',
  ].join('\n');
  const rows = parseProcNetTcp(text);
  assert.is(rows.length, 1);
  assert.equal({ ...rows[0] }, { local: '127.0.0.1', localPort: 46846, remote: '127.0.0.1', remotePort: 2222, uid: 1000, inode: 123456 });
  assert.is(procAddress('00000000000000000000000001000000'), '0:0:0:0:0:0:0:1');
  assert.is(procAddress('0000000000000000FFFF00000100007F'), '127.0.0.1');
  assert.is(procAddress('xyz'), null);
});

test('a connection from this machine is traced to the process that holds its socket', async () => {
  if (process.platform !== 'linux') return;
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  const accepted = new Promise<Socket>((r) => srv.once('connection', r));
  const child = spawn(process.execPath, ['-e', `require('net').connect(${port}, '127.0.0.1'); setInterval(() => {}, 1000)`], { stdio: 'ignore' });
  try {
    const s = await accepted;
    const where = await findPeerProcess(s.remoteAddress!, s.remotePort!, port);
    assert.equal(where, { where: 'local', uid: process.getuid!(), pid: child.pid! });
    assert.equal(await findPeerProcess('10.255.255.1', 40000, port), { where: 'remote' });
    s.destroy();
  } finally {
    child.kill('SIGKILL');
    srv.close();
  }
});

test('the caller of a session: remote is the person; local is placed by its pid; unknown local is inside', () => {
  const remote = sshCaller('10.0.0.2', { where: 'remote' }, { why: 'observe', allow: 'no observe' }, 1000);
  assert.is(remote.channel, 'ssh-exec');
  assert.ok(remote.readOnly);
  assert.is(remote.placement, undefined);
  const proxied = sshCaller('127.0.0.1', { where: 'remote' }, null, 1000);
  assert.equal(proxied.placement?.kind, 'inside', 'a loopback peer with no socket here is no proof');
  const local = sshCaller('127.0.0.1', { where: 'local', uid: 1000, pid: 4242 }, null, 1000);
  assert.is(local.channel, 'socket');
  assert.is(local.pid, 4242);
  assert.is(local.placement, undefined, 'judged later from its pid, as a socket caller');
  const lost = sshCaller('127.0.0.1', { where: 'local', uid: 1000, pid: null }, null, 1000);
  assert.is(lost.placement?.kind, 'inside');
  const otherUser = sshCaller('127.0.0.1', { where: 'local', uid: 1001, pid: 99 }, null, 1000);
  assert.is(otherUser.channel, 'ssh-exec', 'another user runs none of our panes');
  assert.is.not(remote.connId, local.connId);
});

test('sizes and TERM from a client are kept within what a pane takes', () => {
  assert.equal(clampSize(0, 0), { cols: 80, rows: 24 });
  assert.equal(clampSize(100000, 100000), { cols: MAX_COLS, rows: MAX_ROWS });
  assert.equal(clampSize(Number.NaN, 30.7), { cols: 80, rows: 30 });
  assert.equal(clampSize(1, 1), { cols: 2, rows: 1 });
  assert.is(cleanTerm('tmux-256color'), 'tmux-256color');
  assert.is(cleanTerm('xterm-kitty'), 'xterm-kitty');
  assert.is(cleanTerm(''), 'xterm-256color');
  assert.is(cleanTerm('x'.repeat(65)), 'xterm-256color');
  assert.is(cleanTerm('xterm\x1b[31m'), 'xterm-256color');
  assert.is(cleanTerm('../../etc/passwd'), 'xterm-256color');
});

test('listen: HOST:PORT, [v6]:PORT; anything else is a typed error', () => {
  assert.equal(parseListen('127.0.0.1:2222'), { host: '127.0.0.1', port: 2222 });
  assert.equal(parseListen('[::1]:22'), { host: '::1', port: 22 });
  assert.equal(parseListen(':0'), { host: '127.0.0.1', port: 0 });
  assert.throws(() => parseListen('2222'), /HOST:PORT/);
  assert.throws(() => parseListen('host:99999'), /HOST:PORT/);
});

test('exec words: shell quoting without expansion', () => {
  assert.equal(shellWords(`send-text -w 'my pane' "a \\"b\\" $c" d\\ e ''`), ['send-text', '-w', 'my pane', 'a "b" $c', 'd e', '']);
  assert.equal(shellWords('  list-agents   --json '), ['list-agents', '--json']);
  assert.equal(shellWords('$(rm -rf /); `x`'), ['$(rm', '-rf', '/);', '`x`']);
});

test('the start-up line names the exact command; a wildcard address names this host', () => {
  assert.is(connectCommand('127.0.0.1', 2222, 'ada'), 'ssh -p 2222 ada@127.0.0.1');
  assert.is(connectCommand('::1', 2200, 'ada'), 'ssh -p 2200 ada@[::1]');
  assert.is(connectCommand('0.0.0.0', 2222, 'ada'), `ssh -p 2222 ada@${hostname()}`);
});

test('subsystems: one handler per name, removed by its own unregister only; names are checked', () => {
  const r = new SubsystemRegistry();
  const h1 = () => {};
  const h2 = () => {};
  const off = r.register('tuios-link', h1);
  assert.is(r.get('tuios-link'), h1);
  assert.throws(() => r.register('tuios-link', h2), /already has a handler/);
  assert.throws(() => r.register('bad name', h2), /subsystem name/);
  assert.throws(() => r.register('x'.repeat(65), h2), /subsystem name/);
  off();
  assert.is(r.get('tuios-link'), undefined);
  const off2 = r.register('tuios-link', h2);
  off();
  assert.is(r.get('tuios-link'), h2, 'a stale unregister does not remove the next handler');
  off2();
  assert.equal(r.names(), []);
});

test.run();
