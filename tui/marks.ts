// The state mark: one function for every surface that shows a pane's state (spec: Indicator),
// so the rail, the titles, the switcher, the agents view and the dock can never disagree. The
// glyph set the client draws with (built-in `unicode` or `ascii`, or a set of the person's own
// in [appearance.glyph_sets.NAME]) is resolved here too, once per config, by glyphsFor.
import type { AgentState } from '../core/agent-state/state.js';
import { GLYPH_SET_KEYS, type GlyphSetKey } from '../core/config/glyphs.js';
import { textWidth } from './text.js';

export type Role = 'info' | 'warning' | 'success' | 'muted' | 'error' | 'accent' | 'plain';

export interface Mark {
  glyph: string;
  role: Role;
}

/** The rows of the Indicator table: `done_unread` is `done` not yet looked at. */
export type MarkKey = 'working' | 'needs_input' | 'done_unread' | 'done' | 'idle' | 'errored' | 'unknown';

/** How this client draws marks: the ASCII forms or not, and the marks a glyph set of its own names. */
export interface Glyphs {
  readonly ascii: boolean;
  readonly marks: Readonly<Partial<Record<MarkKey, string>>>;
}

export const UNICODE_GLYPHS: Glyphs = { ascii: false, marks: {} };
export const ASCII_GLYPHS: Glyphs = { ascii: true, marks: {} };

export const MARKS: Readonly<Record<MarkKey, { glyph: string; ascii: string; role: Role }>> = {
  working: { glyph: '●', ascii: '*', role: 'info' },
  needs_input: { glyph: '▲', ascii: '!', role: 'warning' },
  done_unread: { glyph: '■', ascii: '#', role: 'success' },
  done: { glyph: '○', ascii: 'o', role: 'muted' },
  idle: { glyph: '○', ascii: 'o', role: 'muted' },
  errored: { glyph: '×', ascii: 'x', role: 'error' },
  unknown: { glyph: '□', ascii: '?', role: 'muted' },
};

/**
 * The display state `waiting` (spec: Subagents on the rail): an agent at rest (idle or done) while
 * subagents it started still run. Not an agent state: the daemon keeps the pane `done`.
 */
export const WAITING = { glyph: '◊', ascii: '%', role: 'info' as Role, word: 'waiting' };

export function waitsOnSubagents(state: AgentState | string, subagents: number): boolean {
  return subagents > 0 && (state === 'idle' || state === 'done');
}

/** A subagent's mark: running, done, failed, stopped (spec: Subagents on the rail). */
export function subagentMark(state: string, ascii: boolean): Mark {
  const m = SUBAGENT_MARKS[state] ?? SUBAGENT_MARKS.stopped!;
  return { glyph: ascii ? m.ascii : m.glyph, role: m.role };
}

const SUBAGENT_MARKS: Record<string, { glyph: string; ascii: string; role: Role }> = {
  running: { glyph: '●', ascii: '*', role: 'info' },
  done: { glyph: '■', ascii: '#', role: 'muted' },
  failed: { glyph: '×', ascii: 'x', role: 'error' },
  stopped: { glyph: '○', ascii: 'o', role: 'muted' },
};

/** The table rows each glyph-set key names: a finished pane looked at draws idle's mark. */
const SET_KEY_ROWS: Record<GlyphSetKey, MarkKey[]> = {
  state_working: ['working'],
  state_needs_input: ['needs_input'],
  state_done: ['done_unread'],
  state_idle: ['idle', 'done'],
  state_errored: ['errored'],
  state_unknown: ['unknown'],
};

/**
 * The mark for a state, or null for `none` (which draws nothing). A finished pane not yet looked
 * at draws ■; once looked at it draws idle's ○, so read and unread differ in shape, not ink.
 * A state this build does not know draws as unknown. `glyphs` is the client's set; `true` and
 * `false` stand for the built-in ascii and unicode sets.
 */
export function stateMark(state: AgentState | string, finishedUnread: boolean, glyphs: Glyphs | boolean, subagents = 0): Mark | null {
  if (state === 'none') return null;
  const g = typeof glyphs === 'boolean' ? (glyphs ? ASCII_GLYPHS : UNICODE_GLYPHS) : glyphs;
  if (waitsOnSubagents(state, subagents)) return { glyph: g.ascii ? WAITING.ascii : WAITING.glyph, role: WAITING.role };
  const key: MarkKey = state === 'done' && finishedUnread ? 'done_unread' : state in MARKS ? (state as MarkKey) : 'unknown';
  const m = MARKS[key];
  return { glyph: g.marks[key] ?? (g.ascii ? m.ascii : m.glyph), role: m.role };
}

/** 7-bit printable: what a mark must be to draw under --ascii-only. */
const PRINTABLE_ASCII = /^[\x21-\x7e]+$/;

/** The config fields glyphsFor reads (core/config/schema.ts's appearance). */
export interface GlyphConfig {
  glyphs?: string;
  glyph_sets?: Record<string, Partial<Record<GlyphSetKey, string>>>;
}

/** Resolved sets, per config object: [unicode-capable client, --ascii-only client]. */
const resolved = [new WeakMap<object, Glyphs>(), new WeakMap<object, Glyphs>()] as const;

/**
 * The client's glyph set: `ascii` (or --ascii-only) draws the ASCII forms; a set of the person's
 * own overrides the marks it names, each one or two cells wide (a wider one is ignored). Under
 * --ascii-only a mark that is not 7-bit gives way to the ASCII form (spec: Indicator).
 * Remembered per config object, so a frame costs a lookup.
 */
export function glyphsFor(appearance: GlyphConfig | undefined, asciiOnly: boolean): Glyphs {
  const a = appearance ?? {};
  const memo = resolved[asciiOnly ? 1 : 0];
  const known = memo.get(a);
  if (known) return known;
  const own = a.glyphs ? a.glyph_sets?.[a.glyphs] : undefined;
  const marks: Partial<Record<MarkKey, string>> = {};
  for (const k of GLYPH_SET_KEYS) {
    const v = own?.[k];
    if (v === undefined || textWidth(v) < 1 || textWidth(v) > 2) continue;
    if (asciiOnly && !PRINTABLE_ASCII.test(v)) continue;
    for (const row of SET_KEY_ROWS[k]) marks[row] = v;
  }
  const g: Glyphs = { ascii: asciiOnly || a.glyphs === 'ascii', marks };
  memo.set(a, g);
  return g;
}
