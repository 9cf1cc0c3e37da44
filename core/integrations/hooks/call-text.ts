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

/** `Bash: touch hello.txt`, one line, masked, cut. */
export function callActivity(tool: string, input: unknown): string {
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
