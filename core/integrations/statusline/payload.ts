// What Claude Code's status line payload says that tuios shows (spec: The status line feed):
// `model` from model.display_name, else model.id; `context` from context_window.used_percentage
// (`42%`); `cost` from cost.total_cost_usd (`$1.20`). Each field stands alone: one missing or
// malformed costs only its own key. The opencode and Kilo plugin sends a payload of its own
// (readPluginPayload). Every value is one line of at most META_VALUE_MAX characters,
// controls removed, so what leaves for the daemon is already what it keeps. Pure.
import { META_VALUE_MAX } from '../../limits.js';
import { oneLine } from '../hooks/text.js';

/** The keys the status line feed writes, in the order the pane first shows them. */
export const STATUS_KEYS = ['model', 'context', 'cost'] as const;
export type StatusKey = (typeof STATUS_KEYS)[number];
export type StatusValues = Partial<Record<StatusKey, string>>;

function objectAt(v: unknown): Record<string, unknown> | null {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

/** One display value: a single line, cut to the metadata limit; '' when nothing is left. */
export function statusText(v: string): string {
  return [...oneLine(v)].slice(0, META_VALUE_MAX).join('');
}

function textAt(o: Record<string, unknown> | null, key: string): string {
  const v = o?.[key];
  return typeof v === 'string' ? statusText(v) : '';
}

function numberAt(o: Record<string, unknown> | null, key: string): number | null {
  const v = o?.[key];
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null;
}

/** `42%`: a whole percentage, 0 to 100. */
export function percentText(n: number): string {
  return `${Math.min(100, Math.round(n))}%`;
}

/** `$1.20`: dollars to the cent. */
export function dollarText(n: number): string {
  return statusText(`$${n.toFixed(2)}`);
}

export function readStatusPayload(payload: unknown): StatusValues {
  const p = objectAt(payload);
  if (!p) return {};
  const out: StatusValues = {};
  const m = objectAt(p.model);
  const model = textAt(m, 'display_name') || textAt(m, 'id');
  if (model) out.model = model;
  const used = numberAt(objectAt(p.context_window), 'used_percentage');
  if (used !== null) out.context = percentText(used);
  const cost = numberAt(objectAt(p.cost), 'total_cost_usd');
  if (cost !== null) out.cost = dollarText(cost);
  return out;
}

/**
 * What the opencode and Kilo plugin sends (core/integrations/setup/table.ts pluginText): `model`,
 * the model of the session's last assistant message, and `cost`, the sum of its assistant
 * messages' costs in dollars. Either may be missing.
 */
export function readPluginPayload(payload: unknown): StatusValues {
  const p = objectAt(payload);
  if (!p) return {};
  const out: StatusValues = {};
  const model = textAt(p, 'model');
  if (model) out.model = model;
  const cost = numberAt(p, 'cost');
  if (cost !== null) out.cost = dollarText(cost);
  return out;
}

/** The percentage a `context` value says, or null. */
export function percentOf(v: string | undefined): number | null {
  const m = v === undefined ? null : /^(\d{1,3})%$/.exec(v);
  return m ? Number(m[1]) : null;
}
