// What a pane may do, under the open default, in real panes running the real CLI: a pane given
// nothing holds admin; --grants on new-window; set-pane-grants never gives more than the caller
// holds and admin cannot give respond; a pane without admin types only into panes holding
// nothing more; a refusal is `forbidden` and names the grant it needed.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TestDaemon, BIN } from '../helpers/daemon.js';

let d: TestDaemon;
const TUIOS = `${process.execPath} ${BIN}`;
let mark = 0;

/** Runs a tuios command in pane `w` and returns what it printed and its exit code. */
async function inPane(w: string, args: string): Promise<{ out: string; rc: number }> {
  const m = `DONE${++mark}`;
  await d.call('send-text', { window: w, text: `clear; ${TUIOS} ${args} 2>&1; echo "${m.slice(0, 2)}""${m.slice(2)}" rc=$?\n` });
  const screen = await d.waitScreen(w, new RegExp(`${m} rc=\\d+`), 30_000);
  const rc = Number(new RegExp(`${m} rc=(\\d+)`).exec(screen)![1]);
  return { out: screen.slice(0, screen.lastIndexOf(`${m} rc=`)), rc };
}
const flat = (s: string) => s.replace(/\s+/g, '');

let open: string;
let limited: string;
let target: string;

test.before(async () => {
  d = await TestDaemon.start();
  await d.ok(['new-session', 'g', 'sleep', '3600']);
  open = (await d.call<{ id: string }>('new-window', { session: 'g', name: 'open', argv: ['sh'], cols: 200, rows: 50 })).id;
  limited = (await d.call<{ id: string }>('new-window', { session: 'g', name: 'limited', argv: ['sh'], grants: ['read', 'write'], cols: 200, rows: 50 })).id;
  target = (await d.call<{ id: string }>('new-window', { session: 'g', name: 'target', argv: ['sh'], grants: ['read'], cols: 200, rows: 50 })).id;
});

test.after(async () => {
  await d.stop();
});

test('a pane given no grants holds admin under the open default; --grants on new-window is kept on the window', async () => {
  const r = await inPane(open, 'pane-grants --json');
  assert.is(r.rc, 0, r.out);
  assert.match(flat(r.out), /"admin"/);
  assert.match(flat(r.out), /"mode":"open"/);
  assert.not.match(flat(r.out), /"respond"/, 'admin never includes respond');
  const ws = await d.call<{ windows: Array<{ id: string; grants?: string[] }> }>('list-windows', { session: 'g' });
  assert.equal(ws.windows.find((w) => w.id === limited)!.grants, ['read', 'write']);
  assert.is(ws.windows.find((w) => w.id === open)!.grants, undefined, 'a pane on the default carries no grants of its own');
});

test('set-pane-grants: admin cannot give respond; a pane cannot widen itself; it can narrow itself', async () => {
  let r = await inPane(open, `set-pane-grants -w ${target} --grants read,respond`);
  assert.is.not(r.rc, 0);
  assert.match(r.out, /forbidden/);
  assert.match(r.out, /respond/);
  r = await inPane(limited, 'set-pane-grants --grants read,write,fan');
  assert.is.not(r.rc, 0);
  assert.match(r.out, /forbidden/);
  assert.match(r.out, /fan/);
  r = await inPane(limited, `set-pane-grants -w ${target} --grants read`);
  assert.is.not(r.rc, 0, 'changing another pane needs admin');
  r = await inPane(limited, `new-window -s g --grants admin -- sh`);
  assert.is.not(r.rc, 0, 'a pane never starts a pane holding more than it does');
  assert.match(r.out, /forbidden/);
  r = await inPane(open, `set-pane-grants -w ${target} --grants read,write`);
  assert.is(r.rc, 0, r.out);
  assert.equal((await d.call<{ grants: string[] }>('pane-grants', { window: target })).grants, ['read', 'write']);
});

test('a pane without admin types only into panes holding nothing more, and a refusal names the grant', async () => {
  let r = await inPane(limited, `send-text -w ${open} hello`);
  assert.is.not(r.rc, 0);
  assert.match(r.out, /forbidden/);
  assert.not.match(await d.screen(open), /hello/);
  r = await inPane(limited, `send-text -w ${target} 'echo typed-by-limited\n'`);
  assert.is(r.rc, 0, r.out);
  await d.waitScreen(target, /typed-by-limited/);
  // Narrowed to read, the pane's write is refused, and the message says what was needed.
  r = await inPane(limited, 'set-pane-grants --grants read');
  assert.is(r.rc, 0, r.out);
  r = await inPane(limited, `send-text -w ${target} again`);
  assert.is.not(r.rc, 0);
  assert.match(r.out.replace(/\s*\n\s*/g, ' '), /send-text is refused for this pane: .*needs the write grant/);
});

test.run();
