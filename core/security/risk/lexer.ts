// The lexer half of the shell splitter: words, quoting, expansions and here-documents. Reading
// `$( )`, backticks and `${ }` needs the grammar, which the splitter (shell.ts) supplies.
import { HOME, VAR, type PipeRef, type Redirect, type SimpleCommand, type Sub, type Word } from './words.js';
import { RISK_MAX_NESTING, RISK_MAX_WORK_CHARS } from '../../limits.js';

const BLANK = new Set([' ', '\t', '\r']);
export const META = new Set([' ', '\t', '\r', '\n', ';', '&', '|', '<', '>', '(', ')']);
const PLAIN = /[^\s;&|<>()\\'"$`=]+/y;
const TILDE = /~([^/\s;&|<>()\\'"$`]*)/y;
const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;

export interface Folder {
  path: string | null;
}

/** What the commands of one nesting level share. */
export interface Scope {
  folder: Folder;
  sudo: boolean;
  pipes: PipeRef[];
  /** The substitutions being read: each gets every command run inside it. */
  collectors: SimpleCommand[][];
}

export interface Heredoc {
  delim: string;
  strip: boolean;
  expand: boolean;
  redirect: Redirect;
  scope: Scope;
  /** Set when the command turns out to be a shell that reads its script from stdin. */
  shell: Scope | null;
}

export interface Acc {
  value: string;
  subs: Sub[];
}

export class Source {
  pos = 0;
  heredocs: Heredoc[] = [];
  constructor(
    readonly text: string,
    readonly partialTail: boolean,
  ) {}
  get ch(): string | undefined {
    return this.text[this.pos];
  }
  at(s: string): boolean {
    return this.text.startsWith(s, this.pos);
  }
  get done(): boolean {
    return this.pos >= this.text.length;
  }
}

/** Reads words; a subclass gives it the grammar for what they run. Never throws on any input. */
export abstract class Lexer {
  incomplete = false;
  /** A bound was hit: reading stopped. */
  stopped = false;
  protected level = 0;
  protected work = 0;

  /** Reads a command line of its own (`sh -c`, `eval`, backticks, a here-document a shell reads). */
  abstract line(text: string, scope: Scope, partial: boolean): void;
  /** Reads `$(...)`, `<(...)`, `>(...)` in place, up to the closing `)`. */
  protected abstract substitution(s: Source, scope: Scope, kind: Sub['kind']): Sub;

  protected enter(): boolean {
    if (this.level >= RISK_MAX_NESTING) {
      this.stopped = true;
      return false;
    }
    this.level++;
    return true;
  }

  /** Skips blanks, line continuations and comments; newlines too when `newlines`, reading here-documents. */
  protected blanks(s: Source, newlines: boolean): void {
    for (;;) {
      const c = s.ch;
      if (c !== undefined && BLANK.has(c)) s.pos++;
      else if (c === '\\' && s.text[s.pos + 1] === '\n') s.pos += 2;
      else if (c === '#') {
        const nl = s.text.indexOf('\n', s.pos);
        s.pos = nl === -1 ? s.text.length : nl;
      } else if (c === '\n' && newlines) {
        s.pos++;
        if (s.heredocs.length > 0) this.heredocBodies(s);
      } else return;
    }
  }

  protected heredocBodies(s: Source): void {
    const pending = s.heredocs;
    s.heredocs = [];
    for (const h of pending) {
      const lines: string[] = [];
      let found = false;
      while (!s.done) {
        const nl = s.text.indexOf('\n', s.pos);
        const stop = nl === -1 ? s.text.length : nl;
        let line = s.text.slice(s.pos, stop);
        if (h.strip) line = line.replace(/^\t+/, '');
        s.pos = nl === -1 ? stop : stop + 1;
        if (line === h.delim) {
          found = true;
          break;
        }
        lines.push(line);
      }
      if (!found) this.incomplete = true;
      const body = lines.join('\n');
      h.redirect.body = body;
      if (h.expand) this.expansions(body, h.scope);
      if (h.shell) this.line(body, h.shell, false);
    }
  }

  /** The substitutions in an unquoted here-document run when it is read. */
  protected expansions(body: string, scope: Scope): void {
    if (!/[$`]/.test(body)) return;
    this.work += body.length;
    if (this.work > RISK_MAX_WORK_CHARS) {
      this.stopped = true;
      return;
    }
    const s = new Source(body, false);
    const acc: Acc = { value: '', subs: [] };
    while (!s.done && !this.stopped) {
      const c = s.ch;
      if (c === '\\') s.pos += 2;
      else if (c === '$') this.dollar(s, scope, acc);
      else if (c === '`') this.backtick(s, scope, acc);
      else s.pos++;
    }
  }

  protected word(s: Source, scope: Scope): Word {
    const start = s.pos;
    const acc: Acc = { value: '', subs: [] };
    if (s.at('<(') || s.at('>(')) {
      const kind = s.at('<(') ? '<(' : '>(';
      s.pos += 2;
      acc.subs.push(this.substitution(s, scope, kind));
      acc.value = VAR;
    } else if (s.ch === '~') this.tilde(s, acc);
    while (!s.done && !this.stopped) {
      const c = s.ch!;
      if (META.has(c)) break;
      if (c === '\\') {
        const n = s.text[s.pos + 1];
        if (n === undefined) acc.value += '\\';
        else if (n !== '\n') acc.value += n;
        s.pos += n === undefined ? 1 : 2;
      } else if (c === "'") this.single(s, acc);
      else if (c === '"') {
        s.pos++;
        this.double(s, scope, acc);
      } else if (c === '$') this.dollar(s, scope, acc);
      else if (c === '`') this.backtick(s, scope, acc);
      else if (c === '=') {
        acc.value += '=';
        s.pos++;
        // `VAR=~/x` and `--prefix=~/x`: bash expands a tilde after the first `=`
        if (s.ch === '~' && acc.value.indexOf('=') === acc.value.length - 1) this.tilde(s, acc);
      } else {
        PLAIN.lastIndex = s.pos;
        const m = PLAIN.exec(s.text);
        const run = m ? m[0] : c;
        acc.value += run;
        s.pos += run.length;
      }
    }
    return { value: acc.value, raw: s.text.slice(start, s.pos), partial: s.partialTail && s.pos >= s.text.length, subs: acc.subs };
  }

  /** `~` and `~/x` are the home folder; `~user`, `~+` and `~-` are folders the line does not show. */
  protected tilde(s: Source, acc: Acc): void {
    TILDE.lastIndex = s.pos;
    const m = TILDE.exec(s.text)!;
    s.pos += m[0].length;
    acc.value += m[1] === '' ? HOME : VAR;
  }

  protected single(s: Source, acc: Acc): void {
    const close = s.text.indexOf("'", s.pos + 1);
    if (close === -1) {
      this.incomplete = true;
      acc.value += s.text.slice(s.pos + 1);
      s.pos = s.text.length;
      return;
    }
    acc.value += s.text.slice(s.pos + 1, close);
    s.pos = close + 1;
  }

  /** Inside `"..."`, after the opening quote. */
  protected double(s: Source, scope: Scope, acc: Acc): void {
    while (!s.done && !this.stopped) {
      const c = s.ch!;
      if (c === '"') {
        s.pos++;
        return;
      }
      if (c === '\\') {
        const n = s.text[s.pos + 1];
        if (n !== undefined && '$`"\\\n'.includes(n)) {
          if (n !== '\n') acc.value += n;
          s.pos += 2;
        } else {
          acc.value += '\\';
          s.pos++;
        }
      } else if (c === '$') this.dollar(s, scope, acc);
      else if (c === '`') this.backtick(s, scope, acc);
      else {
        let k = s.pos + 1;
        while (k < s.text.length && !'"\\$`'.includes(s.text[k]!)) k++;
        acc.value += s.text.slice(s.pos, k);
        s.pos = k;
      }
    }
    if (!this.stopped) this.incomplete = true;
  }

  protected dollar(s: Source, scope: Scope, acc: Acc): void {
    const n = s.text[s.pos + 1];
    if (n === "'") return this.ansiC(s, acc);
    if (n === '"') {
      s.pos += 2;
      return this.double(s, scope, acc);
    }
    if (n === '(') {
      const end = s.at('$((') ? arithmeticEnd(s.text, s.pos + 1) : -1;
      if (end !== -1) {
        s.pos = end;
        acc.value += VAR;
        return;
      }
      s.pos += 2;
      acc.subs.push(this.substitution(s, scope, '$('));
      acc.value += VAR;
      return;
    }
    if (n === '{') return this.braced(s, scope, acc);
    NAME.lastIndex = s.pos + 1;
    const m = NAME.exec(s.text);
    if (m) {
      s.pos += 1 + m[0].length;
      acc.value += m[0] === 'HOME' ? HOME : VAR;
      return;
    }
    if (n !== undefined && /[0-9@*#?$!-]/.test(n)) {
      s.pos += 2;
      acc.value += VAR;
      return;
    }
    acc.value += '$';
    s.pos++;
  }

  /** `${...}`: any parameter expansion, with the substitutions inside it followed. */
  protected braced(s: Source, scope: Scope, acc: Acc): void {
    if (!this.enter()) return;
    s.pos += 2;
    const from = s.pos;
    const inner: Acc = { value: '', subs: [] };
    let closed = false;
    while (!s.done && !this.stopped) {
      const c = s.ch!;
      if (c === '}') {
        closed = true;
        break;
      }
      if (c === '\\') s.pos += 2;
      else if (c === "'") this.single(s, inner);
      else if (c === '"') {
        s.pos++;
        this.double(s, scope, inner);
      } else if (c === '$') this.dollar(s, scope, inner);
      else if (c === '`') this.backtick(s, scope, inner);
      else s.pos++;
    }
    this.level--;
    const name = s.text.slice(from, Math.min(s.pos, s.text.length));
    if (closed) s.pos++;
    else if (!this.stopped) this.incomplete = true;
    acc.subs.push(...inner.subs);
    acc.value += name === 'HOME' ? HOME : VAR;
  }

  /** `$'...'`: backslash escapes are the only expansion. */
  protected ansiC(s: Source, acc: Acc): void {
    s.pos += 2;
    const ESC: Record<string, string> = { n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', v: '\v' };
    while (!s.done) {
      const c = s.ch!;
      if (c === "'") {
        s.pos++;
        return;
      }
      if (c === '\\' && s.pos + 1 < s.text.length) {
        const n = s.text[s.pos + 1]!;
        const hex = /^x([0-9A-Fa-f]{1,2})/.exec(s.text.slice(s.pos + 1, s.pos + 4));
        const oct = /^([0-7]{1,3})/.exec(s.text.slice(s.pos + 1, s.pos + 4));
        if (hex) {
          acc.value += String.fromCharCode(parseInt(hex[1]!, 16));
          s.pos += 1 + hex[0].length;
        } else if (oct) {
          acc.value += String.fromCharCode(parseInt(oct[1]!, 8));
          s.pos += 1 + oct[0].length;
        } else {
          acc.value += ESC[n] ?? n;
          s.pos += 2;
        }
        continue;
      }
      acc.value += c;
      s.pos++;
    }
    this.incomplete = true;
  }

  /** `` `...` ``: its text, unescaped, is a command line of its own. */
  protected backtick(s: Source, scope: Scope, acc: Acc): void {
    s.pos++;
    let text = '';
    let closed = false;
    while (!s.done) {
      const c = s.ch!;
      if (c === '`') {
        s.pos++;
        closed = true;
        break;
      }
      const n = s.text[s.pos + 1];
      if (c === '\\' && n !== undefined && '`\\$'.includes(n)) {
        text += n;
        s.pos += 2;
      } else {
        text += c;
        s.pos++;
      }
    }
    if (!closed) this.incomplete = true;
    const collector: SimpleCommand[] = [];
    this.line(text, { folder: { path: scope.folder.path }, sudo: scope.sudo, pipes: scope.pipes, collectors: [...scope.collectors, collector] }, !closed && s.partialTail);
    acc.subs.push({ kind: '`', commands: collector });
    acc.value += VAR;
  }
}

/**
 * The end of `((...))` starting at `from`, or -1 when the parentheses close apart, as in
 * `((cd a); rm b)`, which is two subshells.
 */
export function arithmeticEnd(text: string, from: number): number {
  let depth = 0;
  for (let k = from; k < text.length; k++) {
    const c = text[k];
    if (c === '(') depth++;
    else if (c === ')') {
      depth--;
      if (depth === 1) return text[k + 1] === ')' ? k + 2 : -1;
    }
  }
  return -1;
}
