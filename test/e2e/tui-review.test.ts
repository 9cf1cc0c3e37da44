// The review overlay in the TUI, as a person uses it in tmux (spec: Reviewing in the client):
// ctrl+b v on the focused pane opens its changes file by file, a on a line writes a note signed
// with the client's nonce (the daemon records it as the person's), x resolves it, S sends the
// notes through the queue as "from the person"; on a pane with no repository the dock says so.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { TestDaemon, BIN } from '../helpers/daemon.js';
import { Terminal } from '../helpers/terminal.js';
import { waitFor } from '../helpers/wait.js';
import { makeRepo, removeDir, tempDir, write } from '../helpers/worktree-repos.js';

let d: TestDaemon;
let t: Terminal;
let root: string;
const TUIOS = `${process.execPath} ${BIN}`;
const LONG = 60_000;

interface Note {
  id: string;
  file: string;
  line: number | null;
  author: string;
  text: string;
}
const notes = async () => (await d.call<{ notes: Note[] }>('review-note', { window: 'rev:agent' })).notes;

test.before(async () => {
  root = tempDir('tuios-tui-review-');
  const repo = makeRepo(join(root, 'api'));
  write(join(repo, 'mod.txt'), 'mod.txt changed here\n');
  d = await TestDaemon.start();
  await d.ok(['new-session', 'rev', '--window-name', 'agent', '-c', repo, 'sleep', '3600']);
  await d.ok(['set-agent-state', '-w', 'rev:agent', 'working', '--harness', 'x']);
  await d.ok(['new-session', 'bare', '--window-name', 'plain', '-c', root, 'sleep', '3600']);
});

test.after(async () => {
  t?.kill();
  await d.stop();
  removeDir(root);
});

test('ctrl+b v opens the review of the focused pane: the header, the files, the lines', async () => {
  t = new Terminal(d.env, `${TUIOS} attach -s rev`);
  await t.wait(/┌─ /, 'the first frame', LONG);
  t.keys('C-b', 'v');
  await t.wait(/Review\s+rev \/ agent\s+1 file \+1 -1\s+vs HEAD\s+0 notes/, 'the review header', LONG);
  await t.wait(/M mod\.txt/, 'the file list');
  await t.wait(/1 \+mod\.txt changed here/, 'the added line');
});

test('a on a line writes a note as you (the nonce), shown under its line; S sends it from the person', async () => {
  // The cursor starts on the hunk header: down to the removed line, then the added one.
  t.keys('j', 'j');
  t.keys('a');
  await t.wait(/Note on mod\.txt:1, as you/, 'the note editor', LONG);
  t.type('needs a test');
  t.keys('Enter');
  // The note's row (not the editor's text) and the header's count: the review was read again.
  await t.wait(/1 note \(1 unsent\)[\s\S]*▸ needs a test/, 'the note under its line', LONG);
  const n = await waitFor(async () => (await notes())[0], { what: 'the note saved' });
  assert.is(n.author, 'human');
  assert.is(n.line, 1);
  t.keys('S');
  await t.wait(/Notes queued/, 'the dock line in the overlay', LONG);
  const q = await d.call<{ queued: Array<{ by: string; text: string }> }>('list-queued', {});
  assert.is(q.queued[0]?.by, 'human');
  assert.match(q.queued[0]!.text, /from the person:/);
});

test('x resolves the note under the cursor', async () => {
  t.keys('j');
  t.keys('x');
  await waitFor(async () => (await notes()).length === 0, { what: 'the note resolved' });
  t.keys('q');
  await t.wait(/┌─ /, 'the panes again', LONG);
});

test('on a pane with no git repository under it the dock says so and nothing opens', async () => {
  t.kill();
  t = new Terminal(d.env, `${TUIOS} attach -s bare`);
  await t.wait(/┌─ /, 'the first frame', LONG);
  t.keys('C-b', 'v');
  await t.wait(/No git repository under this pane/, 'the dock line', LONG);
  assert.not.match(t.screen(), /Review\s+bare/);
});

test.run();
