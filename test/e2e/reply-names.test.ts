// The reply editor's `@` names, its drafts and ctrl+g, through the real TUI in tmux (spec:
// Replying to an agent, Naming a pane, an agent or a file). `@` lists the agents and panes of
// every session and the files of the reply's pane folder (read with list-pane-files); tab puts an
// agent's address, a folder (walking into it) and a file's path in place of the `@`. A reply the
// daemon refuses (the pane's queue is full) keeps its draft, and so does esc: r shows it again.
// ctrl+g gives the terminal to the attached terminal's $EDITOR, here a script that edits the file and notes what it saw;
// the edited draft comes back with its paste block under the same label, and the file's folder
// is gone. Over the SSH server the list has the agents and panes and no files, and ctrl+g
// opens no editor.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestDaemon, BIN } from '../helpers/daemon.js';
import { Terminal } from '../helpers/terminal.js';
import { waitFor } from '../helpers/wait.js';
import { prerequisite } from '../helpers/prereq.js';
import { authorize, hasSsh, makeKey, sshCommandLine, sshPort } from '../helpers/ssh.js';

const TUIOS = `${process.execPath} ${BIN}`;
const LONG = 60_000;
const work = mkdtempSync(join(tmpdir(), 'tuios-names-e2e-'));
const project = join(work, 'project');
const seen = join(work, 'seen');
const editor = join(work, 'edit.sh');
let d: TestDaemon;
let t: Terminal | null = null;
const ssh = prerequisite('the OpenSSH client', hasSsh() ? '' : 'ssh or ssh-keygen is not installed (apt-get install openssh-client)');

test.before(async () => {
  mkdirSync(join(project, 'api'), { recursive: true });
  writeFileSync(join(project, 'api', 'client.go'), 'package api\n');
  writeFileSync(join(project, 'README.md'), '# project\n');
  mkdirSync(seen);
  // The person's editor: notes the file's path, modes and text, then puts EDITED before the words.
  writeFileSync(
    editor,
    `#!/bin/sh\nprintf '%s\\n' "$1" > ${seen}/path\nstat -c %a "$1" > ${seen}/mode\nstat -c %a "$(dirname "$1")" > ${seen}/dirmode\ncp "$1" ${seen}/text\nsed -i '1s/^/EDITED /' "$1"\n`,
  );
  chmodSync(editor, 0o755);
  // The daemon's own $EDITOR: notes that it ran, and changes nothing.
  writeFileSync(join(work, 'daemon-edit.sh'), `#!/bin/sh\ntouch ${seen}/daemon-editor\n`);
  chmodSync(join(work, 'daemon-edit.sh'), 0o755);
  // No stall demotion: api stays working, so what is queued for it waits. The daemon's own
  // $EDITOR is not the person's: ctrl+g runs the one the attached terminal passed.
  d = await TestDaemon.start({ env: { EDITOR: join(work, 'daemon-edit.sh'), TUIOS_AGENT_STALL_SECONDS: '0' }, config: '[ssh]\nlisten = "127.0.0.1:0"\n' });
  await d.ok(['new-session', 'work', '--window-name', 'api', '-c', project, 'sleep', '3600']);
  await d.ok(['new-window', '-s', 'work', 'review', 'sleep', '3600']);
  await d.ok(['new-session', 'ops', '--window-name', 'shell', 'sleep', '3600']);
  await d.ok(['set-agent-state', '-w', 'work:review', 'working', '--harness', 'x']);
  await d.ok(['set-agent-state', '-w', 'work:api', 'working', '--harness', 'x']);
  // Eight messages wait for api while it works: its queue is full, so a ninth is refused.
  for (let i = 0; i < 8; i++) await d.ok(['queue-prompt', '-w', 'work:api', `waiting ${i}`]);
});

test.after(async () => {
  t?.kill();
  await d.stop();
  rmSync(work, { recursive: true, force: true });
});

test('@ lists agents, panes and the pane\'s files; tab puts in an address, walks a folder and puts in a path', async () => {
  t = new Terminal({ ...d.env, EDITOR: editor }, `${TUIOS} attach -s ops`);
  await t.wait(/┌─ /, 'the TUI', LONG);
  // The selector narrows the view to api, so r replies to it.
  await replyToApi(t);
  t.type('compare with @');
  let s = await t.wait(/agent work\/review\s+working/, 'the agents in the list', LONG);
  assert.match(s, /pane ops\/shell/, 'a pane of another session');
  await t.wait(/file README\.md/, 'the pane\'s files', LONG);
  t.type('rev');
  s = await t.wait(/› compare with @rev\s*\n\s*agent work\/review\s+working/, 'the list narrowed', LONG);
  assert.not.match(s, /README/, 'narrowed: README.md does not fit');
  t.keys('Tab');
  s = await t.wait(/› compare with work\/review\s*\n/, 'the address in place of @rev', LONG);
  assert.not.match(s, /agent work\/review/, 'the list closed');
  t.type(' and @READ');
  await t.wait(/file README\.md/, 'README.md listed', LONG);
  t.keys('Tab');
  await t.wait(/› compare with work\/review and README\.md/, 'the file\'s path', LONG);
  t.type(' @api');
  await t.wait(/folder api\//, 'the folder listed', LONG);
  // The agent named api fits as well as the folder, and comes first.
  t.keys('Down');
  t.keys('Tab');
  await t.wait(/README\.md api\/\s*\n\s*file api\/client\.go/, 'the folder put in, the list open inside it', LONG);
  t.keys('Tab');
  await t.wait(/› compare with work\/review and README\.md api\/client\.go\s*\n/, 'the path inside the folder', LONG);
  // esc with the list closed closes the editor, and keeps the draft.
  t.keys('Escape');
  await waitFor(() => !/Reply to api/.test(t!.screen()) || null, { what: 'the editor closed', timeout: LONG });
  t.keys('r');
  await t.wait(/Reply to api[\s\S]*› compare with work\/review and README\.md api\/client\.go/, 'the draft kept through esc', LONG);
});

test('a reply the daemon refuses keeps its draft: r opens it again', async () => {
  t!.keys('Enter');
  await t!.wait(/Not queued: [^\n]*/, 'the refusal', LONG);
  const q = await d.call<{ queued: Array<{ text?: string }> }>('list-queued', { all: true });
  assert.not.ok(JSON.stringify(q).includes('compare with'), 'nothing was queued');
  t!.keys('r');
  await t!.wait(/Reply to api[\s\S]*› compare with work\/review and README\.md api\/client\.go/, 'the refused draft back', LONG);
});

test('ctrl+g opens the draft in $EDITOR with the block\'s text in its place; the edit comes back, the block under its label, the file gone', async () => {
  const block = join(work, 'block.txt');
  const body = Array.from({ length: 20 }, (_, i) => `log line ${i + 1}`).join('\n');
  writeFileSync(block, body);
  t!.type(' see ');
  t!.pasteFile(block);
  await t!.wait(/see \[Pasted text #1 · 20 lines\]/, 'the block', LONG);
  t!.keys('C-g');
  await t!.wait(/› EDITED compare with work\/review and README\.md api\/client\.go see \[Pasted text #1 · 20 lines\]/, 'the edited draft back, the block under its label', LONG);
  const path = readFileSync(join(seen, 'path'), 'utf8').trim();
  assert.not.ok(existsSync(join(seen, 'daemon-editor')), 'the terminal\'s editor ran, not the daemon\'s');
  assert.is(readFileSync(join(seen, 'text'), 'utf8'), `compare with work/review and README.md api/client.go see ${body}`, 'the file had the block\'s text in its place');
  assert.is(readFileSync(join(seen, 'mode'), 'utf8').trim(), '600');
  assert.is(readFileSync(join(seen, 'dirmode'), 'utf8').trim(), '700');
  await waitFor(() => !existsSync(join(path, '..')) || null, { what: 'the file\'s folder removed', timeout: LONG });
  // The TUI has its screen back: the keys type into the draft again.
  t!.type(' ok');
  await t!.wait(/20 lines\] ok/, 'typing after the editor', LONG);
});

/** Opens the reply to api in the agents view of the client on `term`. */
async function replyToApi(term: Terminal): Promise<void> {
  term.keys('C-b', 'i');
  await term.wait(/● api /, 'the agent rows', LONG);
  term.keys('/');
  term.type('api');
  term.keys('Enter');
  // The rows are built when the view is drawn: the next keys wait for the list the selector made.
  await waitFor(() => (/\[select api\]/.test(term.screen()) && !/● review/.test(term.screen())) || null, { what: 'the list narrowed to api', timeout: LONG });
  term.keys('g');
  term.keys('r');
  await term.wait(/Reply to api/, 'the reply editor', LONG);
}

ssh.gate(test)('over the SSH server @ lists the agents and panes, and no files: they are not where the person sits; ctrl+g opens no editor', async () => {
  t?.kill();
  const key = makeKey(join(d.dir, 'keys'), 'person');
  authorize(d, key.pub);
  t = new Terminal(d.env, sshCommandLine(d, await sshPort(d), key, ['-t']));
  await t.wait(/┌─ /, 'the TUI over ssh', LONG);
  await replyToApi(t);
  t.type('@');
  await t.wait(/agent work\/review\s+working/, 'the agents in the list', LONG);
  // Over the socket README.md fits READ; here nothing does.
  t.type('READ');
  const s = await t.wait(/› @READ\s*\n\s*nothing here fits/, 'no files', LONG);
  assert.not.match(s, /README|folder api/);
  // No editor over the SSH server: it would be a shell on this machine, which the server never gives.
  t.keys('C-g');
  await t.wait(/ctrl\+g opens your editor from tuios attach on this machine/, 'ctrl+g refused', LONG);
  assert.not.ok(existsSync(join(seen, 'daemon-editor')), 'no editor ran');
});

test.run();
