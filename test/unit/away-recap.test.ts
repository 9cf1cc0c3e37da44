// The away recap's record of when each pane was last in front of this machine's clients
// (tui/away-recap.ts): written as a pane leaves the front, bounded to the newest RECAP_SEEN_MAX
// panes, and read back for the Inbox's recap.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AwayRecaps, RECAP_SEEN_MAX, lastInFront } from '../../tui/away-recap.js';
import type { Window } from '../../core/model/window.js';

function fixture() {
  const dir = mkdtempSync(join(tmpdir(), 'tuios-recap-seen-'));
  const said: string[] = [];
  const windows = new Map<string, Window>();
  const svc = {
    paths: { stateDir: dir },
    log: { warn: () => undefined },
    agents: { info: () => ({ completion_seq: 3 }) },
    model: { windows },
    activity: { ringOf: () => undefined },
    config: { current: { agents: { recap: { mode: 'toast', away: '10m', test_patterns: [] } } } },
  };
  const host = { svc, acts: { call: async () => ({ ok: false }) }, dock: { say: (s: string) => said.push(s) } };
  const win = (id: string) => {
    const w = { id, name: id, sessionId: 's' } as unknown as Window;
    windows.set(id, w);
    return w;
  };
  return { dir, said, recaps: new AwayRecaps(host as never), win, svc };
}

test('each pane leaving the front is written with its turns; the newest 256 are kept; the rail\'s own state stays', () => {
  const f = fixture();
  writeFileSync(join(f.dir, 'sidebar.json'), JSON.stringify({ agents_seen: true }));
  for (let i = 0; i < RECAP_SEEN_MAX + 20; i++) f.recaps.inFront(f.win(`w${i}`), 1000 + i);
  f.recaps.dispose();
  const saved = JSON.parse(readFileSync(join(f.dir, 'sidebar.json'), 'utf8')) as { agents_seen: boolean; recap_seen: Record<string, [number, number]> };
  assert.is(saved.agents_seen, true);
  assert.is(Object.keys(saved.recap_seen).length, RECAP_SEEN_MAX);
  assert.is(saved.recap_seen.w0, undefined, 'the pane seen longest ago went first');
  assert.is(saved.recap_seen[`w${RECAP_SEEN_MAX + 19}`]![1], 3, 'with the turns it had finished then');
  assert.is(lastInFront(f.svc as never, 'w100'), 1101, 'w100 left the front when w101 came');
  assert.is(lastInFront(f.svc as never, 'nope'), null);
  assert.equal(f.said, [], 'no pane finished a turn while away: the dock says nothing');
  rmSync(f.dir, { recursive: true, force: true });
});

test('focus moving writes nothing at once: one write later for a burst of moves, or when the client goes', () => {
  const f = fixture();
  writeFileSync(join(f.dir, 'sidebar.json'), JSON.stringify({ agents_seen: true }));
  for (let i = 0; i < 5; i++) f.recaps.inFront(f.win(`w${i}`), 1000 + i);
  const before = JSON.parse(readFileSync(join(f.dir, 'sidebar.json'), 'utf8')) as { recap_seen?: unknown };
  assert.is(before.recap_seen, undefined, 'no write in the frame that moved focus');
  f.recaps.dispose();
  assert.is(lastInFront(f.svc as never, 'w3'), 1004, 'written when the client went');
  rmSync(f.dir, { recursive: true, force: true });
});

test('back after the away span with more turns: the turns this client counted (a pane with no ring)', () => {
  const f = fixture();
  const w = f.win('a');
  f.recaps.inFront(w, 1000);
  f.recaps.inFront(null, 2000);
  (f.svc.agents as { info: () => { completion_seq: number } }).info = () => ({ completion_seq: 5 });
  f.recaps.inFront(w, 2000 + 11 * 60_000);
  assert.equal(f.said, ['a while you were away (11m): 2 turns']);
  // Within the away span: nothing.
  f.recaps.inFront(null, 2000 + 12 * 60_000);
  (f.svc.agents as { info: () => { completion_seq: number } }).info = () => ({ completion_seq: 6 });
  f.recaps.inFront(w, 2000 + 13 * 60_000);
  assert.is(f.said.length, 1);
  rmSync(f.dir, { recursive: true, force: true });
});

test.run();
