// core/detection/rules/classify.ts: one capture classified as the daemon would publish it, on small
// rule sets written for the classifier itself (the bundled rules are scored by npm run accuracy).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse as parseToml } from 'smol-toml';
import { compileRules } from '../../core/detection/rules/compile.js';
import { classifyCapture, judge, parseProgress, progressReportText } from '../../core/detection/rules/classify.js';

const rules = (toml: string) => compileRules(parseToml(toml) as Record<string, unknown>);

/** Screen: a prompt (needs_input, approval, with a message), a spinner (working), an idle box; title: spinner, rest glyph, Action Required. */
const R = rules(`
[screen]
fold_case = true
[[screen.rule]]
id = "pager"
skip_state = true
priority = 50
all = ["(END)"]
[[screen.rule]]
id = "prompt"
state = "needs_input"
kind = "approval"
priority = 30
all = ["Do you want to proceed?"]
message = "approve the command"
[[screen.rule]]
id = "question"
state = "needs_input"
kind = "question"
priority = 28
all = ["enter to submit answer"]
message_from = '(?m)^\\s*Question \\d+/\\d+[^\\n]*\\n\\s*(\\S[^\\n]*)$'
[[screen.rule]]
id = "spinner"
state = "working"
priority = 20
all = ["esc to interrupt"]
[[screen.rule]]
id = "box"
state = "idle"
priority = 1
region = "prompt_box"
all = [">"]

[title]
fold_case = true
[[title.rule]]
id = "title-ask"
state = "needs_input"
kind = "approval"
priority = 10
any = ["action required"]
[[title.rule]]
id = "title-spin"
state = "working"
priority = 5
any = ["◐"]
[[title.rule]]
id = "title-rest"
state = "idle"
priority = 1
regex = ['^✳ ']
`);

const PROMPT = ['Bash command', '  rm -rf build', 'Do you want to proceed?', '❯ 1. Yes', '  2. No'];
const WORKING = ['● Reading files…', '  esc to interrupt'];
const IDLE = ['────────', '> ', '────────'];
const PAGER = ['log line', '(END)'];

const at = (lines: string[], title = '', progress?: string) => classifyCapture(R, { lines, title, progress });

test('parseProgress reads 4;S and 4;S;P, and nothing else', () => {
  assert.equal(parseProgress('4;3'), { state: 3, percent: null });
  assert.equal(parseProgress('4;1;50'), { state: 1, percent: 50 });
  assert.equal(parseProgress('9;4;2;10'), { state: 2, percent: 10 });
  assert.equal(parseProgress('4;0;77'), { state: 0, percent: null }, 'remove carries no percent');
  for (const bad of ['', '4', '4;5', '4;x', '3;1', 'garbage', undefined, null]) assert.is(parseProgress(bad), null, String(bad));
  assert.is(progressReportText({ state: 1, percent: 50 }), '4;1;50');
  assert.is(progressReportText({ state: 3, percent: null }), '4;3');
});

test('the look alone: the louder tier wins, as decideLook says', () => {
  const p = at(PROMPT, '◐ Agent');
  assert.equal([p.state, p.kind, p.message, p.rule, p.tier], ['needs_input', 'approval', 'approve the command', 'prompt', 'screen'], 'a spinner in the title does not hide a prompt');
  const w = at(IDLE, '◐ Agent');
  assert.equal([w.state, w.rule, w.tier], ['working', 'title-spin', 'title'], 'an empty prompt box does not hide a spinner');
  const i = at(IDLE, '✳ Agent');
  assert.equal([i.state, i.tier], ['idle', 'title'], 'both say idle: the title (osc) ranks above the screen');
  const n = at(['nothing here'], 'a shell title');
  assert.equal([n.state, n.kind, n.message, n.rule, n.tier, n.freeze], ['none', '', '', null, null, false]);
});

test('a title that says needs_input with no words borrows the screen\'s message of the same kind', () => {
  const c = at(PROMPT, 'Action Required');
  assert.equal([c.state, c.kind, c.tier, c.rule, c.message], ['needs_input', 'approval', 'title', 'title-ask', 'approve the command']);
});

test('a title that says only that something needs action takes the kind of the form on the screen', () => {
  // Codex writes "[ ! ] Action Required" over an approval and over a question form alike.
  const QUESTION = ['  Question 1/1 (1 unanswered)', '  Which file should I create?', '  › 1. hello.txt', '    2. world.txt', '  tab to add notes | enter to submit answer | esc to interrupt'];
  const q = at(QUESTION, '[ ! ] Action Required | project');
  assert.equal([q.state, q.kind, q.tier, q.rule, q.message], ['needs_input', 'question', 'title', 'title-ask', 'Which file should I create?'], 'the title claim stands, with the screen\'s kind and words');
  assert.equal(q.look.applyTitle && q.look.applyTitle !== null ? [q.look.applyTitle.rule?.id, q.look.applyTitle.kind] : null, ['title-ask', 'question']);
  assert.equal([q.look.decided?.kind, q.look.decided?.rule?.id], ['question', 'question'], 'the look stands for the screen on a tie');
  // An approval form under the same title keeps the approval, and no form on the screen leaves
  // the title's own kind.
  const a = at(PROMPT, '[ ! ] Action Required | project');
  assert.equal([a.state, a.kind, a.tier, a.message], ['needs_input', 'approval', 'title', 'approve the command']);
  const bare = at(['nothing here'], '[ ! ] Action Required | project');
  assert.equal([bare.state, bare.kind, bare.tier, bare.message], ['needs_input', 'approval', 'title', '']);
  // A louder screen reading is untouched: a working screen under the title keeps the title's claim.
  const w = at(WORKING, '[ ! ] Action Required | project');
  assert.equal([w.state, w.kind, w.tier], ['needs_input', 'approval', 'title']);
});

test('a progress report: its published meaning, ranked with the title above the screen', () => {
  assert.equal([at(['x'], '', '4;3').state, at(['x'], '', '4;3').rule], ['working', 'osc-9;4']);
  assert.is(at(['x'], '', '4;1;40').state, 'working');
  assert.is(at(['x'], '', '4;0').state, 'idle');
  assert.is(at(['x'], '', '4;2').state, 'errored');
  const paused = at(['x'], '', '4;4');
  assert.equal([paused.state, paused.kind, paused.tier], ['needs_input', '', 'progress'], 'paused waits, with no kind');
  // A cleared bar (osc) outranks a working screen (screen): record.ts precedence, not loudness.
  const cleared = at(WORKING, '', '4;0');
  assert.equal([cleared.state, cleared.tier], ['idle', 'progress']);
  assert.equal(cleared.claims.map((x) => x.tier), ['progress', 'screen'], 'every claim, highest rank first');
  // An unreadable report is no report.
  assert.is(at(WORKING, '', '4;9').state, 'working');
});

test('a prompt on the screen takes the pane from a stale osc claim (the visible blocker)', () => {
  for (const prog of ['4;3', '4;0', '4;1;10', '4;2']) {
    const c = at(PROMPT, '', prog);
    assert.equal([c.state, c.kind, c.tier, c.rule], ['needs_input', 'approval', 'screen', 'prompt'], prog);
  }
  // A report that already says needs_input keeps the pane: its own claim, with no kind.
  const c = at(PROMPT, '', '4;4');
  assert.equal([c.state, c.kind, c.tier], ['needs_input', '', 'progress']);
  // A working screen never takes anything from an osc claim.
  assert.is(at(WORKING, '✳ Agent').state, 'working', 'the screen is louder than a rest glyph (the look drops the title)');
  assert.is(at(WORKING, '', '4;2').state, 'errored');
});

test('the title and the report disagreeing: the title is taken as the later osc claim, and says so', () => {
  const c = at(IDLE, '◐ Agent', '4;0');
  assert.equal([c.state, c.tier, c.orderAssumed], ['working', 'title', true]);
  const same = at(IDLE, '◐ Agent', '4;3');
  assert.equal([same.state, same.orderAssumed], ['working', false], 'agreeing, the order decides nothing');
  const loan = at(PROMPT, 'Action Required', '4;3');
  assert.equal([loan.state, loan.tier, loan.orderAssumed], ['needs_input', 'screen', false], 'the screen took the pane before the title was applied');
});

test('osc_progress rules read the report their own way; one that does not match leaves the published meaning', () => {
  const own = rules(`
[title]
[[title.rule]]
id = "waits"
state = "needs_input"
kind = "question"
priority = 5
region = "osc_progress"
regex = ['^4;3$']
[[title.rule]]
id = "rest"
state = "idle"
priority = 1
regex = ['^✳ ']
`);
  const q = classifyCapture(own, { lines: [], title: '', progress: '4;3' });
  assert.equal([q.state, q.kind, q.rule, q.tier], ['needs_input', 'question', 'waits', 'progress']);
  assert.ok(q.progressRules?.verdict.rule, 'the evaluation is returned');
  const w = classifyCapture(own, { lines: [], title: '', progress: '4;1;20' });
  assert.equal([w.state, w.rule], ['working', 'osc-9;4']);
  const none = classifyCapture(rules(`[title]\n[[title.rule]]\nstate = "idle"\nregex = ['^✳ ']\n`), { lines: [], title: '', progress: '4;3' });
  assert.equal([none.state, none.progressRules], ['working', null], 'no osc_progress rules: not evaluated');
  const off = classifyCapture(rules(`[title]\nenabled = false\n[[title.rule]]\nstate = "needs_input"\nregion = "osc_progress"\nregex = ['^4;3$']\n`), { lines: [], title: '', progress: '4;3' });
  assert.is(off.state, 'working', 'a disabled title block reads no report');
});

test('a skip-state rule freezes: the screen holds no claim; another tier can still stand', () => {
  const f = at(PAGER);
  assert.equal([f.state, f.freeze, f.tier], ['none', true, null]);
  const t = at(PAGER, '◐ Agent');
  assert.equal([t.state, t.freeze, t.tier], ['working', true, 'title']);
});

test('judge: right on state and kind, freeze fixtures on the freeze, and false needs_input', () => {
  assert.equal(judge(at(PROMPT), { state: 'needs_input', kind: 'approval' }), { right: true, falseNeedsInput: false, got: 'needs_input (approval)' });
  assert.is(judge(at(PROMPT), { state: 'needs_input', kind: 'question' }).right, false, 'the kind counts when [expect] names one');
  assert.is(judge(at(PROMPT), { state: 'needs_input' }).right, true);
  assert.equal(judge(at(PROMPT), { state: 'idle' }), { right: false, falseNeedsInput: true, got: 'needs_input (approval)' });
  assert.equal(judge(at(['x'], '', '4;4'), { state: 'working' }).falseNeedsInput, true, 'from the progress report too');
  assert.equal(judge(at(IDLE), { state: 'needs_input' }), { right: false, falseNeedsInput: false, got: 'idle' }, 'a missed prompt is a miss, not a false needs_input');
  assert.equal(judge(at(PAGER), { state: 'none', freeze: true }), { right: true, falseNeedsInput: false, got: 'none (freeze)' });
  assert.is(judge(at(WORKING), { state: 'none', freeze: true }).right, false);
  assert.is(judge(at(['x']), { state: 'none' }).right, true);
});

test.run();
