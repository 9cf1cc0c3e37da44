// What a verb record's print uses to lay out its text: columns, cells, `key: value` lines.

/** Rows as columns two spaces apart; the last column is not padded. */
export function table(rows: string[][]): string {
  if (rows.length === 0) return '';
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')).join('\n');
}

/** A value in a cell: `-` for nothing. */
export function str(v: unknown): string {
  if (v === null || v === undefined) return '-';
  return String(v);
}

/** `key: value` lines for a flat result, indented JSON when any value is nested. */
export function fields(result: unknown): string {
  if (result === null || result === undefined) return '';
  if (typeof result !== 'object') return String(result);
  const entries = Object.entries(result as Record<string, unknown>);
  if (entries.every(([, v]) => v === null || typeof v !== 'object')) return entries.map(([k, v]) => `${k}: ${str(v)}`).join('\n');
  return JSON.stringify(result, null, 2);
}
