// herdr's params, read as serde reads them (a missing field and a wrong type are invalid_request),
// and herdr's error shape. methods.ts turns them into a verb's params.
import { HERDR_ID_MAX, HERDR_MAX_WAIT_MS } from './limits.js';

/** An answer in herdr's error shape: `{"id","error":{"code","message"}}`. */
export class HerdrError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export type Params = Record<string, unknown>;

export function field(p: Params, name: string): unknown {
  return Object.prototype.hasOwnProperty.call(p, name) ? p[name] : undefined;
}

export function reqString(p: Params, name: string, max = HERDR_ID_MAX): string {
  const v = field(p, name);
  if (v === undefined || v === null) throw new HerdrError('invalid_request', `missing field \`${name}\``);
  return checkString(v, name, max);
}

export function optString(p: Params, name: string, max = HERDR_ID_MAX): string | undefined {
  const v = field(p, name);
  return v === undefined || v === null ? undefined : checkString(v, name, max);
}

export function checkString(v: unknown, name: string, max: number): string {
  if (typeof v !== 'string') throw new HerdrError('invalid_request', `invalid type for \`${name}\`: expected a string`);
  if (v.length > max) throw new HerdrError('invalid_params', `\`${name}\` is longer than ${max} characters`);
  return v;
}

export function optInt(p: Params, name: string, min: number, max: number): number | undefined {
  const v = field(p, name);
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new HerdrError('invalid_request', `invalid type for \`${name}\`: expected an integer`);
  if (v < min || v > max) throw new HerdrError('invalid_params', `\`${name}\` must be from ${min} to ${max}`);
  return v;
}

/** A wait's timeout_ms: 24 hours at most (spec: A wait ... takes a timeout_ms of 24 hours at most). */
export function waitTimeout(p: Params): number | undefined {
  const v = field(p, 'timeout_ms');
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new HerdrError('invalid_request', 'invalid type for `timeout_ms`: expected a non-negative integer');
  if (v > HERDR_MAX_WAIT_MS) throw new HerdrError('invalid_params', `timeout_ms is at most ${HERDR_MAX_WAIT_MS} (24 hours)`);
  return v;
}

export function optBool(p: Params, name: string): boolean | undefined {
  const v = field(p, name);
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw new HerdrError('invalid_request', `invalid type for \`${name}\`: expected a boolean`);
  return v;
}

export function optEnv(p: Params): Record<string, string> | undefined {
  const v = field(p, 'env');
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw new HerdrError('invalid_request', 'invalid type for `env`: expected a map');
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v as Record<string, unknown>)) {
    if (typeof val !== 'string') throw new HerdrError('invalid_request', 'invalid type for `env`: expected string values');
    // The pane's identity is tuios's to set, and tmux's variables would confuse programs.
    if (k.startsWith('TUIOS_') || k === 'TMUX' || k === 'TMUX_PANE') throw new HerdrError('invalid_params', `env may not set ${k.slice(0, 64)}`);
    out[k] = val;
  }
  return out;
}
