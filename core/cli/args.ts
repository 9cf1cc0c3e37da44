// argv to a verb call, driven by the verb table generated from the verbs' schemas. Pure, so the
// rules (flags, shorts, positionals, repeats, commas) are unit tested without a daemon.
import type { CliSpec } from '../rpc/verb.js';

export interface ParamRow {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'string[]' | 'record' | 'object';
  required: boolean;
  description?: string;
  enum?: string[];
}

export interface VerbRow {
  name: string;
  summary: string;
  help?: string;
  stream: boolean;
  /** The verb changes something: the CLI never asks it twice. */
  mutates: boolean;
  params: ParamRow[];
  /** The verb record's CLI part, as dist/verbs.json carries it (a type only: the CLI bundle takes in no verb file). */
  cli: CliSpec;
}

export interface Parsed {
  verb: VerbRow;
  params: Record<string, unknown>;
  json: boolean;
  server?: string;
  help: boolean;
  /** Options only the CLI reads (e.g. --yes), never sent. */
  local: Record<string, string | boolean>;
}

export class UsageError extends Error {
  constructor(
    message: string,
    readonly verb?: VerbRow,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

const GLOBAL_SHORT: Record<string, string> = { s: 'session', w: 'window', h: 'help' };

/** Flags the CLI consumes itself for every verb. */
const LOCAL_FLAGS = new Set(['json', 'server', 'help', 'yes']);

export function findVerb(table: VerbRow[], word: string): VerbRow | undefined {
  return table.find((v) => v.name === word) ?? table.find((v) => v.cli.aliases?.includes(word));
}

/** The verb a command line names and the words left for it: `queue ls` and `ssh host-key` are a
 *  subcommand word after an alias. */
export function resolveVerb(table: VerbRow[], words: string[]): { verb: VerbRow | undefined; rest: string[] } {
  const [first = '', ...rest] = words;
  const verb = findVerb(table, first);
  const sub = verb?.cli.subcommands?.[rest[0] ?? ''];
  if (verb && first !== verb.name && sub) return { verb: findVerb(table, sub), rest: rest.slice(1) };
  return { verb, rest };
}

function flagToParam(flag: string): string {
  return flag.replace(/-/g, '_');
}

function coerce(p: ParamRow, raw: string, verb: VerbRow): unknown {
  if (p.type === 'integer' || p.type === 'number') {
    const n = Number(raw);
    if (!Number.isFinite(n) || (p.type === 'integer' && !Number.isInteger(n))) {
      throw new UsageError(`--${p.name.replace(/_/g, '-')} takes a number, not ${JSON.stringify(raw)}`, verb);
    }
    return n;
  }
  if (p.type === 'boolean') {
    if (raw === 'true' || raw === '1' || raw === 'yes') return true;
    if (raw === 'false' || raw === '0' || raw === 'no') return false;
    throw new UsageError(`--${p.name.replace(/_/g, '-')} takes true or false`, verb);
  }
  if (p.enum && p.type === 'string' && !p.enum.includes(raw)) {
    throw new UsageError(`--${p.name.replace(/_/g, '-')} takes one of ${p.enum.join(', ')}, not ${JSON.stringify(raw)}`, verb);
  }
  return raw;
}

function setParam(out: Record<string, unknown>, p: ParamRow, raw: string, verb: VerbRow): void {
  if (p.type === 'string[]') {
    const list = (out[p.name] as string[] | undefined) ?? [];
    const parts = verb.cli.comma?.includes(p.name) ? raw.split(',').filter((x) => x !== '') : [raw];
    if (p.enum) for (const x of parts) if (!p.enum.includes(x)) throw new UsageError(`--${p.name.replace(/_/g, '-')} takes ${p.enum.join(', ')}, not ${JSON.stringify(x)}`, verb);
    out[p.name] = [...list, ...parts];
    return;
  }
  if (p.type === 'record') {
    const eq = raw.indexOf('=');
    if (eq <= 0) throw new UsageError(`--${p.name.replace(/_/g, '-')} takes KEY=VALUE, not ${JSON.stringify(raw)}`, verb);
    const rec = (out[p.name] as Record<string, string> | undefined) ?? {};
    rec[raw.slice(0, eq)] = raw.slice(eq + 1);
    out[p.name] = rec;
    return;
  }
  out[p.name] = coerce(p, raw, verb);
}

/** Parses the words after the verb. */
export function parseVerbArgs(verb: VerbRow, words: string[]): Parsed {
  const params: Record<string, unknown> = {};
  const local: Record<string, string | boolean> = {};
  const byName = new Map(verb.params.map((p) => [p.name, p]));
  const positionals: string[] = [];
  let json = false;
  let help = false;
  let server: string | undefined;
  let onlyPositional = false;
  const pos = verb.cli.positionals ?? [];

  for (let i = 0; i < words.length; i++) {
    const a = words[i]!;
    // Once a `rest` list has started (a command and its arguments), later flags belong to it.
    const open = pos.filter((n) => params[n] === undefined).length;
    const restActive = !!verb.cli.command && positionals.length > open;
    if (onlyPositional || restActive || a === '-' || !a.startsWith('-') || /^-\d/.test(a)) {
      if (a === '--' && !onlyPositional && !restActive) {
        onlyPositional = true;
        continue;
      }
      positionals.push(a);
      continue;
    }
    if (a === '--') {
      onlyPositional = true;
      continue;
    }
    let name: string;
    let inline: string | undefined;
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      name = flagToParam(eq >= 0 ? a.slice(2, eq) : a.slice(2));
      inline = eq >= 0 ? a.slice(eq + 1) : undefined;
    } else {
      const letter = a.slice(1, 2);
      const mapped = verb.cli.short?.[letter] ?? GLOBAL_SHORT[letter];
      if (!mapped) throw new UsageError(`unknown flag ${a}`, verb);
      name = mapped;
      if (a.length > 2) inline = a.slice(2);
    }
    if (LOCAL_FLAGS.has(name) && !byName.has(name)) {
      if (name === 'json') json = true;
      else if (name === 'help') help = true;
      else if (name === 'server') {
        server = inline ?? words[++i];
        if (!server) throw new UsageError('--server takes a socket path', verb);
      } else local[name] = inline ?? true;
      continue;
    }
    let negated = false;
    let p = byName.get(name);
    if (!p && name.startsWith('no_') && byName.get(name.slice(3))?.type === 'boolean') {
      p = byName.get(name.slice(3));
      negated = true;
    }
    if (!p) throw new UsageError(`unknown flag ${a.split('=')[0]}`, verb);
    if (p.type === 'boolean') {
      params[p.name] = inline !== undefined ? coerce(p, inline, verb) : !negated;
      continue;
    }
    const value = inline ?? words[++i];
    if (value === undefined) throw new UsageError(`${a} takes a value`, verb);
    setParam(params, p, value, verb);
  }

  const queue = [...positionals];
  for (const name of pos) {
    if (queue.length === 0) break;
    const p = byName.get(name);
    if (!p || params[name] !== undefined) continue; // a flag already gave it
    setParam(params, p, queue.shift()!, verb);
  }
  if (queue.length > 0) {
    const rest = verb.cli.rest ? byName.get(verb.cli.rest) : undefined;
    if (!rest) throw new UsageError(`unexpected argument ${JSON.stringify(queue[0])}`, verb);
    for (const x of queue) setParam(params, rest, x, verb);
  }
  if (!help) {
    for (const p of verb.params) {
      if (p.required && params[p.name] === undefined) {
        const pi = pos.indexOf(p.name);
        throw new UsageError(pi >= 0 || verb.cli.rest === p.name ? `missing ${p.name.toUpperCase()}` : `missing --${p.name.replace(/_/g, '-')}`, verb);
      }
    }
  }
  return { verb, params, json, server, help, local };
}

/** Usage text for one verb, from its table row. */
export function verbUsage(v: VerbRow): string {
  const lines = [`usage: tuios ${v.cli.usage ?? v.name + (v.params.length ? ' [FLAGS]' : '')}`, '', v.summary];
  if (v.help) lines.push('', v.help);
  const flags = v.params.filter((p) => !(v.cli.positionals ?? []).includes(p.name) && v.cli.rest !== p.name);
  if (flags.length) {
    lines.push('', 'flags:');
    const shortOf = (name: string) => {
      const e = Object.entries({ ...GLOBAL_SHORT, ...(v.cli.short ?? {}) }).find(([, n]) => n === name);
      return e ? `-${e[0]}, ` : '    ';
    };
    for (const p of flags) {
      const val = p.type === 'boolean' ? '' : p.type === 'record' ? ' KEY=VALUE' : p.enum ? ` ${p.enum.join('|')}` : ` ${p.type === 'string[]' ? 'VALUE...' : p.type.toUpperCase()}`;
      lines.push(`  ${shortOf(p.name)}--${p.name.replace(/_/g, '-')}${val}${p.description ? `  ${p.description}` : ''}`);
    }
  }
  lines.push('', 'global: --json (print the JSON result), --server PATH (another daemon socket)');
  return lines.join('\n');
}
