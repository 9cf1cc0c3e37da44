// `ssh box VERB ARGS...`: one tuios verb run in the daemon for an SSH exec request, parsed and
// printed exactly as the CLI does, read-only unless [ssh] exec_write = true.
import { parseVerbArgs, findVerb, resolveVerb, verbUsage, UsageError, type VerbRow } from '../core/cli/args.js';
import { printResult } from '../core/rpc/print.js';
import { verbTableRow } from '../core/rpc/describe.js';
import { TuiosError, toErrorBody } from '../core/errors.js';
import type { Services } from '../core/daemon/services.js';
import type { Caller } from '../core/rpc/caller.js';

/** Splits a command line into words the way a POSIX shell quotes them (no expansion). */
export function shellWords(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let has = false;
  let q: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (q === "'") {
      if (c === "'") q = null;
      else cur += c;
      continue;
    }
    if (q === '"') {
      if (c === '"') q = null;
      else if (c === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1]!)) cur += line[++i];
      else cur += c;
      continue;
    }
    if (c === "'" || c === '"') {
      q = c;
      has = true;
    } else if (c === '\\' && i + 1 < line.length) {
      cur += line[++i];
      has = true;
    } else if (/\s/.test(c)) {
      if (has || cur) out.push(cur);
      cur = '';
      has = false;
    } else {
      cur += c;
      has = true;
    }
  }
  if (has || cur) out.push(cur);
  return out;
}

/** The verb table as the CLI reads it, per daemon (two daemons may run in one test process). */
const tables = new WeakMap<Services, VerbRow[]>();

function verbTable(svc: Services): VerbRow[] {
  let t = tables.get(svc);
  if (!t) {
    t = svc.dispatcher.list().map(verbTableRow);
    tables.set(svc, t);
  }
  return t;
}

export interface ExecResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runExec(svc: Services, command: string, caller: Caller): Promise<ExecResult> {
  const words = shellWords(command);
  if (words[0] === 'tuios') words.shift();
  const rows = verbTable(svc);
  const first = words[0];
  if (!first || first === 'help' || first === '--help') {
    const one = first === 'help' && words[1] ? findVerb(rows, words[1]) : undefined;
    if (one) return { code: 0, stdout: verbUsage(one) + '\n', stderr: '' };
    return { code: 0, stdout: rows.map((r) => `${r.name}  ${r.summary}`).join('\n') + '\n', stderr: '' };
  }
  const { verb, rest } = resolveVerb(rows, words);
  if (!verb) return { code: 2, stdout: '', stderr: `tuios: unknown verb "${first.slice(0, 64)}"; ssh HOST help lists them\n` };
  let parsed;
  try {
    parsed = parseVerbArgs(verb, rest);
  } catch (e) {
    if (e instanceof UsageError) return { code: 2, stdout: '', stderr: `tuios ${verb.name}: ${e.message}\n\n${verbUsage(verb)}\n` };
    throw e;
  }
  if (parsed.help) return { code: 0, stdout: verbUsage(verb) + '\n', stderr: '' };
  if (verb.stream) return { code: 2, stdout: '', stderr: `tuios: ${verb.name} streams; it is not available over ssh exec\n` };
  try {
    const result = await svc.dispatcher.call(verb.name, parsed.params, caller);
    const text = parsed.json ? JSON.stringify(result, null, 2) : printResult(svc.dispatcher.get(verb.name)!, result);
    return { code: 0, stdout: text ? text + '\n' : '', stderr: '' };
  } catch (e) {
    const b = e instanceof TuiosError ? e.toBody() : toErrorBody(e);
    return { code: b.code === 'timeout' ? 124 : 1, stdout: '', stderr: `tuios: ${b.message} (${b.code})\n${b.hint ? `  ${b.hint}\n` : ''}` };
  }
}
