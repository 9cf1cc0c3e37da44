// herdr's tab methods, workspace.focus and pane.move on the herdr socket (spec: herdr
// compatibility, How tuios maps onto herdr, Methods): a tab's number is its own, so a rename and a
// move keep its id, a closed tab's number is never used again, and a moved pane keeps the
// HERDR_TAB_ID it started with. Against a real daemon, one test per row and per rule.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TestDaemon } from '../helpers/daemon.js';
import { herdrErr, herdrOk, herdrFromPane, HerdrStreamClient, herdrSocketOf, herdrWsId, herdrTabIdOf, herdrPaneIdOf, herdrWindows, herdrWin, herdrSession, type HerdrSession, herdrCli, type HerdrWin } from '../helpers/herdr-client.js';
import { waitFor } from '../helpers/wait.js';

interface Tab {
  tab_id: string;
  workspace_id: string;
  number: number;
  label: string;
  focused: boolean;
  pane_count: number;
}
interface Pane {
  pane_id: string;
  tab_id: string;
  workspace_id: string;
  terminal_id: string;
}
interface MoveResult {
  changed: boolean;
  reason: string | null;
  previous_pane_id: string;
  previous_tab_id: string;
  pane: Pane;
  created_tab: Tab | null;
  closed_tab_id: string | null;
  closed_workspace_id: string | null;
  source_layout: { tab_id: string; panes: Array<{ pane_id: string }> } | null;
  target_layout: { tab_id: string; panes: Array<{ pane_id: string }> };
}

let d: TestDaemon;
let sock: string;
let S: HerdrSession;

async function tabList(s: HerdrSession): Promise<Tab[]> {
  return (await herdrOk<{ tabs: Tab[] }>(sock, 'tab.list', { workspace_id: herdrWsId(s) })).tabs;
}

test.before(async () => {
  d = await TestDaemon.start();
  sock = herdrSocketOf(d);
  await d.ok(['new-session', 'tabs', '-n', 'main']);
  S = (await herdrSession(d, 'tabs'))!;
});

test.after(async () => {
  await d.stop();
});

test('tab.create opens a pane on the first workspace that is not a tab, named by label; focus shows it', async () => {
  const r = await herdrOk<{ type: string; tab: Tab; root_pane: Pane }>(sock, 'tab.create', { workspace_id: herdrWsId(S), label: 'build' });
  assert.is(r.type, 'tab_created');
  assert.equal({ id: r.tab.tab_id, n: r.tab.number, label: r.tab.label, panes: r.tab.pane_count, focused: r.tab.focused }, { id: herdrTabIdOf(S, 2), n: 2, label: 'build', panes: 1, focused: false });
  assert.is(r.root_pane.tab_id, herdrTabIdOf(S, 2));
  assert.is((await herdrWin(d, r.root_pane.terminal_id)).workspace, 2);
  const f = await herdrOk<{ tab: Tab }>(sock, 'tab.create', { workspace_id: herdrWsId(S), focus: true });
  assert.is(f.tab.tab_id, herdrTabIdOf(S, 3));
  assert.is(f.tab.label, '3', 'an unnamed tab\'s label is its workspace number');
  assert.is(f.tab.focused, true);
  assert.is((await herdrSession(d, 'tabs'))!.active_workspace, 3);
  assert.is((await herdrErr(sock, 'tab.create', { workspace_id: 'w000000000000' })).code, 'workspace_not_found');
});

test('tab.rename keeps the tab id; the label shows in tab.get and the session\'s tabs', async () => {
  const r = await herdrOk<{ type: string; tab: Tab }>(sock, 'tab.rename', { tab_id: herdrTabIdOf(S, 2), label: 'compile' });
  assert.is(r.type, 'tab_info');
  assert.is(r.tab.tab_id, herdrTabIdOf(S, 2));
  assert.is(r.tab.label, 'compile');
  assert.is((await herdrOk<{ tab: Tab }>(sock, 'tab.get', { tab_id: herdrTabIdOf(S, 2) })).tab.label, 'compile');
  assert.equal((await herdrSession(d, 'tabs'))!.tabs.find((t) => t.workspace === 2), { workspace: 2, number: 2, name: 'compile' });
  assert.is((await herdrErr(sock, 'tab.rename', { tab_id: herdrTabIdOf(S, 8), label: 'x' })).code, 'tab_not_found');
  assert.is((await herdrErr(sock, 'tab.rename', { tab_id: herdrTabIdOf(S, 2) })).code, 'invalid_request');
});

test('tab.focus shows the tab\'s workspace', async () => {
  const r = await herdrOk<{ tab: Tab }>(sock, 'tab.focus', { tab_id: herdrTabIdOf(S, 1) });
  assert.is(r.tab.focused, true);
  assert.is((await herdrSession(d, 'tabs'))!.active_workspace, 1);
});

test('tab.move renumbers the workspaces to the new tab order; every tab keeps its id, its panes theirs', async () => {
  const paneOn3 = (await herdrWindows<HerdrWin>(d)).find((w) => w.session === 'tabs' && w.workspace === 3)!;
  const r = await herdrOk<{ type: string; tabs: Tab[] }>(sock, 'tab.move', { tab_id: herdrTabIdOf(S, 3), insert_index: 0 });
  assert.is(r.type, 'tab_list');
  assert.equal(r.tabs.map((t) => [t.tab_id, t.number, t.label]), [
    [herdrTabIdOf(S, 3), 3, '1'],
    [herdrTabIdOf(S, 1), 1, '2'],
    [herdrTabIdOf(S, 2), 2, 'compile'],
  ]);
  assert.is((await herdrWin(d, paneOn3.id)).workspace, 1, 'the pane went with its tab');
  assert.is((await herdrOk<{ pane: Pane }>(sock, 'pane.get', { pane_id: herdrPaneIdOf(paneOn3) })).pane.tab_id, herdrTabIdOf(S, 3));
  assert.is((await herdrSession(d, 'tabs'))!.active_workspace, 2, 'the shown tab is still shown, on its new workspace');
  // herdr's insert index is a gap in the list: past the end moves it last; beyond that fails.
  const back = await herdrOk<{ tabs: Tab[] }>(sock, 'tab.move', { tab_id: herdrTabIdOf(S, 3), insert_index: 3 });
  assert.equal(back.tabs.map((t) => t.tab_id), [herdrTabIdOf(S, 1), herdrTabIdOf(S, 2), herdrTabIdOf(S, 3)]);
  assert.is((await herdrErr(sock, 'tab.move', { tab_id: herdrTabIdOf(S, 3), insert_index: 4 })).code, 'tab_move_failed');
  assert.is((await herdrErr(sock, 'tab.move', { tab_id: herdrTabIdOf(S, 3) })).code, 'invalid_request');
});

test('tab.close closes its panes; its number is never used again, and a tab made there gets a new one', async () => {
  // Tab 3 is on workspace 3 again; it does not show.
  const r = await herdrOk<{ type: string }>(sock, 'tab.close', { tab_id: herdrTabIdOf(S, 3) });
  assert.is(r.type, 'ok');
  assert.ok(!(await herdrWindows<HerdrWin>(d)).some((w) => w.session === 'tabs' && w.workspace === 3));
  assert.is((await herdrErr(sock, 'tab.get', { tab_id: herdrTabIdOf(S, 3) })).code, 'tab_not_found');
  const again = await herdrOk<{ tab: Tab }>(sock, 'tab.create', { workspace_id: herdrWsId(S) });
  assert.ok(again.tab.tab_id !== herdrTabIdOf(S, 3), 'a new number');
  assert.ok(again.tab.number > 9, `got ${again.tab.number}`);
  assert.is(again.tab.label, '3', 'labelled by its workspace number');
});

test('tab.close of the tab that shows shows the nearest tab that holds a pane; a named tab loses its name', async () => {
  await d.ok(['select-workspace', '-s', 'tabs', '2']);
  await herdrOk(sock, 'tab.close', { tab_id: herdrTabIdOf(S, 2) });
  const s = (await herdrSession(d, 'tabs'))!;
  assert.ok([1, 3].includes(s.active_workspace), `shows ${s.active_workspace}`);
  assert.is(s.active_workspace, 1, 'on a tie, the one before');
  assert.ok(!s.tabs.some((t) => t.workspace === 2), 'workspace 2 is no tab: no pane, no name, not shown');
  assert.is((await herdrErr(sock, 'tab.close', { tab_id: herdrTabIdOf(S, 2) })).code, 'tab_not_found');
});

test('tab.create fails with tab_create_failed when all nine workspaces are tabs', async () => {
  const made: string[] = [];
  for (;;) {
    const s = (await herdrSession(d, 'tabs'))!;
    if (s.tabs.length >= 9) break;
    made.push((await herdrOk<{ tab: Tab }>(sock, 'tab.create', { workspace_id: herdrWsId(S) })).tab.tab_id);
  }
  assert.is((await herdrErr(sock, 'tab.create', { workspace_id: herdrWsId(S) })).code, 'tab_create_failed');
  for (const id of made) await herdrOk(sock, 'tab.close', { tab_id: id });
  assert.is((await herdrSession(d, 'tabs'))!.tabs.length, 2);
});

test('pane.move: same_tab changes nothing; new_workspace is unsupported; a missing destination is invalid_request', async () => {
  const main = await herdrWin(d, 'main');
  const same = await herdrOk<{ type: string; move_result: MoveResult }>(sock, 'pane.move', { pane_id: herdrPaneIdOf(main), destination: { type: 'tab', tab_id: herdrTabIdOf(S, 1), split: 'right' } });
  assert.is(same.type, 'pane_move');
  assert.equal([same.move_result.changed, same.move_result.reason], [false, 'same_tab']);
  assert.is((await herdrErr(sock, 'pane.move', { pane_id: herdrPaneIdOf(main), destination: { type: 'new_workspace' } })).code, 'unsupported');
  assert.is((await herdrErr(sock, 'pane.move', { pane_id: herdrPaneIdOf(main) })).code, 'invalid_request');
  assert.is((await herdrErr(sock, 'pane.move', { pane_id: herdrPaneIdOf(main), destination: { type: 'tab', tab_id: herdrTabIdOf(S, 99), split: 'right' } })).code, 'tab_not_found');
});

test('pane.move to another tab and to a new tab: the pane keeps its id, its process and its HERDR_TAB_ID', async () => {
  await d.ok(['new-window', '-s', 'tabs', '--workspace', '1', 'mover']);
  const mover = await herdrWin(d, 'mover');
  const target = (await herdrSession(d, 'tabs'))!.tabs.find((t) => t.workspace === 3)!;
  const r = await herdrOk<{ move_result: MoveResult }>(sock, 'pane.move', { pane_id: herdrPaneIdOf(mover), destination: { type: 'tab', tab_id: herdrTabIdOf(S, target.number), split: 'down', ratio: 0.3 } });
  assert.is(r.move_result.changed, true);
  assert.is(r.move_result.previous_tab_id, herdrTabIdOf(S, 1));
  assert.is(r.move_result.pane.tab_id, herdrTabIdOf(S, target.number));
  assert.is(r.move_result.pane.pane_id, herdrPaneIdOf(mover), 'the same workspace, the same pane id');
  assert.is(r.move_result.closed_tab_id, null, 'tab 1 still holds main');
  assert.is(r.move_result.target_layout.tab_id, herdrTabIdOf(S, target.number));
  assert.ok(r.move_result.target_layout.panes.some((p) => p.pane_id === herdrPaneIdOf(mover)), 'the target layout holds the pane');
  assert.is(r.move_result.source_layout!.tab_id, herdrTabIdOf(S, 1));
  assert.ok(!r.move_result.source_layout!.panes.some((p) => p.pane_id === herdrPaneIdOf(mover)), 'the source layout no longer does');
  assert.is((await herdrWin(d, 'mover')).workspace, 3);
  const nt = await herdrOk<{ move_result: MoveResult }>(sock, 'pane.move', { pane_id: herdrPaneIdOf(mover), destination: { type: 'new_tab', label: 'moved' } });
  assert.is(nt.move_result.created_tab!.label, 'moved');
  assert.is(nt.move_result.created_tab!.workspace_id, herdrWsId(S));
  const after = await herdrWin(d, 'mover');
  assert.is(after.workspace, 2);
  assert.is(after.pid, mover.pid);
  await d.ok(['send-text', '-w', mover.id, '--submit', 'echo "tab=$HERDR_TAB_ID"']);
  await d.waitScreen(mover.id, new RegExp(`^tab=${herdrTabIdOf(S, 1)}$`, 'm'));
});

test('pane.move to a tab of another workspace: the pane goes to that session with its program running; its pane id changes', async () => {
  await d.ok(['new-session', 'far', '-n', 'farmain']);
  const far = (await herdrSession(d, 'far'))!;
  const mover = await herdrWin(d, 'mover');
  await d.ok(['send-text', '-w', mover.id, '--submit', 'echo before-far']);
  await d.waitScreen(mover.id, /^before-far/m);
  const r = await herdrOk<{ move_result: MoveResult }>(sock, 'pane.move', { pane_id: herdrPaneIdOf(mover), destination: { type: 'tab', tab_id: herdrTabIdOf(far, 1), split: 'right' } });
  assert.is(r.move_result.changed, true);
  assert.is(r.move_result.previous_pane_id, herdrPaneIdOf(mover));
  assert.is(r.move_result.pane.pane_id, `${herdrWsId(far)}:p${mover.id.slice(0, 12)}`);
  assert.is(r.move_result.pane.tab_id, herdrTabIdOf(far, 1));
  assert.is(r.move_result.closed_tab_id, r.move_result.previous_tab_id, 'the named tab it left had no other pane');
  const moved = await herdrWin(d, mover.id);
  assert.equal([moved.session, moved.workspace, moved.pid], ['far', 1, mover.pid]);
  // The old pane id still finds it: a pane id finds a window that moved to another session.
  assert.is((await herdrOk<{ pane: Pane }>(sock, 'pane.get', { pane_id: herdrPaneIdOf(mover) })).pane.workspace_id, herdrWsId(far));
  await d.ok(['send-text', '-w', mover.id, '--submit', 'echo after-far']);
  await d.waitScreen(mover.id, /^after-far/m);
  // Back to a new tab of the first session.
  const back = await herdrOk<{ move_result: MoveResult }>(sock, 'pane.move', { pane_id: herdrPaneIdOf(moved), destination: { type: 'new_tab', workspace_id: herdrWsId(S) } });
  assert.is(back.move_result.pane.workspace_id, herdrWsId(S));
  assert.is(back.move_result.closed_workspace_id, null, 'far still holds farmain');
});

test('pane.move from or into a zoomed tab changes nothing: zoomed_tab', async () => {
  await d.ok(['new-window', '-s', 'tabs', '--workspace', '5', 'z1']);
  await d.ok(['new-window', '-s', 'tabs', '--workspace', '5', 'z2']);
  const z2 = await herdrWin(d, 'z2');
  const zoomTab = herdrTabIdOf(S, (await herdrSession(d, 'tabs'))!.tabs.find((t) => t.workspace === 5)!.number);
  const out = await herdrOk<{ move_result: MoveResult }>(sock, 'pane.move', { pane_id: herdrPaneIdOf(z2), destination: { type: 'new_tab' } });
  assert.is(out.move_result.changed, true, 'not zoomed yet: it moves');
  await herdrOk(sock, 'pane.move', { pane_id: herdrPaneIdOf(z2), destination: { type: 'tab', tab_id: zoomTab, split: 'right' } });
  await d.ok(['zoom-window', '-w', 'z1', '--mode', 'on']);
  const from = await herdrOk<{ move_result: MoveResult }>(sock, 'pane.move', { pane_id: herdrPaneIdOf(z2), destination: { type: 'new_tab' } });
  assert.equal([from.move_result.changed, from.move_result.reason], [false, 'zoomed_tab']);
  const main = await herdrWin(d, 'main');
  const into = await herdrOk<{ move_result: MoveResult }>(sock, 'pane.move', { pane_id: herdrPaneIdOf(main), destination: { type: 'tab', tab_id: zoomTab, split: 'right' } });
  assert.equal([into.move_result.changed, into.move_result.reason], [false, 'zoomed_tab']);
  assert.is((await herdrWin(d, 'main')).workspace, 1);
  assert.is((await herdrWin(d, 'z2')).workspace, 5);
  await d.ok(['close-window', '-w', 'z1']);
  await d.ok(['close-window', '-w', 'z2']);
});

test('a pane holding write but not admin may not create, rename, focus, move or close a tab, nor move a pane', async () => {
  await d.ok(['new-window', '-s', 'tabs', '--grants', 'read', '--grants', 'write', 'limited']);
  const limited = await herdrWin(d, 'limited');
  const before = (await herdrSession(d, 'tabs'))!;
  const calls: Array<[string, Record<string, unknown>]> = [
    ['tab.create', { workspace_id: herdrWsId(S) }],
    ['tab.rename', { tab_id: herdrTabIdOf(S, 1), label: 'mine' }],
    ['tab.focus', { tab_id: before.tabs.at(-1) ? herdrTabIdOf(S, before.tabs.at(-1)!.number) : herdrTabIdOf(S, 1) }],
    ['tab.move', { tab_id: herdrTabIdOf(S, 1), insert_index: 2 }],
    ['tab.close', { tab_id: herdrTabIdOf(S, before.tabs.at(-1)!.number) }],
    ['pane.move', { pane_id: herdrPaneIdOf(await herdrWin(d, 'main')), destination: { type: 'new_tab' } }],
    ['pane.move', { pane_id: herdrPaneIdOf(await herdrWin(d, 'main')), destination: { type: 'tab', tab_id: herdrTabIdOf(S, 1), split: 'right' } }],
    ['tab.move', { tab_id: herdrTabIdOf(S, 1), insert_index: 0 }],
    ['workspace.focus', { workspace_id: herdrWsId(S) }],
  ];
  for (const [method, params] of calls) {
    const a = await herdrFromPane(d, limited.id, method, params);
    assert.is(a.error?.code, 'forbidden', method);
  }
  const after = (await herdrSession(d, 'tabs'))!;
  assert.equal(after.tabs, before.tabs, 'nothing changed');
  assert.is(after.active_workspace, before.active_workspace);
  await d.ok(['close-window', '-w', limited.id]);
});

test('workspace.focus without an attached client fails with no_client', async () => {
  assert.is((await herdrErr(sock, 'workspace.focus', { workspace_id: herdrWsId(S) })).code, 'no_client');
  assert.is((await herdrErr(sock, 'workspace.focus', { workspace_id: 'w000000000000' })).code, 'workspace_not_found');
});

test('herdr\'s command line: tab create, rename, focus, move, close, pane move, workspace focus', async () => {
  await d.ok(['new-session', 'cli', '-n', 'climain']);
  const c = (await herdrSession(d, 'cli'))!;
  const made = await herdrCli(d, ['tab', 'create', '--workspace', herdrWsId(c), '--label', 'from cli', '--env', 'A=1', '--no-focus']);
  assert.is(made.code, 0, made.stderr);
  const tab = (JSON.parse(made.stdout) as { result: { tab: Tab } }).result.tab;
  assert.equal([tab.tab_id, tab.label, tab.focused], [herdrTabIdOf(c, 2), 'from cli', false]);
  const ren = await herdrCli(d, ['tab', 'rename', tab.tab_id, 'two', 'words']);
  assert.is((JSON.parse(ren.stdout) as { result: { tab: Tab } }).result.tab.label, 'two words');
  assert.is((await herdrCli(d, ['tab', 'focus', tab.tab_id])).code, 0);
  assert.is((await herdrSession(d, 'cli'))!.active_workspace, 2);
  const mv = await herdrCli(d, ['tab', 'move', tab.tab_id, '0']);
  assert.equal((JSON.parse(mv.stdout) as { result: { tabs: Tab[] } }).result.tabs.map((t) => t.tab_id), [herdrTabIdOf(c, 2), herdrTabIdOf(c, 1)]);
  const main = await herdrWin(d, 'climain');
  const pm = await herdrCli(d, ['pane', 'move', herdrPaneIdOf(main), '--tab', tab.tab_id, '--split', 'right']);
  assert.is(pm.code, 0, pm.stderr);
  assert.is((JSON.parse(pm.stdout) as { result: { move_result: MoveResult } }).result.move_result.pane.tab_id, tab.tab_id);
  assert.is((await herdrCli(d, ['pane', 'move', herdrPaneIdOf(main), '--new-workspace'])).code, 1, 'unsupported');
  assert.is((await herdrCli(d, ['pane', 'move', herdrPaneIdOf(main)])).code, 2, 'no destination: usage');
  const wf = await herdrCli(d, ['workspace', 'focus', herdrWsId(c)]);
  assert.is(wf.code, 1);
  assert.is((JSON.parse(wf.stderr) as { error: { code: string } }).error.code, 'no_client');
  await d.ok(['new-window', '-s', 'cli', '--workspace', '4', 'keep']);
  assert.is((await herdrCli(d, ['tab', 'close', tab.tab_id])).code, 0);
  assert.is((await herdrCli(d, ['tab', 'get', tab.tab_id])).code, 1);
  assert.is((await herdrCli(d, ['tab', 'move', tab.tab_id])).code, 2);
});

test('events name tabs by their own numbers: after a reorder, a moved pane and a closed tab say the tab ids that stayed', async () => {
  await d.ok(['new-session', 'evt', '-n', 'e1']);
  const e = (await herdrSession(d, 'evt'))!;
  await d.ok(['new-window', '-s', 'evt', '--workspace', '2', 'e2']);
  // Tab 2 first: it goes to workspace 1, tab 1 to workspace 2.
  await d.ok(['set-workspace-order', '-s', 'evt', '2', '1']);
  const st = new HerdrStreamClient(sock, { subscriptions: [{ type: 'pane_moved' }, { type: 'tab_closed' }, { type: 'tab_created' }, { type: 'tab_focused' }] });
  try {
    await waitFor(() => st.lines.length > 0, { what: 'subscription_started' });
    await d.ok(['select-workspace', '-s', 'evt', '1']);
    await waitFor(() => st.events('tab_focused').length > 0, { what: 'tab_focused' });
    assert.is(st.events('tab_focused')[0]!.tab_id, herdrTabIdOf(e, 2), 'workspace 1 holds tab 2');
    const e1 = await herdrWin(d, 'e1');
    await d.ok(['move-window', '-w', e1.id, '5']);
    await waitFor(() => st.events('tab_closed').length > 0 && st.events('tab_created').length > 0, { what: 'tab_closed and tab_created' });
    assert.equal(st.events('pane_moved')[0], { type: 'pane_moved', pane_id: herdrPaneIdOf(e1), workspace_id: herdrWsId(e), tab_id: herdrTabIdOf(e, 5) });
    assert.equal(st.events('tab_closed')[0], { type: 'tab_closed', tab_id: herdrTabIdOf(e, 1), workspace_id: herdrWsId(e) });
    assert.equal(st.events('tab_created')[0], { type: 'tab_created', tab_id: herdrTabIdOf(e, 5), workspace_id: herdrWsId(e) });
  } finally {
    st.close();
  }
});

test('the methods are no longer unsupported', async () => {
  for (const m of ['tab.create', 'tab.rename', 'tab.focus', 'tab.move', 'tab.close', 'workspace.focus', 'pane.move']) {
    const e = await herdrErr(sock, m, {}).catch(() => ({ code: 'ok', message: '' }));
    assert.ok(e.code !== 'unsupported', m);
  }
});

test.run();
