// Workspace names and herdr's workspace.focus with a real attached client (`tuios attach` in tmux):
// the dock shows a named workspace beside its number, follows a reorder, and workspace.focus makes
// the attached client show the session, as the session switcher does (spec: Methods).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TestDaemon, BIN } from '../helpers/daemon.js';
import { Terminal } from '../helpers/terminal.js';
import { herdrOk } from '../helpers/herdr-client.js';

let d: TestDaemon;
let t: Terminal | null = null;
const TUIOS = `${process.execPath} ${BIN}`;

interface Session {
  id: string;
  name: string;
  active_workspace: number;
}
async function session(name: string): Promise<Session> {
  return (await d.json<{ sessions: Session[] }>(['list-sessions'])).sessions.find((s) => s.name === name)!;
}
/** The status line: the last row of the terminal. */
function statusLine(screen: string): string {
  return screen.trimEnd().split('\n').at(-1) ?? '';
}

test.before(async () => {
  d = await TestDaemon.start();
  await d.ok(['new-session', 'alpha', '-n', 'a1']);
  await d.ok(['new-session', 'beta', '-n', 'b1']);
});

test.after(async () => {
  t?.kill();
  await d.stop();
});

test('the dock shows a named workspace as NUMBER:NAME, and follows a reorder', async () => {
  t = new Terminal(d.env, `${TUIOS} attach -s alpha`);
  await t.wait(/\[alpha\]/, 'the status line');
  await d.ok(['new-window', '-s', 'alpha', '--workspace', '3', 'a3']);
  await d.ok(['set-workspace-name', '-s', 'alpha', '3', 'build']);
  let s = await t.wait(/ 3:build/, 'the named workspace in the dock');
  assert.match(statusLine(s), /\[alpha\] 1\* 3:build/);
  await d.ok(['set-workspace-order', '-s', 'alpha', '3', '1']);
  s = await t.wait(/1:build 3\*/, 'the reordered dock');
  assert.match(statusLine(s), /\[alpha\] 1:build 3\*/);
  await d.ok(['set-workspace-name', '-s', 'alpha', '1', '']);
  s = await t.wait(/\[alpha\] 1 3\*/, 'the name cleared');
  assert.not.match(statusLine(s), /build/);
  // An empty workspace that shows says its name.
  await d.ok(['select-workspace', '-s', 'alpha', '5']);
  await d.ok(['set-workspace-name', '-s', 'alpha', '5', 'spare']);
  s = await t.wait(/Workspace 5 \(spare\) is empty/, 'the empty workspace\'s name');
  assert.match(statusLine(s), /5:spare\*/);
  await d.ok(['select-workspace', '-s', 'alpha', '3']);
});

test('workspace.focus: the attached client shows the session', async () => {
  const beta = await session('beta');
  const r = await herdrOk<{ type: string; workspace: { workspace_id: string; label: string } }>(`${d.socket}.herdr`, 'workspace.focus', { workspace_id: `w${beta.id.slice(0, 12)}` });
  assert.is(r.type, 'workspace_info');
  assert.is(r.workspace.label, 'beta');
  const s = await t!.wait(/\[beta\]/, 'the client showing beta');
  assert.match(statusLine(s), /\[beta\] 1\*/);
});

test.run();
