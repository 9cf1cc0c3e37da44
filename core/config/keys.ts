// A config key by its dotted name (`notifications.mail.dock`), as get-config and set-config take
// it: the schema says what the key is (a yes/no, a number, one of a few words, a list), and the
// text the person typed becomes that, or a typed error that says what the key takes.
import { z } from 'zod';
import { configSchema, type Config } from './schema.js';
import { TuiosError } from '../errors.js';
import { MAIL_FOLLOWS } from '../alerts/config-schema.js';
import { CONFIG_KEY_MAX, CONFIG_VALUE_MAX, CONFIG_LIST_MAX } from '../limits.js';

export type KeyKind = 'boolean' | 'number' | 'string' | 'enum' | 'list';

export interface KeyInfo {
  path: string[];
  kind: KeyKind;
  /** For enum, and for a list of enum values. */
  choices: string[] | null;
  leaf: z.ZodType;
}

const SEGMENT_RE = /^[a-z][a-z0-9_]{0,63}$/;

function unwrap(s: z.ZodType): z.ZodType {
  let cur = s;
  for (let i = 0; i < 10; i++) {
    if (cur instanceof z.ZodOptional || cur instanceof z.ZodNullable || cur instanceof z.ZodDefault || cur instanceof z.ZodPrefault) cur = cur.unwrap() as z.ZodType;
    else if (cur instanceof z.ZodPipe) cur = cur.in as z.ZodType;
    else break;
  }
  return cur;
}

function kindOf(s: z.ZodType): { kind: KeyKind; choices: string[] | null } | null {
  if (s instanceof z.ZodBoolean) return { kind: 'boolean', choices: null };
  if (s instanceof z.ZodNumber) return { kind: 'number', choices: null };
  if (s instanceof z.ZodString) return { kind: 'string', choices: null };
  if (s instanceof z.ZodEnum) return { kind: 'enum', choices: s.options.map(String) };
  if (s instanceof z.ZodArray) {
    const el = unwrap(s.element as z.ZodType);
    if (el instanceof z.ZodString) return { kind: 'list', choices: null };
    if (el instanceof z.ZodEnum) return { kind: 'list', choices: el.options.map(String) };
  }
  return null;
}

/** The key's schema, or a typed error: an unknown key, or a table (only a single value is set here). */
export function keyInfo(key: string): KeyInfo {
  if (key.length > CONFIG_KEY_MAX) throw new TuiosError('invalid_params', `A config key is at most ${CONFIG_KEY_MAX} characters.`, undefined, { field: 'key' });
  const path = key.split('.');
  if (!path.every((p) => SEGMENT_RE.test(p))) throw new TuiosError('invalid_params', `"${key}" is not a config key: lower-case words joined by dots, e.g. notifications.mail.dock.`, undefined, { field: 'key' });
  let cur: z.ZodType = configSchema;
  for (let i = 0; i < path.length; i++) {
    const s = unwrap(cur);
    if (!(s instanceof z.ZodObject)) throw unknownKey(key, path.slice(0, i).join('.'));
    const next = (s.shape as Record<string, z.ZodType>)[path[i]!];
    if (!next) throw unknownKey(key, path.slice(0, i).join('.'));
    cur = next;
  }
  const leaf = unwrap(cur);
  const k = kindOf(leaf);
  if (!k) throw new TuiosError('invalid_params', `${key} is a table or a value set-config does not write; edit config.toml for it.`, 'Name one value inside it, e.g. notifications.agent.dock.', { field: 'key' });
  return { path, ...k, leaf: cur };
}

function unknownKey(key: string, table: string): TuiosError {
  let keys: string[] = [];
  try {
    const s = unwrap(table ? table.split('.').reduce<z.ZodType>((c, p) => (unwrap(c) as z.ZodObject).shape[p] as z.ZodType, configSchema) : configSchema);
    if (s instanceof z.ZodObject) keys = Object.keys(s.shape);
  } catch {
    keys = [];
  }
  return new TuiosError('invalid_params', `There is no config key ${key}.`, keys.length ? `${table || 'The top level'} has: ${keys.join(', ')}.` : undefined, { field: 'key' });
}

/** The text typed on the command line as the key's value, checked by the key's own schema. */
export function parseValue(info: KeyInfo, text: string): unknown {
  const key = info.path.join('.');
  if (text.length > CONFIG_VALUE_MAX) throw new TuiosError('invalid_params', `A value is at most ${CONFIG_VALUE_MAX} characters.`, undefined, { field: 'value' });
  let v: unknown;
  switch (info.kind) {
    case 'boolean':
      if (!/^(true|false|on|off|yes|no)$/i.test(text)) throw new TuiosError('invalid_params', `${key} is true or false, not "${text}".`, undefined, { field: 'value' });
      v = /^(true|on|yes)$/i.test(text);
      break;
    case 'number':
      v = Number(text);
      if (text.trim() === '' || !Number.isFinite(v)) throw new TuiosError('invalid_params', `${key} is a number, not "${text}".`, undefined, { field: 'value' });
      break;
    case 'list': {
      const items = text.split(',').map((s) => s.trim()).filter(Boolean);
      if (items.length > CONFIG_LIST_MAX) throw new TuiosError('invalid_params', `A list is at most ${CONFIG_LIST_MAX} items.`, undefined, { field: 'value' });
      v = items;
      break;
    }
    default:
      v = text;
  }
  const r = info.leaf.safeParse(v);
  if (!r.success) {
    const why = r.error.issues[0]?.message ?? 'invalid';
    throw new TuiosError('invalid_params', `${key} cannot be "${text}": ${why}.`, info.choices ? `It takes ${info.kind === 'list' ? 'a comma-separated list of ' : ''}${info.choices.join(', ')}.` : undefined, { field: 'value' });
  }
  return v;
}

/** The value in effect, and where it comes from: the file, the default, or the agent table a mail key follows. */
export function effectiveValue(c: Config, raw: Record<string, unknown>, path: string[]): { value: unknown; source: 'file' | 'default' | 'follows' | 'unset'; follows: string | null } {
  const inFile = getPath(raw, path);
  const applied = getPath(c as unknown as Record<string, unknown>, path);
  if (path.length === 3 && path[0] === 'notifications' && path[1] === 'mail' && (MAIL_FOLLOWS as readonly string[]).includes(path[2]!) && applied === undefined) {
    const follows = `notifications.agent.${path[2]}`;
    return { value: getPath(c as unknown as Record<string, unknown>, ['notifications', 'agent', path[2]!]), source: 'follows', follows };
  }
  if (applied === undefined) return { value: null, source: 'unset', follows: null };
  return { value: applied, source: inFile === undefined ? 'default' : 'file', follows: null };
}

export function getPath(o: unknown, path: string[]): unknown {
  let cur = o;
  for (const p of path) {
    if (!cur || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur;
}
