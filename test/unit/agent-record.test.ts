import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AgentRecord, LOAN_STALE_MS, MIN_TURN_MS, type Origin } from '../../core/agent-state/record.js';
import { SOURCES, RANK, guessKind, isReady, needsYou, type Source } from '../../core/agent-state/state.js';

function fixture() {
  let t = 1_000_000;
  let out = 0;
  const r = new AgentRecord({ now: () => t }, () => out);
  return {
    r,
    tick(ms: number) {
      t += ms;
    },
    print(n = 100) {
      out += n;
    },
  };
}

const ORIGIN: Record<Source, Origin> = {
  report: 'report',
  program: 'program',
  transcript: 'transcript',
  osc: 'osc:progress',
  screen: 'screen',
  detect: 'detect',
  stall: 'stall',
};

test('the precedence matrix: every source against every other', () => {
  for (const first of SOURCES) {
    for (const second of SOURCES) {
      const { r, tick } = fixture();
      r.apply({ origin: ORIGIN[first], state: 'working' });
      tick(10);
      const res = r.apply({ origin: ORIGIN[second], state: 'idle' });
      const expectApplied = RANK[second] >= RANK[first];
      assert.is(res.applied, expectApplied, `${second} over ${first}`);
      assert.is(res.state, expectApplied ? 'idle' : 'working', `state after ${second} over ${first}`);
      assert.is(res.source, expectApplied ? second : first);
    }
  }
});

test('a source always updates its own claim', () => {
  const { r } = fixture();
  r.apply({ origin: 'report', state: 'working' });
  const a = r.apply({ origin: 'report', state: 'done', message: 'finished' });
  assert.ok(a.applied);
  assert.is(r.view().state, 'done');
  assert.is(r.view().message, 'finished');
});

test('a loser is answered with the state that stands, and its own claim is kept under it', () => {
  const { r } = fixture();
  r.apply({ origin: 'report', state: 'working' });
  const res = r.apply({ origin: 'detect', state: 'idle' });
  assert.equal(res, { applied: false, state: 'working', source: 'report' });
  r.apply({ origin: 'report', state: 'none' });
  assert.is(r.view().state, 'none', 'none from a report clears every claim');
});

test('if_state applies only from the listed states', () => {
  const { r } = fixture();
  r.apply({ origin: 'report', state: 'done' });
  const res = r.apply({ origin: 'report', state: 'idle' }, { ifState: ['working', 'unknown'] });
  assert.equal(res, { applied: false, state: 'done', source: 'report' });
  r.apply({ origin: 'report', state: 'working' });
  assert.ok(r.apply({ origin: 'report', state: 'idle' }, { ifState: ['working'] }).applied);
});

test('the visible blocker: a prompt on the screen takes over a stale report, and is returned exactly', () => {
  const { r, tick, print } = fixture();
  r.apply({ origin: 'report', state: 'working', message: 'Bash: make' });
  print();
  // Too fresh: the hook gets its fair chance to report the prompt itself.
  tick(LOAN_STALE_MS - 1);
  assert.not.ok(r.look('screen', { state: 'needs_input', kind: 'approval', message: 'approve Bash' }).applied);
  assert.is(r.view().state, 'working');
  tick(2);
  r.look('screen', null);
  const res = r.look('screen', { state: 'needs_input', kind: 'approval', message: 'approve Bash' });
  assert.ok(res.applied);
  assert.equal(r.view(), { state: 'needs_input', kind: 'approval', message: 'approve Bash', source: 'screen', origin: 'screen' });
  // The next look that matches nothing gives the displaced claim back, source and state together.
  r.look('screen', null);
  assert.equal(r.view(), { state: 'working', kind: '', message: 'Bash: make', source: 'report', origin: 'report' });
});

test('the loan needs output since the claim was stamped', () => {
  const { r, tick } = fixture();
  r.apply({ origin: 'report', state: 'working' });
  tick(LOAN_STALE_MS * 3);
  assert.not.ok(r.look('screen', { state: 'needs_input', kind: 'approval', message: 'x' }).applied);
});

test('a rest claim gives way to a prompt at once', () => {
  const { r, print } = fixture();
  r.apply({ origin: 'report', state: 'idle' });
  print();
  assert.ok(r.look('screen', { state: 'needs_input', kind: 'question', message: 'pick one' }).applied);
});

test('a screen rule claiming working or idle never overrides a higher claim, and a needs_input claim keeps its own', () => {
  const { r, tick, print } = fixture();
  r.apply({ origin: 'report', state: 'idle' });
  print();
  tick(5000);
  assert.not.ok(r.look('screen', { state: 'working' }).applied);
  const f = fixture();
  f.r.apply({ origin: 'report', state: 'needs_input', kind: 'approval', message: 'from the hook' });
  f.print();
  f.tick(5000);
  assert.not.ok(f.r.look('screen', { state: 'needs_input', kind: 'approval', message: 'from the screen' }).applied);
  assert.is(f.r.view().message, 'from the hook');
});

test('a report during the loan ends it: the hook is the better answer', () => {
  const { r, tick, print } = fixture();
  r.apply({ origin: 'report', state: 'working' });
  print();
  tick(LOAN_STALE_MS);
  r.look('screen', { state: 'needs_input', kind: 'approval', message: 'approve' });
  assert.is(r.view().source, 'screen');
  r.apply({ origin: 'report', state: 'needs_input', kind: 'approval', message: 'approve Bash: ls' });
  assert.is(r.view().source, 'report');
});

test('a look that reads back its own claim writes nothing (no restamp)', () => {
  const { r, tick, print } = fixture();
  r.apply({ origin: 'detect', state: 'working' });
  r.look('osc:title', { state: 'working' });
  const stamped = r.claims.get('osc:title')!.stampedAt;
  tick(1000);
  print();
  r.look('osc:title', { state: 'working' });
  assert.is(r.claims.get('osc:title')!.stampedAt, stamped);
});

test('a notification claim goes stale once the pane writes', () => {
  const { r, print } = fixture();
  r.apply({ origin: 'osc:notify', state: 'needs_input', kind: 'approval', message: 'approval requested', staleOnOutput: true });
  assert.not.ok(r.look('screen', { state: 'working' }).applied, 'before output it stands');
  print();
  assert.ok(r.look('screen', { state: 'working' }).applied, 'after output a screen look replaces it');
  assert.is(r.view().state, 'working');
});

test('the stall demotes working to unknown and touches no other state', () => {
  const { r } = fixture();
  r.apply({ origin: 'report', state: 'working' });
  assert.ok(r.demoteStall('unknown').applied);
  assert.equal(r.view().state, 'unknown');
  assert.is(r.view().source, 'stall');
  const f = fixture();
  f.r.apply({ origin: 'report', state: 'needs_input', message: 'q' });
  assert.not.ok(f.r.demoteStall('unknown').applied);
  assert.is(f.r.view().state, 'needs_input');
});

test('turns: counted after 5 s of work, always for an explicit done, never for errored', () => {
  const { r, tick } = fixture();
  assert.not.ok(r.transition('idle', 'working', 'detect', 0));
  tick(MIN_TURN_MS - 1);
  assert.not.ok(r.transition('working', 'idle', 'screen', 0), 'a short flicker is not a turn');
  r.transition('idle', 'working', 'report', 0);
  tick(MIN_TURN_MS);
  r.transition('working', 'needs_input', 'report', 0);
  r.transition('needs_input', 'working', 'report', 0);
  assert.ok(r.transition('working', 'idle', 'screen', 0), 'needs_input mid-turn does not end it');
  assert.is(r.completionSeq, 1);
  r.transition('idle', 'working', 'report', 0);
  tick(10);
  assert.ok(r.transition('working', 'done', 'report', 0), 'an explicit done counts however short');
  r.transition('done', 'working', 'report', 0);
  tick(MIN_TURN_MS * 2);
  assert.not.ok(r.transition('working', 'errored', 'report', 0));
  assert.is(r.completionSeq, 2);
});

test('a turn the silence timer ends is measured to the last output', () => {
  const { r, tick } = fixture();
  const start = 1_000_000;
  r.transition('idle', 'working', 'detect', 0);
  tick(40_000);
  assert.not.ok(r.transition('working', 'unknown', 'stall', start + 100), 'a redraw that bumped it to working for an instant');
  r.transition('unknown', 'working', 'detect', 0);
  tick(40_000);
  assert.ok(r.transition('working', 'unknown', 'stall', start + 40_000 + 10_000));
});

test('kind from the message words; auth is never guessed', () => {
  assert.is(guessKind('awaiting approval'), 'approval');
  assert.is(guessKind('Allow Bash to run make?'), 'approval');
  assert.is(guessKind('Do you want to proceed?'), 'approval');
  assert.is(guessKind('trust this folder?'), 'approval');
  assert.is(guessKind('Which branch should I use?'), 'question');
  assert.is(guessKind('please log in with your token'), 'question');
  assert.is(guessKind(''), '');
});

test('needs_you and ready', () => {
  assert.ok(needsYou('needs_input') && needsYou('errored'));
  assert.not.ok(needsYou('working') || needsYou('idle'));
  for (const s of ['idle', 'done', 'errored', 'none'] as const) assert.ok(isReady(s), s);
  for (const s of ['needs_input', 'unknown', 'working'] as const) assert.not.ok(isReady(s), s);
});

test.run();
