// One SSH session failing closes that session only. A daemon in this process (so a TUI can be
// made to fail on purpose), reached over real TCP by ssh2 clients with a pty and a shell: one TUI
// fails inside its own guards (its output stream throws), one throws out of them (its input
// throws), one cannot start at all; the session beside them keeps typing into its shell, the
// daemon answers, and terminal-kit's process listeners are gone when the sessions end.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import type { ClientChannel } from 'ssh2';
import { generateHostKey } from '../../ssh-server/keys.js';
import { TuiosError } from '../../core/errors.js';
import { sshExtension, SubsystemRegistry } from '../../ssh-server/index.js';
import { tuiExtension, createTui } from '../../tui/index.js';
import { sshShell } from '../../tui/ssh-shell.js';
import type { TuiOptions } from '../../core/verbs/tui.js';
import { waitFor } from '../helpers/wait.js';
import { ssh2Connect } from '../helpers/ssh.js';
import { startInProcessDaemon, type InProcessDaemon } from '../helpers/in-process-daemon.js';

const kp = generateHostKey();

/** What each test session's TUI should do wrong, by the TERM its client sends. */
const faults = new Map<string, 'write' | 'input' | 'start'>([
  ['xterm-fail-write', 'write'],
  ['xterm-fail-input', 'input'],
  ['xterm-fail-start', 'start'],
]);

function faultyTui(o: TuiOptions) {
  const fault = faults.get(o.term);
  if (fault === 'start') throw new TuiosError('internal', 'The TUI could not start; the daemon log says why.');
  let armed = false;
  const tui = createTui({
    ...o,
    write: (data) => {
      if (fault === 'write' && armed) throw new Error('a drawing bug');
      o.write(data);
    },
  });
  return {
    // '!' is the trigger, kept from the shared pane; what follows it still reaches the TUI.
    input: (b: Buffer) => {
      if (b.includes('!')) {
        if (fault === 'input') throw new Error('an input bug');
        if (fault === 'write') armed = true;
        b = Buffer.from(b.toString('latin1').replace(/!/g, ''), 'latin1');
      }
      if (b.length) tui.input(b);
    },
    resize: tui.resize,
    dispose: tui.dispose,
  };
}

let d: InProcessDaemon;
let port = 0;
const listenersNow = () => ['exit', 'beforeExit', 'asyncExit', 'SIGWINCH'].reduce((n, ev) => n + process.listenerCount(ev), 0);

interface Shell {
  ch: ClientChannel;
  out: () => string;
  closed: Promise<void>;
  end(): void;
}

/** A promise that must settle within `ms`, else the test fails saying what did not happen. */
function within<T>(p: Promise<T>, what: string, ms = 20_000): Promise<T> {
  let t: NodeJS.Timeout;
  return Promise.race([p, new Promise<T>((_, reject) => (t = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms)))]).finally(() => clearTimeout(t));
}

async function shell(term: string): Promise<Shell> {
  const c = await ssh2Connect(port, { privateKey: kp.private });
  const ch = await new Promise<ClientChannel>((resolve, reject) => c.shell({ term, cols: 120, rows: 36 }, (e, s) => (e ? reject(e) : resolve(s))));
  let out = '';
  ch.on('data', (b: Buffer) => (out += b.toString('utf8')));
  ch.stderr.on('data', (b: Buffer) => (out += b.toString('utf8')));
  const closed = new Promise<void>((r) => ch.once('close', () => r()));
  void closed.then(() => c.end());
  return { ch, out: () => out, closed, end: () => c.end() };
}

const subsystems = new SubsystemRegistry();

test.before(async () => {
  d = await startInProcessDaemon({
    extensions: [tuiExtension(), sshExtension({ shell: (svc, req) => sshShell(svc, req, faultyTui), subsystems })],
    config: '[ssh]\nlisten = "127.0.0.1:0"\n',
    configFiles: { authorized_keys: kp.public + '\n' },
  });
  port = (d.svc.endpoints.get('ssh') as { port: number }).port;
});

test.after(async () => {
  await d?.stop();
});

test('a TUI that fails closes its own session; the one beside it and the daemon go on; no listener stays', async () => {
  const baseline = listenersNow();
  const good = await shell('xterm-256color');
  const badWrite = await shell('xterm-fail-write');
  const badInput = await shell('xterm-fail-input');
  for (const s of [good, badWrite, badInput]) await waitFor(() => s.out().includes('C-b ? help'), { what: 'a first frame' });
  // How long the loop is held while SSH TUIs start is a figure of test/bench/ssh-tui-start.bench.ts.
  assert.ok(listenersNow() > baseline, 'terminal-kit added its listeners');

  // Its next frame (the help overlay) throws inside the TUI's own guard.
  badWrite.ch.write('!\x02?');
  await within(badWrite.closed, 'the failed TUI to close its session');
  assert.match(badWrite.out(), /\[exited: the client hit an internal error/);
  badInput.ch.write('!');
  await within(badInput.closed, 'the failed TUI to close its session');
  assert.match(badInput.out(), /\[exited: the client hit an internal error/);

  // The session beside them still types into its shell.
  good.ch.write('echo still-$((6*7))\r');
  await waitFor(() => good.out().includes('still-42'), { what: 'the good session to echo' });
  assert.is(d.svc.person.attachedCount, 1);

  // A TUI that cannot start refuses that session with its reason, and nothing else.
  const noStart = await shell('xterm-fail-start');
  await within(noStart.closed, 'the refused session to close');
  assert.match(noStart.out(), /tuios: The TUI could not start/);

  good.end();
  await within(good.closed, 'the good session to close');
  await waitFor(() => d.svc.person.attachedCount === 0, { what: 'every client detached' });
  assert.is(listenersNow(), baseline, 'terminal-kit\'s process listeners were removed');
  const log = readFileSync(d.paths.logFile, 'utf8');
  assert.match(log, /tui failed; closing its client/);
  assert.match(log, /tui failed; closing its ssh session/);
  assert.not.match(log, /uncaught exception|unhandled rejection/);
  // The daemon still answers a verb over ssh.
  const c = await ssh2Connect(port, { privateKey: kp.private });
  const text = await new Promise<string>((resolve, reject) =>
    c.exec('server-info --json', (e, ch) => {
      if (e) return reject(e);
      let s = '';
      ch.on('data', (b: Buffer) => (s += b));
      ch.on('close', () => resolve(s));
    }),
  );
  c.end();
  assert.is(JSON.parse(text).pid, process.pid);
});

test('a registered subsystem gets its channel and the peer; one that throws closes only its channel; unregistered is refused', async () => {
  const peers: Array<{ address: string; keyFingerprint: string; keyComment: string }> = [];
  const offEcho = subsystems.register('test-echo', (channel, peer) => {
    peers.push(peer);
    channel.on('data', (b: Buffer) => channel.write(Buffer.concat([Buffer.from('echo:'), b])));
  });
  const offBad = subsystems.register('test-throws', () => {
    throw new Error('a subsystem bug');
  });
  const c = await ssh2Connect(port, { privateKey: kp.private });
  const open = (name: string) => new Promise<ClientChannel>((resolve, reject) => c.subsys(name, (e, ch) => (e ? reject(e) : resolve(ch))));
  try {
    const ch = await open('test-echo');
    let got = '';
    ch.on('data', (b: Buffer) => (got += b));
    ch.write('ping');
    await waitFor(() => got === 'echo:ping', { what: 'the echo' });
    assert.is(peers[0]!.address, '127.0.0.1');
    assert.match(peers[0]!.keyFingerprint, /^SHA256:/);
    const bad = await open('test-throws');
    bad.resume();
    bad.stderr.resume();
    await within(new Promise<void>((r) => bad.once('close', () => r())), 'the failed subsystem channel to close');
    ch.write('again');
    await waitFor(() => got.endsWith('echo:again'), { what: 'the first channel to go on' });
    offEcho();
    await open('test-echo').then(
      () => assert.unreachable('an unregistered subsystem opened'),
      (e: Error) => assert.match(e.message, /Unable to start subsystem/),
    );
  } finally {
    offBad();
    c.end();
  }
});

test.run();
