// getopt-style reading of a command's words: clustered short flags, long flags, values attached or
// in the next word, `--`. Rules and wrappers read flags and operands through it, so `rm -fr`,
// `rm -r -f` and `rm --force --recursive` look the same to them.
import { shown, type Word } from './words.js';

/** An operand or an option's value, and whether the shown line cut it. */
export interface Arg {
  value: string;
  /** As written: the word itself, or the option's value shown. */
  text: string;
  partial: boolean;
  /** The index of the word it came from. */
  index: number;
}

export interface OptSpec {
  /** Short letters that take a value, attached (`-oFILE`) or in the next word. */
  valued?: string;
  /** Short letters whose value can only be attached (`sed -i.bak`). */
  attached?: string;
  /** Long names (without `--`) that take a value, `--name=v` or `--name v`. */
  longValued?: readonly string[];
  /** Options end at the first operand (wrappers, `find`), instead of anywhere before `--`. */
  stopAtOperand?: boolean;
}

export interface Opts {
  /** `-r` for a short flag, `--force` for a long one. */
  flags: Set<string>;
  /** Values by option, keyed like flags. */
  values: Map<string, Arg[]>;
  operands: Arg[];
  /** The index of the first word not read as an option (with stopAtOperand, the command). */
  end: number;
}

const arg = (w: Word, index: number, from = 0): Arg => ({ value: w.value.slice(from), text: from === 0 ? w.raw : shown(w.value.slice(from)), partial: w.partial, index });

/** Reads words[start..] as options and operands. */
export function parseOpts(words: readonly Word[], start: number, spec: OptSpec = {}): Opts {
  const o: Opts = { flags: new Set(), values: new Map(), operands: [], end: words.length };
  const put = (k: string, a: Arg) => {
    o.flags.add(k);
    const list = o.values.get(k);
    if (list) list.push(a);
    else o.values.set(k, [a]);
  };
  const longValued = new Set(spec.longValued ?? []);
  let i = start;
  let ended = false;
  for (; i < words.length; i++) {
    const w = words[i]!;
    const v = w.value;
    if (ended || v === '-' || !v.startsWith('-')) {
      if (spec.stopAtOperand) break;
      o.operands.push(arg(w, i));
      continue;
    }
    if (v === '--') {
      ended = true;
      if (spec.stopAtOperand) {
        i++;
        break;
      }
      continue;
    }
    if (v.startsWith('--')) {
      const eq = v.indexOf('=');
      const name = eq === -1 ? v : v.slice(0, eq);
      if (eq !== -1) put(name, arg(w, i, eq + 1));
      else if (longValued.has(name.slice(2)) && i + 1 < words.length) put(name, arg(words[++i]!, i));
      else o.flags.add(name);
      continue;
    }
    for (let j = 1; j < v.length; j++) {
      const k = '-' + v[j];
      if (spec.valued?.includes(v[j]!)) {
        if (j + 1 < v.length) put(k, arg(w, i, j + 1));
        else if (i + 1 < words.length) put(k, arg(words[++i]!, i));
        else o.flags.add(k);
        break;
      }
      if (spec.attached?.includes(v[j]!)) {
        put(k, arg(w, i, j + 1));
        break;
      }
      o.flags.add(k);
    }
  }
  o.end = Math.min(i, words.length);
  return o;
}

/** Any of these flags (`-r`, `--recursive`) is present. */
export const hasFlag = (o: Opts, ...names: string[]): boolean => names.some((n) => o.flags.has(n));

/** Every value given to any of these options. */
export const valuesOf = (o: Opts, ...names: string[]): Arg[] => names.flatMap((n) => o.values.get(n) ?? []);
