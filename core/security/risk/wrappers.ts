// Programs that run the rest of their words as a command: the rules look through them, so
// `sudo env FOO=1 nice -n 5 rm -rf x` is matched as `rm -rf x` that ran under sudo.
import { parseOpts, valuesOf, type Arg, type OptSpec } from './options.js';
import { programName, type Word } from './words.js';
import { RISK_MAX_WRAPPERS } from '../../limits.js';

export interface Unwrapped {
  /** The command that finally runs: words[0] is its program. */
  words: Word[];
  sudo: boolean;
  /** It runs in a folder the line does not show (`env -C`, `sudo -D`). */
  cwdUnknown: boolean;
  /** A CDPATH assignment in front of it. */
  cdpath: boolean;
  /** `env -S STRING`: the string is split into the command, so it is read as a command line. */
  splitString: Arg | null;
}

const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?\+?=/;

/** The name an assignment word sets, or null. Read from the raw word, so `"A=b"` is no assignment. */
export function assignedName(w: Word): string | null {
  return ASSIGNMENT.exec(w.raw)?.[1] ?? null;
}

interface Wrapper {
  opts: OptSpec;
  /** Options that mean it runs no command (`command -v`, `sudo -l`). */
  noCommand?: string[];
  /** Options that move the folder to one the line cannot be trusted for. */
  chdir?: string[];
  /** Takes one positional word before the command (`timeout 5`, `flock FILE`). */
  skip?: number;
  /** Leading VAR=value words are assignments for the command (`env`, `sudo`). */
  assignments?: boolean;
  root?: boolean;
}

const WRAPPERS: Record<string, Wrapper> = {
  sudo: {
    root: true,
    assignments: true,
    opts: { valued: 'ugpCDrtTUh', longValued: ['user', 'group', 'prompt', 'close-from', 'chdir', 'role', 'type', 'other-user', 'command-timeout', 'host'], stopAtOperand: true },
    noCommand: ['-l', '-v', '-k', '-K', '-V', '--list', '--validate', '--version', '--help'],
    chdir: ['-D', '--chdir'],
  },
  doas: { root: true, opts: { valued: 'uC', stopAtOperand: true }, noCommand: ['-C'] },
  env: {
    assignments: true,
    opts: { valued: 'uCSP', longValued: ['unset', 'chdir', 'split-string'], stopAtOperand: true },
    chdir: ['-C', '--chdir'],
    noCommand: ['--help', '--version'],
  },
  nice: { opts: { valued: 'n', longValued: ['adjustment'], stopAtOperand: true } },
  nohup: { opts: { stopAtOperand: true } },
  time: { opts: { valued: 'fo', longValued: ['format', 'output'], stopAtOperand: true } },
  timeout: { opts: { valued: 'sk', longValued: ['signal', 'kill-after'], stopAtOperand: true }, skip: 1 },
  command: { opts: { stopAtOperand: true }, noCommand: ['-v', '-V'] },
  builtin: { opts: { stopAtOperand: true } },
  exec: { opts: { valued: 'a', stopAtOperand: true } },
  xargs: {
    opts: {
      valued: 'adEILnPs',
      attached: 'ei',
      longValued: ['arg-file', 'delimiter', 'max-lines', 'max-args', 'max-procs', 'max-chars', 'process-slot-var'],
      stopAtOperand: true,
    },
  },
  setsid: { opts: { stopAtOperand: true } },
  stdbuf: { opts: { valued: 'ioe', longValued: ['input', 'output', 'error'], stopAtOperand: true } },
  ionice: { opts: { valued: 'cnp', longValued: ['class', 'classdata', 'pid'], stopAtOperand: true }, noCommand: ['-p', '--pid'] },
  busybox: { opts: { stopAtOperand: true } },
  noglob: { opts: { stopAtOperand: true } },
  nocorrect: { opts: { stopAtOperand: true } },
};

export function unwrap(words: Word[]): Unwrapped {
  const out: Unwrapped = { words, sudo: false, cwdUnknown: false, cdpath: false, splitString: null };
  let ws = words;
  for (let n = 0; n < RISK_MAX_WRAPPERS; n++) {
    const name = programName(ws[0]);
    const wrapper = name ? WRAPPERS[name] : undefined;
    if (!wrapper) break;
    const o = parseOpts(ws, 1, wrapper.opts);
    if (wrapper.noCommand?.some((f) => o.flags.has(f))) break;
    if (name === 'env') out.splitString = valuesOf(o, '-S', '--split-string')[0] ?? null;
    let i = o.end + (wrapper.skip ?? 0);
    if (wrapper.assignments) {
      while (i < ws.length && assignedName(ws[i]!) !== null) {
        if (assignedName(ws[i]!) === 'CDPATH') out.cdpath = true;
        i++;
      }
    }
    if (wrapper.chdir?.some((f) => o.flags.has(f))) out.cwdUnknown = true;
    if (wrapper.root) out.sudo = true;
    if (out.splitString) {
      out.words = ws.slice(i);
      return out;
    }
    if (i >= ws.length) break;
    ws = ws.slice(i);
  }
  out.words = ws;
  return out;
}
