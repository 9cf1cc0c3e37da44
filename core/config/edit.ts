// set-config writes one key into config.toml as text, so everything else in the file (comments,
// order, blank lines, other tables) stays as the person wrote it: the key's line replaced, or
// added at the end of its `[table]`, or the table added at the end of the file; clearing takes the
// line out. The result is read back: if the file then says anything else than the old file with
// that one key changed (the key was written another way: a dotted key, an inline table, a value
// over several lines), nothing is written and the person is told to edit it by hand.
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import { isDeepStrictEqual } from 'node:util';
import { TuiosError } from '../errors.js';

function tomlValue(v: unknown): string {
  return stringifyToml({ v }).trim().replace(/^v\s*=\s*/, '');
}

/** The table a header line opens (`[a.b]` → "a.b"), "" for other lines, null for a line that is no header. */
function headerOf(line: string): string | null {
  if (!/^\s*\[/.test(line)) return null;
  const m = /^\s*\[\s*([A-Za-z0-9_-]+(?:\s*\.\s*[A-Za-z0-9_-]+)*)\s*\]\s*(#.*)?$/.exec(line);
  return m ? m[1]!.replace(/\s+/g, '') : '';
}

function readToml(text: string): Record<string, unknown> {
  try {
    return parseToml(text) as Record<string, unknown>;
  } catch (e) {
    throw new TuiosError('conflict', `config.toml does not parse as it is (${e instanceof Error ? e.message.split('\n')[0] : String(e)}); nothing was written.`, 'Fix config.toml first.');
  }
}

function withKey(raw: Record<string, unknown>, path: string[], value: unknown): Record<string, unknown> {
  const out = structuredClone(raw);
  let cur: Record<string, unknown> = out;
  for (const p of path.slice(0, -1)) {
    if (!cur[p] || typeof cur[p] !== 'object') {
      if (value === undefined) return out;
      cur[p] = {};
    }
    cur = cur[p] as Record<string, unknown>;
  }
  const last = path[path.length - 1]!;
  if (value === undefined) delete cur[last];
  else cur[last] = value;
  return out;
}

/** Drops tables left empty by a clear, which the text edit leaves as a bare header. */
function pruneEmpty(o: Record<string, unknown>): Record<string, unknown> {
  for (const [k, v] of Object.entries(o)) {
    if (v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date)) {
      pruneEmpty(v as Record<string, unknown>);
      if (Object.keys(v).length === 0) delete o[k];
    }
  }
  return o;
}

function plain(o: unknown): unknown {
  return JSON.parse(JSON.stringify(o)) as unknown;
}

/** config.toml's text with `path` set to `value`, or taken out when `value` is undefined. */
export function setKeyText(text: string, path: string[], value: unknown): string {
  const before = readToml(text);
  const table = path.slice(0, -1).join('.');
  const key = path[path.length - 1]!;
  const lines = text.split('\n');
  let start = -1;
  let end = lines.length;
  let current: string | null = '';
  for (let i = 0; i < lines.length; i++) {
    const h = headerOf(lines[i]!);
    if (h === null) continue;
    if (current === table && start >= 0 && end === lines.length) end = i;
    current = h;
    if (h === table && start < 0) start = i;
  }
  const keyRe = new RegExp(`^(\\s*)(?:${key}|"${key}"|'${key}')\\s*=`);
  const line = value === undefined ? null : `${key} = ${tomlValue(value)}`;
  let found = -1;
  if (start >= 0) for (let i = start + 1; i < end; i++) if (keyRe.test(lines[i]!)) found = i;
  if (found >= 0) {
    const indent = keyRe.exec(lines[found]!)![1]!;
    if (line === null) lines.splice(found, 1);
    else lines[found] = indent + line;
  } else if (line !== null && start >= 0) {
    let at = end;
    while (at > start + 1 && lines[at - 1]!.trim() === '') at--;
    lines.splice(at, 0, line);
  } else if (line !== null) {
    while (lines.length && lines[lines.length - 1]!.trim() === '') lines.pop();
    if (lines.length) lines.push('');
    lines.push(`[${table}]`, line, '');
  }
  let next = lines.join('\n');
  if (!next.endsWith('\n') && next.length) next += '\n';
  const want = pruneEmpty(withKey(before, path, value));
  let got: Record<string, unknown>;
  try {
    got = pruneEmpty(parseToml(next) as Record<string, unknown>);
  } catch {
    got = {};
  }
  // smol-toml's tables have no prototype: compare as plain data.
  if (!isDeepStrictEqual(plain(got), plain(want))) {
    throw new TuiosError('conflict', `config.toml writes ${path.join('.')} in a form set-config does not edit (a dotted key, an inline table or a value over several lines); nothing was written.`, `Edit config.toml by hand: [${table}] ${key} = ...`);
  }
  return next;
}
