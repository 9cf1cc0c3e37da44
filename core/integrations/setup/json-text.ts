// JSON files the user owns, read and written back in their own style: key order kept (JSON.parse
// keeps it), the file's indent and final newline kept, and `&&`, `<` and `>` never escaped
// (JSON.stringify leaves them as written). Pure.

export interface JsonStyle {
  indent: string | number;
  finalNewline: boolean;
}

export function styleOf(text: string): JsonStyle {
  const m = /\n([ \t]+)["}\]]/.exec(text);
  const indent = m ? (m[1]!.startsWith('\t') ? '\t' : m[1]!.length) : 2;
  return { indent, finalNewline: text.endsWith('\n') || text.trim() === '' };
}

export function writeJsonText(value: unknown, style: JsonStyle): string {
  return JSON.stringify(value, null, style.indent) + (style.finalNewline ? '\n' : '');
}

/** A parsed object, or why not: a file tuios cannot parse is refused, never rewritten. */
export function parseJsonObject(text: string): { ok: true; value: Record<string, unknown> } | { ok: false; why: string } {
  if (text.trim() === '') return { ok: true, value: {} };
  try {
    const v = JSON.parse(text) as unknown;
    if (!v || typeof v !== 'object' || Array.isArray(v)) return { ok: false, why: 'it is not a JSON object' };
    return { ok: true, value: v as Record<string, unknown> };
  } catch (e) {
    return { ok: false, why: `it is not valid JSON (${(e as Error).message})` };
  }
}

export function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
