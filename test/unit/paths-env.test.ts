import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, mkdirSync, chownSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveSocket, ensurePrivateDir, uid } from '../../core/config/paths.js';
import { resolvePaneTerm, buildPaneEnv, isReservedEnvName } from '../../core/pty/env.js';

test('the socket: --server, then TUIOS_SERVER, then XDG_RUNTIME_DIR, then /tmp/tuios-UID', () => {
  assert.equal(resolveSocket({ TUIOS_SERVER: '/a/s' }, '/b/s'), { socket: '/b/s', explicit: true });
  assert.equal(resolveSocket({ TUIOS_SERVER: '/a/s', XDG_RUNTIME_DIR: '/run/u' }), { socket: '/a/s', explicit: true });
  assert.equal(resolveSocket({ XDG_RUNTIME_DIR: '/run/u' }), { socket: '/run/u/tuios/tuios.sock', explicit: false });
  assert.equal(resolveSocket({}), { socket: `/tmp/tuios-${uid()}/tuios.sock`, explicit: false });
});

test('the socket folder is made 0700, and one another user owns is refused', () => {
  const base = mkdtempSync(join(tmpdir(), 'tuios-paths-'));
  const mine = join(base, 'mine');
  ensurePrivateDir(mine);
  assert.is(statSync(mine).mode & 0o777, 0o700);
  if (uid() === 0) {
    const theirs = join(base, 'theirs');
    mkdirSync(theirs, { mode: 0o700 });
    chownSync(theirs, 65534, 65534);
    assert.throws(() => ensurePrivateDir(theirs), /belongs to another user/);
  }
});

test("TERM: the client's when this machine has its terminfo entry, else xterm-256color", () => {
  assert.is(resolvePaneTerm('xterm-256color', {}), 'xterm-256color');
  assert.is(resolvePaneTerm('tmux-256color', {}), 'tmux-256color');
  assert.is(resolvePaneTerm('xterm-nosuchterminal', {}), 'xterm-256color');
  assert.is(resolvePaneTerm('../../etc/passwd', {}), 'xterm-256color');
  assert.is(resolvePaneTerm(undefined, {}), 'xterm-256color');
});

test("the pane environment carries tuios's variables and drops the daemon's own", () => {
  const env = buildPaneEnv({ PATH: '/bin', TMUX: 'x', TUIOS_AGENT: 'codex', TUIOS_PANE_ID: 'old', npm_config_x: '1' }, { FOO: 'bar' }, { socket: '/s', explicitSocket: true, windowId: 'w'.repeat(32), sessionName: 'work', paneToken: 'tok', sessionId: 's'.repeat(32), workspace: 1 }, 'xterm-256color');
  assert.is(env.TUIOS_ENV, '1');
  assert.is(env.TUIOS_SOCKET, '/s');
  assert.is(env.TUIOS_PANE_ID, 'w'.repeat(32));
  assert.is(env.TUIOS_WINDOW_ID, 'w'.repeat(32));
  assert.is(env.TUIOS_SESSION, 'work');
  assert.is(env.TUIOS_PANE_TOKEN, 'tok');
  assert.is(env.TUIOS_SERVER, '/s', 'a pane of a daemon on a named socket reaches that daemon');
  assert.is(env.FOO, 'bar');
  assert.is(env.TERM, 'xterm-256color');
  assert.is(env.TMUX, undefined);
  assert.is(env.TUIOS_AGENT, undefined, "the daemon's own TUIOS_AGENT must not name every pane");
  assert.is(env.npm_config_x, undefined);
  assert.ok(isReservedEnvName('TUIOS_PANE_ID') && isReservedEnvName('TMUX'));
  assert.not.ok(isReservedEnvName('TUIOS_AGENT'));
});

test.run();
