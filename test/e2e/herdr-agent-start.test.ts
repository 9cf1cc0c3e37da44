// herdr's agent.start, events.wait and notification.show (spec: herdr compatibility, Methods and
// the paragraphs under the table; herdr's pane state protocol), through the herdr socket and
// herdr's command line, against a real daemon whose PATH carries a stand-in agent.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { TestDaemon } from '../helpers/daemon.js';
import { installStandin, STANDIN_SCRIPT } from '../helpers/worktree-standin.js';
import { tempDir } from '../helpers/worktree-repos.js';
import { waitFor } from '../helpers/wait.js';
import { herdrErr, herdrOk, herdrFromPane, herdrSocketOf, herdrPaneIdOf, herdrWin, herdrAtPrompt, herdrAgentState, herdrCli } from '../helpers/herdr-client.js';

let d: TestDaemon;
let tools: string;
let sock: string;

test.before(async () => {
  tools = tempDir('tuios-herdr-agents-');
  const env = installStandin(tools);
  // `pi` for herdr's command line (a kind herdr starts): the stand-in under pi's name.
  writeFileSync(join(tools, 'bin', 'pi'), STANDIN_SCRIPT);
  chmodSync(join(tools, 'bin', 'pi'), 0o755);
  // A shell that is neither POSIX nor fish by name: tcsh, here sh under that name.
  symlinkSync('/bin/sh', join(tools, 'bin', 'tcsh'));
  // `noter`: a harness whose notify rule reads "approval requested" as an approval; its program
  // sends each line it reads as a notification through herdr's command line, and prints nothing
  // after it (a notification's claim goes stale once the pane writes again).
  writeFileSync(join(tools, 'bin', 'noter'), '#!/bin/sh\nwhile IFS= read -r line; do "$HERDR_BIN_PATH" notification show "$line" --body "from noter" >/dev/null 2>&1; done\n');
  chmodSync(join(tools, 'bin', 'noter'), 0o755);
  writeFileSync(
    join(tools, 'harnesses', 'noter.toml'),
    'id = "noter"\nname = "Noter"\n[detect]\ncomm = ["noter"]\nargv0 = ["noter"]\n[notify]\nfold_case = true\n[[notify.rule]]\nid = "approval"\nstate = "needs_input"\nkind = "approval"\npriority = 10\nany = ["approval requested"]\n',
  );
  // The daemon reads its harness manifests when it starts: after noter's is written.
  d = await TestDaemon.start({ env });
  sock = herdrSocketOf(d);
  await d.ok(['new-session', 'ag', '-n', 'sh1', 'sh']);
  await d.ok(['new-window', '-s', 'ag', 'sh2', 'sh']);
  await d.ok(['new-window', '-s', 'ag', 'busy', 'cat']);
  await d.ok(['new-window', '-s', 'ag', 'tc', join(tools, 'bin', 'tcsh')]);
  await d.ok(['new-window', '-s', 'ag', 'note', 'sh']);
  await d.ok(['new-window', '-s', 'ag', 'cli', 'sh']);
  await d.ok(['new-window', '-s', 'ag', 'rl', 'sh']);
  await d.ok(['new-window', '-s', 'ag', 'noter', 'noter']);
  await d.ok(['new-window', '-s', 'ag', '--grants', 'read', '--grants', 'write', 'nofan', 'sh']);
});

test.after(async () => {
  await d.stop();
});

test('agent.start: types the harness\'s command quoted for sh, names the pane, answers agent_started with the agent and argv', async () => {
  await herdrAtPrompt(d, 'sh1');
  const w = await herdrWin(d, 'sh1');
  const args = ['plain', "it's", 'two words', '$HOME', 'a"b\\c'];
  const r = await herdrOk<{ type: string; agent: { pane_id: string; name: string; label: string }; argv: string[] }>(sock, 'agent.start', { name: 'helper', kind: 'standin', pane_id: herdrPaneIdOf(w), args });
  assert.is(r.type, 'agent_started');
  assert.equal(r.argv, ['standin', ...args]);
  assert.is(r.agent.pane_id, herdrPaneIdOf(w));
  assert.is(r.agent.label, 'helper');
  // The shell ran it with each argument as it was given: the stand-in's own argv ends with them.
  const fg = await waitFor(async () => {
    const x = await herdrWin(d, 'helper');
    return x.foreground?.comm === 'standin' ? x.foreground : null;
  }, { what: 'the stand-in in the foreground' });
  assert.equal(fg.argv!.slice(-args.length), args);
  // tuios finds the agent by its process, as for one a person starts.
  await waitFor(async () => (await herdrAgentState(d, 'helper')).harness_id === 'standin', { what: 'the stand-in detected' });
  const got = await herdrOk<{ agent: { name: string } }>(sock, 'agent.get', { target: 'helper' });
  assert.is(got.agent.name, 'helper');
});

test('agent.start: a pane not at its shell prompt, or holding an agent, is agent_pane_busy; nothing is typed', async () => {
  const busy = await herdrWin(d, 'busy');
  assert.is((await herdrErr(sock, 'agent.start', { name: 'x', kind: 'standin', pane_id: herdrPaneIdOf(busy) })).code, 'agent_pane_busy');
  assert.not.match(await d.ok(['capture-pane', '-w', 'busy']), /standin/);
  const helper = await herdrWin(d, 'helper');
  assert.is((await herdrErr(sock, 'agent.start', { name: 'y', kind: 'standin', pane_id: herdrPaneIdOf(helper) })).code, 'agent_pane_busy');
  await herdrAtPrompt(d, 'sh2');
  await d.ok(['set-agent-state', '-w', 'sh2', 'working', '--harness', 'codex']);
  assert.is((await herdrErr(sock, 'agent.start', { name: 'z', kind: 'standin', pane_id: herdrPaneIdOf(await herdrWin(d, 'sh2')) })).code, 'agent_pane_busy');
  await d.ok(['set-agent-state', '-w', 'sh2', 'none']);
  assert.not.match(await d.ok(['capture-pane', '-w', 'sh2']), /standin/);
});

test('agent.start: in a shell that is neither POSIX nor fish, an argument that needs quoting is invalid_agent_argument; a control character never types', async () => {
  await herdrAtPrompt(d, 'tc');
  const tc = await herdrWin(d, 'tc');
  assert.is((await herdrErr(sock, 'agent.start', { name: 't', kind: 'standin', pane_id: herdrPaneIdOf(tc), args: ['two words'] })).code, 'invalid_agent_argument');
  assert.not.match(await d.ok(['capture-pane', '-w', 'tc']), /standin/);
  const sh2 = await herdrWin(d, 'sh2');
  assert.is((await herdrErr(sock, 'agent.start', { name: 'c', kind: 'standin', pane_id: herdrPaneIdOf(sh2), args: ['a\x03b'] })).code, 'invalid_agent_argument');
  assert.not.match(await d.ok(['capture-pane', '-w', 'sh2']), /standin/);
});

test('agent.start: bad input is refused before anything is typed', async () => {
  const sh2 = await herdrWin(d, 'sh2');
  assert.is((await herdrErr(sock, 'agent.start', { name: 'k', kind: 'no-such-agent', pane_id: herdrPaneIdOf(sh2) })).code, 'unsupported_agent_kind');
  assert.is((await herdrErr(sock, 'agent.start', { name: 'k', kind: 'standin', pane_id: herdrPaneIdOf(sh2), timeout_ms: 3000 })).code, 'invalid_agent_timeout');
  assert.is((await herdrErr(sock, 'agent.start', { kind: 'standin', pane_id: herdrPaneIdOf(sh2) })).message, 'missing field `name`');
  assert.is((await herdrErr(sock, 'agent.start', { name: 'k', kind: 'standin', pane_id: 'w000000000000:p000000000000' })).code, 'pane_not_found');
  assert.is((await herdrErr(sock, 'agent.start', { name: 'k', kind: 'standin', pane_id: herdrPaneIdOf(sh2), args: 'a' })).code, 'invalid_request');
  assert.not.match(await d.ok(['capture-pane', '-w', 'sh2']), /standin/);
});

test('agent.start needs fan on the session: a pane holding read and write only is forbidden, and nothing is typed', async () => {
  await herdrAtPrompt(d, 'nofan');
  await herdrAtPrompt(d, 'sh2');
  const a = await herdrFromPane(d, 'nofan', 'agent.start', { name: 'q', kind: 'standin', pane_id: herdrPaneIdOf(await herdrWin(d, 'sh2')) });
  assert.is(a.error?.code, 'forbidden');
  assert.not.match(await d.ok(['capture-pane', '-w', 'sh2']), /standin/);
});

test('herdr agent start: waits until the agent is at rest, then prints agent_started with the agent; a kind herdr does not start exits 2', async () => {
  await herdrAtPrompt(d, 'cli');
  const w = await herdrWin(d, 'cli');
  const pending = herdrCli(d, ['agent', 'start', 'piper', '--kind', 'pi', '--pane', herdrPaneIdOf(w), '--timeout', '30000', '--', '--model', 'x y']);
  // The command is typed; once the agent reports itself at rest, the command line answers.
  await waitFor(async () => (await herdrWin(d, 'piper')).foreground?.comm === 'pi', { what: 'pi in the foreground' });
  let settled = false;
  void pending.then(() => (settled = true));
  await new Promise((r) => setTimeout(r, 600));
  assert.not.ok(settled, 'agent start waits while the agent is not at rest');
  await d.ok(['set-agent-state', '-w', 'piper', 'idle', '--harness', 'pi']);
  const r = await pending;
  assert.is(r.code, 0, r.stderr);
  const o = JSON.parse(r.stdout) as { result: { type: string; argv: string[]; agent: { agent_status: string; name: string } } };
  assert.equal([o.result.type, o.result.agent.agent_status, o.result.agent.name], ['agent_started', 'idle', 'piper']);
  assert.equal(o.result.argv, ['pi', '--model', 'x y']);
  const bad = await herdrCli(d, ['agent', 'start', 'x', '--kind', 'standin', '--pane', herdrPaneIdOf(w)]);
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /unsupported interactive agent kind/);
});

test('events.wait: wait-for agent-state, answered with the pane_agent_status_changed match', async () => {
  const w = await herdrWin(d, 'busy');
  const waiting = herdrOk<{ type: string; event: { event: string; data: { pane_id: string; agent_status: string; agent: string } } }>(sock, 'events.wait', { match_event: { event: 'pane_agent_status_changed', pane_id: herdrPaneIdOf(w), agent_status: 'blocked' }, timeout_ms: 30_000 });
  await waitFor(async () => (await d.call<{ waits: number }>('server-info')).waits > 0, { what: 'the wait to listen' });
  await d.ok(['set-agent-state', '-w', 'busy', 'needs_input', '-m', 'approve?', '--harness', 'claude-code']);
  const r = await waiting;
  assert.is(r.type, 'wait_matched');
  assert.equal([r.event.event, r.event.data.pane_id, r.event.data.agent_status, r.event.data.agent], ['pane_agent_status_changed', herdrPaneIdOf(w), 'blocked', 'claude']);
});

test('events.wait: any other event is unsupported; over 24 hours is invalid_params; a timeout answers timeout; the wait ends with its connection', async () => {
  const w = await herdrWin(d, 'busy');
  assert.is((await herdrErr(sock, 'events.wait', { match_event: { event: 'pane_created' } })).code, 'unsupported');
  assert.is((await herdrErr(sock, 'events.wait', { match_event: { event: 'pane_agent_status_changed', pane_id: herdrPaneIdOf(w), agent_status: 'idle' }, timeout_ms: 24 * 3600 * 1000 + 1 })).code, 'invalid_params');
  assert.is((await herdrErr(sock, 'events.wait', { match_event: { event: 'pane_agent_status_changed', pane_id: herdrPaneIdOf(w), agent_status: 'sleeping' } })).code, 'invalid_request');
  assert.is((await herdrErr(sock, 'events.wait', {})).message, 'missing field `match_event`');
  assert.is((await herdrErr(sock, 'events.wait', { match_event: { event: 'pane_agent_status_changed', pane_id: herdrPaneIdOf(w), agent_status: 'done' }, timeout_ms: 200 })).code, 'timeout');
  const c = connect(sock);
  c.on('error', () => undefined);
  c.write(JSON.stringify({ id: 1, method: 'events.wait', params: { match_event: { event: 'pane_agent_status_changed', pane_id: herdrPaneIdOf(w), agent_status: 'done' }, timeout_ms: 600_000 } }) + '\n');
  await waitFor(async () => (await d.call<{ waits: number }>('server-info')).waits > 0, { what: 'the wait to listen' });
  c.destroy();
  await waitFor(async () => (await d.call<{ waits: number }>('server-info')).waits === 0, { what: 'the wait to end with its connection' });
});

test('notification.show: a notification event from the caller\'s pane, text cleaned; needs_input when the harness\'s notify rule matches', async () => {
  await herdrAtPrompt(d, 'note');
  const c = await d.client();
  const events: Array<{ type: string; window_id: string; title: string; body: string }> = [];
  await c.stream('subscribe', { types: ['notification'] }, (e) => events.push(e as (typeof events)[number]));
  const a = await herdrFromPane(d, 'note', 'notification.show', { title: 'Build\tdone:  all green', body: 'line one\nline two', sound: 'request' });
  assert.equal(a.result, { type: 'notification_show', shown: true, reason: 'shown' });
  const w = await herdrWin(d, 'note');
  const ev = await waitFor(() => events.find((e) => e.window_id === w.id), { what: 'the notification event' });
  assert.equal([ev.title, ev.body], ['Build done: all green', 'line one line two']);
  // A pane with no harness has no rules: its state does not change.
  assert.is((await herdrAgentState(d, 'note')).state, 'none');
  // The noter harness's program sends "Approval requested" itself; its rule reads it as an approval.
  await waitFor(async () => (await herdrAgentState(d, 'noter')).harness_id === 'noter', { what: 'noter detected' });
  await d.ok(['send-text', '-w', 'noter', '--submit', 'Approval requested: touch x']);
  const nw = await herdrWin(d, 'noter');
  await waitFor(() => events.find((e) => e.window_id === nw.id && e.title === 'Approval requested: touch x'), { what: 'noter\'s notification event' });
  await waitFor(async () => (await herdrAgentState(d, 'noter')).state === 'needs_input', { what: 'the notify rule to apply' });
  assert.is((await herdrAgentState(d, 'noter')).kind, 'approval');
  c.close();
});

test('notification.show: needs a caller in a pane; a title with no visible text is invalid_params', async () => {
  assert.is((await herdrErr(sock, 'notification.show', { title: 'from outside' })).code, 'forbidden');
  const a = await herdrFromPane(d, 'note', 'notification.show', { title: ' \t\x01 ' });
  assert.is(a.error?.code, 'invalid_params');
  assert.is((await herdrErr(sock, 'notification.show', {})).message, 'missing field `title`');
});

test('notification.show shares pane.report_metadata\'s rate: after a burst of 25 metadata reports from the pane, rate_limited', async () => {
  await herdrAtPrompt(d, 'rl');
  // One process in the pane: 25 metadata reports at once (a burst of 20), then a notification.
  const script = join(d.home, 'burst.cjs');
  const out = join(d.home, 'burst.json');
  writeFileSync(
    script,
    `const net = require('node:net'); const fs = require('node:fs');
const ask = (method, params) => new Promise((res) => { const s = net.connect(process.env.HERDR_SOCKET_PATH); let o = ''; s.setEncoding('utf8'); s.on('data', (x) => (o += x)); s.on('close', () => res(JSON.parse(o))); s.write(JSON.stringify({ id: 1, method, params }) + '\\n'); });
(async () => {
  const pane = process.env.HERDR_PANE_ID;
  const burst = await Promise.all(Array.from({ length: 25 }, (_, i) => ask('pane.report_metadata', { pane_id: pane, source: 'rl', seq: i + 1, tokens: { n: String(i) } })));
  const note = await ask('notification.show', { title: 'one too many' });
  fs.writeFileSync(${JSON.stringify(out)}, JSON.stringify({ limited: burst.filter((b) => b.error && b.error.code === 'rate_limited').length, note }) + '\\n');
})();
`,
  );
  await d.ok(['send-text', '-w', 'rl', '--submit', `${process.execPath} ${script}`]);
  const r = await waitFor(() => (existsSync(out) && readFileSync(out, 'utf8').endsWith('\n') ? (JSON.parse(readFileSync(out, 'utf8')) as { limited: number; note: { error?: { code: string } } }) : null), { what: 'the burst' });
  assert.ok(r.limited >= 1, `refused ${r.limited} of 25 reports`);
  assert.is(r.note.error?.code, 'rate_limited');
});

test('herdr notification show: from a pane, through $HERDR_BIN_PATH', async () => {
  // The bucket refills at 5 a second.
  await new Promise((r) => setTimeout(r, 1500));
  await d.ok(['send-text', '-w', 'rl', '--submit', '"$HERDR_BIN_PATH" notification show "Build done" --body "All tests pass"; echo "exit=$?"']);
  const screen = await d.waitScreen('rl', /^exit=\d+$/m);
  assert.match(screen, /"type":"notification_show"/);
  assert.match(screen, /^exit=0$/m);
});

test.run();
