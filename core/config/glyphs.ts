// A glyph set of the person's own (spec: Indicator, "A glyph set can"): [appearance.glyph_sets.NAME]
// names a mark per agent state, and `appearance.glyphs = "NAME"` draws with it. Here are its keys
// and what a mark may be; the TUI (tui/marks.ts) measures its width and applies --ascii-only.
import { z } from 'zod';
import { MAX_GLYPH_MARK_CHARS, MAX_GLYPH_SETS } from '../limits.js';

export const GLYPH_SET_KEYS = ['state_working', 'state_needs_input', 'state_done', 'state_idle', 'state_errored', 'state_unknown'] as const;
export type GlyphSetKey = (typeof GLYPH_SET_KEYS)[number];

/** The built-in sets: a set of one's own may not take their names. */
export const BUILTIN_GLYPH_SETS = ['unicode', 'ascii'] as const;



// A mark is drawn in one or two cells: no space, no control character.
const mark = z
  .string()
  .min(1)
  .refine((s) => [...s].length <= MAX_GLYPH_MARK_CHARS, `a mark is at most ${MAX_GLYPH_MARK_CHARS} characters`)
  // eslint-disable-next-line no-control-regex
  .refine((s) => !/[\s\x00-\x1f\x7f-\x9f]/.test(s), 'a mark has no space or control character');

const glyphSet = z.object(Object.fromEntries(GLYPH_SET_KEYS.map((k) => [k, mark.optional()])) as Record<GlyphSetKey, z.ZodOptional<typeof mark>>).strict();

export const glyphSets = z
  .record(z.string().regex(/^[A-Za-z0-9_-]{1,32}$/, 'a glyph set name is letters, digits, - and _').refine((n) => !(BUILTIN_GLYPH_SETS as readonly string[]).includes(n), 'unicode and ascii are the built-in sets'), glyphSet)
  .refine((r) => Object.keys(r).length <= MAX_GLYPH_SETS, `at most ${MAX_GLYPH_SETS} glyph sets`)
  .optional();

/** The validator's warning for a glyph set that is named but not there (it draws the built-in marks). */
export function glyphWarnings(appearance: { glyphs?: string; glyph_sets?: Record<string, unknown> }): string[] {
  const name = appearance.glyphs;
  if (name === undefined || (BUILTIN_GLYPH_SETS as readonly string[]).includes(name) || appearance.glyph_sets?.[name]) return [];
  return [`appearance.glyphs = ${JSON.stringify(name)} names no glyph set: the built-in marks are drawn (sets: unicode, ascii${Object.keys(appearance.glyph_sets ?? {}).map((n) => `, ${n}`).join('')})`];
}
