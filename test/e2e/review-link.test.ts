// Reviews across linked daemons on loopback (a hub linked to `build`, and to `locked` whose
// [hosts.hub] table has write = false), real git on the peers: `tuios review build:SESSION` is
// refused before anything is dialled (reviewing a linked machine's session is not supported yet);
// a note and a send to build's pane run there, under build's policy, written and sent as "a
// caller on hub"; locked refuses both with forbidden, naming write.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { link, startHost, type Host } from '../helpers/link.js';
import { makeRepo, removeDir, tempDir, write } from '../helpers/worktree-repos.js';
import { refusal } from '../helpers/refusal.js';

let hub: Host;
let build: Host;
let locked: Host;
let root: string;
let buildWt: { session: string; path: string; window_id: string };
let lockedWt: { session: string; path: string; window_id: string };

test.before(async () => {
  root = tempDir('tuios-review-link-');
  const buildRepo = makeRepo(join(root, 'build', 'api'));
  const lockedRepo = makeRepo(join(root, 'locked', 'api'));
  build = await startHost('build');
  locked = await startHost('locked', { config: '[hosts.hub]\nwrite = false\n' });
  hub = await startHost('hub');
  await link(hub, build);
  await link(hub, locked);
  buildWt = JSON.parse(await build.d.ok(['worktree', 'new', 'feat/x', '--json'], { cwd: buildRepo }));
  lockedWt = JSON.parse(await locked.d.ok(['worktree', 'new', 'feat/x', '--json'], { cwd: lockedRepo }));
  write(join(buildWt.path, 'mod.txt'), 'changed on build\n');
  write(join(lockedWt.path, 'mod.txt'), 'changed on locked\n');
});

test.after(async () => {
  for (const h of [hub, build, locked]) await h?.d.stop();
  removeDir(root);
});

test('review HOST:SESSION is refused with unsupported before anything is dialled', async () => {
  const e = await refusal(hub.d.call('review-diff', { session: `build:${buildWt.session}` }));
  assert.is(e.code, 'unsupported');
  assert.match(e.hint ?? '', /worktree pull build:/);
  const r = await hub.d.cli(['review', `build:${buildWt.session}`]);
  assert.is.not(r.code, 0);
  assert.match(r.stderr, /not supported/);
});

test('a note and a send to a linked machine run there, as a caller on hub, queued for its agent', async () => {
  const n = await hub.d.json<{ note: { id: string; author: string; author_name: string; quote: string } }>(['review', 'note', '-s', `build:${buildWt.session}`, 'mod.txt:1', 'from the hub']);
  assert.is(n.note.author, 'link:hub');
  assert.is(n.note.quote, 'changed on build');
  // The note lives on build, where the pane is.
  const there = await build.d.call<{ notes: Array<{ id: string; author_name: string }> }>('review-note', { session: buildWt.session });
  assert.equal(there.notes.map((x) => x.author_name), ['a caller on hub']);
  // The agent works: the message waits in build's queue, sent by link:hub.
  await build.d.ok(['set-agent-state', '-w', buildWt.window_id, 'working', '--harness', 'test-agent']);
  const s = await hub.d.json<{ by: string; sent: string[] }>(['review', 'send', '-s', `build:${buildWt.session}`]);
  assert.is(s.by, 'link:hub');
  assert.equal(s.sent, [n.note.id]);
  const q = await build.d.call<{ queued: Array<{ by: string; text: string }> }>('list-queued', {});
  assert.is(q.queued.length, 1);
  assert.is(q.queued[0]!.by, 'link:hub');
  assert.match(q.queued[0]!.text, /from a caller on hub:\n\n1\. mod\.txt:1, on "changed on build"\n {3}from the hub/);
});

test('a linked machine without write is refused notes and sends (forbidden, naming write), and nothing is kept there', async () => {
  let e = await refusal(hub.d.call('review-note', { session: `locked:${lockedWt.session}`, at: 'mod.txt:1', text: 'no' }));
  assert.is(e.code, 'forbidden');
  assert.match(e.hint ?? e.message, /write/);
  e = await refusal(hub.d.call('send-review', { session: `locked:${lockedWt.session}` }));
  assert.is(e.code, 'forbidden');
  const there = await locked.d.call<{ notes: unknown[] }>('review-note', { session: lockedWt.session });
  assert.is(there.notes.length, 0);
});

test.run();
