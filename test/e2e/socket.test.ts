// The verb socket under bad input, and a daemon that is killed and comes back.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connect } from 'node:net';
import { TestDaemon } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { RpcError } from '../../core/rpc/client.js';

let d: TestDaemon;

test.before(async () => {
  d = await TestDaemon.start();
});

test.after(async () => {
  await d.stop();
});

/** A raw connection: write lines, read answer lines. */
function raw(socket: string) {
  const s = connect(socket);
  let buf = '';
  const lines: string[] = [];
  s.setEncoding('utf8');
  s.on('data', (x: string) => {
    buf += x;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      lines.push(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
    }
  });
  let closed = false;
  s.on('close', () => (closed = true));
  return {
    write: (t: string) => s.write(t),
    next: async () => {
      await waitFor(() => lines.length > 0, { what: 'an answer line' });
      return JSON.parse(lines.shift()!) as { id: unknown; result?: unknown; error?: { code: string; message: string; field?: string } };
    },
    get closed() {
      return closed;
    },
    end: () => s.destroy(),
  };
}

test('a malformed line and an unknown verb get typed errors, and the connection still works', async () => {
  const c = raw(d.socket);
  c.write('this is not json\n');
  const a = await c.next();
  assert.is(a.error?.code, 'invalid_request');
  c.write('{"id":2,"verb":"no-such-verb"}\n');
  const b = await c.next();
  assert.is(b.id, 2);
  assert.is(b.error?.code, 'unknown_verb');
  c.write('{"id":3,"verb":"resize-window","params":{"cols":"wide"}}\n');
  const e = await c.next();
  assert.is(e.error?.code, 'invalid_params');
  assert.is(e.error?.field, 'cols');
  c.write('{"id":4,"verb":"capture-pane","params":{"window":"nope"}}\n');
  const f = await c.next();
  assert.is(f.error?.code, 'window_not_found');
  c.write('[1,2]\n{"id":5,"verb":"list-sessions"}\n');
  assert.is((await c.next()).error?.code, 'invalid_request');
  const ok = await c.next();
  assert.is(ok.id, 5);
  assert.ok(ok.result, 'list-sessions answered after the bad lines');
  c.end();
});

test('a missing param is named', async () => {
  try {
    await d.call('set-session-name', {});
    assert.unreachable('should refuse');
  } catch (e) {
    assert.instance(e, RpcError);
    assert.is((e as RpcError).code, 'invalid_params');
    assert.is((e as RpcError).body.field, 'name');
  }
});

test('a line over 1 MiB closes that connection only', async () => {
  const big = raw(d.socket);
  const other = raw(d.socket);
  big.write('{"id":1,"verb":"list-sessions","params":{"x":"' + 'a'.repeat(1024 * 1024 + 10));
  const a = await big.next();
  assert.is(a.error?.code, 'line_too_long');
  await waitFor(() => big.closed, { what: 'the oversized connection to close' });
  other.write('{"id":9,"verb":"server-info"}\n');
  const b = await other.next();
  assert.is(b.id, 9);
  assert.ok(b.result);
  other.end();
});

test('the CLI answers the same over node:net when the light pipe transport is off', async () => {
  const fast = await d.json<{ sessions: unknown[] }>(['list-sessions']);
  const r = await d.cli(['list-sessions', '--json'], { env: { TUIOS_NO_FAST_SOCKET: '1' } });
  assert.is(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout), fast);
});

test('at most 64 connections per caller process; the next is refused with rate_limited', async () => {
  const { RpcClient } = await import('../../core/rpc/client.js');
  const held: Array<Awaited<ReturnType<typeof RpcClient.connect>>> = [];
  try {
    for (let i = 0; i < 64; i++) held.push(await RpcClient.connect(d.socket));
    await held[63]!.call('server-info');
    const extra = await RpcClient.connect(d.socket);
    held.push(extra);
    const r = await extra.call('server-info').then(
      () => null,
      (e: { code?: string }) => e.code,
    );
    assert.is(r, 'rate_limited');
  } finally {
    for (const c of held) c.close();
  }
  // Closing them frees the slots.
  await waitFor(async () => {
    try {
      await d.call('server-info');
      return true;
    } catch {
      return false;
    }
  }, { what: 'a connection after the others closed' });
});

test('config.toml is watched: a bad file keeps the last good config and says why; an unknown key is named', async () => {
  const { writeFileSync } = await import('node:fs');
  const file = `${d.env.XDG_CONFIG_HOME}/tuios/config.toml`;
  writeFileSync(file, '[daemon]\nscrollback = 1234\nmystery = 1\n');
  await waitFor(async () => (await d.call<{ config_warnings: string[] }>('server-info')).config_warnings.some((w) => w.includes('daemon.mystery')), { what: 'the unknown key warning' });
  writeFileSync(file, '[daemon\n');
  const info = await waitFor(async () => {
    const i = await d.call<{ config_error: string | null }>('server-info');
    return i.config_error ? i : null;
  }, { what: 'the parse error' });
  assert.match(info.config_error!, /does not parse/);
  writeFileSync(file, '');
  await waitFor(async () => (await d.call<{ config_error: string | null }>('server-info')).config_error === null, { what: 'a good file again' });
});

test('list-verbs names every verb with its params', async () => {
  const r = await d.call<{ verbs: Array<{ name: string; summary: string; params: Array<{ name: string }> }> }>('list-verbs');
  const names = r.verbs.map((v) => v.name);
  for (const n of ['new-session', 'list-sessions', 'kill-session', 'set-session-name', 'new-window', 'list-windows', 'close-window', 'set-window', 'resize-window', 'send-text', 'send-keys', 'capture-pane', 'wait-for', 'subscribe', 'kill-server', 'list-verbs']) {
    assert.ok(names.includes(n), `verb ${n}`);
  }
  const st = r.verbs.find((v) => v.name === 'send-text')!;
  assert.ok(st.params.some((p) => p.name === 'submit'));
});

test('subscribe streams typed events', async () => {
  const c = await d.client();
  const events: Array<{ type: string; name?: string }> = [];
  const first = await c.stream<{ subscribed: boolean; boot_id: string }>('subscribe', { types: ['session-*', 'window-created'] }, (ev) => events.push(ev as { type: string }));
  assert.ok(first.subscribed);
  await d.ok(['new-session', 'evented']);
  await waitFor(() => events.some((e) => e.type === 'session-created' && e.name === 'evented'), { what: 'session-created' });
  await waitFor(() => events.some((e) => e.type === 'window-created'), { what: 'window-created' });
  assert.ok(events.every((e) => e.type.startsWith('session-') || e.type === 'window-created'));
  c.close();
});

test('kill -9 of the daemon, then any verb: the daemon comes back with its sessions and windows', async () => {
  await d.ok(['new-session', 'keep', '-c', '/tmp']);
  await d.ok(['new-window', '-s', 'keep', 'second', '--cwd', '/usr']);
  await d.ok(['set-window', '-w', 'keep:second', 'renamed']);
  // Let the snapshot land (it is written within ~100 ms of a change).
  await waitFor(async () => {
    const { readFileSync } = await import('node:fs');
    try {
      return readFileSync(`${d.env.XDG_STATE_HOME}/tuios/sessions.json`, 'utf8').includes('renamed');
    } catch {
      return false;
    }
  }, { what: 'the snapshot to record the rename' });
  const before = await d.call<{ windows: Array<{ id: string; name: string; session: string; cwd: string }> }>('list-windows');
  d.kill9();
  await d.waitExit();
  assert.not.ok(await d.answers(), 'the daemon is gone');
  const after = await d.json<{ windows: Array<{ id: string; name: string; session: string; cwd: string; pid: number }> }>(['list-windows']);
  const keep = after.windows.filter((w) => w.session === 'keep');
  assert.is(keep.length, 2);
  const renamed = keep.find((w) => w.name === 'renamed');
  assert.ok(renamed, 'the renamed window is back with its name');
  assert.is(renamed!.cwd, '/usr');
  const first = keep.find((w) => w.name !== 'renamed')!;
  assert.is(first.cwd, '/tmp');
  assert.ok(first.pid > 0, 'with a new shell');
  // Ids are kept, so anything keyed by window id survives the restart too.
  for (const w of keep) assert.ok(before.windows.some((b) => b.id === w.id));
});

test.run();
