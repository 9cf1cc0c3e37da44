// Regions: structural slices of a pane's live screen a rule reads (spec: Regions). A region
// whose anchor is missing is empty, never silently widened to the whole screen, except
// after_last_horizontal_rule, which is the whole tail on a screen with no rule (as documented).


export type RegionSpec =
  | { kind: 'tail' }
  | { kind: 'bottom'; n: number }
  | { kind: 'prompt_box' }
  | { kind: 'above_prompt_box' }
  | { kind: 'last_non_empty_above_prompt_box' }
  | { kind: 'after_last_horizontal_rule' };

export function parseRegion(name: string | undefined): RegionSpec | { error: string } {
  if (name === undefined || name === 'tail' || name === 'whole_recent') return { kind: 'tail' };
  const m = /^bottom_non_empty_lines\((\d+)\)$/.exec(name);
  if (m) {
    const n = Number(m[1]);
    if (!(n >= 1 && n <= 200)) return { error: `bottom_non_empty_lines(N) takes N from 1 to 200, not ${n}` };
    return { kind: 'bottom', n };
  }
  if (name === 'prompt_box' || name === 'prompt_box_body') return { kind: 'prompt_box' };
  if (name === 'above_prompt_box') return { kind: 'above_prompt_box' };
  if (name === 'last_non_empty_above_prompt_box') return { kind: 'last_non_empty_above_prompt_box' };
  if (name === 'after_last_horizontal_rule') return { kind: 'after_last_horizontal_rule' };
  return { error: `unknown region "${name}"` };
}

export function regionName(r: RegionSpec): string {
  return r.kind === 'bottom' ? `bottom_non_empty_lines(${r.n})` : r.kind;
}

const CORNER_OPEN = '╭╰┌└├┝┞┟┠┡┢┣╞╟╠┏┗╔╚';
const CORNER_CLOSE = '╮╯┐┘┤┥┦┧┨┩┪┫╡╢╣┓┛╗╝';
const DASHES = '─━';

/** A border line: at least three box dashes, optionally opened (and closed) by a corner or tee. */
const BORDER_RE = new RegExp(`^[${CORNER_OPEN}]?[${DASHES}]{3,}[${CORNER_CLOSE}]?$`);
/** A bare dash rule carrying a title: `──── My session ─`. */
const TITLED_RE = new RegExp(`^[${DASHES}]{2,} +[^${DASHES}${CORNER_OPEN}${CORNER_CLOSE}\\s].*? +[${DASHES}]+$`);

/** Every border and titled rule holds a box dash; most lines of a screen hold none. */
function hasDash(line: string): boolean {
  return line.includes('─') || line.includes('━');
}

export function isBorderLine(line: string): boolean {
  return hasDash(line) && BORDER_RE.test(line.trim());
}

export function isTitledRule(line: string): boolean {
  return hasDash(line) && TITLED_RE.test(line.trim());
}

/** The bottom `n` non-empty rows of the screen (blank rows between them kept), trimmed at the end. */
export function tailOf(screen: string[], n: number): string[] {
  const rows = screen.map((l) => l.trimEnd());
  let end = rows.length;
  while (end > 0 && rows[end - 1] === '') end--;
  let start = end;
  let count = 0;
  while (start > 0 && count < n) {
    start--;
    if (rows[start] !== '') count++;
  }
  return rows.slice(start, end);
}

export interface Region {
  /** The region's lines, or null when the region is not on the screen (no_region). */
  lines: string[] | null;
}

function borderIndexes(tail: string[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < tail.length; i++) if (isBorderLine(tail[i]!)) out.push(i);
  return out;
}

/** The box between the last two border lines: [upper, lower] indexes, or null. */
function promptBox(tail: string[]): [number, number] | null {
  const b = borderIndexes(tail);
  if (b.length < 2) return null;
  return [b[b.length - 2]!, b[b.length - 1]!];
}

export function extractRegion(tail: string[], spec: RegionSpec): Region {
  switch (spec.kind) {
    case 'tail':
      return { lines: tail };
    case 'bottom': {
      const nonEmpty = tail.map((l, i) => (l.trim() !== '' ? i : -1)).filter((i) => i >= 0);
      const from = nonEmpty.length > spec.n ? nonEmpty[nonEmpty.length - spec.n]! : 0;
      return { lines: tail.slice(from) };
    }
    case 'prompt_box': {
      const box = promptBox(tail);
      return { lines: box ? tail.slice(box[0] + 1, box[1]) : null };
    }
    case 'above_prompt_box': {
      const box = promptBox(tail);
      return { lines: box ? tail.slice(0, box[0]) : null };
    }
    case 'last_non_empty_above_prompt_box': {
      const box = promptBox(tail);
      if (!box) return { lines: null };
      for (let i = box[0] - 1; i >= 0; i--) if (tail[i]!.trim() !== '') return { lines: [tail[i]!] };
      return { lines: null };
    }
    case 'after_last_horizontal_rule':
      return { lines: afterLastRule(tail) };
  }
}

/**
 * Everything under the last border line. A titled bare rule with nothing under it is skipped
 * once (Claude Code draws the session's name under a form); with no rule above it the region
 * is empty. A corner-opened line is a box border and never a title.
 */
function afterLastRule(tail: string[]): string[] {
  let last = -1;
  for (let i = tail.length - 1; i >= 0; i--) {
    if (isBorderLine(tail[i]!) || isTitledRule(tail[i]!)) {
      last = i;
      break;
    }
  }
  if (last < 0) return tail;
  const below = tail.slice(last + 1).filter((l) => l.trim() !== '');
  if (isTitledRule(tail[last]!) && below.length === 0) {
    for (let i = last - 1; i >= 0; i--) {
      if (isBorderLine(tail[i]!) || isTitledRule(tail[i]!)) return tail.slice(i + 1, last);
    }
    return [];
  }
  return tail.slice(last + 1);
}
