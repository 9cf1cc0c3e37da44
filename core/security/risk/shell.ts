// The shell splitter: a command line (POSIX sh / bash, as far as the rules need) read into the
// simple commands it would run, with the folder each runs in. It never throws and never runs
// anything; on input it cannot read whole it gives its best split and says so.
import { arithmeticEnd, Lexer, META, type Scope, Source } from './lexer.js';
import { parseOpts } from './options.js';
import { normalizePath, resolveFolder } from './paths.js';
import { VAR, programName, type Redirect, type SimpleCommand, type Split, type Sub, type Word } from './words.js';
import { assignedName, unwrap, type Unwrapped } from './wrappers.js';
import { RISK_MAX_COMMANDS, RISK_MAX_LINE_CHARS, RISK_MAX_WORK_CHARS } from '../../limits.js';

export interface SplitOptions {
  /** The folder the line runs in; null or absent when it is not known. */
  cwd?: string | null;
  home?: string | null;
  /** The line shown was cut at its end, so its last word is only a beginning. */
  partialTail?: boolean;
}

/** Words that can come before a command without being it. */
const RESERVED = new Set(['{', '}', '!', 'if', 'then', 'elif', 'else', 'while', 'until', 'do', 'fi', 'done', 'esac', 'coproc']);
/** Words that start a line that runs no command itself (`for x in a b`). */
const NOT_COMMANDS = new Set(['for', 'select', 'case', 'function']);
const DECLARES = new Set(['export', 'declare', 'typeset', 'local', 'readonly']);
export const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish']);
const FIND_EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir']);
const REDIRECT = /(\d{1,9}|\{[A-Za-z_][A-Za-z0-9_]*\})?(&>>|&>|>>|>\||>&|>|<<<|<<-|<<|<>|<&|<)/y;

class Splitter extends Lexer {
  readonly commands: SimpleCommand[] = [];
  private pipeIds = 0;
  private sawCase = false;

  constructor(private readonly home: string | null) {
    super();
  }

  /** Reads one command line (the top line, or one a command runs: `sh -c`, `eval`, backticks). */
  override line(text: string, scope: Scope, partial: boolean): void {
    this.work += text.length;
    if (this.work > RISK_MAX_WORK_CHARS) {
      this.stopped = true;
      return;
    }
    if (!this.enter()) return;
    const s = new Source(text, partial);
    this.list(s, scope, false);
    if (s.heredocs.length > 0) {
      this.incomplete = true; // a here-document with no line after it
      s.heredocs = [];
    }
    this.level--;
  }

  // list := and_or ((; | & | newline) and_or)*
  private list(s: Source, scope: Scope, closer: boolean): void {
    while (!this.stopped) {
      this.blanks(s, true);
      const c = s.ch;
      if (c === undefined) {
        if (closer) this.incomplete = true;
        return;
      }
      if (c === ')') {
        if (closer) return;
        s.pos++;
        if (!this.sawCase) this.incomplete = true; // a `case` pattern's `)` is the one legal stray
        continue;
      }
      if (c === ';' || c === '&' || c === '|') {
        s.pos++; // an empty command, `;;`, or a stray operator
        continue;
      }
      const before = s.pos;
      const folder = scope.folder.path;
      this.andOr(s, scope);
      this.blanks(s, false);
      if (s.ch === '&') {
        s.pos++;
        scope.folder.path = folder; // in the background: a `cd` there moves a subshell only
      } else if (s.ch === ';') s.pos++;
      if (s.pos === before) {
        s.pos++;
        this.incomplete = true;
      }
    }
  }

  private andOr(s: Source, scope: Scope): void {
    this.pipeline(s, scope);
    while (!this.stopped) {
      this.blanks(s, false);
      if (!s.at('&&') && !s.at('||')) return;
      s.pos += 2;
      this.blanks(s, true);
      this.pipeline(s, scope);
    }
  }

  /** Each stage of a pipeline runs in a subshell: a `cd` in one ends with it. */
  private pipeline(s: Source, scope: Scope): void {
    const id = ++this.pipeIds;
    const folder = scope.folder.path;
    for (let stage = 0; !this.stopped; stage++) {
      this.command(s, { ...scope, pipes: [...scope.pipes, { id, stage }] });
      this.blanks(s, false);
      if (!s.at('|') || s.at('||')) {
        if (stage > 0) scope.folder.path = folder;
        return;
      }
      s.pos += s.at('|&') ? 2 : 1;
      scope.folder.path = folder;
      this.blanks(s, true);
    }
  }

  private command(s: Source, scope: Scope): void {
    this.blanks(s, false);
    if (s.at('((')) {
      const end = arithmeticEnd(s.text, s.pos);
      if (end !== -1) {
        s.pos = end;
        return this.simple(s, scope);
      }
    }
    if (s.ch !== '(') return this.simple(s, scope);
    s.pos++;
    if (!this.enter()) return;
    this.list(s, { ...scope, folder: { path: scope.folder.path } }, true);
    this.level--;
    if (s.at(')')) s.pos++;
    this.simple(s, scope); // the subshell's own redirects: `( ... ) > out`
  }

  private simple(s: Source, scope: Scope): void {
    const words: Word[] = [];
    const starts: number[] = [];
    const redirects: Array<{ r: Redirect; start: number }> = [];
    let end = s.pos;
    while (!this.stopped) {
      this.blanks(s, false);
      const c = s.ch;
      if (c === undefined) break;
      const start = s.pos;
      if ((c === '<' || c === '>') && s.text[s.pos + 1] === '(') {
        words.push(this.word(s, scope));
        starts.push(start);
      } else {
        const r = this.redirect(s, scope);
        if (r) redirects.push({ r, start });
        else if (META.has(c)) break;
        else {
          words.push(this.word(s, scope));
          starts.push(start);
        }
      }
      end = s.pos;
    }
    if (words.length === 0 && redirects.length === 0) return;
    const firstRedirect = redirects.reduce((m, x) => Math.min(m, x.start), end);
    this.emit(
      s,
      scope,
      words,
      redirects.map((x) => x.r),
      (i) => s.text.slice(Math.min(starts[i] ?? end, firstRedirect), end),
    );
  }

  /** Builds the command from its words, then follows what it runs and where it moves the folder. */
  private emit(s: Source | null, scope: Scope, words: Word[], redirects: Redirect[], textFrom: (i: number) => string): void {
    if (this.commands.length >= RISK_MAX_COMMANDS) {
      this.stopped = true;
      return;
    }
    let i = 0;
    while (i < words.length && RESERVED.has(words[i]!.raw)) i++;
    const first = words[i]?.raw;
    if (first === 'case') this.sawCase = true;
    if (first !== undefined && NOT_COMMANDS.has(first)) i = words.length;
    const text = textFrom(i);
    let cdpath = false;
    while (i < words.length && assignedName(words[i]!) !== null) {
      if (assignedName(words[i]!) === 'CDPATH') cdpath = true;
      i++;
    }
    if (i === words.length && cdpath) scope.folder.path = null; // CDPATH set: later `cd`s cannot be followed
    const u = unwrap(words.slice(i));
    if (u.words.length === 0 && redirects.length === 0) {
      if (u.splitString) this.line(u.splitString.value, { ...scope, folder: { path: u.cwdUnknown ? null : scope.folder.path }, sudo: scope.sudo || u.sudo }, u.splitString.partial);
      return;
    }
    const cmd: SimpleCommand = {
      text,
      words: u.words,
      program: programName(u.words[0]),
      redirects,
      cwd: u.cwdUnknown ? null : scope.folder.path,
      sudo: scope.sudo || u.sudo,
      pipes: scope.pipes,
    };
    this.commands.push(cmd);
    for (const c of scope.collectors) c.push(cmd);
    this.follow(s, cmd, scope, u, cdpath || u.cdpath);
  }

  private follow(s: Source | null, cmd: SimpleCommand, scope: Scope, u: Unwrapped, cdpath: boolean): void {
    const child = (): Scope => ({ folder: { path: cmd.cwd }, sudo: cmd.sudo, pipes: scope.pipes, collectors: scope.collectors });
    if (u.splitString) {
      const text = [u.splitString.value, ...cmd.words.map((w) => w.raw)].join(' ');
      return this.line(text, child(), u.splitString.partial);
    }
    const p = cmd.program;
    const args = cmd.words.slice(1);
    if (p === 'cd' || p === 'pushd') scope.folder.path = cdpath ? null : this.cdTarget(cmd);
    else if (p === 'popd') scope.folder.path = null;
    else if (p !== null && DECLARES.has(p) && args.some((w) => assignedName(w) === 'CDPATH')) scope.folder.path = null;
    else if (p === 'eval' && args.length > 0) {
      // eval runs in this shell: a `cd` in it moves the folder of what follows
      this.line(args.map((w) => w.value).join(' '), { ...scope, sudo: cmd.sudo }, args[args.length - 1]!.partial);
    } else if (p !== null && SHELLS.has(p)) this.shell(s, cmd, child);
    else if (p === 'find') this.findExec(cmd, child());
  }

  /** `sh -c LINE` (also `bash -lc`, `sh -ec`), or a shell reading its script from stdin. */
  private shell(s: Source | null, cmd: SimpleCommand, child: () => Scope): void {
    const w = cmd.words;
    let i = 1;
    let c = false;
    let stdin = false;
    for (; i < w.length; i++) {
      const v = w[i]!.value;
      if (v === '--' || v === '-') {
        i++;
        break;
      }
      if (/^[-+][A-Za-z]+$/.test(v)) {
        if (v[0] === '-' && v.includes('c')) c = true;
        if (v[0] === '-' && v.includes('s')) stdin = true;
        if (/[oO]/.test(v)) i++; // `-o errexit`, `-O extglob`
        continue;
      }
      if (v.startsWith('--')) {
        if (v === '--rcfile' || v === '--init-file') i++;
        continue;
      }
      break;
    }
    if (c) {
      const line = w[i];
      if (line) this.line(line.value, child(), line.partial);
      return;
    }
    if (i < w.length && !stdin) return; // runs a script file
    for (const r of cmd.redirects) {
      if (r.op === '<<<' && r.body !== null) this.line(r.body, child(), false);
    }
    for (const h of s?.heredocs ?? []) if (cmd.redirects.includes(h.redirect)) h.shell = child();
  }

  /** `find ... -exec CMD {} ;`: CMD runs once per file found, `{}` standing for it. */
  private findExec(cmd: SimpleCommand, scope: Scope): void {
    const w = cmd.words;
    let k = 1;
    while (k < w.length && /^-(H|L|P|O\d*)$/.test(w[k]!.value)) k++;
    const roots: Word[] = [];
    for (; k < w.length && !/^[-(!]/.test(w[k]!.value); k++) roots.push(w[k]!);
    const each = roots.length === 0 ? '.' : roots.length === 1 ? roots[0]!.value : VAR;
    for (let k = 1; k < w.length; k++) {
      const v = w[k]!.value;
      if (!FIND_EXEC.has(v)) continue;
      const inner: Word[] = [];
      let j = k + 1;
      for (; j < w.length && w[j]!.value !== ';' && w[j]!.value !== '+'; j++) {
        const x = w[j]!;
        inner.push(x.value.includes('{}') ? { ...x, value: x.value.replaceAll('{}', each) } : x);
      }
      if (inner.length > 0) {
        const sc = v.endsWith('dir') ? { ...scope, folder: { path: null } } : scope;
        this.emit(null, sc, inner, [], () => inner.map((x) => x.raw).join(' '));
      }
      k = j;
    }
  }

  private cdTarget(cmd: SimpleCommand): string | null {
    const t = parseOpts(cmd.words, 1).operands[0];
    if (!t) return this.home;
    // `$HOME` is a variable too: only `~` is read as the home folder here (spec: a cd to a path with a variable).
    if (t.partial || t.value === '-' || /^[+-]\d+$/.test(t.value) || /[$`]/.test(t.text)) return null;
    return resolveFolder(t.value, cmd.cwd, this.home);
  }

  private redirect(s: Source, scope: Scope): Redirect | null {
    REDIRECT.lastIndex = s.pos;
    const m = REDIRECT.exec(s.text);
    if (!m) return null;
    s.pos += m[0].length;
    const op = m[2]!;
    const r: Redirect = { op, fd: m[1] ?? null, target: null, writes: false, body: null };
    this.blanks(s, false);
    const c = s.ch;
    if (c === undefined || (META.has(c) && !((c === '<' || c === '>') && s.text[s.pos + 1] === '('))) {
      this.incomplete = true;
      return r;
    }
    const target = this.word(s, scope);
    if (op === '<<' || op === '<<-') {
      s.heredocs.push({ delim: target.value, strip: op === '<<-', expand: !/['"\\]/.test(target.raw), redirect: r, scope, shell: null });
      return r;
    }
    if (op === '<<<') {
      r.body = target.value;
      r.target = target; // read, not written: kept for the substitutions in it
      return r;
    }
    if ((op === '>&' || op === '<&') && /^(\d+-?|-)$/.test(target.value)) return r; // `2>&1`, `>&-`
    r.target = target;
    r.writes = op !== '<' && op !== '<&';
    return r;
  }

  /** `$(...)`, `<(...)`, `>(...)`: read in place up to the closing `)`, in a subshell. */
  protected override substitution(s: Source, scope: Scope, kind: Sub['kind']): Sub {
    const collector: SimpleCommand[] = [];
    if (!this.enter()) return { kind, commands: collector };
    this.list(s, { folder: { path: scope.folder.path }, sudo: scope.sudo, pipes: scope.pipes, collectors: [...scope.collectors, collector] }, true);
    this.level--;
    if (s.ch === ')') s.pos++;
    return { kind, commands: collector };
  }
}

/** Splits a command line into the simple commands it runs. Never throws. */
export function splitShell(line: string, opts: SplitOptions = {}): Split {
  const home = typeof opts.home === 'string' && opts.home.startsWith('/') ? normalizePath(opts.home) : null;
  const cwd = typeof opts.cwd === 'string' && opts.cwd.startsWith('/') ? normalizePath(opts.cwd) : null;
  let text = typeof line === 'string' ? line : '';
  let clipped = false;
  if (text.length > RISK_MAX_LINE_CHARS) {
    text = text.slice(0, RISK_MAX_LINE_CHARS);
    clipped = true;
  }
  const sp = new Splitter(home);
  try {
    sp.line(text, { folder: { path: cwd }, sudo: false, pipes: [], collectors: [] }, opts.partialTail === true && !clipped);
  } catch {
    // A bug must not make a risky call look safe: what was read stands, marked as not all read.
    sp.stopped = true;
    sp.incomplete = true;
  }
  return { commands: sp.commands, incomplete: sp.incomplete, clipped: clipped || sp.stopped };
}
