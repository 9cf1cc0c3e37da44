// The words a tool call is shown by: `Bash: go test ./...`, `approve Read: src/a.ts`. Pure.
import { approvalMessage, cleanMessage, firstLine } from './text.js';
import { obj } from './plan.js';

/** The one argument that says what a call does, in the order tools name it. */
const ARG_KEYS = ['command', 'cmd', 'file_path', 'filePath', 'absolute_path', 'path', 'notebook_path', 'pattern', 'url', 'query', 'description', 'prompt'];

export function callArg(input: unknown): string {
  const o = obj(input);
  if (!o) return typeof input === 'string' ? input : '';
  for (const k of ARG_KEYS) {
    const v = o[k];
    if (typeof v === 'string' && v.trim() !== '') return v;
    if (Array.isArray(v) && v.every((x) => typeof x === 'string') && v.length) return v.join(' ');
  }
  return '';
}

/** The files a patch names in its header lines (Codex's apply_patch: `*** Update File: a.go`), at most 16. */
export function patchFiles(input: unknown): string[] {
  const texts: string[] = [];
  const o = obj(input);
  if (typeof input === 'string') texts.push(input);
  else if (o) for (const v of Object.values(o)) {
    if (typeof v === 'string') texts.push(v);
    else if (Array.isArray(v)) for (const x of v) if (typeof x === 'string') texts.push(x);
  }
  const files: string[] = [];
  for (const t of texts) for (const m of t.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm)) if (files.length < 16 && !files.includes(m[1]!.trim())) files.push(m[1]!.trim());
  return files;
}

/** `Bash: touch hello.txt`, one line, masked, cut. A patch is named by its files: `apply_patch: a.go, b.go`. */
export function callActivity(tool: string, input: unknown): string {
  const files = tool === 'apply_patch' ? patchFiles(input) : [];
  if (files.length) return cleanMessage(`${tool}: ${files.join(', ')}`);
  const arg = firstLine(callArg(input));
  return cleanMessage(arg ? `${tool}: ${arg}` : tool);
}

/** `approve Bash: touch hello.txt`. */
export function approveLine(tool: string, input: unknown): string {
  return approvalMessage(tool || 'a tool', callArg(input));
}

/** The first line of a tool's result, for activity. */
export function resultActivity(tool: string, response: unknown): string {
  const o = obj(response);
  let text = '';
  if (typeof response === 'string') text = response;
  else if (o) text = [o.stdout, o.output, o.content, o.error, o.stderr, o.textResultForLlm].find((v): v is string => typeof v === 'string' && v.trim() !== '') ?? '';
  const line = firstLine(text);
  return cleanMessage(line ? `${tool}: ${line}` : `${tool} finished`);
}
