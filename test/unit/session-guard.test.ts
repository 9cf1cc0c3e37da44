// The session guard (spec: Nested and foreign events): which conversation may report into a pane.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SessionGuard, type GuardPane } from '../../core/agent-state/session-guard.js';

const pane = (o: Partial<GuardPane> = {}): GuardPane => ({ sessionId: 'A', harness: 'claude-code', reportedState: 'working', harnessPid: 100, sharedServer: false, ...o });
const rep = (sessionId: string | undefined, o: { harness?: string; harnessPid?: number; sessionStart?: string } = {}) => ({ sessionId, harness: o.harness ?? 'claude-code', harnessPid: o.harnessPid, sessionStart: o.sessionStart });

test('a nested run mid-turn is refused: another conversation from another process', () => {
  const g = new SessionGuard();
  const a = g.admit(rep('B', { harnessPid: 200 }), pane());
  assert.is(a.ok, false);
  if (!a.ok) assert.is(a.code, 'foreign_session');
});

test('at rest a new conversation takes the pane over (/clear, /resume, a restart)', () => {
  const g = new SessionGuard();
  assert.ok(g.admit(rep('B', { harnessPid: 200 }), pane({ reportedState: 'idle' })).ok);
  assert.is(g.owner, 'B');
  assert.ok(g.admit(rep('C'), pane({ reportedState: 'done', sessionId: 'B' })).ok);
});

test('mid-turn, a new conversation from the same harness process takes over (Esc, then /clear)', () => {
  const g = new SessionGuard();
  assert.ok(g.admit(rep('B', { harnessPid: 100 }), pane()).ok);
});

test('the pane\'s own conversation is never locked out: the last four owners take it back', () => {
  const g = new SessionGuard();
  for (const id of ['A', 'B', 'C', 'D', 'E']) assert.ok(g.admit(rep(id), pane({ reportedState: 'idle', sessionId: g.owner })).ok);
  assert.equal(g.owners, ['A', 'B', 'C', 'D'].slice(-4));
  assert.ok(g.admit(rep('B', { harnessPid: 999 }), pane({ sessionId: 'E' })).ok, 'a recent owner takes the pane back mid-turn');
  assert.is(g.owner, 'B');
  assert.ok(g.owners.includes('E'), 'the displaced owner joins the list');
});

test('another harness mid-turn is refused; with no id and at rest it passes', () => {
  const g = new SessionGuard();
  assert.is(g.admit(rep(undefined, { harness: 'codex' }), pane()).ok, false);
  assert.ok(g.admit(rep(undefined), pane()).ok);
  assert.ok(g.admit(rep('Z', { harness: 'codex' }), pane({ reportedState: 'idle' })).ok);
});

test('Codex (shared server): SessionStart sets the owner; another conversation is refused at rest and mid-turn', () => {
  const g = new SessionGuard();
  const shared = (o: Partial<GuardPane> = {}) => pane({ harness: 'codex', sharedServer: true, ...o });
  assert.ok(g.admit(rep('X', { harness: 'codex' }), shared()).ok, 'until a SessionStart the pane takes every report');
  assert.ok(g.admit(rep('A', { harness: 'codex', sessionStart: 'startup' }), shared()).ok);
  assert.is(g.owner, 'A');
  for (const st of ['idle', 'working'] as const) {
    const r = g.admit(rep('X', { harness: 'codex' }), shared({ reportedState: st }));
    assert.is(r.ok, false, `refused while ${st}`);
  }
  assert.ok(g.admit(rep('A', { harness: 'codex', sessionStart: 'compact' }), shared()).ok, 'a compaction is the same conversation');
  assert.is(g.owner, 'A');
  assert.ok(g.admit(rep('B', { harness: 'codex', sessionStart: 'startup' }), shared()).ok, '/new in the pane takes it over');
  assert.ok(g.admit(rep('A', { harness: 'codex' }), shared()).ok, 'a conversation that sent a SessionStart takes it back');
  assert.ok(g.admit(rep(undefined, { harness: 'codex' }), shared()).ok, 'notify carries no id and is never refused');
  g.reset();
  assert.ok(g.admit(rep('Q', { harness: 'codex' }), shared()).ok, 'set-agent-session or the agent leaving clears the guard');
});

test.run();
