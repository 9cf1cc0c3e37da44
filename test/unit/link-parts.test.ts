// The link's parts without daemons: targets that name a host, the policy, what a peer's text
// becomes here, the mirror's limits, the outbox on disk and its sender, known hosts, the config
// edits of hosts add/rm, and two sessions talking over an in-memory pipe.
import { test } from 'uvu';
import { waitFor } from '../helpers/wait.js';
import * as assert from 'uvu/assert';
import { Duplex, PassThrough } from 'node:stream';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHmac, randomBytes } from 'node:crypto';
import { remoteTargetOf } from '../../core/hosts/target.js';
import type { RemoteHosts } from '../../core/hosts/remote.js';
import { checkRight, policyFor, rightFor } from '../../link/policy.js';
import { cleanAgentRow, cleanErrorBody, cleanResult } from '../../link/clean.js';
import { HostMirror } from '../../link/follow/mirror.js';
import { Outbox } from '../../link/outbox/outbox.js';
import { OutboxSender } from '../../link/outbox/sender.js';
import { judgeKey, KnownHosts, hostPattern } from '../../link/transport/known-hosts.js';
import { addHostText, removeHostText } from '../../link/hosts-config.js';
import { LinkSession, type CloseReason } from '../../link/session.js';
import { parseConfig } from '../../core/config/config.js';
import { defaultConfig } from '../../core/config/schema.js';
import { nullLogger } from '../../core/log.js';
import { TuiosError } from '../../core/errors.js';
import { allVerbs } from '../../core/verbs/index.js';
import type { AgentRow } from '../../link/codec/schema.js';
import { LINK_MAX_ROWS_PER_HOST, LINK_OUTBOX_PER_HOST } from '../../core/limits.js';

const hosts = (names: string[]) => ({ has: (n: string) => names.includes(n) }) as unknown as RemoteHosts;
const code = (fn: () => unknown): string => {
  try {
    fn();
    return 'ok';
  } catch (e) {
    return e instanceof TuiosError ? e.code : String(e);
  }
};

test('targets: HOST:SESSION, HOST:SESSION:WINDOW, HOST:WINDOW, local:, and a host nobody linked', () => {
  const r = hosts(['build']);
  const none = () => false;
  assert.equal(remoteTargetOf({ session: 'build:api' }, r, none), { remote: { host: 'build', session: 'api' } });
  assert.equal(remoteTargetOf({ window: 'build:api:claude' }, r, none), { remote: { host: 'build', window: 'api:claude' } });
  assert.equal(remoteTargetOf({ window: 'build:claude' }, r, none), { remote: { host: 'build', window: 'claude' } });
  // A session here named like the host keeps SESSION:WINDOW local.
  assert.equal(remoteTargetOf({ window: 'build:claude' }, r, (n) => n === 'build'), { local: { window: 'build:claude' } });
  assert.equal(remoteTargetOf({ session: 'local:api', window: 'local:w' }, r, none), { local: { session: 'api', window: 'w' } });
  assert.equal(remoteTargetOf({ session: 'api', window: 'w' }, r, none), { local: { session: 'api', window: 'w' } });
  assert.is(code(() => remoteTargetOf({ session: 'nowhere:api' }, r, none)), 'host_not_found');
  assert.is(code(() => remoteTargetOf({ window: 'a:b:c' }, null, none)), 'host_not_found');
  assert.is(code(() => remoteTargetOf({ session: 'api', window: 'build:api:w' }, r, none)), 'invalid_params');
});

test('policy: a host without a table may list and write; respond, files and hold_mail are off', () => {
  const c = defaultConfig();
  const p = policyFor(c, 'anyone');
  assert.equal([p.list, p.write, p.respond, p.files, p.hold_mail], [true, true, false, false, false]);
  const verb = (n: string) => allVerbs.find((v) => v.name === n)!;
  assert.is(rightFor(verb('capture-pane')), 'list');
  assert.is(rightFor(verb('send-text')), 'write');
  assert.is(rightFor(verb('respond')), 'respond');
  assert.is(rightFor(verb('release-agent-message')), 'respond');
  // Every act of the person needs respond over a link, read from its record (access 'person'):
  // release-approval had been left off a hand-kept list of them.
  assert.is(rightFor(verb('release-approval')), 'respond');
  for (const v of allVerbs.filter((x) => x.access === 'person')) {
    if (v.target === 'none' && !v.link?.untargeted) assert.is(code(() => rightFor(v)), 'forbidden', `${v.name}: not over a link at all`);
    else assert.is(rightFor(v), 'respond', v.name);
    assert.ok('nonce' in v.params.shape, `${v.name} takes the attach nonce the dispatcher verifies`);
  }
  assert.is(rightFor(verb('diff-worktree')), 'files', 'a diff is the files\' content');
  assert.is(rightFor(verb('remove-worktree')), 'write');
  assert.is(code(() => rightFor(verb('kill-server'))), 'forbidden');
  assert.is(code(() => rightFor(verb('subscribe'))), 'unsupported');
  assert.is(code(() => checkRight(p, 'hub', 'respond', 'respond')), 'forbidden');
  const withTable = parseConfig('[hosts.hub]\nrespond = true\nwrite = false\n').config!;
  const q = policyFor(withTable, 'hub');
  assert.equal([q.write, q.respond], [false, true]);
});

test('a peer\'s rows are data: control and invisible characters removed, texts cut, numbers finite', () => {
  const row: AgentRow = {
    window_id: 'w1;rm -rf /',
    short_id: 'w1',
    name: 'x\x1b[2Jname\u202e',
    session: 'a:b',
    session_id: 's',
    workspace: Number.NaN,
    harness: 'claude\x07',
    state: 'needs_input',
    kind: 'approval',
    message: 'y'.repeat(5000),
    source: null,
    needs_you: true,
    state_since: Number.POSITIVE_INFINITY,
    completion_seq: -5,
    finished_unread: false,
    group: null,
    cwd: '/home/x',
  };
  const c = cleanAgentRow(row);
  assert.is(c.window_id, 'w1rm-rf');
  assert.is(c.name, 'x[2Jname');
  assert.is(c.session, 'a-b', 'a session name never holds the target separator');
  assert.is(c.harness, 'claude');
  assert.is([...c.message].length, 300);
  assert.is(c.workspace, 1);
  assert.is(c.state_since, 0);
  assert.is(c.completion_seq, 0);
  const deep: unknown = JSON.parse('{"a":' + '['.repeat(40) + ']'.repeat(40) + ',"__proto__":{"x":1},"t":"\\u001b]0;x\\u0007ok"}');
  const r = cleanResult(deep) as Record<string, unknown>;
  assert.is(r.t, ']0;xok');
  assert.not.ok(Object.prototype.hasOwnProperty.call(r, '__proto__'));
  const e = cleanErrorBody({ code: 'not_a_code', message: 'bad\x1b[31m', hint: 'h' }, 'build');
  assert.is(e.code, 'internal');
  assert.is(e.message, 'build: bad[31m');
});

test('the mirror holds at most 256 rows per host, replaces them on a snapshot\'s last chunk, and resumes from its sequence', () => {
  const m = new HostMirror();
  const row = (i: number): AgentRow => ({ window_id: `w${i}`, short_id: `w${i}`, name: `n${i}`, session: 's', session_id: 's', workspace: 1, harness: null, state: 'working', kind: '', message: '', source: null, needs_you: false, state_since: 1, completion_seq: 0, finished_unread: false, group: null, cwd: null });
  const rows = Array.from({ length: 300 }, (_, i) => row(i));
  assert.equal(m.apply({ kind: 'AgentSnapshot', body: { boot_id: 'b1', seq: 10, rows: rows.slice(0, 200), last: false } }), []);
  assert.is(m.agents.size, 0, 'nothing shows before the last chunk');
  const ch = m.apply({ kind: 'AgentSnapshot', body: { boot_id: 'b1', seq: 10, rows: rows.slice(200), last: true } });
  assert.is(m.agents.size, LINK_MAX_ROWS_PER_HOST);
  assert.is(ch.length, LINK_MAX_ROWS_PER_HOST);
  assert.is(m.dropped, 300 - LINK_MAX_ROWS_PER_HOST);
  assert.equal([m.bootId, m.seq], ['b1', 10]);
  m.apply({ kind: 'AgentDelta', body: { seq: 11, window_id: 'w0', row: null } });
  assert.is(m.agents.size, LINK_MAX_ROWS_PER_HOST - 1);
  assert.is(m.seq, 11);
  const again = m.apply({ kind: 'AgentSnapshot', body: { boot_id: 'b2', seq: 3, rows: [row(1)], last: true } });
  assert.is(m.agents.size, 1);
  assert.ok(again.some((c) => c.row === null), 'rows the new snapshot lacks are removed');
  assert.equal([m.bootId, m.seq], ['b2', 3]);
});

test('the outbox is on disk (0600), in order, at most 64, and a file that does not read is set aside', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tuios-outbox-'));
  const o = new Outbox(dir, 'build', nullLogger);
  const mail = (n: number) => ({ to_session: 'api', to_window: null, from: 'me', from_kind: 'shell', subject: '', body: `m${n}` });
  for (let i = 0; i < LINK_OUTBOX_PER_HOST; i++) o.add(mail(i));
  assert.is(code(() => o.add(mail(99))), 'queue_full');
  assert.is(statSync(o.file).mode & 0o777, 0o600);
  const back = new Outbox(dir, 'build', nullLogger);
  assert.equal(back.list().map((e) => e.body).slice(0, 3), ['m0', 'm1', 'm2']);
  back.refuse(back.head()!, 'session_not_found', 'There is no session "api".');
  const again = new Outbox(dir, 'build', nullLogger);
  assert.is(again.size, LINK_OUTBOX_PER_HOST - 1);
  assert.is(again.refusals()[0]!.code, 'session_not_found');
  writeFileSync(o.file, '{nope');
  const broken = new Outbox(dir, 'build', nullLogger);
  assert.is(broken.size, 0);
});

test('the sender sends one message at a time, in order, and a refusal takes it off the queue', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tuios-outbox-'));
  const sent: string[] = [];
  let up = false;
  const refused: string[] = [];
  const s = new OutboxSender(new Outbox(dir, 'ci', nullLogger), { up: () => up, send: (e) => (sent.push(e.body), true) }, { changed: () => {}, refused: (r) => refused.push(r.code) }, nullLogger);
  const mail = (body: string) => ({ to_session: 'api', to_window: null, from: 'me', from_kind: 'shell', subject: '', body });
  const a = s.add(mail('a'));
  const b = s.add(mail('b'));
  assert.equal(sent, [], 'nothing goes while the link is down');
  up = true;
  s.linkUp();
  assert.equal(sent, ['a'], 'only the head is in flight');
  s.onAck({ id: a.id, ok: true, code: '', message: '', message_id: 1, thread: 1, held: false, held_for: null });
  assert.equal(sent, ['a', 'b']);
  s.onAck({ id: b.id, ok: false, code: 'forbidden', message: 'no', message_id: 0, thread: 0, held: false, held_for: null });
  assert.equal(refused, ['forbidden']);
  assert.is(s.outbox.size, 0);
  s.dispose();
});

test('known hosts: plain and hashed names, [host]:port, a changed key, @revoked, negation', () => {
  const key = Buffer.concat([Buffer.from([0, 0, 0, 11]), Buffer.from('ssh-ed25519'), Buffer.from([0, 0, 0, 32]), randomBytes(32)]);
  const other = Buffer.concat([Buffer.from([0, 0, 0, 11]), Buffer.from('ssh-ed25519'), Buffer.from([0, 0, 0, 32]), randomBytes(32)]);
  const b64 = key.toString('base64');
  const name = hostPattern('build.lan', 2222);
  assert.is(name, '[build.lan]:2222');
  assert.is(hostPattern('build.lan', 22), 'build.lan');
  assert.is(judgeKey(`${name} ssh-ed25519 ${b64}\n`, 'f', name, key).kind, 'known');
  const salt = randomBytes(20);
  const hashed = `|1|${salt.toString('base64')}|${createHmac('sha1', salt).update(name).digest('base64')}`;
  assert.is(judgeKey(`${hashed} ssh-ed25519 ${b64}\n`, 'f', name, key).kind, 'known');
  assert.is(judgeKey(`${name} ssh-ed25519 ${other.toString('base64')}\n`, 'f', name, key).kind, 'changed');
  assert.is(judgeKey(`@revoked * ssh-ed25519 ${b64}\n`, 'f', name, key).kind, 'revoked');
  assert.is(judgeKey(`*.lan,![build.lan]:2222 ssh-ed25519 ${other.toString('base64')}\n`, 'f', name, key).kind, 'unknown');
  assert.is(judgeKey('', 'f', name, key).kind, 'unknown');
  const dir = mkdtempSync(join(tmpdir(), 'tuios-kh-'));
  const kh = new KnownHosts(join(dir, 'known_hosts'), null);
  kh.record('build.lan', 2222, key);
  assert.is(kh.judge('build.lan', 2222, key).kind, 'known');
  assert.is(kh.judge('build.lan', 2222, other).kind, 'changed');
  assert.is(statSync(kh.own).mode & 0o777, 0o600);
  kh.forget('build.lan', 2222);
  assert.is(kh.judge('build.lan', 2222, key).kind, 'unknown');
});

test('hosts add and rm edit config.toml as text: comments and other tables stay', () => {
  const before = '# my config\n[ssh]\nlisten = "127.0.0.1:2222" # mine\n';
  const added = addHostText(before, 'build', { address: 'build.lan', port: 2222, identity: '~/.ssh/id_ed25519' });
  assert.ok(added.startsWith(before.trimEnd()));
  const c = parseConfig(added).config!;
  assert.is(c.hosts.build!.address, 'build.lan');
  assert.is(code(() => addHostText(added, 'build', { address: 'x' })), 'name_taken');
  const both = addHostText(added, 'ci', { address: 'ci.lan', port: 22 });
  const removed = removeHostText(both, 'build');
  assert.ok(removed.includes('# my config') && removed.includes('# mine'));
  assert.equal(Object.keys(parseConfig(removed).config!.hosts), ['ci']);
  assert.is(code(() => removeHostText('hosts = { x = { address = "a" } }\n', 'x')), 'conflict');
  const example = parseConfig(readFileSync(join(process.cwd(), 'deploy', 'config.example.toml'), 'utf8'));
  assert.is(example.error, null);
  assert.equal(example.warnings, []);
});

/** Two ends of an in-memory byte pipe. */
function pipePair(): [Duplex, Duplex] {
  const ab = new PassThrough();
  const ba = new PassThrough();
  const a = Duplex.from({ readable: ba, writable: ab });
  const b = Duplex.from({ readable: ab, writable: ba });
  return [a, b];
}

test('two sessions: Hello both ways, Ping answered, a wrong-way frame answered Unsupported', async () => {
  const [x, y] = pipePair();
  const closed: CloseReason[] = [];
  const got: string[] = [];
  let ready = 0;
  const mk = (s: Duplex, host: string, accepts: string[]) =>
    new LinkSession(s, { host, bootId: `boot-${host}`, log: nullLogger, accepts: new Set(accepts as never[]) }, { hello: () => ready++, frame: (f) => got.push(`${host}<${f.kind}`), close: (r) => closed.push(r) });
  const hub = mk(x, 'hub', ['AgentSnapshot', 'Result', 'MailAck']);
  const peer = mk(y, 'peer', ['Follow', 'Mail', 'Call']);
  await waitFor(() => ready === 2, { what: 'both Hellos' });
  assert.is(ready, 2);
  assert.is(hub.peer?.host, 'peer');
  assert.is(peer.peer?.host, 'hub');
  hub.send('Follow', { boot_id: '', seq: 0 });
  hub.send('AgentSnapshot', { boot_id: 'b', seq: 1, rows: [], last: true }); // the wrong way
  await waitFor(() => got.includes('peer<Follow') && got.includes('hub<Unsupported'), { what: 'the Follow and the Unsupported answer' });
  assert.ok(got.includes('peer<Follow'));
  assert.ok(got.includes('hub<Unsupported'));
  assert.not.ok(got.includes('peer<AgentSnapshot'));
  hub.close({ code: 'local', detail: 'done' });
  await waitFor(() => closed.length >= 1, { what: 'the close' });
  assert.ok(closed.length >= 1);
});

test('no common protocol closes both sides with the reason version', async () => {
  const [x, y] = pipePair();
  // y is written by hand and has no session to listen on it: its end going away is expected.
  y.on('error', () => {});
  const reasons: CloseReason[] = [];
  const h = new LinkSession(x, { host: 'hub', bootId: 'b', log: nullLogger, accepts: new Set() }, { hello: () => {}, frame: () => {}, close: (r) => reasons.push(r) });
  void h;
  // A peer that speaks only protocol 9: its Hello, by hand.
  const { encodeFrame } = await import('../../link/codec/frames.js');
  const { FRAME_SCHEMA_JSON } = await import('../../link/codec/schema.js');
  y.write(encodeFrame({ kind: 'Hello', body: { host: 'future', version: '9.0', protocol_min: 9, protocol_max: 9, boot_id: 'z', capabilities: [], schema: FRAME_SCHEMA_JSON, fingerprint: '' } }, 1 << 20));
  await waitFor(() => reasons.length > 0, { what: 'the close for version' });
  assert.is(reasons[0]?.code, 'version');
  assert.match(reasons[0]!.detail, /protocol 9-9/);
});

test('streams: data in order and a clean end; an unknown kind, a kind the policy refuses, and past 16 at once are closed with the reason', async () => {
  const { ServedStreams, OpenedStream } = await import('../../link/streams.js');
  const { StreamKinds } = await import('../../core/hosts/streams.js');
  const [x, y] = pipePair();
  const opened = new Map<number, InstanceType<typeof OpenedStream>>();
  const hub = new LinkSession(x, { host: 'hub', bootId: 'a', log: nullLogger, accepts: new Set(['StreamData', 'StreamClose'] as never[]) }, {
    hello: () => {},
    frame: (f) => {
      if (f.kind === 'StreamData') opened.get(f.body.stream)?.feed(f.body.data);
      if (f.kind === 'StreamClose') opened.get(f.body.stream)?.finish(f.body.reason);
    },
    close: () => {},
  });
  let served: InstanceType<typeof ServedStreams> | null = null;
  const kinds = new StreamKinds();
  const aborted: number[] = [];
  kinds.register('echo', { right: 'list', open: async (_svc, p, sink) => {
    for (const part of p.parts as string[]) await sink.write(Buffer.from(part));
    sink.end();
  } });
  kinds.register('hang', { right: 'list', open: (_svc, p, sink) => void sink.signal.addEventListener('abort', () => aborted.push(Number(p.n))) });
  kinds.register('secret', { right: 'files', open: (_svc, _p, sink) => sink.end() });
  const policy = { ...policyFor(defaultConfig(), 'hub') };
  const peer = new LinkSession(y, { host: 'peer', bootId: 'b', log: nullLogger, accepts: new Set(['StreamOpen', 'StreamClose'] as never[]) }, {
    hello: () => (served = new ServedStreams({ log: nullLogger } as never, peer, kinds, 'hub', () => policy)),
    frame: (f) => {
      if (f.kind === 'StreamOpen') served!.onOpen(f.body.stream, f.body.kind, f.body.params);
      if (f.kind === 'StreamClose') served!.onClose(f.body.stream);
    },
    close: () => served?.dispose(),
  });
  await waitFor(() => served !== null, { what: 'the peer to serve streams' });
  let next = 1;
  const open = (kind: string, params: Record<string, unknown>) => {
    const id = next++;
    const st = new OpenedStream(id, () => hub.send('StreamClose', { stream: id, reason: 'closed by the viewer' }));
    opened.set(id, st);
    hub.send('StreamOpen', { stream: id, kind, params: JSON.stringify(params) });
    return st;
  };
  const read = (st: InstanceType<typeof OpenedStream>) => new Promise<{ data: string; reason: string | null }>((resolve) => {
    let data = '';
    st.on('data', (d: Buffer) => (data += d.toString()));
    st.on('end', () => resolve({ data, reason: st.closeReason }));
    st.on('error', () => resolve({ data, reason: st.closeReason }));
  });
  assert.equal(await read(open('echo', { parts: ['one ', 'two ', 'three'] })), { data: 'one two three', reason: '' });
  assert.match(String((await read(open('nothing-here', {}))).reason), /^unsupported: /);
  assert.match(String((await read(open('secret', {}))).reason), /^forbidden: .*files/);
  const hanging = Array.from({ length: 16 }, (_, n) => open('hang', { n }));
  assert.match(String((await read(open('hang', { n: 99 }))).reason), /^limit_reached: /);
  hanging[0]!.destroy();
  await waitFor(() => aborted.length > 0, { what: 'the handler aborted' });
  assert.equal(aborted, [0], 'closing a stream here aborts its handler there');
  hub.close({ code: 'local', detail: 'done' });
  await waitFor(() => aborted.length === 16, { what: 'every stream ended' });
  assert.equal(aborted.length, 16, 'the link going ends every stream');
  peer.close({ code: 'local', detail: 'done' });
});

test('the journal: a row goes out only when it changed; a resume gets what changed since, or a snapshot for another boot or a sequence it no longer covers', async () => {
  const { Journal } = await import('../../link/serve/journal.js');
  const { Bus } = await import('../../core/bus.js');
  const { LINK_JOURNAL_ENTRIES } = await import('../../core/limits.js');
  const bus = new Bus();
  const items = new Map<number, Record<string, unknown>>();
  const svc = { bus, bootId: 'boot-1', model: { windows: new Map(), sessions: new Map() }, inbox: { items, list: () => [...items.values()] }, agents: {} };
  const j = new Journal(svc as never);
  const seen: string[] = [];
  j.follow((f) => seen.push(f.kind));
  const item = (id: number, summary: string) => ({ id, kind: 'question', window_id: null, session_id: null, session: 's', name: 'n', harness: null, summary, opened_at: 1, updated_at: 1, snoozed_until: null, unread: true, ref: {} });
  const put = (id: number, summary: string) => {
    items.set(id, item(id, summary));
    bus.publish('attention', { op: 'update', reason: 'test', item: items.get(id) as never });
  };
  put(1, 'first');
  put(1, 'first');
  assert.equal(seen, ['InboxDelta'], 'the same row twice goes out once');
  put(2, 'second');
  const at = j.seq;
  put(1, 'changed');
  items.delete(2);
  bus.publish('attention', { op: 'close', reason: 'test', item: item(2, '') as never });
  const since = j.resume('boot-1', at);
  assert.equal(since.map((f) => [f.kind, (f.body as { item_id: number }).item_id, !!(f.body as { item: unknown }).item]), [['InboxDelta', 1, true], ['InboxDelta', 2, false]]);
  assert.equal(j.resume('boot-0', at).map((f) => f.kind), ['AgentSnapshot', 'InboxSnapshot']);
  for (let i = 0; i < LINK_JOURNAL_ENTRIES + 10; i++) put(3, `flip ${i}`);
  assert.equal(j.resume('boot-1', at).map((f) => f.kind), ['AgentSnapshot', 'InboxSnapshot'], 'too old for the journal');
  assert.is(j.resume('boot-1', j.seq - 1).length, 1);
  j.dispose();
});

test.run();
