// herdr's pane state protocol (spec: herdr's pane state protocol): the reports an agent sends to
// herdr set the pane's state through set-agent-state, with herdr's seq marks and herdr's rule of
// who may report for which pane. A client written from the spec's tables, against a real daemon.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TestDaemon } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { herdrCall, herdrErr, herdrOk, herdrFromPane, herdrSocketOf, herdrPaneIdOf, herdrWin, herdrAgentState, herdrPaneClient, type HerdrWin } from '../helpers/herdr-client.js';

let d: TestDaemon;
let sock: string;

interface AgentState {
  state: string;
  kind: string;
  message: string;
  source: string | null;
  harness_id: string | null;
  agent_session_id: string | null;
}

let seq = 0;
const report = (w: HerdrWin, state: string, extra: Record<string, unknown> = {}) =>
  herdrOk(sock, 'pane.report_agent', { pane_id: herdrPaneIdOf(w), source: 'crush', agent: 'Crush', state, seq: ++seq, ...extra });

test.before(async () => {
  d = await TestDaemon.start();
  sock = herdrSocketOf(d);
  await d.ok(['new-session', 'rep', '-n', 'agent', 'cat']);
  await d.ok(['new-window', '-s', 'rep', 'other', 'cat']);
  await d.ok(['new-window', '-s', 'rep', 'sh1', 'sh']);
  await d.ok(['new-window', '-s', 'rep', 'meta', 'cat']);
  await d.ok(['new-window', '-s', 'rep', 'two', 'cat']);
  await d.ok(['new-window', '-s', 'rep', 'crash', 'sh']);
  await d.ok(['new-window', '-s', 'rep', 'wrapped', 'sh']);
});

test.after(async () => {
  await d.stop();
});

test('state working: working, source report, the harness tuios\'s id for the agent', async () => {
  const w = await herdrWin(d, 'agent');
  assert.equal(await report(w, 'working'), { type: 'ok' });
  const s = await herdrAgentState<AgentState>(d, 'agent');
  assert.equal([s.state, s.source, s.harness_id], ['working', 'report', 'crush']);
});

test('state blocked: needs_input with the message; for Crush, Permission or no message is an approval, anything else a question', async () => {
  const w = await herdrWin(d, 'agent');
  await report(w, 'blocked', { message: 'Permission required: bash touch x' });
  let s = await herdrAgentState<AgentState>(d, 'agent');
  assert.equal([s.state, s.kind, s.message], ['needs_input', 'approval', 'Permission required: bash touch x']);
  await report(w, 'working');
  await report(w, 'blocked');
  s = await herdrAgentState<AgentState>(d, 'agent');
  assert.equal([s.state, s.kind], ['needs_input', 'approval']);
  await report(w, 'working');
  await report(w, 'blocked', { message: 'Which model?' });
  s = await herdrAgentState<AgentState>(d, 'agent');
  assert.equal([s.state, s.kind], ['needs_input', 'question']);
});

test('state idle: done after working or needs_input, idle otherwise; state unknown changes nothing', async () => {
  const w = await herdrWin(d, 'agent');
  await report(w, 'idle');
  assert.is((await herdrAgentState<AgentState>(d, 'agent')).state, 'done');
  await report(w, 'unknown');
  assert.is((await herdrAgentState<AgentState>(d, 'agent')).state, 'done');
  const o = await herdrWin(d, 'other');
  await herdrOk(sock, 'pane.report_agent', { pane_id: herdrPaneIdOf(o), source: 'x', agent: 'Crush', state: 'idle', seq: 1 });
  assert.is((await herdrAgentState<AgentState>(d, 'other')).state, 'idle');
});

test('a report whose seq is not above the last from its source is dropped without an error; another source has its own mark', async () => {
  const w = await herdrWin(d, 'agent');
  await report(w, 'working');
  assert.equal(await herdrOk(sock, 'pane.report_agent', { pane_id: herdrPaneIdOf(w), source: 'crush', agent: 'Crush', state: 'idle', seq }), { type: 'ok' });
  assert.is((await herdrAgentState<AgentState>(d, 'agent')).state, 'working', 'the same seq is stale');
  await herdrOk(sock, 'pane.report_agent', { pane_id: herdrPaneIdOf(w), source: 'another', agent: 'Crush', state: 'idle', seq: 1 });
  assert.is((await herdrAgentState<AgentState>(d, 'agent')).state, 'done');
});

test('pane.release_agent: none; the mark stays, so a late report does not bring the agent back', async () => {
  const w = await herdrWin(d, 'agent');
  await report(w, 'working');
  const late = seq;
  assert.equal(await herdrOk(sock, 'pane.release_agent', { pane_id: herdrPaneIdOf(w), source: 'crush', agent: 'Crush', seq: ++seq }), { type: 'ok' });
  assert.is((await herdrAgentState<AgentState>(d, 'agent')).state, 'none');
  await herdrOk(sock, 'pane.report_agent', { pane_id: herdrPaneIdOf(w), source: 'crush', agent: 'Crush', state: 'working', seq: late });
  assert.is((await herdrAgentState<AgentState>(d, 'agent')).state, 'none');
});

test('pane.report_agent_session: the conversation id, as set-agent-session', async () => {
  const w = await herdrWin(d, 'agent');
  await report(w, 'working');
  assert.equal(await herdrOk(sock, 'pane.report_agent_session', { pane_id: herdrPaneIdOf(w), source: 'crush', agent: 'Crush', agent_session_id: 'conv-123' }), { type: 'ok' });
  assert.is((await herdrAgentState<AgentState>(d, 'agent')).agent_session_id, 'conv-123');
});

test('resume_argv is accepted and not used: the report applies, and tuios keeps no command line from it', async () => {
  await d.ok(['new-window', '-s', 'rep', 'resumer', 'cat']);
  const w = await herdrWin(d, 'resumer');
  assert.equal(await herdrOk(sock, 'pane.report_agent', { pane_id: herdrPaneIdOf(w), source: 'crush', agent: 'Crush', state: 'working', seq: 1, resume_argv: ['crush', '--continue'] }), { type: 'ok' });
  assert.is((await herdrAgentState<AgentState>(d, 'resumer')).state, 'working');
  assert.not.match(JSON.stringify(await d.json(['get-agent-state', '-w', 'resumer'])), /--continue/);
  await d.ok(['close-window', '-w', 'resumer']);
});

test('a pane as herdr shows it: agent metadata is tokens, the title token title; the conversation id agent_session, kind path for a path, id otherwise', async () => {
  await d.ok(['new-window', '-s', 'rep', 'shown', 'cat']);
  const w = await herdrWin(d, 'shown');
  const id = herdrPaneIdOf(w);
  type Shown = { title: string | null; terminal_title: string; tokens: Record<string, string>; agent_session: { kind: string; value: string } | null };
  const shown = async () => (await herdrOk<{ pane: Shown }>(sock, 'pane.get', { pane_id: id })).pane;
  const before = await shown();
  assert.equal([before.title, before.tokens, before.agent_session], [null, {}, null]);
  await herdrOk(sock, 'pane.report_metadata', { pane_id: id, source: 'bar', seq: 1, title: 'Fixing the parser', tokens: { model: 'opus', branch: 'fix/parser' } });
  const p = await shown();
  assert.is(p.title, 'Fixing the parser');
  assert.equal(p.tokens, { model: 'opus', branch: 'fix/parser' }, 'the title is not a token');
  assert.is(typeof p.terminal_title, 'string');
  await herdrOk(sock, 'pane.report_agent', { pane_id: id, source: 'crush', agent: 'Crush', state: 'working', seq: 1 });
  await herdrOk(sock, 'pane.report_agent_session', { pane_id: id, source: 'crush', agent: 'Crush', agent_session_id: '/home/me/.crush/sessions/s1.json' });
  assert.equal((await shown()).agent_session, { kind: 'path', value: '/home/me/.crush/sessions/s1.json' });
  await herdrOk(sock, 'pane.report_agent_session', { pane_id: id, source: 'crush', agent: 'Crush', agent_session_id: 'conv-9f2' });
  assert.equal((await shown()).agent_session, { kind: 'id', value: 'conv-9f2' });
  const agent = (await herdrOk<{ agent: Shown }>(sock, 'agent.get', { target: id })).agent;
  assert.equal([agent.title, agent.tokens.model, agent.agent_session?.kind], ['Fixing the parser', 'opus', 'id'], 'agent.get shows the same');
  await d.ok(['close-window', '-w', 'shown']);
});

test('the harness: herdr\'s name read as tuios\'s id; an unknown agent in lower case, spaces made hyphens, the rest removed', async () => {
  const o = await herdrWin(d, 'other');
  await herdrOk(sock, 'pane.report_agent', { pane_id: herdrPaneIdOf(o), source: 'h1', agent: 'claude', state: 'working', seq: 1 });
  assert.is((await herdrAgentState<AgentState>(d, 'other')).harness_id, 'claude-code');
  await herdrOk(sock, 'pane.release_agent', { pane_id: herdrPaneIdOf(o), source: 'h1' });
  await herdrOk(sock, 'pane.report_agent', { pane_id: herdrPaneIdOf(o), source: 'h2', agent: 'My Agent! 2', state: 'working', seq: 1 });
  assert.is((await herdrAgentState<AgentState>(d, 'other')).harness_id, 'my-agent-2');
  await herdrOk(sock, 'pane.release_agent', { pane_id: herdrPaneIdOf(o), source: 'h2' });
});

test('bad reports: missing fields and unknown states are invalid_request; an unknown pane is pane_not_found', async () => {
  const w = await herdrWin(d, 'agent');
  assert.is((await herdrErr(sock, 'pane.report_agent', { pane_id: herdrPaneIdOf(w), source: 's', agent: 'a', state: 'working' })).message, 'missing field `seq`');
  assert.is((await herdrErr(sock, 'pane.report_agent', { pane_id: herdrPaneIdOf(w), source: 's', agent: 'a', state: 'sleeping', seq: 1 })).code, 'invalid_request');
  assert.is((await herdrErr(sock, 'pane.report_agent', { pane_id: herdrPaneIdOf(w), source: 's', agent: 'a', state: 'working', seq: -1 })).code, 'invalid_request');
  assert.is((await herdrErr(sock, 'pane.report_agent', { pane_id: 'w000000000000:p000000000000', source: 's', agent: 'a', state: 'working', seq: 1 })).code, 'pane_not_found');
});

test('pane.report_metadata: the title and each token become agent metadata under source herdr:<source>; null clears; a name tuios cannot hold is skipped', async () => {
  const w = await herdrWin(d, 'meta');
  const r = await herdrOk(sock, 'pane.report_metadata', { pane_id: herdrPaneIdOf(w), source: 'bar', seq: 1, title: 'Fixing tests', tokens: { branch: 'main', 'bad key!': 'x', cost: 3 } });
  assert.equal(r, { type: 'ok' });
  let meta = (await d.json<{ meta: Record<string, { value: string; source: string } | string> }>(['get-agent-state', '-w', 'meta'])).meta;
  const val = (k: string) => { const m = meta[k]; return typeof m === 'string' ? m : m?.value; };
  assert.equal([val('title'), val('branch'), val('cost')], ['Fixing tests', 'main', '3']);
  assert.not.ok('bad key!' in meta);
  await herdrOk(sock, 'pane.report_metadata', { pane_id: herdrPaneIdOf(w), source: 'bar', seq: 2, tokens: { branch: null } });
  meta = (await d.json<{ meta: Record<string, unknown> }>(['get-agent-state', '-w', 'meta'])).meta as typeof meta;
  assert.not.ok('branch' in meta, 'a null token clears the key');
  // Its own mark: seq 2 again is stale.
  await herdrOk(sock, 'pane.report_metadata', { pane_id: herdrPaneIdOf(w), source: 'bar', seq: 2, tokens: { branch: 'stale' } });
  meta = (await d.json<{ meta: Record<string, unknown> }>(['get-agent-state', '-w', 'meta'])).meta as typeof meta;
  assert.not.ok('branch' in meta);
});

test('pane.report_metadata at or below the source\'s last state report or release is dropped', async () => {
  const w = await herdrWin(d, 'meta');
  await herdrOk(sock, 'pane.report_agent', { pane_id: herdrPaneIdOf(w), source: 'q', agent: 'Crush', state: 'working', seq: 10 });
  await herdrOk(sock, 'pane.release_agent', { pane_id: herdrPaneIdOf(w), source: 'q', seq: 11 });
  await herdrOk(sock, 'pane.report_metadata', { pane_id: herdrPaneIdOf(w), source: 'q', seq: 9, tokens: { queued: 'before release' } });
  const meta = (await d.json<{ meta: Record<string, unknown> }>(['get-agent-state', '-w', 'meta'])).meta;
  assert.not.ok('queued' in meta);
});

test('a pane sends pane.report_metadata in a burst of 20, then 5 a second; past that rate_limited', async () => {
  await d.ok(['new-window', '-s', 'rep', 'burst', 'cat']);
  const w = await herdrWin(d, 'burst');
  let n = 100;
  // 30 at once, so the refill (5 a second) adds little while they arrive.
  const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => herdrCall(sock, 'pane.report_metadata', { pane_id: herdrPaneIdOf(w), source: 'b', seq: n + i + 1, tokens: { i: String(i) } })));
  n += 30;
  const limited = answers.filter((a) => a.error).length;
  for (const a of answers) if (a.error) assert.is(a.error.code, 'rate_limited');
  assert.ok(limited >= 1 && limited <= 10, `refused ${limited} of 30`);
  await waitFor(async () => !(await herdrCall(sock, 'pane.report_metadata', { pane_id: herdrPaneIdOf(w), source: 'b', seq: ++n, tokens: { i: 'later' } })).error, { what: 'the rate to refill' });
});

test('a process in a pane reports for its own pane, and is refused forbidden for another', async () => {
  const own = await herdrWin(d, 'sh1');
  const other = await herdrWin(d, 'other');
  const mine = await herdrFromPane(d, 'sh1', 'pane.report_agent', { pane_id: herdrPaneIdOf(own), source: 'me', agent: 'Crush', state: 'working', seq: 1 });
  assert.equal(mine, { id: 1, result: { type: 'ok' } });
  assert.is((await herdrAgentState<AgentState>(d, 'sh1')).state, 'working');
  const before = (await herdrAgentState<AgentState>(d, 'other')).state;
  const theirs = await herdrFromPane(d, 'sh1', 'pane.report_agent', { pane_id: herdrPaneIdOf(other), source: 'me', agent: 'Crush', state: 'blocked', seq: 2 });
  assert.is(theirs.error?.code, 'forbidden');
  assert.is((await herdrAgentState<AgentState>(d, 'other')).state, before);
});

test('under mode strict: your own process outside tuios still reports for any pane; a pane still reports for itself, and only for itself', async () => {
  const strict = await TestDaemon.start({ config: '[agents.permissions]\nmode = "strict"\n' });
  try {
    await strict.ok(['new-session', 'st', '-n', 'target', 'cat']);
    await strict.ok(['new-window', '-s', 'st', 'selfie', 'sh']);
    const s2 = herdrSocketOf(strict);
    const target = herdrPaneIdOf(await herdrWin(strict, 'target'));
    const selfie = herdrPaneIdOf(await herdrWin(strict, 'selfie'));
    assert.equal(await herdrOk(s2, 'pane.report_agent', { pane_id: target, source: 'crush', agent: 'Crush', state: 'working', seq: 1 }), { type: 'ok' });
    assert.is((await herdrAgentState<AgentState>(strict, 'target')).state, 'working');
    const own = await herdrFromPane(strict, 'selfie', 'pane.report_agent', { pane_id: selfie, source: 'crush', agent: 'Crush', state: 'working', seq: 1 });
    assert.equal(own.result, { type: 'ok' });
    assert.is((await herdrAgentState<AgentState>(strict, 'selfie')).state, 'working');
    const other = await herdrFromPane(strict, 'selfie', 'pane.report_agent', { pane_id: target, source: 'crush', agent: 'Crush', state: 'idle', seq: 2 });
    assert.is(other.error?.code, 'forbidden');
    assert.is((await herdrAgentState<AgentState>(strict, 'target')).state, 'working', 'nothing changed');
  } finally {
    await strict.stop();
  }
});

test('pane.clear_agent_authority: a state a report holds clears; a pane may clear only itself', async () => {
  const own = await herdrWin(d, 'sh1');
  const other = await herdrWin(d, 'other');
  await herdrOk(sock, 'pane.report_agent', { pane_id: herdrPaneIdOf(other), source: 'auth', agent: 'Crush', state: 'working', seq: 1 });
  const refused = await herdrFromPane(d, 'sh1', 'pane.clear_agent_authority', { pane_id: herdrPaneIdOf(other) });
  assert.is(refused.error?.code, 'forbidden');
  assert.is((await herdrAgentState<AgentState>(d, 'other')).state, 'working');
  // A report that holds sh1 (from this process, which runs on, so the crash clear leaves it).
  await herdrOk(sock, 'pane.report_agent', { pane_id: herdrPaneIdOf(own), source: 'held', agent: 'Crush', state: 'working', seq: 1 });
  assert.is((await herdrAgentState<AgentState>(d, 'sh1')).source, 'report');
  const cleared = await herdrFromPane(d, 'sh1', 'pane.clear_agent_authority', { pane_id: herdrPaneIdOf(own) });
  assert.equal(cleared.result, { type: 'ok' });
  assert.is((await herdrAgentState<AgentState>(d, 'sh1')).state, 'none');
  // A state the detector holds stays.
  await d.ok(['set-agent-state', '-w', 'other', 'none']);
  await d.ok(['set-agent-state', '-w', 'other', 'working', '--source', 'detect']);
  assert.is((await herdrAgentState<AgentState>(d, 'other')).source, 'detect');
  await herdrOk(sock, 'pane.clear_agent_authority', { pane_id: herdrPaneIdOf(other) });
  assert.is((await herdrAgentState<AgentState>(d, 'other')).state, 'working');
});

test('two reporters: while tuios\'s integration holds the pane for a harness, a herdr: script\'s state reports and release are dropped; its session id and metadata apply', async () => {
  const w = await herdrWin(d, 'two');
  // tuios's own integration (a hook's report) holds the pane for pi.
  await d.ok(['set-agent-state', '-w', 'two', 'working', '--harness', 'pi']);
  assert.equal(await herdrOk(sock, 'pane.report_agent', { pane_id: herdrPaneIdOf(w), source: 'herdr:pi', agent: 'pi', state: 'idle', seq: 1 }), { type: 'ok' });
  assert.is((await herdrAgentState<AgentState>(d, 'two')).state, 'working', 'the script\'s state report is dropped');
  await herdrOk(sock, 'pane.report_agent', { pane_id: herdrPaneIdOf(w), source: 'herdr:pi', agent: 'pi', state: 'blocked', message: 'x', seq: 2 });
  assert.is((await herdrAgentState<AgentState>(d, 'two')).state, 'working');
  await herdrOk(sock, 'pane.release_agent', { pane_id: herdrPaneIdOf(w), source: 'herdr:pi', agent: 'pi', seq: 3 });
  assert.is((await herdrAgentState<AgentState>(d, 'two')).state, 'working', 'the script\'s release is dropped');
  await herdrOk(sock, 'pane.report_agent_session', { pane_id: herdrPaneIdOf(w), source: 'herdr:pi', agent: 'pi', agent_session_id: 'pi-conv-1' });
  assert.is((await herdrAgentState<AgentState>(d, 'two')).agent_session_id, 'pi-conv-1', 'the session id applies');
  await herdrOk(sock, 'pane.report_metadata', { pane_id: herdrPaneIdOf(w), source: 'herdr:pi', seq: 4, tokens: { branch: 'main' } });
  const meta = (await d.json<{ meta: Record<string, unknown> }>(['get-agent-state', '-w', 'two'])).meta;
  assert.ok('branch' in meta, 'the metadata applies');
  // Once tuios's integration lets go, the script's reports apply again.
  await d.ok(['set-agent-state', '-w', 'two', 'none']);
  await herdrOk(sock, 'pane.report_agent', { pane_id: herdrPaneIdOf(w), source: 'herdr:pi', agent: 'pi', state: 'working', seq: 5 });
  assert.is((await herdrAgentState<AgentState>(d, 'two')).state, 'working');
  await herdrOk(sock, 'pane.report_agent', { pane_id: herdrPaneIdOf(w), source: 'herdr:pi', agent: 'pi', state: 'idle', seq: 6 });
  assert.is((await herdrAgentState<AgentState>(d, 'two')).state, 'done', 'a script\'s report over its own report applies');
  await herdrOk(sock, 'pane.release_agent', { pane_id: herdrPaneIdOf(w), source: 'herdr:pi', seq: 7 });
  assert.is((await herdrAgentState<AgentState>(d, 'two')).state, 'none');
});

test('two reporters: an agent that reports to herdr by itself (Crush) is never dropped', async () => {
  const w = await herdrWin(d, 'two');
  await d.ok(['set-agent-state', '-w', 'two', 'working', '--harness', 'crush']);
  await herdrOk(sock, 'pane.report_agent', { pane_id: herdrPaneIdOf(w), source: 'crush', agent: 'Crush', state: 'idle', seq: 1 });
  assert.is((await herdrAgentState<AgentState>(d, 'two')).state, 'done');
  await herdrOk(sock, 'pane.release_agent', { pane_id: herdrPaneIdOf(w), source: 'crush', seq: 2 });
  assert.is((await herdrAgentState<AgentState>(d, 'two')).state, 'none');
});

test('the crash clear: a reporter gone and the pane at its prompt clears to none once its last report is over 2 s old', async () => {
  const w = await herdrWin(d, 'crash');
  const t0 = Date.now();
  const a = await herdrFromPane(d, 'crash', 'pane.report_agent', { pane_id: herdrPaneIdOf(w), source: 'c', agent: 'Crush', state: 'working', seq: 1 });
  assert.equal(a.result, { type: 'ok' });
  const afterAnswer = Date.now();
  const s = await herdrAgentState<AgentState>(d, 'crash');
  if (Date.now() - t0 < 1800) assert.is(s.state, 'working', 'kept while the report is fresh');
  await waitFor(async () => (await herdrAgentState<AgentState>(d, 'crash')).state === 'none', { what: 'the crash clear', timeout: 15_000 });
  assert.ok(Date.now() - afterAnswer >= 1000 && Date.now() - t0 >= 2000, `cleared ${Date.now() - t0} ms after the report`);
});

test('the crash clear: a short hook\'s first program above it that is not a shell keeps the state while it runs', async () => {
  const w = await herdrWin(d, 'wrapped');
  // agentish: a program that runs a hook (sh, then the herdr client), then stays until told to stop.
  const agentish = join(d.home, 'agentish.cjs');
  const stop = join(d.home, 'agentish.stop');
  const answer = join(d.home, 'agentish.answer');
  const hook = `${process.execPath} ${herdrPaneClient(d)} pane.report_agent '${JSON.stringify({ pane_id: herdrPaneIdOf(w), source: 'h', agent: 'Crush', state: 'working', seq: 1 })}' ${answer}`;
  writeFileSync(
    agentish,
    `const { spawn } = require('node:child_process'); const fs = require('node:fs');
spawn('sh', ['-c', ${JSON.stringify(hook)}], { stdio: 'ignore' });
const t = setInterval(() => { if (fs.existsSync(${JSON.stringify(stop)})) { clearInterval(t); process.exit(0); } }, 100);
`,
  );
  // In the background, so the shell is back at its prompt while it runs.
  await d.ok(['send-text', '-w', 'wrapped', '--submit', `${process.execPath} ${agentish} &`]);
  await waitFor(() => (existsSync(answer) ? readFileSync(answer, 'utf8') : null), { what: 'the hook\'s answer' });
  assert.is((await herdrAgentState<AgentState>(d, 'wrapped')).state, 'working');
  // Well past 2 s, at the prompt, the hook gone: the program above it runs, so the state stays.
  await new Promise((r) => setTimeout(r, 3500));
  assert.is((await herdrAgentState<AgentState>(d, 'wrapped')).state, 'working');
  writeFileSync(stop, '');
  await waitFor(async () => (await herdrAgentState<AgentState>(d, 'wrapped')).state === 'none', { what: 'the clear once the program exits', timeout: 15_000 });
});

test.run();
