// herdr's events.subscribe (spec: herdr compatibility, Events): tuios's bus events told as
// herdr's, over a stream on the herdr socket, against a real daemon.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TestDaemon } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { herdrErr, HerdrStreamClient, herdrSocketOf, herdrWsId, herdrPaneIdOf, herdrWin } from '../helpers/herdr-client.js';

let d: TestDaemon;
let sock: string;

test.before(async () => {
  d = await TestDaemon.start();
  sock = herdrSocketOf(d);
  await d.ok(['new-session', 'ev', '-n', 'first', 'cat']);
});

test.after(async () => {
  await d.stop();
});

test('events.subscribe answers subscription_started, then herdr\'s events: panes, tabs and workspaces as they come and go', async () => {
  const s = new HerdrStreamClient(sock, { subscriptions: [{ type: 'pane_created' }, { type: 'tab_created' }, { type: 'pane_closed' }, { type: 'tab_closed' }, { type: 'workspace_created' }, { type: 'workspace_closed' }] });
  try {
    await waitFor(() => s.lines.length > 0, { what: 'the first answer' });
    assert.equal(s.lines[0], { id: 'sub', result: { type: 'subscription_started' } });
    await d.ok(['new-window', '-s', 'ev', '--workspace', '4', 'four', 'cat']);
    const w = await herdrWin(d, 'four');
    const ws = `${herdrWsId(w.session_id)}`;
    await waitFor(() => s.events('tab_created').length > 0, { what: 'tab_created' });
    assert.equal(s.events('pane_created')[0], { type: 'pane_created', pane_id: herdrPaneIdOf(w), workspace_id: ws, tab_id: `${ws}:t4` });
    assert.equal(s.events('tab_created')[0], { type: 'tab_created', tab_id: `${ws}:t4`, workspace_id: ws });
    await d.ok(['new-window', '-s', 'ev', '--workspace', '4', 'four-b', 'cat']);
    await waitFor(() => s.events('pane_created').length === 2, { what: 'the second pane_created' });
    assert.is(s.events('tab_created').length, 1, 'a second pane on the tab makes no tab');
    await d.ok(['close-window', '-w', 'four']);
    await d.ok(['close-window', '-w', 'four-b']);
    await waitFor(() => s.events('tab_closed').length > 0, { what: 'tab_closed' });
    assert.is(s.events('pane_closed').length, 2);
    assert.equal(s.events('tab_closed')[0], { type: 'tab_closed', tab_id: `${ws}:t4`, workspace_id: ws });
    await d.ok(['new-session', 'ev2']);
    await waitFor(() => s.events('workspace_created').length > 0, { what: 'workspace_created' });
    assert.is(s.events('workspace_created')[0]!.label, 'ev2');
    await d.ok(['kill-session', 'ev2']);
    await waitFor(() => s.events('workspace_closed').length > 0, { what: 'workspace_closed' });
    assert.not.ok(s.lines.some((l) => l.event === 'pane_focused'), 'only what was subscribed');
  } finally {
    s.close();
  }
});

test('pane.agent_status_changed for the pane named; pane_agent_detected when an agent comes', async () => {
  const w = await herdrWin(d, 'first');
  const s = new HerdrStreamClient(sock, { subscriptions: [{ type: 'pane.agent_status_changed', pane_id: herdrPaneIdOf(w) }, { type: 'pane_agent_detected' }] });
  try {
    await waitFor(() => s.lines.length > 0, { what: 'the first answer' });
    await d.ok(['set-agent-state', '-w', 'first', 'working', '--harness', 'claude-code']);
    await waitFor(() => s.events('pane.agent_status_changed').length > 0, { what: 'the status change' });
    const e = s.events('pane.agent_status_changed')[0]!;
    assert.equal([e.pane_id, e.agent_status, e.agent], [herdrPaneIdOf(w), 'working', 'claude']);
    assert.is(s.events('pane_agent_detected').length, 1);
    await d.ok(['set-agent-state', '-w', 'first', 'needs_input', '--harness', 'claude-code']);
    await waitFor(() => s.events('pane.agent_status_changed').length === 2, { what: 'blocked' });
    assert.is(s.events('pane.agent_status_changed')[1]!.agent_status, 'blocked');
  } finally {
    s.close();
  }
});

test('bad subscriptions fail the whole call: no pane_id, an unknown type; scroll and output events are unsupported', async () => {
  assert.is((await herdrErr(sock, 'events.subscribe', { subscriptions: [{ type: 'pane.agent_status_changed' }] })).message, 'missing field `pane_id`');
  assert.is((await herdrErr(sock, 'events.subscribe', { subscriptions: [{ type: 'pane_created' }, { type: 'pane_exploded' }] })).code, 'invalid_request');
  assert.is((await herdrErr(sock, 'events.subscribe', { subscriptions: [{ type: 'pane.output_matched', pane_id: 'abcdef12' }] })).code, 'unsupported');
  assert.is((await herdrErr(sock, 'events.subscribe', {})).message, 'missing field `subscriptions`');
});

test('one process holds at most 8 event streams; the next is refused rate_limited; a closed stream frees its place', async () => {
  const held = Array.from({ length: 8 }, () => new HerdrStreamClient(sock, { subscriptions: [{ type: 'pane_created' }] }));
  try {
    await waitFor(() => held.every((h) => h.lines.length > 0), { what: 'eight streams' });
    const ninth = new HerdrStreamClient(sock, { subscriptions: [{ type: 'pane_created' }] });
    await waitFor(() => ninth.closed, { what: 'the ninth to be refused' });
    assert.is((ninth.lines[0]!.error as { code: string }).code, 'rate_limited');
    held.pop()!.close();
    await waitFor(async () => {
      const again = new HerdrStreamClient(sock, { subscriptions: [{ type: 'pane_created' }] });
      await waitFor(() => again.lines.length > 0 || again.closed, { what: 'an answer' });
      const ok = !!again.lines[0]?.result;
      again.close();
      return ok;
    }, { what: 'a place to free' });
  } finally {
    for (const h of held) h.close();
  }
});

test.run();
