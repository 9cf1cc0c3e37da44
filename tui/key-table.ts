// A view's keys as data (issue 21): one row per binding, saying which keys it takes, when it
// applies, what the hint line and the help call it, and what it does. The same rows dispatch a key
// and draw every line that lists keys (a view's footer, the help overlay, a card's key line), so
// what a key does and what the screen says it does cannot drift apart.
//
// A key goes to the first row that claims it and applies; rows that share a key are written so
// that at most one of them applies at a time (test/unit/tui-keys.test.ts checks it).
import type { Token } from './keys.js';

/** Claims any token no other row claims (a paste and a mouse report too): "any other key". */
export const OTHER_KEY = '<other>';

export const DIGITS: readonly string[] = ['1', '2', '3', '4', '5', '6', '7', '8', '9'];

/** The lines besides the help overlay that may list a row. */
export type HintLine = 'footer' | 'card';

export interface KeyRow<S, V = S, R = void> {
  /** Key names as KeyReader gives them: 'j', 'Down', 'C-]', 'Enter', ' ', or OTHER_KEY. */
  readonly keys: readonly string[];
  /** How the keys are written on screen; default: the first key's name, spelled for people. */
  readonly label?: string;
  /** What the key does, in the words of the hint line and the help. */
  readonly help: string;
  /** When the row applies (a mode, what is selected); absent: always. */
  readonly when?: (s: S) => boolean;
  /** On the footer when it applies and this holds (false: never, for an alias or a rare key the help lists); default: always. */
  readonly footer?: false | ((s: S) => boolean);
  /** On a card's key line when it applies and this holds; default: never. */
  readonly card?: (s: S) => boolean;
  /** The words on a hint line when they depend on the situation (`1-3` for a prompt with three options). */
  readonly says?: (s: S) => string;
  /** The help overlay's heading for the row (the prefix keys: panes or agents). */
  readonly group?: string;
  readonly run: (v: V, key: string, tok: Token) => R;
}

export type KeyTable<S, V = S, R = void> = ReadonlyArray<KeyRow<S, V, R>>;

const SPOKEN: Record<string, string> = { ' ': 'space', Enter: 'enter', Esc: 'esc', Tab: 'tab', BSpace: 'backspace', Left: 'left', Right: 'right', Up: 'up', Down: 'down', Home: 'home', End: 'end', Delete: 'delete', PgUp: 'pgup', PgDn: 'pgdn', [OTHER_KEY]: 'any other key' };

/** A key name as a person reads it: `C-]` is ctrl+], `M-x` alt+x, `Enter` enter. */
export function spokenKey(name: string): string {
  if (SPOKEN[name]) return SPOKEN[name];
  const m = /^([CMS])-(.+)$/.exec(name);
  if (m) return `${{ C: 'ctrl', M: 'alt', S: 'shift' }[m[1] as 'C' | 'M' | 'S']}+${spokenKey(m[2]!)}`;
  return name;
}

export function rowLabel(row: KeyRow<never, never, unknown>): string {
  return row.label ?? spokenKey(row.keys[0] ?? '');
}

function applies<S>(row: KeyRow<S, never, unknown>, s: S): boolean {
  return !row.when || row.when(s);
}

/** The row a token goes to in situation `s`, or undefined when no row takes it. */
export function rowFor<S, V, R>(table: KeyTable<S, V, R>, s: S, tok: Token): KeyRow<S, V, R> | undefined {
  const name = tok.t === 'key' ? tok.name : null;
  const hit = name === null ? undefined : table.find((r) => r.keys.includes(name) && applies(r, s));
  return hit ?? table.find((r) => r.keys.includes(OTHER_KEY) && applies(r, s));
}

/** Runs the row that takes the token; `{ ran: false }` when none does. */
export function dispatchKey<S, V, R>(table: KeyTable<S, V, R>, s: S, v: V, tok: Token): { ran: true; result: R } | { ran: false } {
  const row = rowFor(table, s, tok);
  if (!row) return { ran: false };
  return { ran: true, result: row.run(v, tok.t === 'key' ? tok.name : OTHER_KEY, tok) };
}

/** The rows a hint line lists in situation `s`, in table order. */
export function hintRows<S, V, R>(table: KeyTable<S, V, R>, s: S, line: HintLine = 'footer'): Array<KeyRow<S, V, R>> {
  return table.filter((r) => {
    if (!applies(r, s)) return false;
    if (line === 'card') return !!r.card?.(s);
    return r.footer === undefined || (r.footer !== false && r.footer(s));
  });
}

/** One row as a hint line writes it: `j/k move`. */
export function hintOf<S>(row: KeyRow<S, never, unknown>, s: S, spell: (label: string) => string = (l) => l): string {
  return row.says ? row.says(s) : `${spell(rowLabel(row))} ${row.help}`;
}

/** A hint line: the rows' hints, `sep` between them. */
export function hintText<S>(rows: ReadonlyArray<KeyRow<S, never, unknown>>, s: S, sep = '   ', spell?: (label: string) => string): string {
  return rows.map((r) => hintOf(r, s, spell)).join(sep);
}

/** What the help overlay lists of a table: each label and help once, in table order. */
export function helpEntries(table: KeyTable<never, never, unknown>, group?: string): Array<{ label: string; help: string }> {
  const out: Array<{ label: string; help: string }> = [];
  const seen = new Set<string>();
  for (const r of table) {
    if (group !== undefined && r.group !== group) continue;
    const e = { label: rowLabel(r), help: r.help };
    const k = `${e.label}\u0000${e.help}`;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(e);
  }
  return out;
}
