// Where in a TOML file a refusal points: the line (and column) smol-toml gives for text that does
// not parse, and the line of the key a schema refused, so a person goes straight to it.

/** " (line N, column M)" from a smol-toml error, or "" when it has none. */
export function parseErrorWhere(e: unknown): string {
  const { line, column } = (e ?? {}) as { line?: unknown; column?: unknown };
  if (typeof line !== 'number' || line < 1) return '';
  return typeof column === 'number' && column > 0 ? ` (line ${line}, column ${column})` : ` (line ${line})`;
}

/** The first line of a TOML parse error's message (smol-toml appends the lines around it). */
export function parseErrorText(e: unknown): string {
  return e instanceof Error ? (e.message.split('\n')[0] ?? '') : String(e);
}

/**
 * The 1-based line that sets the key at `path` (tables as [a.b] headers, [[a]] arrays, dotted keys
 * on a line, `key = ` under its table), or null when no line does (a default, an inline table).
 * It reads lines, not TOML: a refusal's line is a pointer, the parse already happened.
 */
export function lineOfKey(text: string, path: ReadonlyArray<string | number>): number | null {
  const keys = path.filter((p): p is string => typeof p === 'string');
  if (keys.length === 0) return null;
  const lines = text.split('\n');
  let table: string[] = [];
  let tableLine: number | null = null;
  let best: number | null = null;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!.trim();
    const header = /^\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/.exec(l);
    if (header) {
      table = splitKey(header[1]!);
      tableLine = i + 1;
      // The table itself is what was refused (a table where a value belongs, or the reverse).
      if (sameKeys(table, keys)) best ??= tableLine;
      continue;
    }
    const kv = /^((?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*'))*)\s*=/.exec(l);
    if (!kv) continue;
    const full = [...table, ...splitKey(kv[1]!)];
    if (sameKeys(full, keys)) return i + 1;
    // A key under the refused one (a table of values where one value belongs).
    if (best === null && full.length > keys.length && sameKeys(full.slice(0, keys.length), keys)) best = i + 1;
  }
  return best;
}

function splitKey(s: string): string[] {
  return (s.match(/"[^"]*"|'[^']*'|[^.\s]+/g) ?? []).map((k) => k.replace(/^["']|["']$/g, ''));
}

function sameKeys(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((k, i) => k === b[i]);
}
