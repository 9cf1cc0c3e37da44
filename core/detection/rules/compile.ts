// Compiling a manifest's [screen], [title] and [notify] blocks, with every refusal the spec lists.
// A refusal drops the whole manifest at load (the caller logs the file and the reason).
import { compileGroup, patternOnEveryPath, allStrings, RuleError, type Budget, type Group } from './predicate.js';
import { parseRegion, type RegionSpec } from './regions.js';
import { compilePattern, type Pattern } from '../../re.js';
import { guessKind, KINDS, type BlockKind } from '../../agent-state/state.js';
import { DEFAULT_TAIL_LINES, MAX_TAIL_LINES } from '../../limits.js';

export type RuleState = 'needs_input' | 'working' | 'idle' | 'done';

export interface AnswerSpec {
  option?: string;
  keys: string[];
}

export interface Answers {
  approve?: AnswerSpec;
  approve_always?: AnswerSpec;
  deny?: AnswerSpec;
  choose: boolean;
  text: boolean;
}

export interface DialogSpec {
  toolField?: string;
  whatFields: string[];
  hintFields: string[];
}

export interface Rule {
  /** Index in the block, and the id when the manifest names one. */
  index: number;
  id: string;
  /** null for a skip-state rule: the screen says nothing about the agent (a pager, a picker). */
  state: RuleState | null;
  priority: number;
  region: RegionSpec | 'title' | 'osc_progress';
  kind: BlockKind;
  message: string;
  messageFrom: Pattern | null;
  group: Group;
  answers: Answers | null;
  dialog: DialogSpec | null;
}

export interface RuleBlock {
  enabled: boolean;
  foldCase: boolean;
  /** Non-empty lines of the tail the screen rules read. */
  lines: number;
  /** Highest priority first; the first match decides. */
  rules: Rule[];
}

export interface CompiledRules {
  screen: RuleBlock | null;
  title: RuleBlock | null;
  notify: RuleBlock | null;
}

/** Re-exported for core/verbs/screen.ts until the verb records land; the limit is core/limits.ts's. */
const ANSWER_KEYS = new Set(['enter', 'esc', 'tab', 'space', 'up', 'down', 'left', 'right', 'backspace']);
const RULE_FIELDS = new Set(['id', 'state', 'priority', 'region', 'kind', 'message', 'message_from', 'skip_state', 'answers', 'show', 'tool_field', 'what_fields', 'hint_fields', 'all', 'any', 'not', 'regex', 'not_regex', 'all_of', 'any_of', 'none_of']);
const BLOCK_FIELDS = new Set(['enabled', 'fold_case', 'lines', 'rule']);

type Which = 'screen' | 'title' | 'notify';

function compileAnswer(v: unknown, where: string, which: Which): AnswerSpec {
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new RuleError(`${where} must be a table with option and/or keys`);
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) if (k !== 'option' && k !== 'keys') throw new RuleError(`${where}: unknown field ${k}`);
  const keys = o.keys === undefined ? [] : o.keys;
  if (!Array.isArray(keys) || !keys.every((k) => typeof k === 'string')) throw new RuleError(`${where}.keys must be a list of key names`);
  if (keys.length > 8) throw new RuleError(`${where}.keys: at most 8 keys`);
  for (const k of keys as string[]) {
    if (!ANSWER_KEYS.has(k) && !(k.length === 1 && k >= ' ' && k !== '\x7f')) throw new RuleError(`${where}.keys: "${k}" is not a key name (enter, esc, tab, space, up, down, left, right, backspace, or one printable character)`);
  }
  const option = o.option;
  if (option !== undefined && (typeof option !== 'string' || option === '')) throw new RuleError(`${where}.option must be the start of an option's label`);
  if (option === undefined && keys.length === 0) throw new RuleError(`${where} names neither keys nor an option`);
  if (option !== undefined && which === 'title') throw new RuleError(`${where}: a title has no options`);
  return { option: option as string | undefined, keys: keys as string[] };
}

function compileAnswers(v: unknown, where: string, which: Which, state: RuleState | null): Answers {
  if (which === 'notify') throw new RuleError(`${where}: a notify rule cannot carry an answers block`);
  if (state !== 'needs_input') throw new RuleError(`${where}: an answers block belongs under a needs_input rule`);
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new RuleError(`${where} must be a table`);
  const o = v as Record<string, unknown>;
  const a: Answers = { choose: false, text: false };
  for (const [k, x] of Object.entries(o)) {
    if (k === 'approve' || k === 'approve_always' || k === 'deny') a[k] = compileAnswer(x, `${where}.${k}`, which);
    else if (k === 'choose') {
      if (x !== 'digit') throw new RuleError(`${where}.choose must be "digit"`);
      a.choose = true;
    } else if (k === 'text') {
      if (typeof x !== 'boolean') throw new RuleError(`${where}.text must be true or false`);
      a.text = x;
    } else throw new RuleError(`${where}: unknown answer "${k}"`);
  }
  return a;
}

function compileBlock(raw: unknown, which: Which, budget: Budget): RuleBlock {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new RuleError(`[${which}] must be a table`);
  const b = raw as Record<string, unknown>;
  for (const k of Object.keys(b)) if (!BLOCK_FIELDS.has(k)) throw new RuleError(`[${which}]: unknown field "${k}"`);
  const fold = b.fold_case === true;
  const lines = b.lines === undefined ? DEFAULT_TAIL_LINES : b.lines;
  if (typeof lines !== 'number' || !Number.isInteger(lines) || lines < 1 || lines > MAX_TAIL_LINES) throw new RuleError(`[${which}].lines must be 1 to ${MAX_TAIL_LINES}`);
  const rawRules = b.rule === undefined ? [] : b.rule;
  if (!Array.isArray(rawRules)) throw new RuleError(`[[${which}.rule]] must be an array of tables`);
  const rules: Rule[] = rawRules.map((r, index) => {
    const where = `${which}.rule[${index}]`;
    if (!r || typeof r !== 'object' || Array.isArray(r)) throw new RuleError(`${where} must be a table`);
    const o = r as Record<string, unknown>;
    for (const k of Object.keys(o)) if (!RULE_FIELDS.has(k)) throw new RuleError(`${where}: unknown field "${k}"`);
    const skip = o.skip_state === true;
    let state: RuleState | null = null;
    if (!skip) {
      const allowed: RuleState[] = which === 'notify' ? ['needs_input', 'working', 'idle', 'done'] : ['needs_input', 'working', 'idle'];
      if (!allowed.includes(o.state as RuleState)) throw new RuleError(`${where}.state must be ${allowed.join(', ')}${which === 'notify' ? '' : ' (only a notify rule may say done)'}`);
      state = o.state as RuleState;
    } else if (o.state !== undefined) throw new RuleError(`${where}: a skip_state rule names no state`);
    let region: Rule['region'];
    if (which === 'screen') {
      const reg = parseRegion(o.region as string | undefined);
      if ('error' in reg) throw new RuleError(`${where}.region: ${reg.error}`);
      if (reg.kind === 'bottom' && reg.n > lines) throw new RuleError(`${where}.region reads ${reg.n} lines, more than the manifest's lines = ${lines}`);
      region = reg;
    } else if (which === 'title') {
      if (o.region !== undefined && o.region !== 'title' && o.region !== 'osc_progress') throw new RuleError(`${where}.region is title or osc_progress`);
      region = (o.region as 'title' | 'osc_progress' | undefined) ?? 'title';
    } else {
      if (o.region !== undefined) throw new RuleError(`${where}: a notify rule reads the notification, it takes no region`);
      region = 'title';
    }
    const groupRaw: Record<string, unknown> = {};
    for (const k of ['all', 'any', 'not', 'regex', 'not_regex', 'all_of', 'any_of', 'none_of']) if (o[k] !== undefined) groupRaw[k] = o[k];
    const group = compileGroup(groupRaw, where, fold, budget, 1, new Set(Object.keys(groupRaw)));
    if (!skip && !(group.all.length || group.any.length || group.regex.length || group.all_of.length || group.any_of.length)) throw new RuleError(`${where} requires nothing: it would match every screen`);
    if (state === 'idle' && which === 'screen' && (region as RegionSpec).kind !== 'prompt_box' && !patternOnEveryPath(group)) {
      throw new RuleError(`${where}: an idle rule must read region = "prompt_box" or carry a pattern on every path that pins the input box (no evidence is not rest)`);
    }
    const kindRaw = o.kind;
    if (kindRaw !== undefined && !(KINDS as readonly string[]).includes(kindRaw as string)) throw new RuleError(`${where}.kind must be approval, question or auth`);
    const kind: BlockKind = state === 'needs_input' ? ((kindRaw as BlockKind | undefined) ?? guessKind(allStrings(group).join(' '))) : '';
    const message = typeof o.message === 'string' ? o.message : '';
    const messageFrom = typeof o.message_from === 'string' ? compilePattern(o.message_from, `${where}.message_from`) : null;
    const answers = o.answers !== undefined ? compileAnswers(o.answers, `${where}.answers`, which, state) : null;
    let dialog: DialogSpec | null = null;
    if (o.show !== undefined) {
      if (o.show !== 'dialog') throw new RuleError(`${where}.show must be "dialog"`);
      if (which !== 'screen' || state !== 'needs_input') throw new RuleError(`${where}: show = "dialog" belongs on a needs_input screen rule`);
      const list = (x: unknown, f: string) => {
        if (x === undefined) return [];
        if (!Array.isArray(x) || !x.every((y) => typeof y === 'string')) throw new RuleError(`${where}.${f} must be a list of labels`);
        return (x as string[]).map((y) => y.toLowerCase());
      };
      dialog = {
        toolField: typeof o.tool_field === 'string' ? o.tool_field.toLowerCase() : undefined,
        whatFields: list(o.what_fields, 'what_fields'),
        hintFields: list(o.hint_fields, 'hint_fields'),
      };
    } else if (o.tool_field !== undefined || o.what_fields !== undefined || o.hint_fields !== undefined) {
      throw new RuleError(`${where}: tool_field, what_fields and hint_fields need show = "dialog"`);
    }
    const priority = o.priority === undefined ? 0 : o.priority;
    if (typeof priority !== 'number' || !Number.isInteger(priority)) throw new RuleError(`${where}.priority must be an integer`);
    return { index, id: typeof o.id === 'string' ? o.id : `${which}[${index}]`, state, priority, region, kind, message, messageFrom, group, answers, dialog };
  });
  // The prompt box stays on the screen during a turn: every idle rule ranks below every rule
  // that says the agent works or waits on you.
  const loud = rules.filter((r) => r.state === 'working' || r.state === 'needs_input').map((r) => r.priority);
  for (const r of rules) {
    if (r.state === 'idle' && loud.some((p) => p <= r.priority)) {
      throw new RuleError(`${which}.rule[${r.index}]: an idle rule must rank below every working and needs_input rule of its manifest`);
    }
  }
  const sorted = [...rules].sort((a, b) => b.priority - a.priority || a.index - b.index);
  return { enabled: b.enabled !== false, foldCase: fold, lines, rules: sorted };
}

export function compileRules(raw: Record<string, unknown>): CompiledRules {
  const budget: Budget = { groups: 0, strings: 0 };
  return {
    screen: raw.screen !== undefined ? compileBlock(raw.screen, 'screen', budget) : null,
    title: raw.title !== undefined ? compileBlock(raw.title, 'title', budget) : null,
    notify: raw.notify !== undefined ? compileBlock(raw.notify, 'notify', budget) : null,
  };
}

/** True when a manifest's rules can show the agent at rest (an idle rule on the screen or title). */
export function canShowIdle(r: CompiledRules): boolean {
  return !!(r.screen?.rules.some((x) => x.state === 'idle') || r.title?.rules.some((x) => x.state === 'idle'));
}

/** True when a manifest's rules can show a turn in progress. */
export function canShowWorking(r: CompiledRules): boolean {
  return !!(r.screen?.rules.some((x) => x.state === 'working') || r.title?.rules.some((x) => x.state === 'working'));
}
