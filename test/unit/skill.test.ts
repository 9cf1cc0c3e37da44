// The texts `tuios --skill [TOPIC]` prints (skills/*.md): every topic the agents guide names is
// there and short, and every `tuios ...` command line a text shows parses against the verb
// registry, so a skill never teaches a verb or a flag tuios does not have.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseVerbArgs, resolveVerb, UsageError, type VerbRow } from '../../core/cli/args.js';
import { skillCommand, skillDir, skillText, skillTopics } from '../../core/cli/skill.js';
import { allVerbs } from '../../core/verbs/index.js';
import { verbTableRow } from '../../core/rpc/describe.js';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DIR = join(REPO, 'skills') + '/';
/** The steering repo's copy of the spec, beside the checkout when it is there. */
const GUIDE = join(REPO, '..', 'shared', 'spec', 'agents-guide.md');

/** The topics agents-guide.md names as `tuios --skill TOPIC` (its opening, Agents talking to agents, Fleets, Set it up). */
const GUIDE_TOPICS = ['fleet', 'mail', 'recipes'];

// The guide asks for "a short core" and gives no number; these are ours. The core is what an
// agent reads on every start, so it stays to one screen; a topic to a few.
const CORE_MAX_LINES = 64;
const CORE_MAX_BYTES = 3 * 1024;
const TOPIC_MAX_LINES = 120;
const TOPIC_MAX_BYTES = 6 * 1024;

/** Commands main.ts runs itself, not verbs of the registry: accepted by name. */
// Front-end commands the CLI runs itself (main.ts), not verbs of the registry.
const NOT_VERBS = new Set(['agent-hook', 'integration', 'doctor', 'attach', 'daemon', 'link-serve', 'mcp']);

const table: VerbRow[] = allVerbs.map(verbTableRow);

/** Shell words and the operators between them (|, ||, &&, ;), quotes respected; # starts a comment. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let cur: string | null = null;
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = null;
      else cur += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      cur ??= '';
      continue;
    }
    if (c === ' ' || c === '\t') {
      if (cur !== null) words.push(cur);
      cur = null;
      continue;
    }
    if (c === '#' && cur === null) break;
    const op = ['&&', '||', '|', ';'].find((o) => line.startsWith(o, i));
    if (op) {
      if (cur !== null) words.push(cur);
      cur = null;
      words.push('\0' + op);
      i += op.length - 1;
      continue;
    }
    cur = (cur ?? '') + c;
  }
  assert.not.ok(quote, `an unclosed quote in: ${line}`);
  if (cur !== null) words.push(cur);
  return words;
}

/** Every `tuios ...` command a text shows: in fenced code blocks (each command of a line) and in `inline code`. */
function commandsOf(text: string): string[][] {
  const cmds: string[][] = [];
  const take = (line: string) => {
    let seg: string[] = [];
    for (const w of [...shellWords(line), '\0end']) {
      if (!w.startsWith('\0')) {
        seg.push(w);
        continue;
      }
      if (seg[0] === 'tuios') cmds.push(seg.slice(1));
      seg = [];
    }
  };
  let fenced = false;
  for (const line of text.replace(/\\\n/g, ' ').split('\n')) {
    if (line.startsWith('```')) {
      fenced = !fenced;
      continue;
    }
    if (fenced) take(line);
    else for (const m of line.matchAll(/`(tuios [^`]*)`/g)) take(m[1]!);
  }
  return cmds;
}

/** `tuios status STATE [-m MESSAGE] [--kind K] [--progress N]`, as main.ts reads it. */
function statusProblem(args: string[]): string | null {
  const [state = '', ...flags] = args;
  if (!['working', 'needs_input', 'idle', 'done', 'errored', 'none'].includes(state)) return `status: ${state || 'no'} state`;
  for (let i = 0; i < flags.length; i += 2) {
    if (!['-m', '--message', '--kind', '--progress'].includes(flags[i]!) || flags[i + 1] === undefined) return `status: ${flags[i]}`;
  }
  return null;
}

/** Why a command line does not parse, or null when it does. */
function problem(words: string[], topics: string[]): string | null {
  const [first = '', ...rest] = words;
  if (first === '--skill') return rest.length <= 1 && (rest.length === 0 || topics.includes(rest[0]!)) ? null : 'no such skill topic';
  if (first === 'help') return rest.length === 1 && (rest[0] === 'VERB' || resolveVerb(table, rest).verb) ? null : 'help takes one verb';
  if (first === 'status') return statusProblem(rest);
  if (NOT_VERBS.has(first)) return null;
  const { verb, rest: args } = resolveVerb(table, words);
  if (!verb) return `no verb ${first}`;
  try {
    parseVerbArgs(verb, args);
    return null;
  } catch (e) {
    if (e instanceof UsageError) return e.message;
    throw e;
  }
}

test('the package folder is found from the source tree, and holds the core', () => {
  assert.is(skillDir(), DIR);
  assert.ok(existsSync(DIR + 'core.md'));
});

test('every topic the agents guide names exists', () => {
  const topics = skillTopics(DIR);
  for (const t of GUIDE_TOPICS) assert.ok(topics.includes(t), `tuios --skill ${t}`);
  if (existsSync(GUIDE)) {
    // The guide itself, where it is beside the checkout: every `tuios --skill WORD` it names.
    const named = [...readFileSync(GUIDE, 'utf8').matchAll(/tuios --skill\s+([a-z][a-z0-9-]*)/g)].map((m) => m[1]!);
    assert.ok(named.length >= GUIDE_TOPICS.length);
    for (const t of named) assert.ok(topics.includes(t), `the guide names tuios --skill ${t}`);
  }
});

test('the core and every topic are under their length', () => {
  const core = skillText(undefined, DIR)!;
  assert.ok(core.split('\n').length <= CORE_MAX_LINES, `core: ${core.split('\n').length} lines`);
  assert.ok(Buffer.byteLength(core) <= CORE_MAX_BYTES, `core: ${Buffer.byteLength(core)} bytes`);
  for (const t of skillTopics(DIR)) {
    const text = skillText(t, DIR)!;
    assert.ok(text.split('\n').length <= TOPIC_MAX_LINES, `${t}: ${text.split('\n').length} lines`);
    assert.ok(Buffer.byteLength(text) <= TOPIC_MAX_BYTES, `${t}: ${Buffer.byteLength(text)} bytes`);
  }
});

test('the core names every topic, so an agent finds them all', () => {
  const core = skillText(undefined, DIR)!;
  for (const t of skillTopics(DIR)) assert.ok(core.includes(`tuios --skill ${t}`), t);
});

test('every tuios command line in every skill text parses against the verb registry', () => {
  const topics = skillTopics(DIR);
  let count = 0;
  for (const t of [undefined, ...topics]) {
    const cmds = commandsOf(skillText(t, DIR)!);
    assert.ok(cmds.length >= 3, `${t ?? 'core'} shows commands`);
    for (const c of cmds) {
      count++;
      const why = problem(c, topics);
      assert.is(why, null, `${t ?? 'core'}: tuios ${c.join(' ')}: ${why}`);
    }
  }
  assert.ok(count >= 60, `${count} commands checked`);
});

test('no inline code span crosses a line, so no command escapes the check', () => {
  for (const t of [undefined, ...skillTopics(DIR)]) {
    let fenced = false;
    for (const line of skillText(t, DIR)!.split('\n')) {
      if (line.startsWith('```')) fenced = !fenced;
      else if (!fenced) assert.is((line.match(/`/g) ?? []).length % 2, 0, `${t ?? 'core'}: ${line}`);
    }
    assert.not.ok(fenced, `${t ?? 'core'}: a code block is left open`);
  }
});

test('the check refuses what tuios does not have', () => {
  const topics = skillTopics(DIR);
  const bad = [
    "tuios send-agent-message -w api --attach notes.md 'TEXT'", // a flag no verb has
    'tuios fan shuffle fan-login-1', // a subcommand fan does not take
    'tuios teleport-agent -w api', // a verb there is not
    'tuios ask-human QUESTION', // a required flag left out
    'tuios wait-for agent-state --until sleeping', // a value the enum lacks
    'tuios --skill nonsense',
    'tuios status sleeping',
    'tuios status done --colour red',
  ];
  for (const line of bad) {
    const [c] = commandsOf('```sh\n' + line + '\n```');
    assert.ok(c, line);
    assert.is.not(problem(c!, topics), null, line);
  }
  // Quotes, comments and operators: the pipe inside quotes is a pattern, the comment is not a flag.
  const cmds = commandsOf("```sh\n./x && tuios wait-for window-output -w t 'a|b' --timeout 5 # --nope\n```\nor `tuios queue ls` inline");
  assert.equal(cmds, [['wait-for', 'window-output', '-w', 't', 'a|b', '--timeout', '5'], ['queue', 'ls']]);
});

test('a topic name is a plain word: no path reaches outside the folder', () => {
  assert.is(skillText('../package', DIR), null);
  assert.is(skillText('core', DIR), null);
  assert.is(skillText('nonsense', DIR), null);
  assert.ok(skillText('mail', DIR)!.startsWith('# tuios mail'));
});

test('an install without the texts says so and fails, without a stack', () => {
  assert.is(skillCommand([], join(REPO, 'no-such-skills') + '/'), 1);
});

test.run();
