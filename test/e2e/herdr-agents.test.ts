// The herdr socket's snapshot, layout, focus, wait and agent rows (spec: herdr compatibility,
// Methods), against a real daemon with a client written from the spec's tables.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connect } from 'node:net';
import { TestDaemon } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { herdrCall, herdrErr, herdrOk, herdrSocketOf, herdrWsId, herdrPaneIdOf, herdrWin } from '../helpers/herdr-client.js';

let d: TestDaemon;
let sock: string;

test.before(async () => {
  d = await TestDaemon.start();
  sock = herdrSocketOf(d);
  await d.ok(['new-session', 'fleet', '-n', 'first', 'cat', '-v']);
  await d.ok(['new-window', '-s', 'fleet', 'second', 'cat', '-v']);
  await d.ok(['new-window', '-s', 'fleet', '--workspace', '2', 'api', 'cat', '-v']);
});

test.after(async () => {
  await d.stop();
});

test('session.snapshot: every workspace, tab and pane, herdr\'s version; each pane fills its tab and splits is empty', async () => {
  const r = await herdrOk<{ type: string; version: string; server: string; workspaces: unknown[]; tabs: Array<{ tab_id: string }>; panes: Array<{ pane_id: string }>; layouts: Array<{ tab_id: string; panes: Array<{ pane_id: string; rect: { x: number; y: number; width: number; height: number } }>; splits: unknown[] }> }>(sock, 'session.snapshot');
  assert.is(r.type, 'session_snapshot');
  assert.is(r.version, '0.9.5+tuios');
  assert.is(r.server, 'tuios');
  assert.is(r.workspaces.length, 1);
  const first = await herdrWin(d, 'first');
  const ws = `${herdrWsId(first.session_id)}`;
  assert.equal(r.tabs.map((t) => t.tab_id), [`${ws}:t1`, `${ws}:t2`]);
  assert.is(r.panes.length, 3);
  const l1 = r.layouts.find((l) => l.tab_id === `${ws}:t1`)!;
  assert.is(l1.panes.length, 2);
  assert.equal(l1.splits, []);
  assert.equal(l1.panes[0]!.rect, { x: 0, y: 0, width: 80, height: 24 });
});

test('tab.get: a tab by its id; a workspace with no pane is no tab', async () => {
  const first = await herdrWin(d, 'first');
  const ws = `${herdrWsId(first.session_id)}`;
  const r = await herdrOk<{ type: string; tab: { tab_id: string; pane_count: number } }>(sock, 'tab.get', { tab_id: `${ws}:t2` });
  assert.equal([r.type, r.tab.tab_id, r.tab.pane_count], ['tab_info', `${ws}:t2`, 1]);
  assert.is((await herdrErr(sock, 'tab.get', { tab_id: `${ws}:t7` })).code, 'tab_not_found');
  assert.is((await herdrErr(sock, 'tab.get', { tab_id: 'nonsense' })).code, 'tab_not_found');
});

test('pane.current: outside every pane there is none', async () => {
  assert.is((await herdrErr(sock, 'pane.current')).code, 'pane_not_found');
});

test('pane.layout: the pane\'s tab', async () => {
  const w = await herdrWin(d, 'api');
  const r = await herdrOk<{ type: string; layout: { tab_id: string; panes: Array<{ pane_id: string }>; splits: unknown[] } }>(sock, 'pane.layout', { pane_id: herdrPaneIdOf(w) });
  assert.is(r.type, 'pane_layout');
  assert.is(r.layout.tab_id, `${herdrWsId(w.session_id)}:t2`);
  assert.equal(r.layout.panes.map((p) => p.pane_id), [herdrPaneIdOf(w)]);
});

test('pane.send_input: the text as a paste, then the keys', async () => {
  const w = await herdrWin(d, 'second');
  assert.equal(await herdrOk(sock, 'pane.send_input', { pane_id: herdrPaneIdOf(w), text: 'in\x01put', keys: ['Enter'] }), { type: 'ok' });
  await d.waitScreen('second', /^input$/m);
});

test('pane.focus: select-window; the tab shows and the pane is focused', async () => {
  const w = await herdrWin(d, 'api');
  const r = await herdrOk<{ pane: { focused: boolean } }>(sock, 'pane.focus', { pane_id: herdrPaneIdOf(w) });
  assert.ok(r.pane.focused);
  const ss = await d.json<{ sessions: Array<{ name: string; active_workspace: number }> }>(['list-sessions']);
  assert.is(ss.sessions.find((s) => s.name === 'fleet')!.active_workspace, 2);
  await herdrOk(sock, 'pane.focus', { pane_id: herdrPaneIdOf(await herdrWin(d, 'first')) });
  assert.ok((await herdrWin(d, 'first')).focused);
});

test('pane.wait_for_output: wait-for window-output; a timeout over 24 hours is invalid_params; the wait ends with its connection', async () => {
  const w = await herdrWin(d, 'second');
  const waiting = herdrOk<{ type: string; line: string }>(sock, 'pane.wait_for_output', { pane_id: herdrPaneIdOf(w), pattern: 'needle-[0-9]+', timeout_ms: 30_000 });
  await waitFor(async () => (await d.call<{ waits: number }>('server-info')).waits > 0, { what: 'the wait to listen' });
  await d.ok(['send-text', '-w', 'second', '--submit', 'needle-42']);
  const r = await waiting;
  assert.is(r.type, 'output_matched');
  assert.match(r.line, /needle-42/);
  assert.is((await herdrErr(sock, 'pane.wait_for_output', { pane_id: herdrPaneIdOf(w), pattern: 'x', timeout_ms: 24 * 3600 * 1000 + 1 })).code, 'invalid_params');
  const t = await herdrErr(sock, 'pane.wait_for_output', { pane_id: herdrPaneIdOf(w), pattern: 'never-printed', timeout_ms: 200 });
  assert.is(t.code, 'timeout');
  // A client that closes its connection ends its wait.
  const c = connect(sock);
  c.on('error', () => undefined);
  c.write(JSON.stringify({ id: 1, method: 'pane.wait_for_output', params: { pane_id: herdrPaneIdOf(w), pattern: 'never-printed', timeout_ms: 600_000 } }) + '\n');
  await waitFor(async () => (await d.call<{ waits: number }>('server-info')).waits > 0, { what: 'the wait to listen' });
  c.destroy();
  await waitFor(async () => (await d.call<{ waits: number }>('server-info')).waits === 0, { what: 'the wait to end with its connection' });
});

test('agent.list, agent.get: panes that hold an agent, found by pane id, terminal id or name; agent_status mapped', async () => {
  await d.ok(['set-agent-state', '-w', 'api', 'needs_input', '-m', 'approve?', '--harness', 'claude-code']);
  const l = await herdrOk<{ type: string; agents: Array<{ name: string; agent: string; agent_status: string }> }>(sock, 'agent.list');
  assert.is(l.type, 'agent_list');
  const a = l.agents.find((x) => x.name === 'api')!;
  assert.ok(a, 'the reporting pane is an agent');
  assert.equal([a.agent, a.agent_status], ['claude', 'blocked']);
  assert.not.ok(l.agents.some((x) => x.name === 'first'), 'a pane with no agent is not listed');
  const w = await herdrWin(d, 'api');
  for (const target of ['api', herdrPaneIdOf(w), w.id]) {
    const g = await herdrOk<{ type: string; agent: { pane_id: string } }>(sock, 'agent.get', { target });
    assert.equal([g.type, g.agent.pane_id], ['agent_info', herdrPaneIdOf(w)], target);
  }
  assert.is((await herdrErr(sock, 'agent.get', { target: 'nobody' })).code, 'pane_not_found');
  const tabs = await herdrOk<{ tabs: Array<{ number: number; agent_status: string }> }>(sock, 'tab.list');
  assert.is(tabs.tabs.find((t) => t.number === 2)!.agent_status, 'blocked', 'a tab shows its most urgent pane');
  assert.is(tabs.tabs.find((t) => t.number === 1)!.agent_status, 'unknown', 'a tab with no agent is unknown');
  const wss = await herdrOk<{ workspaces: Array<{ label: string; agent_status: string }> }>(sock, 'workspace.list');
  assert.is(wss.workspaces.find((w) => w.label === 'fleet')!.agent_status, 'blocked', 'a workspace shows its most urgent pane');
});

test('agent.read and agent.send_keys: capture-pane and send-keys on the agent\'s pane', async () => {
  await herdrOk(sock, 'agent.send_keys', { target: 'api', keys: ['o', 'k', 'Enter'] });
  await d.waitScreen('api', /^ok$/m);
  const r = await herdrOk<{ read: { text: string } }>(sock, 'agent.read', { target: 'api' });
  assert.match(r.read.text, /^ok$/m);
});

test('agent.wait: wait-for agent-state, answered with herdr\'s status', async () => {
  const waiting = herdrOk<{ type: string; agent_status: string }>(sock, 'agent.wait', { target: 'api', until: ['working'], timeout_ms: 30_000 });
  // Once the wait listens (server-info counts it), a report ends it.
  await waitFor(async () => (await d.call<{ waits: number }>('server-info')).waits > 0, { what: 'the wait to listen' });
  await d.ok(['set-agent-state', '-w', 'api', 'working', '--harness', 'claude-code']);
  const r = await waiting;
  assert.equal([r.type, r.agent_status], ['agent_status', 'working']);
  assert.is((await herdrErr(sock, 'agent.wait', { target: 'api', until: ['sleeping'] })).code, 'invalid_request');
  assert.is((await herdrErr(sock, 'agent.wait', { target: 'api', timeout_ms: 24 * 3600 * 1000 + 1 })).code, 'invalid_params');
});

test('agent.prompt: send-text with submit; an agent waiting on a prompt fails agent_blocked and nothing is typed', async () => {
  await d.ok(['set-agent-state', '-w', 'api', 'needs_input', '-m', 'approve?', '--harness', 'claude-code']);
  assert.is((await herdrErr(sock, 'agent.prompt', { target: 'api', prompt: 'must-not-arrive' })).code, 'agent_blocked');
  await d.ok(['set-agent-state', '-w', 'api', 'working', '--harness', 'claude-code']);
  assert.equal(await herdrOk(sock, 'agent.prompt', { target: 'api', prompt: 'next-task' }), { type: 'ok' });
  await d.waitScreen('api', /^next-task$/m);
  assert.not.match(await d.ok(['capture-pane', '-w', 'api']), /must-not-arrive/);
  assert.is((await herdrErr(sock, 'agent.prompt', { target: 'api' })).message, 'missing field `prompt`');
});

test('agent.rename: set-window; agent.get then finds it by the new name; no name clears it', async () => {
  const r = await herdrOk<{ type: string; agent: { label: string } }>(sock, 'agent.rename', { target: 'api', name: 'reviewer' });
  assert.equal([r.type, r.agent.label], ['agent_info', 'reviewer']);
  assert.ok((await herdrCall(sock, 'agent.get', { target: 'reviewer' })).result);
  const c = await herdrOk<{ agent: { label: string } }>(sock, 'agent.rename', { target: 'reviewer' });
  assert.is(c.agent.label, 'cat');
});

test('agent.focus: select-window on the agent\'s pane', async () => {
  const r = await herdrOk<{ pane: { focused: boolean; label: string } }>(sock, 'agent.focus', { target: herdrPaneIdOf(await herdrWin(d, 'cat')) });
  assert.ok(r.pane.focused);
});

test('agent.explain: tuios\'s detector report for the pane', async () => {
  const r = await herdrOk<{ type: string; explain: { verdict?: string } }>(sock, 'agent.explain', { target: 'cat' });
  assert.is(r.type, 'agent_explain');
  assert.ok(r.explain && typeof r.explain === 'object' && 'verdict' in r.explain);
});

test('server.reload_config answers config_reload applied; release_notes and product_announcement dismissals are stale', async () => {
  const r = await herdrOk<{ type: string; status: string; diagnostics: string[] }>(sock, 'server.reload_config');
  assert.equal([r.type, r.status], ['config_reload', 'applied']);
  assert.ok(r.diagnostics.length > 0);
  assert.is((await herdrErr(sock, 'release_notes.dismiss')).code, 'stale_release_notes');
  assert.is((await herdrErr(sock, 'product_announcement.dismiss')).code, 'stale_announcement');
});

test('server.agent_manifests: the agents tuios knows, under herdr\'s names, bundled', async () => {
  const r = await herdrOk<{ type: string; manifests: Array<{ agent: string; source: string }> }>(sock, 'server.agent_manifests');
  assert.is(r.type, 'agent_manifests');
  const names = r.manifests.map((m) => m.agent);
  for (const n of ['claude', 'gemini', 'cursor', 'agy', 'qodercli', 'codex', 'crush']) assert.ok(names.includes(n), n);
  assert.not.ok(names.includes('claude-code'));
  assert.ok(r.manifests.every((m) => m.source === 'bundled'));
});

test.run();
