// Hermes Agent's session integration (spec: Harness integrations): a plugin folder tuios owns,
// `plugins/tuios-agent-state/` under ~/.hermes (or $HERMES_HOME), and its name in `plugins.enabled`
// in Hermes's `config.yaml`, edited line by line so comments and order stay. The plugin layout
// (plugin.yaml, __init__.py with register(ctx)) and the hook names are from the spec, not measured:
// hermes-agent is a Python package, not on npm. Pure: texts in, texts out.

export const HERMES_PLUGIN = 'tuios-agent-state';

export class HermesConfigError extends Error {}

/** The plugin's files, by name inside the plugin folder. */
export function hermesPluginFiles(program: string): Record<string, string> {
  const marker = '# tuios agent state for hermes (tuios integration install hermes; --integration 1).\n# Written by tuios; tuios replaces or removes this file. It does nothing outside tuios.\n';
  return {
    'plugin.yaml': `${marker}name: ${HERMES_PLUGIN}\nversion: "1"\ndescription: Reports the Hermes session id to tuios\n`,
    '__init__.py': `${marker}import json
import os
import subprocess
import sys

PROGRAM = ${JSON.stringify(program)}


def _interactive():
    try:
        return sys.stdin.isatty() and sys.stdout.isatty()
    except Exception:
        return False


def _report(event, session_id, wait):
    if not os.environ.get("TUIOS_ENV") and not os.environ.get("TUIOS_AGENT"):
        return
    if not isinstance(session_id, str) or not session_id:
        return
    payload = json.dumps({"hook_event_name": event, "session_id": session_id, "interactive": _interactive()}).encode()
    argv = [PROGRAM, "agent-hook", "hermes", "--integration", "1"]
    try:
        if wait:
            subprocess.run(argv, input=payload, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=2)
        else:
            p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
            p.stdin.write(payload)
            p.stdin.close()
    except Exception:
        pass


def _session_id(args, kwargs):
    sid = kwargs.get("session_id")
    if sid is None and args:
        sid = getattr(args[0], "session_id", None) or getattr(args[0], "id", None) or args[0]
    return sid


def _on_session_start(*args, **kwargs):
    _report("on_session_start", _session_id(args, kwargs), True)


def _on_session_reset(*args, **kwargs):
    _report("on_session_reset", _session_id(args, kwargs), False)


def register(ctx):
    try:
        ctx.register_hook("on_session_start", _on_session_start)
        ctx.register_hook("on_session_reset", _on_session_reset)
    except Exception:
        pass
`,
  };
}

interface Lines {
  lines: string[];
  /** The file ended with a newline (kept as it was). */
  finalNewline: boolean;
  eol: string;
}

function split(text: string): Lines {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const finalNewline = text === '' || text.endsWith('\n');
  const body = finalNewline ? text.slice(0, text.length - (text.endsWith('\r\n') ? 2 : text.endsWith('\n') ? 1 : 0)) : text;
  return { lines: body === '' ? [] : body.split(/\r?\n/), finalNewline, eol };
}

function join(l: Lines): string {
  if (l.lines.length === 0) return '';
  return l.lines.join(l.eol) + (l.finalNewline ? l.eol : '');
}

const indentOf = (s: string) => /^[ ]*/.exec(s)![0].length;
const blank = (s: string) => /^\s*(#.*)?$/.test(s);
const stripComment = (s: string) => s.replace(/\s+#.*$/, '');

interface Found {
  /** The `plugins:` line, or -1. */
  plugins: number;
  /** The `enabled:` line inside it, or -1. */
  enabled: number;
  /** Where the plugins block ends (exclusive). */
  blockEnd: number;
  /** The enabled list's item lines. */
  items: number[];
  childIndent: number;
  itemIndent: number;
  /** `enabled: []` or `enabled: [a, b]` on one line. */
  inline: string | null;
}

function find(lines: string[]): Found {
  const f: Found = { plugins: -1, enabled: -1, blockEnd: lines.length, items: [], childIndent: 2, itemIndent: 4, inline: null };
  f.plugins = lines.findIndex((l) => /^plugins\s*:/.test(l));
  if (f.plugins < 0) return f;
  const rest = stripComment(lines[f.plugins]!.replace(/^plugins\s*:/, '')).trim();
  if (rest !== '') throw new HermesConfigError(`plugins is written inline (${rest}); add "${HERMES_PLUGIN}" to plugins.enabled by hand`);
  let end = f.plugins + 1;
  while (end < lines.length && (blank(lines[end]!) || indentOf(lines[end]!) > 0)) end++;
  // Trailing blank lines belong after the block.
  while (end > f.plugins + 1 && blank(lines[end - 1]!) && lines[end - 1]!.trim() === '') end--;
  f.blockEnd = end;
  const child = lines.slice(f.plugins + 1, end).find((l) => !blank(l));
  if (child) f.childIndent = indentOf(child);
  for (let i = f.plugins + 1; i < end; i++) {
    const l = lines[i]!;
    if (blank(l) || indentOf(l) !== f.childIndent) continue;
    if (!/^\s*enabled\s*:/.test(l)) continue;
    f.enabled = i;
    const v = stripComment(l.replace(/^\s*enabled\s*:/, '')).trim();
    if (v !== '') {
      if (!/^\[.*\]$/.test(v)) throw new HermesConfigError(`plugins.enabled is not a list (${v}); add "${HERMES_PLUGIN}" to it by hand`);
      f.inline = v;
      return f;
    }
    f.itemIndent = f.childIndent + 2;
    for (let j = i + 1; j < end; j++) {
      const m = lines[j]!;
      if (blank(m)) continue;
      if (indentOf(m) <= f.childIndent && !/^\s*-/.test(m)) break;
      if (/^\s*-/.test(m)) {
        if (f.items.length === 0) f.itemIndent = indentOf(m);
        if (indentOf(m) === f.itemIndent) f.items.push(j);
      }
    }
    return f;
  }
  return f;
}

const itemName = (l: string) => stripComment(l.replace(/^\s*-\s*/, '')).trim().replace(/^(['"])(.*)\1$/, '$2');

/** config.yaml with the plugin in plugins.enabled; the text itself when it is already there. */
export function withHermesEnabled(text: string): string {
  const l = split(text);
  const f = find(l.lines);
  const item = (n: number) => `${' '.repeat(n)}- ${HERMES_PLUGIN}`;
  if (f.plugins < 0) {
    const add = ['plugins:', '  enabled:', item(4)];
    if (l.lines.length && !l.finalNewline) l.finalNewline = true;
    l.lines.push(...add);
    l.finalNewline = true;
    return join(l);
  }
  if (f.enabled < 0) {
    l.lines.splice(f.plugins + 1, 0, `${' '.repeat(f.childIndent)}enabled:`, item(f.childIndent + 2));
    return join(l);
  }
  if (f.inline !== null) {
    const inner = f.inline.slice(1, -1).trim();
    if (inner !== '') {
      const names = inner.split(',').map((s) => s.trim().replace(/^(['"])(.*)\1$/, '$2'));
      if (names.includes(HERMES_PLUGIN)) return text;
      throw new HermesConfigError(`plugins.enabled is an inline list with items in it; add "${HERMES_PLUGIN}" to it by hand: enabled: [${inner}, ${HERMES_PLUGIN}]`);
    }
    l.lines.splice(f.enabled, 1, l.lines[f.enabled]!.replace(/(enabled\s*:)\s*\[\s*\]/, '$1'), item(f.childIndent + 2));
    return join(l);
  }
  if (f.items.some((i) => itemName(l.lines[i]!) === HERMES_PLUGIN)) return text;
  const after = f.items.length ? f.items[f.items.length - 1]! : f.enabled;
  l.lines.splice(after + 1, 0, item(f.itemIndent));
  return join(l);
}

/** config.yaml without the plugin; an emptied list is left as `enabled: []`. */
export function withoutHermesEnabled(text: string): string {
  const l = split(text);
  let f: Found;
  try {
    f = find(l.lines);
  } catch {
    return text;
  }
  if (f.enabled < 0 || f.inline !== null) return text;
  const ours = f.items.filter((i) => itemName(l.lines[i]!) === HERMES_PLUGIN);
  if (ours.length === 0) return text;
  const emptied = ours.length === f.items.length;
  for (const i of [...ours].reverse()) l.lines.splice(i, 1);
  if (emptied) l.lines[f.enabled] = l.lines[f.enabled]!.replace(/(enabled\s*:)(\s*)(#.*)?$/, (_m, k: string, _s: string, c?: string) => `${k} []${c ? ` ${c}` : ''}`);
  return join(l);
}

export function hermesEnabled(text: string): boolean {
  try {
    const l = split(text);
    const f = find(l.lines);
    if (f.inline !== null) return f.inline.slice(1, -1).split(',').some((s) => s.trim().replace(/^(['"])(.*)\1$/, '$2') === HERMES_PLUGIN);
    return f.items.some((i) => itemName(l.lines[i]!) === HERMES_PLUGIN);
  } catch {
    return false;
  }
}
