// Selectors: one line of `key:value` terms that addresses every agent pane fitting a description
// (spec: Selectors). One parser for every place that takes one. A term a pane cannot answer does
// not match, so a selector never includes a pane by accident.
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { TuiosError } from '../errors.js';
import { STATES } from './state.js';

export const SELECTOR_KEYS = ['harness', 'state', 'needs', 'session', 'group', 'host', 'name', 'cwd', 'task', 'stage'] as const;
export type SelectorKey = (typeof SELECTOR_KEYS)[number];

export interface Term {
  key: SelectorKey;
  values: string[];
}

export interface Selector {
  text: string;
  terms: Term[];
}

/** What a pane (or an Inbox row) answers. Undefined: it cannot say, and the term fails. */
export interface SelectorRow {
  harness?: string | null;
  /** Other names the harness answers to (its manifest's program names and aliases). */
  harnessNames?: string[];
  state?: string;
  session?: string;
  group?: string | null;
  host?: string;
  name?: string;
  cwd?: string | null;
  task?: string | null;
  stage?: string | null;
}

export function parseSelector(text: string): Selector {
  const terms: Term[] = [];
  for (const word of text.trim().split(/\s+/).filter(Boolean)) {
    const colon = word.indexOf(':');
    if (colon <= 0) throw new TuiosError('invalid_params', `The selector term "${word}" is not key:value.`, `Keys: ${SELECTOR_KEYS.join(', ')}; e.g. harness:codex state:idle,done`, { field: 'select' });
    const key = word.slice(0, colon) as SelectorKey;
    if (!(SELECTOR_KEYS as readonly string[]).includes(key)) {
      throw new TuiosError('invalid_params', `The selector key "${key}" is not one tuios knows.`, `Keys: ${SELECTOR_KEYS.join(', ')}`, { field: 'select' });
    }
    const values = word.slice(colon + 1).split(',').filter((v) => v !== '');
    if (values.length === 0) throw new TuiosError('invalid_params', `The selector term "${word}" has no value.`, undefined, { field: 'select' });
    if (key === 'needs' && values.some((v) => v !== 'you')) throw new TuiosError('invalid_params', 'needs: takes only "you".', 'needs:you matches panes a person has to act on.', { field: 'select' });
    if (key === 'state') {
      for (const v of values) if (!(STATES as readonly string[]).includes(v)) throw new TuiosError('invalid_params', `state:${v} is not a state.`, `States: ${STATES.join(', ')}`, { field: 'select' });
    }
    terms.push({ key, values });
  }
  if (terms.length === 0) throw new TuiosError('invalid_params', 'The selector is empty.', 'e.g. --select "harness:claude needs:you"', { field: 'select' });
  return { text: text.trim(), terms };
}

/** A glob: `*` and `?` within one path component, `[...]` classes. */
export function globToRegExp(glob: string): RegExp {
  let re = '^';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 1);
      if (end < 0) re += '\\[';
      else {
        let cls = glob.slice(i + 1, end);
        if (cls.startsWith('!')) cls = '^' + cls.slice(1);
        re += `[${cls.replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else re += c.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp(re + '$');
}

function globMatch(glob: string, value: string): boolean {
  return globToRegExp(glob).test(value);
}

function termMatches(t: Term, row: SelectorRow): boolean {
  return t.values.some((v) => {
    switch (t.key) {
      case 'harness': {
        if (!row.harness) return false;
        const names = [row.harness, ...(row.harnessNames ?? [])];
        return names.includes(v) || row.harness.startsWith(v);
      }
      case 'state':
        return row.state === v;
      case 'needs':
        return row.state === 'needs_input' || row.state === 'errored';
      case 'session':
        return row.session !== undefined && globMatch(v, row.session);
      case 'group':
        return !!row.group && globMatch(v, row.group);
      case 'host':
        return row.host !== undefined && (globMatch(v, row.host) || (v === 'local' && row.host === 'local'));
      case 'name':
        return row.name !== undefined && globMatch(v, row.name);
      case 'cwd': {
        if (!row.cwd) return false;
        const dir = v === '~' || v.startsWith('~/') ? homedir() + v.slice(1) : v;
        const d = dir.length > 1 ? dir.replace(/\/+$/, '') : dir;
        return row.cwd === d || row.cwd.startsWith(d.endsWith('/') ? d : d + '/');
      }
      case 'task':
        return !!row.task && globMatch(v, row.task);
      case 'stage':
        return !!row.stage && row.stage === v;
    }
  });
}

export function matches(sel: Selector, row: SelectorRow): boolean {
  return sel.terms.every((t) => termMatches(t, row));
}

/** The confirm token of a set of panes: a write by selector goes ahead only for exactly this set. */
export function confirmToken(ids: string[]): string {
  return createHash('sha256').update([...ids].sort().join('\n')).digest('hex').slice(0, 16);
}
