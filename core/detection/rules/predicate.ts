// Predicate trees: what must be on a region for a rule to match (spec: Predicates). Every field
// must hold; nested groups have the same fields. Substrings are plain (folded when the manifest
// says fold_case), patterns are RE2 with ^ and $ anchoring lines. Compiled once at load.
import type { Pattern } from '../../re.js';
import { compilePattern } from '../../re.js';
import { RULE_MAX_DEPTH, RULE_MAX_GROUPS, RULE_MAX_STRINGS } from '../../limits.js';

export interface Group {
  all: string[];
  any: string[];
  not: string[];
  regex: Pattern[];
  not_regex: Pattern[];
  all_of: Group[];
  any_of: Group[];
  none_of: Group[];
}

const GROUP_FIELDS = ['all', 'any', 'not', 'regex', 'not_regex', 'all_of', 'any_of', 'none_of'] as const;

export interface Budget {
  groups: number;
  strings: number;
}

export class RuleError extends Error {}

function strings(v: unknown, where: string): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw new RuleError(`${where} must be a list of strings`);
  for (const s of v as string[]) {
    if (s.includes('\0')) throw new RuleError(`${where} holds a NUL`);
    if (s === '') throw new RuleError(`${where} holds an empty string`);
  }
  return v as string[];
}

/** Compiles one group (a rule's own fields, or a nested inline table). */
export function compileGroup(raw: Record<string, unknown>, where: string, fold: boolean, budget: Budget, depth: number, allowed: Set<string>): Group {
  if (depth > RULE_MAX_DEPTH) throw new RuleError(`${where}: groups nest at most ${RULE_MAX_DEPTH} deep`);
  budget.groups++;
  if (budget.groups > RULE_MAX_GROUPS) throw new RuleError(`more than ${RULE_MAX_GROUPS} groups in one manifest`);
  for (const k of Object.keys(raw)) if (!allowed.has(k)) throw new RuleError(`${where}: unknown field "${k}"`);
  const f = (s: string) => (fold ? s.toLowerCase() : s);
  const g: Group = {
    all: strings(raw.all, `${where}.all`).map(f),
    any: strings(raw.any, `${where}.any`).map(f),
    not: strings(raw.not, `${where}.not`).map(f),
    regex: strings(raw.regex, `${where}.regex`).map((p) => compilePattern(p, `${where}.regex`)),
    not_regex: strings(raw.not_regex, `${where}.not_regex`).map((p) => compilePattern(p, `${where}.not_regex`)),
    all_of: [],
    any_of: [],
    none_of: [],
  };
  budget.strings += g.all.length + g.any.length + g.not.length + g.regex.length + g.not_regex.length;
  if (budget.strings > RULE_MAX_STRINGS) throw new RuleError(`more than ${RULE_MAX_STRINGS} strings and patterns in one manifest`);
  const nestedFields = new Set<string>(GROUP_FIELDS);
  for (const key of ['all_of', 'any_of', 'none_of'] as const) {
    const v = raw[key];
    if (v === undefined) continue;
    if (!Array.isArray(v)) throw new RuleError(`${where}.${key} must be a list of inline tables`);
    g[key] = v.map((x, i) => {
      if (!x || typeof x !== 'object' || Array.isArray(x)) throw new RuleError(`${where}.${key}[${i}] must be an inline table`);
      const sub = compileGroup(x as Record<string, unknown>, `${where}.${key}[${i}]`, fold, budget, depth + 1, nestedFields);
      if (key !== 'none_of' && !namesPresence(sub)) throw new RuleError(`${where}.${key}[${i}] must name something that has to be present`);
      if (key === 'none_of' && isEmpty(sub)) throw new RuleError(`${where}.${key}[${i}] is empty`);
      return sub;
    });
  }
  return g;
}

/** A group that requires something on the region (not only vetoes). */
export function namesPresence(g: Group): boolean {
  return g.all.length > 0 || g.any.length > 0 || g.regex.length > 0 || g.all_of.some(namesPresence) || g.any_of.length > 0;
}

function isEmpty(g: Group): boolean {
  return GROUP_FIELDS.every((k) => (g[k] as unknown[]).length === 0);
}

/** An idle rule's proof: a pattern on every path to a match (its own, an all_of group's, or every any_of group's). */
export function patternOnEveryPath(g: Group): boolean {
  if (g.regex.length > 0) return true;
  if (g.all_of.some(patternOnEveryPath)) return true;
  return g.any_of.length > 0 && g.any_of.every(patternOnEveryPath);
}

export function allStrings(g: Group): string[] {
  return [...g.all, ...g.any, ...g.all_of.flatMap(allStrings), ...g.any_of.flatMap(allStrings)];
}

export type Contains = (needle: string) => boolean;

export interface Subject {
  /** The text as it is (patterns read it). */
  raw: string;
  /** Substring search (plain, or whole-token for titles), on folded text when the manifest folds. */
  contains: Contains;
}

/** Evaluates a group; on refusal says which string, pattern or group was the reason. */
export function evalGroup(g: Group, s: Subject, path = ''): { ok: true } | { ok: false; why: string } {
  for (const x of g.all) if (!s.contains(x)) return { ok: false, why: `${path}all: ${JSON.stringify(x)} is not there` };
  if (g.any.length && !g.any.some((x) => s.contains(x))) return { ok: false, why: `${path}any: none of ${JSON.stringify(g.any)} is there` };
  for (const x of g.not) if (s.contains(x)) return { ok: false, why: `${path}not: ${JSON.stringify(x)} is there` };
  for (const r of g.regex) if (!r.test(s.raw)) return { ok: false, why: `${path}regex: /${r.source}/ does not match` };
  for (const r of g.not_regex) if (r.test(s.raw)) return { ok: false, why: `${path}not_regex: /${r.source}/ matches` };
  for (let i = 0; i < g.all_of.length; i++) {
    const r = evalGroup(g.all_of[i]!, s, `${path}all_of[${i}].`);
    if (!r.ok) return r;
  }
  if (g.any_of.length) {
    const reasons: string[] = [];
    let any = false;
    for (let i = 0; i < g.any_of.length; i++) {
      const r = evalGroup(g.any_of[i]!, s, `${path}any_of[${i}].`);
      if (r.ok) {
        any = true;
        break;
      }
      reasons.push(r.why);
    }
    if (!any) return { ok: false, why: `${path}any_of: no group matches (${reasons.join('; ')})` };
  }
  for (let i = 0; i < g.none_of.length; i++) {
    if (evalGroup(g.none_of[i]!, s).ok) return { ok: false, why: `${path}none_of[${i}] matches` };
  }
  return { ok: true };
}

/** Letters, digits, `_`, `-` and `.` continue a token; everything else ends one. */
const TOKEN_CHAR = /[\p{L}\p{N}_.-]/u;

/**
 * A title substring must match a whole token, so a rule for `opencode` does not match a pane in
 * `~/src/opencode-blinker`. A needle that carries its own boundary (`action required:`) is
 * matched plainly at that end.
 */
export function containsToken(hay: string, needle: string): boolean {
  let from = 0;
  for (;;) {
    const i = hay.indexOf(needle, from);
    if (i < 0) return false;
    const before = i > 0 ? hay[i - 1]! : '';
    const after = hay[i + needle.length] ?? '';
    const first = needle[0]!;
    const last = needle[needle.length - 1]!;
    const okBefore = !TOKEN_CHAR.test(first) || before === '' || !TOKEN_CHAR.test(before);
    const okAfter = !TOKEN_CHAR.test(last) || after === '' || !TOKEN_CHAR.test(after);
    if (okBefore && okAfter) return true;
    from = i + 1;
  }
}
