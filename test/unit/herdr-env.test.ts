// The pane's herdr environment (spec: herdr's pane state protocol, the variables table) and the
// herdr ids it carries, read back by the herdr socket's parsers.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildPaneEnv } from '../../core/pty/env.js';
import { herdrPaneId, herdrTabId, herdrWorkspaceId, parsePaneId, parseTabId, parseWorkspaceId } from '../../herdr/ids.js';
import { herdrAgent, herdrStatus, mostUrgent, stripPasteMarkers } from '../../herdr/methods.js';

const SESSION = '0123456789abcdef0123456789abcdef';
const WINDOW = 'fedcba9876543210fedcba9876543210';

test('every pane starts with HERDR_ENV, HERDR_SOCKET_PATH and its herdr ids', () => {
  const env = buildPaneEnv({ PATH: '/bin' }, {}, { socket: '/run/tuios/tuios.sock', explicitSocket: false, windowId: WINDOW, sessionName: 'work', paneToken: 't', sessionId: SESSION, workspace: 3 }, 'xterm');
  assert.is(env.HERDR_ENV, '1');
  assert.is(env.HERDR_SOCKET_PATH, '/run/tuios/tuios.sock.herdr');
  assert.is(env.HERDR_WORKSPACE_ID, 'w0123456789ab');
  assert.is(env.HERDR_TAB_ID, 'w0123456789ab:t3');
  assert.is(env.HERDR_PANE_ID, 'w0123456789ab:pfedcba987654');
});

test('a herdr pane\'s variables around the daemon are not passed on; a caller cannot set them over ours', () => {
  const base = { PATH: '/bin', HERDR_ENV: '1', HERDR_PANE_ID: 'wouter:pouter', HERDR_TAB_ID: 'wouter:t1', HERDR_WORKSPACE_ID: 'wouter', HERDR_SOCKET_PATH: '/herdr.sock' };
  const env = buildPaneEnv(base, { HERDR_PANE_ID: 'spoofed' }, { socket: '/s', explicitSocket: false, windowId: WINDOW, sessionName: 'w', paneToken: 't', sessionId: SESSION, workspace: 1 }, 'xterm');
  assert.is(env.HERDR_PANE_ID, 'w0123456789ab:pfedcba987654');
  assert.is(env.HERDR_TAB_ID, 'w0123456789ab:t1');
  assert.is(env.HERDR_WORKSPACE_ID, 'w0123456789ab');
  assert.is(env.HERDR_SOCKET_PATH, '/s.herdr');
});

test('the ids parse back; a pane is also found by its window id or 8+ of its hex digits', () => {
  assert.is(parseWorkspaceId(herdrWorkspaceId(SESSION)), SESSION.slice(0, 12));
  assert.equal(parseTabId(herdrTabId(SESSION, 4)), { session: SESSION.slice(0, 12), tab: 4 });
  assert.is(parsePaneId(herdrPaneId(SESSION, WINDOW)), WINDOW.slice(0, 12));
  assert.is(parsePaneId(WINDOW), WINDOW);
  assert.is(parsePaneId(WINDOW.slice(0, 8)), WINDOW.slice(0, 8));
  for (const bad of ['', 'fedcba9', 'w0123:p45', 'wXYZ', 'w0123456789ab:t0', `${WINDOW}0`, 'pane 1']) {
    assert.is(parsePaneId(bad) ?? parseTabId(bad) ?? parseWorkspaceId(bad), null, bad);
  }
});

test('agent_status and herdr\'s agent names, as the spec maps them', () => {
  assert.equal(['working', 'needs_input', 'idle', 'done', 'errored', 'unknown', 'none', undefined].map(herdrStatus), ['working', 'blocked', 'idle', 'done', 'done', 'unknown', 'unknown', 'unknown']);
  assert.equal(['claude-code', 'gemini-cli', 'cursor-agent', 'antigravity', 'qoder', 'codex', null].map(herdrAgent), ['claude', 'gemini', 'cursor', 'agy', 'qodercli', 'codex', null]);
  assert.is(mostUrgent(['idle', 'working', 'done']), 'done');
  assert.is(mostUrgent(['idle', 'blocked', 'done']), 'blocked');
  assert.is(mostUrgent([]), 'unknown');
  // herdr's whole order: blocked, done, working, idle, unknown.
  assert.is(mostUrgent(['unknown', 'idle', 'working']), 'working');
  assert.is(mostUrgent(['unknown', 'idle']), 'idle');
  assert.is(mostUrgent(['unknown', 'unknown']), 'unknown');
  assert.is(stripPasteMarkers('\x1b[200~a\nb\x1b[201~'), 'a\nb');
});

test.run();
