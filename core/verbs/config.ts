// get-config and set-config (spec: Set it up, The Inbox): one key of config.toml by its dotted
// name. set-config edits the file as text (core/config/edit.ts), so the rest of it stays as the
// person wrote it, checks the result against the schema before writing, applies it at once and
// says the validator's warnings. `""` clears a key; a mail alert key cleared then follows the
// agent table, and get-config says so: `(follows notifications.agent.dock)`.
import { z } from 'zod';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { parse as parseToml } from 'smol-toml';
import { defineVerb } from '../rpc/verb.js';
import { TuiosError } from '../errors.js';
import { parseConfig } from '../config/config.js';
import { effectiveValue, keyInfo, parseValue } from '../config/keys.js';
import { setKeyText } from '../config/edit.js';
import { writeFileAtomic } from '../store/atomic.js';
import { paneOf } from '../security/access.js';
import { MAX_CONFIG_BYTES } from '../limits.js';
import type { Services } from '../daemon/services.js';

/** Tables a process inside a pane may set: how alerts and the client look, never hooks, grants or the servers. */
const PANE_SETTABLE = ['notifications', 'appearance'];

const valueSchema = z.union([z.boolean(), z.number(), z.string(), z.array(z.string())]).nullable();
const keyResult = z.object({
  key: z.string(),
  value: valueSchema,
  /** file: config.toml sets it; default: the schema's; follows: a mail key unset, read from the agent table; unset: no value. */
  source: z.enum(['file', 'default', 'follows', 'unset']),
  follows: z.string().nullable(),
  text: z.string(),
});

function valueText(v: unknown): string {
  if (v === null || v === undefined) return '(unset)';
  if (Array.isArray(v)) return v.join(',');
  return String(v);
}

function configText(svc: Services): string {
  const f = svc.config.file;
  if (!existsSync(f)) return '';
  if (statSync(f).size > MAX_CONFIG_BYTES) throw new TuiosError('conflict', `config.toml is larger than ${MAX_CONFIG_BYTES} bytes; set-config does not edit it.`);
  return readFileSync(f, 'utf8');
}

function rawOf(text: string): Record<string, unknown> {
  try {
    return parseToml(text) as Record<string, unknown>;
  } catch {
    return {};
  }
}

function describe(svc: Services, key: string, raw: Record<string, unknown>) {
  const info = keyInfo(key);
  const e = effectiveValue(svc.config.current, raw, info.path);
  const value = (e.value ?? null) as z.infer<typeof valueSchema>;
  return { key, value, source: e.source, follows: e.follows, text: e.follows ? `(follows ${e.follows})` : valueText(value) };
}

export const getConfig = defineVerb({
  name: 'get-config',
  access: 'none',
  summary: 'Print one config.toml key in effect (get-config notifications.mail.dock)',
  help: 'A key the file leaves out prints its default; a [notifications.mail] key left out prints (follows notifications.agent.KEY).',
  target: 'none',
  mutates: false,
  cli: { positionals: ['key'], usage: 'get-config KEY' },
  params: z.object({ key: z.string().min(1).max(200).describe('A dotted key, e.g. notifications.agent.sound_mode') }),
  result: keyResult,
  print: (r) => r.text,
  run({ params, svc }) {
    // The config in force, as its file said it: a file changed since and refused is not it.
    return describe(svc, params.key, svc.config.currentRaw);
  },
});

export const setConfig = defineVerb({
  name: 'set-config',
  access: 'none',
  summary: 'Set one config.toml key, keeping the rest of the file ("" clears it)',
  help: 'The value is read as the key takes it: true/false, a number, a word, or a comma-separated list. The file is checked before it is written and applied at once; the validator\'s warnings are printed. From inside a pane only [notifications.*] and [appearance.*] keys may be set.',
  target: 'none',
  mutates: true,
  cli: { positionals: ['key', 'value'], usage: 'set-config KEY VALUE   (VALUE "" clears)' },
  params: z.object({
    key: z.string().min(1).max(200).describe('A dotted key, e.g. notifications.mail.dock'),
    value: z.string().max(4096).describe('The value; "" clears the key'),
  }),
  result: keyResult.extend({ cleared: z.boolean(), warnings: z.array(z.string()) }),
  print: (r) => [`${r.key} = ${r.text}`, ...r.warnings.map((w) => `warning: ${w}`)].join('\n'),
  run({ params, svc, caller }) {
    const info = keyInfo(params.key);
    if (paneOf(svc, caller).inside && !PANE_SETTABLE.includes(info.path[0]!)) {
      throw new TuiosError('forbidden', `set-config ${params.key} is refused from inside a pane: only ${PANE_SETTABLE.map((t) => `[${t}.*]`).join(' and ')} keys may be set there.`, 'Run it from a terminal outside tuios, or edit config.toml.');
    }
    const cleared = params.value === '';
    const value = cleared ? undefined : parseValue(info, params.value);
    const before = configText(svc);
    const next = setKeyText(before, info.path, value);
    const check = parseConfig(next);
    if (!check.config) throw new TuiosError('invalid_params', `${params.key} was not set: ${check.error}`, undefined, { field: 'value' });
    if (next !== before) writeFileAtomic(svc.config.file, next);
    // Applied now, not when the watcher notices.
    const r = svc.config.load();
    if (r.error) throw new TuiosError('internal', `config.toml did not apply after the edit: ${r.error}`);
    svc.log.info('config key set', { key: params.key, cleared });
    return { ...describe(svc, params.key, rawOf(next)), cleared, warnings: r.warnings };
  },
});
