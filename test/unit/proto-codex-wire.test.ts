// The two ends of the Codex adapter that touch another program: the JSON-RPC line reader
// (proto/codex-wire.ts), whose every line is data, and the process starter (proto/codex-process.ts),
// which starts the app-server in a session of its own and leaves nothing of it running.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PassThrough } from 'node:stream';
import { readStat } from '../../core/pty/procfs.js';
import { CODEX_LINE_MAX_BYTES, CODEX_PENDING_MAX } from '../../proto/codex-limits.js';
import { launchAppServer, lastLine, sessionMembers } from '../../proto/codex-process.js';
import { LineRpc, RpcError, type Json } from '../../proto/codex-wire.js';
import { waitFor } from '../helpers/wait.js';

function wire() {
  const input = new PassThrough();
  const output = new PassThrough();
  const notes: Array<[string, Json]> = [];
  const requests: Array<[string | number, string]> = [];
  let closed = 0;
  const rpc = new LineRpc(input, output, {
    notification: (m, p) => notes.push([m, p]),
    request: (id, m) => requests.push([id, m]),
    closed: () => closed++,
  });
  const written: Json[] = [];
  output.on('data', (d: Buffer) => {
    for (const l of d.toString().split('\n').filter(Boolean)) written.push(JSON.parse(l));
  });
  return { input, rpc, notes, requests, written, closed: () => closed };
}

const tick = () => new Promise((r) => setImmediate(r));

test('a line past the limit, a line that is not JSON and one that is not an object are dropped; the next line is read', async () => {
  const w = wire();
  const big = `{"method":"x","params":"${'a'.repeat(CODEX_LINE_MAX_BYTES)}"}\n`;
  // The long line arrives in pieces, as a pipe gives it.
  for (let i = 0; i < big.length; i += 1 << 20) w.input.write(big.slice(i, i + (1 << 20)));
  w.input.write('not json\n[1,2]\n\n{"method":"turn/started","params":{"a":1}}\n');
  await tick();
  assert.equal(w.notes, [['turn/started', { a: 1 }]]);
  assert.is(w.rpc.dropped, 3);
});

test('a request from the server is told from a notification and from an answer; a message cut across reads arrives whole', async () => {
  const w = wire();
  const p = w.rpc.request('initialize', {}, 5_000);
  const id = w.written[0]?.id ?? 1;
  w.input.write('{"id":0,"method":"item/tool/call","par');
  w.input.write(`ams":{}}\n{"id":${id},"result":{"ok":`);
  w.input.write('true}}\n');
  assert.equal(await p, { ok: true });
  assert.equal(w.requests, [[0, 'item/tool/call']]);
  const q = w.rpc.request('thread/start', {}, 5_000);
  w.input.write(`{"id":${id + 1},"error":{"code":-32600,"message":"no"}}\n`);
  await q.then(
    () => assert.unreachable('resolved'),
    (e: RpcError) => {
      assert.instance(e, RpcError);
      assert.is(e.code, -32600);
    },
  );
});

test('requests awaiting an answer are bounded, and all fail when the stream ends', async () => {
  const w = wire();
  const pending = Array.from({ length: CODEX_PENDING_MAX }, () => w.rpc.request('x', {}, 60_000).catch((e: Error) => e.message));
  const over = await w.rpc.request('x', {}, 60_000).catch((e: Error) => e.message);
  assert.match(String(over), /too many requests/);
  w.input.end();
  const all = await Promise.all(pending);
  assert.ok(all.every((m) => m === 'the app-server exited'));
  assert.is(w.closed(), 1);
});

test('stderr says why: its last error line, else its last line, without colours', () => {
  assert.is(lastLine("\x1b[2m2026\x1b[0m ERROR bubblewrap\nerror: unexpected argument '--x' found\n\nUsage: codex\nFor more information, try '--help'.\n"), "error: unexpected argument '--x' found");
  assert.is(lastLine('\x1b[31mfirst\x1b[0m\nsecond\n'), 'second');
});

test('the app-server runs in a session of its own with no terminal, and stopping it ends all it left in that session', async () => {
  // A stand-in for the app-server that leaves a helper in a process group of its own, as a
  // daemonizing helper would: `perl ... app-server` (the launcher adds `app-server` last).
  const io = await launchAppServer({ cwd: '/', env: process.env, log: () => undefined, command: ['perl', '-e', 'if (fork() == 0) { setpgrp(0, 0); exec("sleep", "300"); } $| = 1; print "ready\\n"; sleep 300;'] });
  const ready = new Promise<void>((r) => io.stdout.once('data', () => r()));
  await ready;
  const sid = io.pid!;
  assert.is(readStat(sid)!.session, sid, 'it leads a session of its own');
  const members = await waitFor(() => {
    const pids = sessionMembers(sid);
    return pids.length >= 2 ? pids : null;
  }, { what: 'the helper in the session' });
  for (const pid of members) {
    const st = readStat(pid)!;
    assert.is(st.ttyNr, 0, 'no controlling terminal');
  }
  assert.ok(members.some((p) => readStat(p)!.pgrp !== sid), 'the helper is in a group of its own');
  await io.stop();
  await waitFor(() => members.every((p) => readStat(p) === null || readStat(p)!.state === 'Z'), { what: 'every process of the session to end' });
  assert.match(await io.exited, /SIGTERM|status/);
});

test.run();
