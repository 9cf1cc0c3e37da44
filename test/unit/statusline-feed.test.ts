// The status line feed's own logic (spec: The status line feed, What feeds it): what a payload
// says (each field on its own), when a run writes and when the interval holds it, the held value
// the turn's end sends, and the pane's throttle file (0600, bounded, a bad file read as none).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readStatusPayload, percentOf } from '../../core/integrations/statusline/payload.js';
import { atTurnEnd, decide, unsent, type ThrottleState } from '../../core/integrations/statusline/throttle.js';
import { parseState, pruneStateFiles, readState, removeStateFile, stateFilePath, writeState } from '../../core/integrations/statusline/state-file.js';
import { feedAtTurnEnd, feedStatusLine } from '../../core/integrations/statusline/feed.js';
import { META_VALUE_MAX, STATUSLINE_INTERVAL_MS, STATUSLINE_STATE_FILES_MAX } from '../../core/limits.js';

// The payload Claude Code 2.1.332 sent under the fake API after a turn (trimmed).
const PAYLOAD = {
  session_id: '7aa59577-1f01-49cb-bae0-2c24d26d4142',
  model: { id: 'claude-opus-5-5', display_name: 'Opus 5.5' },
  cost: { total_cost_usd: 1.2, total_duration_ms: 9162 },
  context_window: { total_input_tokens: 420000, context_window_size: 1000000, used_percentage: 42, remaining_percentage: 58 },
};

test('a payload gives model, context and cost as the pane shows them', () => {
  assert.equal(readStatusPayload(PAYLOAD), { model: 'Opus 5.5', context: '42%', cost: '$1.20' });
  assert.equal(readStatusPayload({ ...PAYLOAD, context_window: { used_percentage: 42.5 }, cost: { total_cost_usd: 0.0008 } }), { model: 'Opus 5.5', context: '43%', cost: '$0.00' });
});

test('each field stands alone: a missing or malformed one costs only its own key', () => {
  assert.equal(readStatusPayload({ ...PAYLOAD, model: undefined }), { context: '42%', cost: '$1.20' });
  assert.equal(readStatusPayload({ ...PAYLOAD, model: { id: 'claude-opus-5-5' } }), { model: 'claude-opus-5-5', context: '42%', cost: '$1.20' }, 'model.id when there is no display_name');
  assert.equal(readStatusPayload({ ...PAYLOAD, model: { display_name: '', id: 'x-1' } }), { model: 'x-1', context: '42%', cost: '$1.20' });
  assert.equal(readStatusPayload({ ...PAYLOAD, model: 'opus' }), { context: '42%', cost: '$1.20' });
  // Claude Code sends used_percentage null before the first answer.
  assert.equal(readStatusPayload({ ...PAYLOAD, context_window: { used_percentage: null } }), { model: 'Opus 5.5', cost: '$1.20' });
  assert.equal(readStatusPayload({ ...PAYLOAD, context_window: 'full' }), { model: 'Opus 5.5', cost: '$1.20' });
  assert.equal(readStatusPayload({ ...PAYLOAD, context_window: { used_percentage: -3 } }), { model: 'Opus 5.5', cost: '$1.20' });
  assert.equal(readStatusPayload({ ...PAYLOAD, cost: { total_cost_usd: '1.20' } }), { model: 'Opus 5.5', context: '42%' });
  assert.equal(readStatusPayload({ ...PAYLOAD, cost: null }), { model: 'Opus 5.5', context: '42%' });
  assert.equal(readStatusPayload({ ...PAYLOAD, cost: { total_cost_usd: Infinity } }), { model: 'Opus 5.5', context: '42%' });
  assert.equal(readStatusPayload({}), {});
  assert.equal(readStatusPayload([1, 2]), {});
  assert.equal(readStatusPayload(null), {});
});

test('values are data: controls removed, one line, cut to the metadata limit', () => {
  const v = readStatusPayload({ model: { display_name: `Opus\x1b[31m 5.5\nbeta\u202e${'x'.repeat(200)}` }, context_window: { used_percentage: 250 } });
  assert.ok(!/[\x00-\x1f\x7f\u202e]/.test(v.model!), JSON.stringify(v.model));
  assert.ok(v.model!.startsWith('Opus [31m 5.5 beta'), v.model);
  assert.is([...v.model!].length, META_VALUE_MAX);
  assert.is(v.context, '100%');
  assert.is(percentOf('81%'), 81);
  assert.is(percentOf('x'), null);
});

const A = 'session-a:100';
const T0 = 1_000_000;

test('the throttle: the first run goes, an unchanged value never goes, a change within 15 s is held', () => {
  const first = decide(null, A, { model: 'Opus', context: '10%', cost: '$0.10' }, T0);
  assert.equal(first.send, { model: 'Opus', context: '10%', cost: '$0.10' });
  const same = decide(first.next, A, { model: 'Opus', context: '10%', cost: '$0.10' }, T0 + 1000);
  assert.is(same.send, null);
  const held = decide(first.next, A, { model: 'Opus', context: '12%', cost: '$0.20' }, T0 + 5000);
  assert.is(held.send, null);
  assert.equal(held.next.held, { model: 'Opus', context: '12%', cost: '$0.20' });
  const later = decide(held.next, A, { model: 'Opus', context: '14%', cost: '$0.30' }, T0 + 6000);
  assert.equal(later.next.held, { model: 'Opus', context: '14%', cost: '$0.30' }, 'the held value is the latest');
  const after = decide(later.next, A, { model: 'Opus', context: '15%', cost: '$0.31' }, T0 + STATUSLINE_INTERVAL_MS);
  assert.equal(after.send, { model: 'Opus', context: '15%', cost: '$0.31' }, 'once the interval has passed it goes');
  assert.is(after.next.held, null);
  assert.is(after.next.sentAt, T0 + STATUSLINE_INTERVAL_MS);
});

test('the throttle: a model change and context crossing 80% go at once; a missing key is not a change', () => {
  const s = decide(null, A, { model: 'Opus', context: '79%', cost: '$1.00' }, T0).next;
  assert.ok(decide(s, A, { model: 'Sonnet', context: '79%', cost: '$1.00' }, T0 + 10).send, 'a model change');
  assert.ok(decide(s, A, { model: 'Opus', context: '80%', cost: '$1.00' }, T0 + 10).send, 'up across 80%');
  const high = decide(null, A, { context: '85%' }, T0).next;
  assert.ok(decide(high, A, { context: '20%' }, T0 + 10).send, 'down across 80% (a compaction)');
  assert.is(decide(high, A, { context: '90%' }, T0 + 10).send, null, 'above 80% and still above waits');
  assert.is(decide(s, A, { cost: '$1.00' }, T0 + 10).send, null, 'model and context left out of a run are not changes');
});

test('the throttle: another agent in the pane starts afresh; a clock set back never holds for good', () => {
  const s = decide(null, A, { model: 'Opus' }, T0).next;
  assert.ok(decide(s, 'session-b:200', { model: 'Opus' }, T0 + 10).send, 'a new agent gets its values written even when equal');
  assert.ok(decide(s, A, { model: 'Opus', cost: '$2' }, T0 - 60_000).send);
});

test('the turn\'s end sends what was held, and the next run goes at once', () => {
  const s0 = decide(null, A, { model: 'Opus', context: '10%', cost: '$0.10' }, T0).next;
  const held = decide(s0, A, { model: 'Opus', context: '11%', cost: '$0.40' }, T0 + 2000).next;
  const end = atTurnEnd(held, T0 + 3000);
  assert.equal(end.send, { model: 'Opus', context: '11%', cost: '$0.40' });
  assert.is(end.next.held, null);
  const run = decide(end.next, A, { model: 'Opus', context: '11%', cost: '$0.45' }, T0 + 3400);
  assert.equal(run.send, { model: 'Opus', context: '11%', cost: '$0.45' }, 'a run after the Stop goes at once');
  assert.is(decide(run.next, A, { model: 'Opus', context: '11%', cost: '$0.50' }, T0 + 3500).send, null, 'and only the first: then the interval again');
  // Nothing held: the Stop sends nothing and still lets the next run go.
  const none = atTurnEnd(s0, T0 + 3000);
  assert.is(none.send, null);
  assert.ok(decide(none.next, A, { model: 'Opus', context: '12%', cost: '$0.50' }, T0 + 3100).send);
});

test('a send that failed stays held for the next run or the Stop', () => {
  const s0 = decide(null, A, { model: 'Opus', cost: '$0.10' }, T0).next;
  const d = decide(s0, A, { model: 'Opus', cost: '$0.90' }, T0 + STATUSLINE_INTERVAL_MS);
  const kept = unsent(s0, d);
  assert.equal(kept.sent, s0.sent);
  assert.equal(kept.held, { model: 'Opus', cost: '$0.90' });
  assert.equal(atTurnEnd(kept, T0 + 20_000).send, { model: 'Opus', cost: '$0.90' });
});

function tmp(): { dir: string; socket: string; done(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'tuios-sl-'));
  return { dir, socket: join(dir, 'tuios.sock'), done: () => rmSync(dir, { recursive: true, force: true }) };
}
const PANE = 'ab'.repeat(16);

test('the throttle file: beside the socket, 0600, read back; a pane id that is not one gets no file', () => {
  const t = tmp();
  const path = stateFilePath(t.socket, PANE)!;
  assert.is(path, join(t.dir, `statusline-${PANE}.json`));
  assert.is(stateFilePath(t.socket, '../../etc/passwd'), null);
  assert.is(stateFilePath(t.socket, 'abc123'), null);
  const s: ThrottleState = { agent: A, sent: { model: 'Opus' }, sentAt: T0, held: { cost: '$1.00' }, stopAt: 5 };
  writeState(path, s);
  assert.is(statSync(path).mode & 0o777, 0o600);
  assert.equal(readState(path), s);
  assert.is(readState(join(t.dir, 'missing.json')), null);
  writeState(path, { ...s, stopAt: 6 });
  assert.is(readState(path)?.stopAt, 6, 'written again over the last');
  assert.equal(readdirSync(t.dir).filter((n) => n !== `statusline-${PANE}.json`), [], 'through a temp file that does not stay');
  removeStateFile(t.socket, PANE);
  assert.not.ok(existsSync(path), 'the pane closed: its file is gone');
  removeStateFile(t.socket, PANE);
  removeStateFile(t.socket, '../../etc/passwd');
  writeState(path, s);
  writeFileSync(path, 'not json');
  assert.is(readState(path), null);
  writeFileSync(path, JSON.stringify({ ...s, agent: 'x', pad: 'y'.repeat(5000) }));
  assert.is(readState(path), null, 'a file over its size is not read');
  // Values in the file are data too.
  assert.equal(parseState(JSON.stringify({ agent: 'a', sent: { model: 'x\x07y', evil: 'z', cost: 5 }, held: null }))?.sent, { model: 'x y' });
  t.done();
});

test('throttle files are bounded: a new pane\'s file makes room by removing the least recently written', () => {
  const t = tmp();
  const ids = Array.from({ length: STATUSLINE_STATE_FILES_MAX }, (_, i) => i.toString(16).padStart(32, '0'));
  ids.forEach((id, i) => {
    const p = stateFilePath(t.socket, id)!;
    writeFileSync(p, '{}');
    utimesSync(p, 1000 + i, 1000 + i);
  });
  writeState(stateFilePath(t.socket, PANE)!, { agent: A, sent: {}, sentAt: 0, held: null, stopAt: 0 });
  const left = readdirSync(t.dir).filter((n) => n.startsWith('statusline-'));
  assert.is(left.length, STATUSLINE_STATE_FILES_MAX);
  assert.ok(!left.includes(`statusline-${ids[0]}.json`), 'the oldest went');
  assert.ok(left.includes(`statusline-${PANE}.json`));
  assert.is(pruneStateFiles(t.dir, 10), STATUSLINE_STATE_FILES_MAX - 10);
  t.done();
});

test('feed: one set-agent-meta a write, with source statusline; a failed call is held; the turn end sends it', async () => {
  const t = tmp();
  const calls: Array<Record<string, unknown>> = [];
  /** What the throttle file held while each call was in flight: a call cut off by the deadline leaves it. */
  const during: Array<ThrottleState | null> = [];
  let fail = false;
  const target = {
    window: PANE,
    socket: t.socket,
    explain: () => {},
    call: async (verb: string, params: Record<string, unknown>) => {
      during.push(readState(stateFilePath(t.socket, PANE)!));
      if (fail) throw Object.assign(new Error('timed out'), { code: 'timeout' });
      calls.push({ verb, ...params });
      return {};
    },
  };
  await feedStatusLine(target, A, { model: 'Opus', context: '5%', cost: '$0.10' }, T0);
  assert.equal(calls, [{ verb: 'set-agent-meta', window: PANE, values: { model: 'Opus', context: '5%', cost: '$0.10' }, source: 'statusline' }]);
  await feedStatusLine(target, A, { model: 'Opus', context: '6%', cost: '$0.20' }, T0 + 1000);
  assert.is(calls.length, 1, 'held');
  fail = true;
  await feedStatusLine(target, A, { model: 'Opus', context: '7%', cost: '$0.30' }, T0 + STATUSLINE_INTERVAL_MS + 1);
  fail = false;
  assert.equal(readState(stateFilePath(t.socket, PANE)!)?.held, { model: 'Opus', context: '7%', cost: '$0.30' });
  await feedAtTurnEnd(target, T0 + STATUSLINE_INTERVAL_MS + 2);
  assert.equal(calls[1], { verb: 'set-agent-meta', window: PANE, values: { model: 'Opus', context: '7%', cost: '$0.30' }, source: 'statusline' });
  assert.equal(during[0]?.held, { model: 'Opus', context: '5%', cost: '$0.10' }, 'held on disk while the first call was in flight');
  assert.is(during[during.length - 1]?.stopAt, T0 + STATUSLINE_INTERVAL_MS + 2, 'the turn\'s end on disk before its call');
  assert.equal(readState(stateFilePath(t.socket, PANE)!)?.held, null, 'and nothing held once it went');
  // A pane with no throttle file has no status line feed: the turn end does nothing.
  const other = { ...target, window: 'cd'.repeat(16) };
  assert.is(await feedAtTurnEnd(other, T0), null);
  assert.is(calls.length, 2);
  t.done();
});

test.run();
