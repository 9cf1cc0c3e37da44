// A rail row's second line as tokens (spec: What the second line says, Agent metadata): each
// token says its piece of the row or nothing, in the order `[appearance.sidebar.agent_row]`
// tokens gives (else the shipped order), joined with ` · `. What a token says still follows the
// row's group: `now` only while working, the ask only on a row that needs you, nothing at rest
// but the subagent count. Pure.
import { SHIPPED_TOKENS, type AgentRowConfig, type TokenStyle } from '../core/config/agent-row.js';
import type { Role } from './marks.js';
import { CONTEXT_WARN_PERCENT } from './limits.js';
import type { SubagentInfo } from '../core/agent-state/subagents.js';

/** The rail's `you` groups (rows.ts RailGroup). */
type RailGroup = 'needs' | 'done' | 'working' | 'rest';

/** What the tokens read of a rail row (rows.ts RailRow). */
export interface TokenRow {
  session: string;
  state: string;
  harness: string | null;
  message: string;
  meta: Record<string, string>;
  subagents: number;
  subagentList: readonly SubagentInfo[] | null;
  progress: number | null;
  context: number | null;
}

export interface Segment {
  token: string;
  text: string;
  /** The ink the token asks for (`ctx` in warning, or its style's fg); undefined: the row's. */
  ink?: Role;
}

/** tuios's own keys, which have tokens of their own: `meta` leaves them out. */
export const OWN_META_KEYS = new Set(['now', 'prompt', 'model', 'context', 'cost', 'plan', 'subagents']);

export interface LineOptions {
  width: number;
  /** A row that needs you and has no room for the elapsed column says its wait after the word. */
  ageInline: string;
  /** The row's tokens (`[appearance.sidebar.agent_row]`); absent: the shipped order. */
  config?: AgentRowConfig;
  /** The need word and ask (rows.ts needWord, askText), given by the caller so this stays pure of the Inbox. */
  need?: { word: string; ask: string };
}

function subagentsText(r: TokenRow): string {
  const list = r.subagentList;
  if (list && list.length > r.subagents) return `${r.subagents} of ${list.length} run`;
  return `${r.subagents} subagent${r.subagents === 1 ? '' : 's'}`;
}

/** What one token says on this row, or ''. `custom`: a list the person wrote (tokens not shipped on the row draw there). */
function say(token: string, r: TokenRow, g: RailGroup, o: LineOptions, placed: Set<string>, custom: boolean): string {
  const now = g === 'working' ? (r.meta.now ?? '') : '';
  switch (token) {
    case 'session':
      // The rail lists every session's agents under the sessions they are named in; a list you wrote may add it.
      return custom ? r.session : '';
    case 'need':
      if (g !== 'needs' || !o.need) return '';
      return o.ageInline ? `${o.need.word} ${o.ageInline}` : o.need.word;
    case 'harness':
      if (!r.harness) return '';
      if (g === 'needs') return r.harness;
      if (g === 'working') return now || r.message ? '' : r.harness;
      if (g === 'rest') return r.subagents > 0 ? r.harness : '';
      return '';
    case 'name':
    case 'elapsed':
    case 'pr':
      return ''; // the first line's
    case 'progress':
      return custom && r.progress !== null && r.progress !== undefined && (r.state === 'working' || r.state === 'needs_input') ? `${r.progress}%` : '';
    case 'context':
      return r.context !== null && r.context >= CONTEXT_WARN_PERCENT ? `ctx ${r.context}%` : '';
    case 'subagents':
      return r.subagents > 0 ? subagentsText(r) : '';
    case 'meta':
      return Object.entries(r.meta)
        .filter(([k, v]) => v && !OWN_META_KEYS.has(k) && !placed.has(k))
        .map(([, v]) => v)
        .join(' · ');
    case 'now':
      return now;
    case 'message':
      if (g === 'needs') return o.need?.ask ?? r.message;
      if (g === 'working') return now ? '' : r.message;
      if (g === 'done') return r.message.split('\n')[0] ?? '';
      return '';
    case 'prompt':
      return custom ? (r.meta.prompt ?? '') : '';
    default:
      return token.startsWith('$') ? (r.meta[token.slice(1)] ?? '') : '';
  }
}

/** The number a token's `gt`/`lt` rule reads: the percent, the count, or a value's leading number. */
function numberOf(token: string, r: TokenRow): number {
  if (token === 'context' || token === '$context') return r.context ?? NaN;
  if (token === 'subagents') return r.subagents;
  if (token === 'progress') return r.progress ?? NaN;
  if (token.startsWith('$')) return parseFloat((r.meta[token.slice(1)] ?? '').replace(/^[^0-9.-]+/, ''));
  return NaN;
}

function styled(token: string, r: TokenRow, style: TokenStyle | undefined): Role | undefined {
  if (!style?.fg) return undefined;
  const n = numberOf(token, r);
  if (style.gt !== undefined && !(n > style.gt)) return undefined;
  if (style.lt !== undefined && !(n < style.lt)) return undefined;
  return style.fg;
}

/** The second line's segments, in token order, each with its ink; empty segments left out. */
export function lineSegments(r: TokenRow, g: RailGroup, o: LineOptions): Segment[] {
  const custom = !!o.config?.tokens;
  const tokens = o.config?.tokens ?? SHIPPED_TOKENS;
  const placed = new Set(tokens.filter((t) => t.startsWith('$')).map((t) => t.slice(1)));
  const styles = (o.config ?? {}) as Record<string, TokenStyle | undefined>;
  const out: Segment[] = [];
  for (const t of tokens) {
    const text = say(t, r, g, o, placed, custom);
    if (!text) continue;
    const ink = styled(t, r, styles[t]) ?? (t === 'context' ? 'warning' : undefined);
    out.push({ token: t, text, ...(ink ? { ink } : {}) });
  }
  return fitSegments(out, g, o);
}

export function segmentsText(segs: readonly Segment[]): string {
  return segs.map((s) => s.text).join(' · ');
}

/**
 * On a narrow rail the harness gives way first (to what a row that needs you asks, to the count,
 * to what a working agent does now). On the shipped 24-column rail an approval's `Tool: command`
 * stands in for the word when the word would leave no command at all.
 */
function fitSegments(segs: Segment[], g: RailGroup, o: LineOptions): Segment[] {
  if (segmentsText(segs).length <= o.width) return segs;
  const noHarness = segs.length > 1 ? segs.filter((s) => s.token !== 'harness') : segs;
  if (g === 'needs' && segmentsText(noHarness).length > o.width && o.need?.word === 'approval' && !o.ageInline && o.need.ask) {
    return noHarness.filter((s) => s.token !== 'need');
  }
  return noHarness;
}
