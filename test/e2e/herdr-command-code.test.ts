// A real herdr-ecosystem client from npm against tuios's herdr socket: Command Code (npm
// command-code, bin cmd) reports to herdr by itself when its pane has HERDR_ENV=1,
// HERDR_SOCKET_PATH and HERDR_PANE_ID, which tuios sets in every pane. It runs BYOK in local-only
// mode against the fake Chat Completions API (test/helpers/agents.ts), so no Command Code login.
// What it sends (its dist/cli.mjs, createHerdrMod): at session start pane.rename and agent.rename
// to `cmd`, pane.report_agent_session, pane.report_metadata and pane.report_agent idle; a turn
// reports working then idle, with metadata naming the model and the title, and blocked
// (permission) while its permission dialog shows; /exit sends pane.release_agent. Each is read
// back here through tuios's own verbs.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { waitFor } from '../helpers/wait.js';
import { RealAgent } from '../helpers/real-agent.js';
import { waitForScreen } from '../helpers/agents.js';

const t = suite('Command Code reports to herdr');
const FINAL = 'Hello from the fake model.';
const TITLE = 'Say hello';
// The window starts under another name, so the rename to `cmd` is Command Code's own.
const cc = new RealAgent('command-code', { name: 'command-code', fake: { command: null, finalText: FINAL, title: TITLE } });
const it = cc.gate(t);
t.before(() => cc.start());
t.after(() => cc.stop());

interface Win {
  id: string;
  name: string;
}
/** get-agent-state's answer with the metadata (test/helpers/agent-state.ts's AgentState has none). */
interface StateWithMeta {
  state: string;
  source: string | null;
  harness_id: string | null;
  agent_session_id?: string | null;
  meta: Record<string, string>;
}

const windowName = async (): Promise<string | undefined> => (await cc.d.json<{ windows: Win[] }>(['list-windows'])).windows.find((w) => w.id === cc.window)?.name;
const full = (): Promise<StateWithMeta> => cc.d.call<StateWithMeta>('get-agent-state', { window: cc.window });

let sessionId = '';

it('at its start: the pane renamed cmd, idle from the report, harness cmd, its session id stored', async () => {
  const s = await cc.waitState((x) => x.source === 'report' && x.state === 'idle' && !!x.agent_session_id, { timeout: 120_000, what: 'the session-start reports' });
  assert.is(s.harness_id, 'cmd', 'the harness is the agent name the reports carry');
  assert.match(s.agent_session_id!, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'pane.report_agent_session: its session id, a UUID');
  sessionId = s.agent_session_id!;
  // pane.rename and agent.rename (label and name `cmd`) renamed the window.
  await waitFor(async () => (await windowName()) === 'cmd', { timeout: 30_000, what: 'the window to be renamed cmd' });
  await waitForScreen(cc.d, cc.window, /Ask your question/, 30_000, 'the prompt box');
});

it('a turn typed in through ask-agent: working, then done, both from the report; the model\'s answer on the screen', async () => {
  const from = cc.states.length;
  const asked = await cc.d.call<{ state: string; delivery: string }>('ask-agent', { window: cc.window, text: 'say hello', timeout: 120_000 });
  assert.is(asked.delivery, 'acked', `the prompt was taken: ${JSON.stringify(asked)}`);
  assert.is(asked.state, 'done', `the turn ended done: ${JSON.stringify(asked)}`);
  const s = await cc.waitState((x) => x.state === 'done' && x.source === 'report', { timeout: 60_000, what: 'done from the report' });
  assert.is(s.agent_session_id, sessionId, 'the same session');
  const states = cc.states.slice(from).filter((e) => e.source === 'report').map((e) => e.state);
  assert.ok(states.indexOf('working') >= 0 && states.indexOf('done') > states.indexOf('working'), `working, then done, from the report: ${cc.published(from)}`);
  assert.ok(cc.fake.requests.some((r) => r.role === 'main' && r.answer === 'text'), 'the turn went to the fake model API');
  await waitForScreen(cc.d, cc.window, (x) => x.includes(FINAL), 30_000, 'the answer');
});

it('pane.report_metadata: the model it ran and the title it gave the session', async () => {
  const m = await waitFor(async () => {
    const x = await full();
    return x.meta.model && x.meta.title ? x : null;
  }, { timeout: 30_000, what: 'the metadata report with the model and the title' });
  assert.is(m.meta.model, 'fake/fake-model');
  // The title is the fake API's answer to Command Code's title request.
  assert.is(m.meta.title, TITLE);
});

it('a shell command: blocked (permission) is needs_input from the report; answered, the turn ends done', async () => {
  cc.fake.setCommand('touch hello.txt');
  const from = cc.states.length;
  await cc.d.ok(['send-text', '-w', cc.window, '--submit', 'make hello.txt']);
  const b = await cc.waitState((x) => x.state === 'needs_input' && x.source === 'report', { timeout: 90_000, what: 'needs_input from the report' });
  assert.is(b.message, 'permission', 'the report\'s message');
  await waitForScreen(cc.d, cc.window, /Execute Shell Command[\s\S]*touch hello\.txt/, 30_000, 'its permission dialog');
  // Its dialog's first choice is Yes.
  await cc.d.ok(['send-keys', '-w', cc.window, 'Enter']);
  await cc.waitState((x) => x.state === 'done' && x.source === 'report', { timeout: 90_000, what: 'done after the approval' });
  await waitFor(() => existsSync(join(cc.project, 'hello.txt')), { timeout: 30_000, what: 'hello.txt' });
  const states = cc.states.slice(from).filter((e) => e.source === 'report').map((e) => e.state);
  const need = states.indexOf('needs_input');
  assert.ok(states.indexOf('working') >= 0 && need > states.indexOf('working') && states.lastIndexOf('done') > need, `working, needs_input, done: ${cc.published(from)}`);
});

it('/exit: pane.release_agent leaves the pane with no agent state (none), and the shell takes the pane back', async () => {
  await cc.d.ok(['send-text', '-w', cc.window, '/exit']);
  // Its input box completes a slash command before Enter runs it: Enter once the text shows.
  await waitForScreen(cc.d, cc.window, /\/exit/, 30_000, '/exit typed');
  await cc.d.ok(['send-keys', '-w', cc.window, 'Enter']);
  await cc.waitState('none', { timeout: 60_000, what: 'the release' });
  const s = await full();
  // The release, not the exit: a cmd killed with SIGKILL (no release) leaves done from the report,
  // its harness and its metadata in place (measured); released, the report's hold is gone.
  assert.equal([s.source, s.harness_id, s.meta], [null, null, {}], `the release cleared the report's state: ${JSON.stringify(s)}`);
  await waitForScreen(cc.d, cc.window, /\$ $/m, 30_000, 'the shell prompt after cmd exits');
  assert.ok(cc.states.some((e) => e.state === 'none'), `none was published: ${cc.published()}`);
});

t.run();
