// `git [global options] SUB args`: the rules name subcommands, and git's own `-C` moves the
// folder a relative path is read from.
import { resolveFolder } from './paths.js';
import type { SimpleCommand, Word } from './words.js';

export interface GitCall {
  sub: string;
  /** The words after the subcommand. */
  args: Word[];
  /** The folder git works in after `-C`; null when not known. */
  cwd: string | null;
}

/** Global options that take the next word as their value (when not written `--name=value`). */
const VALUED = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--config-env', '--list-cmds', '--exec-path']);

export function gitCall(cmd: SimpleCommand, home: string | null): GitCall | null {
  if (cmd.program !== 'git') return null;
  const w = cmd.words;
  let cwd = cmd.cwd;
  let i = 1;
  while (i < w.length) {
    const v = w[i]!.value;
    if (!v.startsWith('-')) break;
    if (VALUED.has(v)) {
      const value = w[i + 1];
      if (v === '-C') cwd = value ? resolveFolder(value.value, cwd, home) : cwd;
      i += 2;
      continue;
    }
    i++;
  }
  const sub = w[i];
  if (!sub) return null;
  return { sub: sub.value, args: w.slice(i + 1), cwd };
}
