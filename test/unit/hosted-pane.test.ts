// Panes on another machine without daemons: the open params a host takes on trust (none), the
// output ring a re-attach reads from, the window's side of the stream (start, flow control, exit,
// a dropped link and the re-attach), the process snapshot the detector reads, which callers a
// host forwards for, and a hosted pane's stream words over two in-memory link sessions.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Readable, Duplex, PassThrough } from 'node:stream';
import { spawn } from 'node:child_process';
import { HostedPane } from '../../core/hosts/hosted-pane.js';
import { runHostedReport } from '../../core/hosts/hosted-report.js';
import { HostedPanes, OutputRing, checkOpenParams, type ServedPane } from '../../core/hosts/hosted-serve.js';
import { checkSnapshot, readPaneProcs, snapshotReader } from '../../core/hosts/hosted-procs.js';
import type { RemoteHosts } from '../../core/hosts/remote.js';
import type { RemoteStream, StreamSink } from '../../core/hosts/streams.js';
import type { VerbDef } from '../../core/rpc/verb.js';
import { allVerbs } from '../../core/verbs/index.js';
import type { Caller } from '../../core/rpc/caller.js';
import { TuiosError } from '../../core/errors.js';
import { waitFor } from '../helpers/wait.js';

const ID = 'a'.repeat(32);
const TOKEN = 'b'.repeat(32);

test('open params: a window id, a command of strings, an absolute folder, a size in range; reserved variables are dropped', () => {
  const ok = checkOpenParams({ window_id: ID, argv: ['sh', '-c', 'x'], cwd: '/srv', cols: 100, rows: 30, env: { A: '1', TUIOS_SOCKET: '/evil', TMUX: 'x' }, term: 'xterm' });
  assert.equal(ok.env, { A: '1' });
  assert.is(ok.cols, 100);
  assert.is(ok.resume, null);
  const bad = (p: Record<string, unknown>, re: RegExp) => assert.throws(() => checkOpenParams({ window_id: ID, ...p }), (e: unknown) => e instanceof TuiosError && e.code === 'invalid_params' && re.test(e.message));
  bad({ window_id: '../x' }, /window id/);
  bad({ argv: ['sh', 3] }, /command/);
  bad({ argv: 'sh -c x' }, /command/);
  bad({ cwd: 'relative' }, /absolute/);
  bad({ cols: 1e9 }, /size/);
  bad({ env: { 'A=B': 'x' } }, /environment/);
  bad({ env: ['x'] }, /environment/);
  bad({ resume: { token: 'short', from: 0 } }, /re-attach/);
  bad({ resume: { token: TOKEN, from: -1 } }, /re-attach/);
  assert.equal(checkOpenParams({ window_id: ID, resume: { token: TOKEN, from: 12 } }).resume, { token: TOKEN, from: 12 });
  // Defaults: the host's shell, its size defaults.
  const d = checkOpenParams({ window_id: ID });
  assert.equal(d.argv, []);
  assert.is(d.cwd, null);
});

test('the output ring: what follows an offset, and how much was lost past its size', () => {
  const r = new OutputRing(10);
  r.push(Buffer.from('abcd'));
  r.push(Buffer.from('efgh'));
  assert.equal(r.since(0), { data: Buffer.from('abcdefgh'), lost: 0 });
  assert.equal(r.since(6), { data: Buffer.from('gh'), lost: 0 });
  assert.equal(r.since(8), { data: Buffer.alloc(0), lost: 0 });
  r.push(Buffer.from('ijklmn'));
  // 14 pushed, at most 10 held (whole chunks): 'abcd' went.
  assert.is(r.total, 14);
  assert.equal(r.since(0), { data: Buffer.from('efghijklmn'), lost: 4 });
  assert.equal(r.since(5), { data: Buffer.from('fghijklmn'), lost: 0 });
  assert.equal(r.since(99), { data: Buffer.alloc(0), lost: 0 });
});

/** A stream the test plays the host's side of. */
class FakeStream extends Readable {
  closeReason: string | null = null;
  readonly sent: Array<[string, Record<string, unknown>]> = [];
  readonly typed: Buffer[] = [];
  private ctl: ((op: string, p: Record<string, unknown>) => void) | null = null;
  constructor(readonly params: Record<string, unknown>) {
    super();
  }
  override _read(): void {}
  input(d: Buffer): boolean {
    this.typed.push(d);
    return true;
  }
  control(op: string, p: Record<string, unknown>): boolean {
    this.sent.push([op, p]);
    return true;
  }
  onControl(fn: (op: string, p: Record<string, unknown>) => void): void {
    this.ctl = fn;
  }
  say(op: string, p: Record<string, unknown> = {}): void {
    this.ctl?.(op, p);
  }
  cut(reason: string): void {
    this.closeReason = reason;
    this.destroy(new Error(reason));
  }
}

function fakeRemote(up: { value: boolean }) {
  const opened: FakeStream[] = [];
  let onUp: ((h: string) => void) | null = null;
  const remote = {
    has: (h: string) => h === 'build',
    openStream(_h: string, kind: string, params: Record<string, unknown>): RemoteStream {
      assert.is(kind, 'hosted-pane');
      if (!up.value) throw new TuiosError('host_down', 'down');
      const st = new FakeStream(params);
      opened.push(st);
      return st as unknown as RemoteStream;
    },
    onLinkUp(fn: (h: string) => void) {
      onUp = fn;
      return () => (onUp = null);
    },
  } as unknown as RemoteHosts;
  return { remote, opened, up: () => onUp?.('build') };
}

const spec = { host: 'build', windowId: ID, argv: ['sh'], cwd: null, cols: 80, rows: 24, env: {}, term: undefined };

test('the window\'s side: started resolves ready; input, resize, pause and resume go as stream words; the host\'s exit is the window\'s', async () => {
  const link = { value: true };
  const f = fakeRemote(link);
  const p = HostedPane.open(f.remote, spec);
  const st = f.opened[0]!;
  assert.equal(st.params.argv, ['sh']);
  assert.is(p.pid, null);
  assert.is(p.status, 'starting');
  st.say('started', { pid: 4242, cwd: '/home/me', token: TOKEN });
  await p.ready;
  assert.is(p.hostPid, 4242);
  const data: string[] = [];
  p.onData((d) => data.push(d.toString()));
  st.push(Buffer.from('hello'));
  await waitFor(() => data.length === 1, { what: 'the output' });
  p.write('ls\n');
  assert.is(Buffer.concat(st.typed).toString(), 'ls\n');
  p.resize(100, 30);
  p.pause();
  p.pause();
  p.resume();
  assert.equal(st.sent, [['resize', { cols: 100, rows: 30 }], ['pause', {}], ['resume', {}]]);
  let exit: unknown = null;
  p.onExit((s) => (exit = s));
  st.say('exit', { code: 3, signal: null });
  st.push(null);
  await waitFor(() => exit !== null, { what: 'the exit' });
  assert.equal(exit, { code: 3, signal: null });
  assert.is(p.status, 'ended');
});

test('flow control: the window\'s emulator past its high watermark pauses the host\'s PTY, and below the low one resumes it', async () => {
  const { Window } = await import('../../core/model/window.js');
  const { PTY_HIGH_WATERMARK_BYTES } = await import('../../core/limits.js');
  const f = fakeRemote({ value: true });
  const p = HostedPane.open(f.remote, spec);
  const st = f.opened[0]!;
  st.say('started', { pid: 9, token: TOKEN });
  await p.ready;
  const w = new Window({ id: ID, name: 'remote', sessionId: 's', workspace: 1, order: 1, argv: [], startCwd: '~', cols: 80, rows: 24, scrollback: 100, paneToken: 't', isShell: true, host: 'build' });
  w.attachProcess(p, () => {});
  const line = Buffer.from(`${'x'.repeat(79)}\r\n`);
  // Twice the high watermark in one turn, as a flood arrives.
  for (let n = 0; n < (2 * PTY_HIGH_WATERMARK_BYTES) / line.length; n++) st.push(line);
  await waitFor(() => st.sent.some(([op]) => op === 'pause'), { what: 'the pause' });
  await waitFor(() => st.sent.some(([op]) => op === 'resume') && w.pendingBytes === 0, { timeout: 60_000, what: 'the resume once parsed' });
  assert.equal(st.sent.map(([op]) => op).filter((op) => op === 'pause' || op === 'resume').slice(0, 2), ['pause', 'resume']);
  assert.is(w.host, 'build');
  assert.is(w.pid, null);
  w.dispose();
});

test('a refusal before the start rejects ready with the host\'s code and ends the process', async () => {
  const f = fakeRemote({ value: true });
  const p = HostedPane.open(f.remote, spec);
  f.opened[0]!.cut('forbidden: the linked host hub may not open hosted-pane streams here ([hosts.hub] write)');
  const e = await p.ready.then(() => null, (x: unknown) => x);
  assert.ok(e instanceof TuiosError);
  assert.is((e as TuiosError).code, 'forbidden');
  assert.match(String(p.exitStatus?.reason), /^forbidden: /);
  assert.throws(() => HostedPane.open(f.remote, { ...spec, host: 'nowhere' }), (x: unknown) => x instanceof TuiosError && x.code === 'host_not_found');
});

test('a dropped link: disconnected, then a re-attach with the token and the bytes taken; its size and pause go again', async () => {
  const link = { value: true };
  const f = fakeRemote(link);
  const p = HostedPane.open(f.remote, spec);
  const first = f.opened[0]!;
  first.say('started', { pid: 7, cwd: '/', token: TOKEN });
  await p.ready;
  let got = '';
  p.onData((d) => (got += d.toString()));
  first.push(Buffer.from('12345'));
  await waitFor(() => got === '12345', { what: 'the first bytes' });
  p.pause();
  link.value = false;
  first.cut('host_down: the link to build dropped');
  await waitFor(() => p.disconnected, { what: 'disconnected' });
  assert.is(p.exitStatus, null, 'not ended');
  p.write('lost keys');
  p.resize(90, 20);
  assert.is(f.opened.length, 1, 'no stream while the link is down');
  link.value = true;
  f.up();
  const second = f.opened[1]!;
  assert.ok(second, 're-opened when the link came up');
  assert.equal(second.params.resume, { token: TOKEN, from: 5 });
  assert.is(second.params.cols, 90);
  second.say('started', { pid: 7, token: TOKEN });
  assert.is(p.status, 'running');
  assert.equal(second.sent, [['resize', { cols: 90, rows: 20 }], ['pause', {}]]);
  second.say('lost', { bytes: 10 });
  second.push(Buffer.from('678'));
  await waitFor(() => got.endsWith('678'), { what: 'what followed' });
  assert.match(got, /10 bytes of output from build were lost/);
  // Closing it while the link is down ends it at once.
  link.value = false;
  second.cut('host_down: the link to build dropped');
  await waitFor(() => p.disconnected, { what: 'disconnected again' });
  p.kill();
  assert.match(String(p.exitStatus?.reason), /^disconnected: closed while the link to build was down/);
});

test('a re-attach the host refuses (the process is gone there) ends the window with that reason', async () => {
  const link = { value: true };
  const f = fakeRemote(link);
  const p = HostedPane.open(f.remote, spec);
  f.opened[0]!.say('started', { pid: 7, token: TOKEN });
  await p.ready;
  link.value = false;
  f.opened[0]!.cut('host_down: the link to build dropped');
  await waitFor(() => p.disconnected, { what: 'disconnected' });
  link.value = true;
  f.up();
  f.opened[1]!.cut('not_found: No process for the window waits here to be re-attached.');
  await waitFor(() => p.exitStatus !== null, { what: 'the end' });
  assert.match(String(p.exitStatus?.reason), /^disconnected: build no longer runs the process/);
});

test('the process snapshot: malformed entries are left out; the reader answers as /proc would', () => {
  const snap = checkSnapshot({
    pid: 10,
    tpgid: 20,
    leaderStart: 5,
    procs: [
      { pid: 10, ppid: 1, pgrp: 10, comm: 'sh', argv: ['sh'], exe: '/bin/sh', cwd: '/w', agent: null, resolved: {} },
      { pid: 20, ppid: 10, pgrp: 20, comm: 'claude', argv: ['claude', 'x'], exe: '/usr/bin/node', cwd: '/w/p', agent: 'claude-code', resolved: { x: '/w/p/x' } },
      { pid: 'nope' },
      null,
    ],
  })!;
  assert.is(snap.procs.length, 2);
  const r = snapshotReader(snap);
  assert.is(r.info(20)?.comm, 'claude');
  assert.is(r.info(99), null);
  assert.equal(r.children(10), [20]);
  assert.is(r.env(20, 'TUIOS_AGENT'), 'claude-code');
  assert.is(r.env(20, 'HOME'), undefined, 'only what the snapshot carries');
  assert.is(r.realpath('x', '/w/p'), '/w/p/x');
  assert.is(checkSnapshot({ pid: -1, procs: [] }), null);
  assert.is(checkSnapshot('x'), null);
  // This process's own tree reads.
  const mine = readPaneProcs(process.pid)!;
  assert.is(mine.pid, process.pid);
  assert.ok(mine.procs.some((p) => p.pid === process.pid));
});

function servedPane(pid: number, calls: unknown[]): ServedPane {
  const sink = {
    callAs: (w: string, verb: string, params: Record<string, unknown>) => {
      calls.push([w, verb, params]);
      return Promise.resolve({ applied: true });
    },
  } as unknown as StreamSink;
  return { windowId: ID, host: 'hub', process: { pid, exitStatus: null } as never, tty: null, sink };
}

/** The verb's own record: what travels from a hosted pane is read from it (VerbDef.hosted). */
const verb = (name: string): VerbDef => {
  const v = allVerbs.find((x) => x.name === name);
  if (!v) throw new Error(`no verb ${name}`);
  return v as VerbDef;
};
const caller = (pid: number | null, paneHint: string | null = null): Caller => ({ connId: 1, channel: 'socket', pid, uid: 0, readOnly: false, paneHint });

test('who a host forwards for: the pane\'s process and what it started; anyone else naming the pane is refused', async () => {
  const panes = new HostedPanes();
  const calls: unknown[] = [];
  const signal = new AbortController().signal;
  // This test process stands in for the pane's process; a child of it is "in the pane".
  panes.add(servedPane(process.pid, calls));
  assert.is(panes.route(verb('set-agent-state'), { window: 'c'.repeat(32) }, caller(process.pid), signal, allVerbs), null, 'another window: not ours to route');
  assert.is(panes.route(verb('list-windows'), {}, caller(process.pid, ID), signal, allVerbs), null, 'no window named');
  const r = await panes.route(verb('set-agent-state'), { window: ID, session: 'x', state: 'idle', transcript_path: '/t', harness_pid: 4, nonce: 'n' }, caller(process.pid), signal, allVerbs);
  assert.equal(r, { applied: true });
  assert.equal(calls, [[ID, 'set-agent-state', { state: 'idle' }]], 'targets, nonce, transcript and harness pid dropped');
  // The pane id in the CLI's environment is the default for a verb that targets a window.
  await panes.route(verb('get-agent-state'), {}, caller(process.pid, ID), signal, allVerbs);
  assert.is(calls.length, 2);
  const child = spawn('sleep', ['30']);
  try {
    await waitFor(() => child.pid, { what: 'the child' });
    assert.ok(panes.contains(panes.get(ID)!, child.pid!), 'a descendant is inside');
  } finally {
    child.kill();
  }
  const refused = await panes.route(verb('set-agent-state'), { window: ID }, caller(1), signal, allVerbs)!.then(() => null, (e: unknown) => e);
  assert.ok(refused instanceof TuiosError && refused.code === 'forbidden', 'pid 1 is not in the pane');
  const none = await panes.route(verb('set-agent-state'), { window: ID }, caller(null), signal, allVerbs)!.then(() => null, (e: unknown) => e);
  assert.ok(none instanceof TuiosError && none.code === 'forbidden', 'no pid is no proof');
  const other = await panes.route(verb('capture-pane'), { window: ID }, caller(process.pid), signal, allVerbs)!.then(() => null, (e: unknown) => e);
  assert.ok(other instanceof TuiosError && other.code === 'unsupported', 'only report verbs travel');
  assert.is(panes.route(verb('set-agent-state'), { window: ID }, { ...caller(process.pid), channel: 'link' }, signal, allVerbs), null, 'a link caller is never routed');
  // Mail as the pane: named by the CLI's pane id; its window is the recipient there, kept.
  await panes.route(verb('send-agent-message'), { window: 'api', text: 'hi', nonce: 'n' }, caller(process.pid, ID), signal, allVerbs);
  assert.equal(calls[2], [ID, 'send-agent-message', { window: 'api', text: 'hi' }]);
  assert.is(panes.route(verb('send-agent-message'), { window: ID, text: 'hi' }, caller(process.pid), signal, allVerbs), null, 'without the pane id it is this machine\'s mail');
  const mailOut = await panes.route(verb('read-agent-messages'), {}, caller(1, ID), signal, allVerbs)!.then(() => null, (e: unknown) => e);
  assert.ok(mailOut instanceof TuiosError && mailOut.code === 'forbidden', 'the pane id in the environment is no proof for mail either');
});

test('waits from the pane travel with their own deadline: wait-for agent-message (at most an hour) and request-approval (the hold); other waits do not', async () => {
  const { HOOK_HOLD_MAX_MS } = await import('../../core/limits.js');
  const { DEFAULT_WAIT_MS, HOSTED_WAIT_MAX_MS, LINK_CALL_MARGIN_MS } = await import('../../core/limits.js');
  const panes = new HostedPanes();
  const calls: Array<[string, string, Record<string, unknown>, number | undefined]> = [];
  const sink = {
    callAs: (w: string, v: string, params: Record<string, unknown>, _s: AbortSignal, timeoutMs?: number) => {
      calls.push([w, v, params, timeoutMs]);
      return Promise.resolve({});
    },
  } as unknown as StreamSink;
  panes.add({ windowId: ID, host: 'hub', process: { pid: process.pid, exitStatus: null } as never, tty: null, sink });
  const signal = new AbortController().signal;
  const waitFor = verb('wait-for');
  await panes.route(waitFor, { condition: 'agent-message', timeout: 600_000, window: ID, session: 's' }, caller(process.pid), signal, allVerbs);
  assert.equal(calls[0], [ID, 'wait-for', { condition: 'agent-message', timeout: 600_000 }, 600_000 + LINK_CALL_MARGIN_MS]);
  await panes.route(waitFor, { condition: 'agent-message', timeout: 24 * 3_600_000 }, caller(process.pid, ID), signal, allVerbs);
  assert.is(calls[1]![3], HOSTED_WAIT_MAX_MS + LINK_CALL_MARGIN_MS, 'a day is cut to an hour');
  await panes.route(waitFor, { condition: 'agent-message' }, caller(process.pid, ID), signal, allVerbs);
  assert.is(calls[2]![3], DEFAULT_WAIT_MS + LINK_CALL_MARGIN_MS, 'the default wait');
  const approval = verb('request-approval');
  await panes.route(approval, { window: ID, harness: 'claude-code', tool: 'Bash', input: { command: 'ls' } }, caller(process.pid), signal, allVerbs);
  assert.equal(calls[3], [ID, 'request-approval', { harness: 'claude-code', tool: 'Bash', input: { command: 'ls' } }, HOOK_HOLD_MAX_MS + LINK_CALL_MARGIN_MS]);
  await panes.route(verb('set-agent-state'), { window: ID, state: 'idle' }, caller(process.pid), signal, allVerbs);
  assert.is(calls[4]![3], undefined, 'a report keeps the generic cap');
  const output = await panes.route(waitFor, { condition: 'window-output', pattern: 'x' }, caller(process.pid, ID), signal, allVerbs)!.then(() => null, (e: unknown) => e);
  assert.ok(output instanceof TuiosError && output.code === 'unsupported', 'only agent-message waits travel');
  assert.is(calls.length, 5);
});

test('the owner runs a report only for its own live hosted window on that host, as that window', async () => {
  const svc = { model: { windows: new Map() } } as never;
  const e = await runHostedReport(svc, 'build', ID, 'set-agent-state', '{}').then(() => null, (x: unknown) => x);
  assert.ok(e instanceof TuiosError && e.code === 'forbidden');
  const none = await runHostedReport(svc, 'build', null, 'set-agent-state', '{}').then(() => null, (x: unknown) => x);
  assert.ok(none instanceof TuiosError && none.code === 'forbidden');
});

test('a hosted pane\'s words over a link: input and control from the opener reach the handler; its control words reach the opener', async () => {
  const { LinkSession } = await import('../../link/session.js');
  const { ServedStreams, OpenedStream } = await import('../../link/streams.js');
  const { StreamKinds } = await import('../../core/hosts/streams.js');
  const { policyFor } = await import('../../link/policy.js');
  const { defaultConfig } = await import('../../core/config/schema.js');
  const { nullLogger } = await import('../../core/log.js');
  const a = new PassThrough();
  const b = new PassThrough();
  const x = Duplex.from({ readable: a, writable: b });
  const y = Duplex.from({ readable: b, writable: a });
  const opened = new Map<number, InstanceType<typeof OpenedStream>>();
  const hub = new LinkSession(x, { host: 'hub', bootId: 'a', log: nullLogger, accepts: new Set(['StreamData', 'StreamClose', 'StreamControl'] as never[]) }, {
    hello: () => {},
    frame: (f) => {
      if (f.kind === 'StreamControl') opened.get(f.body.stream)?.feedControl(f.body.op, f.body.params);
      if (f.kind === 'StreamClose') opened.get(f.body.stream)?.finish(f.body.reason);
    },
    close: () => {},
  });
  const got: string[] = [];
  const kinds = new StreamKinds();
  let reason: unknown = null;
  kinds.register('echo-pane', {
    right: 'write',
    open: (_svc, _p, sink) => {
      sink.onInput((d) => got.push(`in:${d.toString()}`));
      sink.onControl((op, p) => {
        got.push(`${op}:${JSON.stringify(p)}`);
        if (op === 'ping') sink.control('pong', { n: p.n });
      });
      sink.signal.addEventListener('abort', () => (reason = sink.signal.reason));
    },
  });
  let served: InstanceType<typeof ServedStreams> | null = null;
  const peer = new LinkSession(y, { host: 'peer', bootId: 'b', log: nullLogger, accepts: new Set(['StreamOpen', 'StreamClose', 'StreamData', 'StreamControl'] as never[]) }, {
    hello: () => (served = new ServedStreams({ log: nullLogger } as never, peer, kinds, 'hub', () => policyFor(defaultConfig(), 'hub'))),
    frame: (f) => {
      if (f.kind === 'StreamOpen') served!.onOpen(f.body.stream, f.body.kind, f.body.params);
      if (f.kind === 'StreamData') served!.onData(f.body.stream, f.body.data);
      if (f.kind === 'StreamControl') served!.onControl(f.body.stream, f.body.op, f.body.params);
      if (f.kind === 'StreamClose') served!.onClose(f.body.stream);
    },
    close: () => served?.dispose(),
  });
  await waitFor(() => served !== null && hub.up, { what: 'the link up' });
  const st = new OpenedStream(1, () => hub.send('StreamClose', { stream: 1, reason: 'closed by the viewer' }), {
    data: (d) => hub.send('StreamData', { stream: 1, data: d }),
    control: (op, p) => hub.send('StreamControl', { stream: 1, op, params: JSON.stringify(p) }),
  });
  opened.set(1, st);
  const pongs: unknown[] = [];
  st.onControl((op, p) => pongs.push([op, p]));
  hub.send('StreamOpen', { stream: 1, kind: 'echo-pane', params: '{}' });
  st.input(Buffer.from('ls\n'));
  st.control('ping', { n: 1 });
  await waitFor(() => pongs.length === 1, { what: 'the pong' });
  assert.equal(got, ['in:ls\n', 'ping:{"n":1}']);
  assert.equal(pongs, [['pong', { n: 1 }]]);
  st.destroy();
  await waitFor(() => reason !== null, { what: 'the handler told' });
  assert.is(reason, 'closed', 'the opener closed it (not the link)');
  hub.close({ code: 'local', detail: 'done' });
  peer.close({ code: 'local', detail: 'done' });
});

test.run();
