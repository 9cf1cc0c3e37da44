// The rule engine on small screens written for the engine itself (the bundled rules are tested
// against captured fixtures in golden.test.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse as parseToml } from 'smol-toml';
import { compileRules } from '../../core/detection/rules/compile.js';
import { evaluateScreen, evaluateTitle, evaluateNotify } from '../../core/detection/rules/evaluate.js';
import { extractRegion, tailOf, parseRegion, isBorderLine, isTitledRule } from '../../core/detection/rules/regions.js';
import { containsToken } from '../../core/detection/rules/predicate.js';
import { decideLook } from '../../core/detection/rules/look.js';
import { findBoxes } from '../../core/detection/rules/dialog.js';

const rules = (toml: string) => compileRules(parseToml(toml) as Record<string, unknown>);
const refuses = (toml: string, re: RegExp) => assert.throws(() => rules(toml), re);

test('border lines, titled rules and the tail', () => {
  assert.ok(isBorderLine('────────'));
  assert.ok(isBorderLine('╭──────╮'));
  assert.ok(isBorderLine('  ╰────╯  '));
  assert.not.ok(isBorderLine('──'));
  assert.not.ok(isBorderLine('│ > hi │'));
  assert.ok(isTitledRule('──── My session ─'));
  assert.not.ok(isTitledRule('╭─── Box ───╮'), 'a corner-opened line is a box border, never a title');
  assert.equal(tailOf(['a', '', 'b', 'c', '', ''], 2), ['b', 'c']);
  assert.equal(tailOf(['a', '', 'b', '', 'c'], 2), ['b', '', 'c']);
});

test('regions: prompt box, above it, the line above it, after the last rule', () => {
  const tail = ['transcript line', 'Do you want to proceed?', '╭────────╮', '│ > hello │', '╰────────╯', '  ? for shortcuts'];
  assert.equal(extractRegion(tail, { kind: 'prompt_box' }).lines, ['│ > hello │']);
  assert.equal(extractRegion(tail, { kind: 'above_prompt_box' }).lines, ['transcript line', 'Do you want to proceed?']);
  assert.equal(extractRegion(tail, { kind: 'last_non_empty_above_prompt_box' }).lines, ['Do you want to proceed?']);
  assert.equal(extractRegion(tail, { kind: 'after_last_horizontal_rule' }).lines, ['  ? for shortcuts']);
  assert.equal(extractRegion(tail, { kind: 'bottom', n: 2 }).lines, ['╰────────╯', '  ? for shortcuts']);
  assert.is(extractRegion(['no box here'], { kind: 'prompt_box' }).lines, null, 'no_region, never the whole screen');
  assert.equal(extractRegion(['x', 'y'], { kind: 'after_last_horizontal_rule' }).lines, ['x', 'y'], 'no rule: the whole tail');
});

test('after_last_horizontal_rule skips a titled rule with nothing under it, once', () => {
  const tail = ['old', '────────', ' 1. Yes', ' 2. No', '──── My session ─'];
  assert.equal(extractRegion(tail, { kind: 'after_last_horizontal_rule' }).lines, [' 1. Yes', ' 2. No']);
  assert.equal(extractRegion(['──── Title ──'], { kind: 'after_last_horizontal_rule' }).lines, [], 'no rule above it: empty');
  assert.equal(extractRegion(['──── Title ──', 'under'], { kind: 'after_last_horizontal_rule' }).lines, ['under'], 'with something under it, a border like any other');
});

test('after_last_horizontal_rule joins lines so a wrapped footer still matches', () => {
  const r = rules(`[screen]\nfold_case = true\n[[screen.rule]]\nstate = "needs_input"\nregion = "after_last_horizontal_rule"\nall = ["esc to cancel"]\n`).screen!;
  assert.is(evaluateScreen(r, ['────────', ' 1. Yes · Esc', 'to cancel']).verdict.state, 'needs_input');
  const wide = rules(`[screen]\nfold_case = true\n[[screen.rule]]\nstate = "needs_input"\nall = ["esc to cancel"]\n`).screen!;
  assert.is(evaluateScreen(wide, [' 1. Yes · Esc', 'to cancel']).verdict.state, null, 'the tail is prose and is not joined');
});

test('predicates: all, any, not, regex, not_regex and nested groups', () => {
  const r = rules(`
[screen]
fold_case = true
[[screen.rule]]
state = "needs_input"
kind = "approval"
priority = 25
region = "after_last_horizontal_rule"
all = ["esc to cancel"]
any_of = [ { all = ["enter to confirm"] }, { all = ["enter to select"], any = ["↑/↓ to navigate", "arrow keys to navigate"] } ]
none_of = [ { all = ["auto-approved", "yes"] } ]
`).screen!;
  const hit = (lines: string[]) => evaluateScreen(r, ['──────', ...lines]).verdict.state;
  assert.is(hit(['Enter to confirm · Esc to cancel']), 'needs_input');
  assert.is(hit(['Enter to select · ↑/↓ to navigate · Esc to cancel']), 'needs_input');
  assert.is(hit(['Enter to select · Esc to cancel']), null, 'the second layout needs its navigation hint');
  assert.is(hit(['Enter to confirm · Esc to cancel', 'auto-approved: yes']), null, 'vetoed');
  const re = rules(`[screen]\n[[screen.rule]]\nstate = "working"\nregex = ['^\\s*[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Working']\nnot_regex = ['(?i)interrupted']\n`).screen!;
  assert.is(evaluateScreen(re, ['⠙ Working (3s)']).verdict.state, 'working');
  assert.is(evaluateScreen(re, ['text ⠙ Working']).verdict.state, null, '^ anchors lines');
  assert.is(evaluateScreen(re, ['⠙ Working', 'Interrupted']).verdict.state, null);
});

test('priorities: the highest that matches decides, and explain says why the others refused', () => {
  const r = rules(`[screen]\n[[screen.rule]]\nid="low"\nstate = "working"\npriority = 1\nall = ["esc"]\n[[screen.rule]]\nid="high"\nstate = "needs_input"\npriority = 9\nall = ["Allow?"]\n`).screen!;
  const e = evaluateScreen(r, ['Allow? (esc)'], true);
  assert.is(e.verdict.rule!.id, 'high');
  assert.equal(e.traces.map((t) => [t.id, t.fired]), [['high', true], ['low', false]]);
  assert.match(e.traces[1]!.why!, /higher rule decided/);
  const miss = evaluateScreen(r, ['nothing'], true);
  assert.match(miss.traces[0]!.why!, /"Allow\?" is not there/);
});

test('skip_state freezes; message templates fill from message_from; kind is guessed from the words', () => {
  const r = rules(`
[screen]
[[screen.rule]]
skip_state = true
priority = 50
all = ["(END)"]
[[screen.rule]]
state = "needs_input"
priority = 10
all = ["Do you want to proceed?"]
message = "approve Bash: {1}"
message_from = '(?m)^\\s*Bash command\\s*\\n\\s*(.+)$'
`).screen!;
  assert.ok(evaluateScreen(r, ['log line', '(END)']).verdict.freeze);
  const v = evaluateScreen(r, [' Bash command', '   touch hello.txt', ' Do you want to proceed?']).verdict;
  assert.equal([v.state, v.kind, v.message], ['needs_input', 'approval', 'approve Bash: touch hello.txt']);
});

test('loader refusals', () => {
  refuses(`[screen]\n[[screen.rule]]\nstate = "idle"\nall = ["? for shortcuts"]\n`, /idle rule must read region = "prompt_box" or carry a pattern/);
  assert.ok(rules(`[screen]\n[[screen.rule]]\nstate = "idle"\nregion = "prompt_box"\nall = [">"]\n`).screen);
  assert.ok(rules(`[screen]\n[[screen.rule]]\nstate = "idle"\nregex = ['^› ']\n`).screen, 'a structural pattern is proof');
  refuses(`[screen]\n[[screen.rule]]\nstate = "idle"\nany_of = [ { regex = ['^›'] }, { all = ['x'] } ]\n`, /idle rule/);
  refuses(`[screen]\n[[screen.rule]]\nstate = "working"\npriority = 1\nall = ["x"]\n[[screen.rule]]\nstate = "idle"\npriority = 5\nregion = "prompt_box"\nall = [">"]\n`, /rank below every working/);
  refuses(`[screen]\nlines = 10\n[[screen.rule]]\nstate = "working"\nregion = "bottom_non_empty_lines(20)"\nall = ["x"]\n`, /more than the manifest's lines/);
  refuses(`[screen]\n[[screen.rule]]\nstate = "done"\nall = ["x"]\n`, /only a notify rule may say done/);
  refuses(`[screen]\n[[screen.rule]]\nstate = "working"\nall = ["x"]\n[screen.rule.answers]\napprove = { option = "yes" }\n`, /answers block belongs under a needs_input rule/);
  refuses(`[screen]\n[[screen.rule]]\nstate = "needs_input"\nall = ["x"]\n[screen.rule.answers]\ndeny = { keys = ["escape"] }\n`, /not a key name/);
  refuses(`[screen]\n[[screen.rule]]\nstate = "needs_input"\nall = ["x"]\n[screen.rule.answers]\ndeny = { keys = ["a","b","c","d","e","f","g","h","i"] }\n`, /at most 8 keys/);
  refuses(`[screen]\n[[screen.rule]]\nstate = "needs_input"\nall = ["x"]\n[screen.rule.answers]\napprove = {}\n`, /names neither keys nor an option/);
  refuses(`[title]\n[[title.rule]]\nstate = "needs_input"\nall = ["x"]\n[title.rule.answers]\napprove = { option = "yes" }\n`, /a title has no options/);
  refuses(`[notify]\n[[notify.rule]]\nstate = "needs_input"\nall = ["x"]\n[notify.rule.answers]\ndeny = { keys = ["esc"] }\n`, /notify rule cannot carry/);
  refuses(`[screen]\n[[screen.rule]]\nstate = "working"\ntool_field = "tool"\nall = ["x"]\n`, /need show = "dialog"/);
  refuses(`[screen]\n[[screen.rule]]\nstate = "working"\nnot = ["x"]\n`, /requires nothing/);
  refuses(`[screen]\n[[screen.rule]]\nstate = "working"\nall = ["x"]\nany_of = [ { not = ["y"] } ]\n`, /must name something that has to be present/);
  const deep = Array.from({ length: 9 }).reduce<string>((acc) => `{ all = ["x"], all_of = [${acc}] }`, '{ all = ["x"] }');
  refuses(`[screen]\n[[screen.rule]]\nstate = "working"\nall_of = [${deep}]\n`, /nest at most 8/);
  const many = Array.from({ length: 1100 }, (_, i) => `"s${i}"`).join(',');
  refuses(`[screen]\n[[screen.rule]]\nstate = "working"\nany = [${many}]\n`, /more than 1024 strings/);
  refuses(`[screen]\n[[screen.rule]]\nstate = "working"\nregex = ['(?=x)']\n`, /not valid RE2/);
  // 512 groups a manifest: each rule is a group, and each nested table one more.
  const groups = (n: number) => Array.from({ length: n }, (_, i) => `[[screen.rule]]\nstate = "working"\nall_of = [ { all = ["g${i}"] } ]\n`).join('');
  assert.ok(rules(`[screen]\n${groups(256)}`).screen, '512 groups load');
  refuses(`[screen]\n${groups(256)}[[screen.rule]]\nstate = "working"\nall = ["x"]\n`, /more than 512 groups/);
  refuses(`[screen]\n[[screen.rule]]\nstate = "working"\nall = ["a\\u0000b"]\n`, /holds a NUL/);
});

test('fold_case folds substrings only; patterns keep their own case handling', () => {
  const folded = rules(`[screen]\nfold_case = true\n[[screen.rule]]\nstate = "working"\nall = ["Esc To Interrupt"]\n`).screen!;
  assert.is(evaluateScreen(folded, ['ESC to interrupt']).verdict.state, 'working');
  const plain = rules(`[screen]\n[[screen.rule]]\nstate = "working"\nall = ["esc to interrupt"]\n`).screen!;
  assert.is(evaluateScreen(plain, ['Esc to interrupt']).verdict.state, null, 'without fold_case the case must agree');
  const re = rules(`[screen]\nfold_case = true\n[[screen.rule]]\nstate = "working"\nregex = ['Working']\n`).screen!;
  assert.is(evaluateScreen(re, ['working']).verdict.state, null, 'fold_case does not fold a pattern');
  const rei = rules(`[screen]\n[[screen.rule]]\nstate = "working"\nregex = ['(?i)working']\n`).screen!;
  assert.is(evaluateScreen(rei, ['WORKING']).verdict.state, 'working');
});

test('region aliases: whole_recent is the tail, prompt_box_body the box', () => {
  assert.equal(parseRegion('whole_recent'), { kind: 'tail' });
  assert.equal(parseRegion('prompt_box_body'), { kind: 'prompt_box' });
});

test('title rules match whole tokens', () => {
  assert.ok(containsToken('~/src/opencode', 'opencode'));
  assert.not.ok(containsToken('~/src/opencode-blinker', 'opencode'));
  assert.ok(containsToken('action required: approve', 'action required:'));
  const t = rules(`[title]\nfold_case = true\n[[title.rule]]\nstate = "needs_input"\nkind = "approval"\nall = ["action required"]\n[[title.rule]]\nstate = "working"\nregex = ['^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]']\n`).title!;
  assert.is(evaluateTitle(t, 'Action Required - codex', 'title').verdict.state, 'needs_input');
  assert.is(evaluateTitle(t, 'actions required', 'title').verdict.state, null);
  assert.is(evaluateTitle(t, '⠙ codex', 'title').verdict.state, 'working');
});

test('the louder reading wins across title and screen', () => {
  const r = rules(`
[screen]
[[screen.rule]]
state = "needs_input"
priority = 10
all = ["Allow?"]
[[screen.rule]]
state = "working"
priority = 5
all = ["esc to interrupt"]
[[screen.rule]]
state = "idle"
priority = 1
region = "prompt_box"
all = [">"]
[title]
[[title.rule]]
state = "working"
priority = 5
regex = ['^⠙']
[[title.rule]]
state = "idle"
priority = 1
all = ["✳"]
`);
  const box = ['╭───╮', '│ > │', '╰───╯'];
  let d = decideLook(r, ['Allow?', ...box], '⠙ task');
  assert.equal([d.decided?.state, d.applyTitle], ['needs_input', null], 'a spinner in the title does not hide a prompt');
  d = decideLook(r, ['Allow?'], '✳ Claude Code');
  assert.equal([d.decided?.state, d.applyTitle], ['needs_input', null], 'a rest glyph does not hide a prompt');
  d = decideLook(r, box, '⠙ task');
  assert.equal([d.decided?.state, d.applyScreen], ['working', null], 'an empty prompt box does not hide a spinner');
});

test('osc_progress title rules and notify rules', () => {
  const r = rules(`[title]\n[[title.rule]]\nstate = "needs_input"\nregion = "osc_progress"\nkind = "question"\nregex = ['^4;3$']\n[notify]\nfold_case = true\n[[notify.rule]]\nstate = "needs_input"\npriority = 10\nkind = "approval"\nany = ["approval requested"]\n[[notify.rule]]\nstate = "done"\nregex = ['\\S']\n`);
  assert.is(evaluateTitle(r.title!, '4;3', 'osc_progress').verdict.state, 'needs_input');
  assert.is(evaluateTitle(r.title!, '4;3', 'title').verdict.state, null, 'a title look never runs progress rules');
  const a = evaluateNotify(r.notify!, 'Codex', 'Approval requested: rm -rf build').verdict;
  assert.equal([a.state, a.kind], ['needs_input', 'approval']);
  assert.match(a.message, /^approval: Codex Approval requested/);
  assert.is(evaluateNotify(r.notify!, '', 'Turn complete').verdict.state, 'done');
});

test('a dialog rule reads only a bordered box holding all its words', () => {
  const r = rules(`[screen]\nfold_case = true\n[[screen.rule]]\nstate = "needs_input"\nkind = "approval"\nall = ["permission required", "deny"]\nshow = "dialog"\ntool_field = "tool"\nwhat_fields = ["file", "body"]\nhint_fields = ["desc"]\n`).screen!;
  const dialog = ['chat: permission required, deny?', '╭─ Permission Required ──────────╮', '│ Tool   bash                    │', '│ Desc   make a file             │', '│ touch hello.txt                │', '│ Allow  Allow for session  Deny │', '╰────────────────────────────────╯'];
  assert.is(findBoxes(dialog).length, 1);
  const v = evaluateScreen(r, dialog).verdict;
  assert.equal([v.state, v.message, v.boxes], ['needs_input', 'approve bash: touch hello.txt', 1]);
  assert.is(evaluateScreen(r, ['permission required, deny']).verdict.state, null, 'the words without a box are not a prompt');
});

test('parseRegion refuses unknown names and out-of-range N', () => {
  assert.ok('error' in parseRegion('top_non_empty_lines(3)'));
  assert.ok('error' in parseRegion('bottom_non_empty_lines(0)'));
  assert.ok('error' in parseRegion('bottom_non_empty_lines(201)'));
});

test.run();
