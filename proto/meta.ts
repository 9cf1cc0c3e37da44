// The metadata a protocol pane feeds (spec: Headless agents over a protocol, the second table):
// each key once per change, every known key again at each turn's start. Pure bookkeeping; the
// pane side sends what `changed` and `turnStart` return.
import type { ProtoMetaKey } from './agent.js';
import { cleanMessage } from '../core/integrations/hooks/text.js';
import { META_VALUE_MAX } from '../core/limits.js';

export class MetaTracker {
  private readonly values = new Map<ProtoMetaKey, string>();

  /** The call for a new value (empty clears), or null when nothing changed. */
  set(key: ProtoMetaKey, value: string | null): Record<string, string> | null {
    const v = value === null ? '' : cleanMessage(value).slice(0, META_VALUE_MAX);
    const cur = this.values.get(key) ?? '';
    if (v === cur) return null;
    if (v === '') this.values.delete(key);
    else this.values.set(key, v);
    return { [key]: v };
  }

  /** Every key known, for the start of a turn (what the daemon lost comes back). */
  turnStart(): Record<string, string> {
    return Object.fromEntries(this.values);
  }

  get(key: ProtoMetaKey): string | null {
    return this.values.get(key) ?? null;
  }
}

/** `42% ctx` from tokens used of the window's size; null when either is missing or not a count. */
export function contextValue(used: unknown, size: unknown): string | null {
  if (typeof used !== 'number' || typeof size !== 'number' || !Number.isFinite(used) || !Number.isFinite(size) || used < 0 || size <= 0) return null;
  return `${Math.min(100, Math.round((used / size) * 100))}% ctx`;
}

/** `$1.20` for dollars, `1.20 EUR` for another currency; null when the amount is not a number. */
export function costValue(amount: unknown, currency: unknown): string | null {
  if (typeof amount !== 'number' || !Number.isFinite(amount) || amount < 0) return null;
  const cur = typeof currency === 'string' && /^[A-Za-z]{3}$/.test(currency) ? currency.toUpperCase() : null;
  const n = amount.toFixed(2);
  return cur === 'USD' || cur === null ? `$${n}` : `${n} ${cur}`;
}

/** `plan 2/5`: completed steps of all steps; null for an empty plan. */
export function planValue(done: number, all: number): string | null {
  return all > 0 ? `plan ${done}/${all}` : null;
}
