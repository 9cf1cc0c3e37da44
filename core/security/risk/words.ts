// What the shell splitter hands the rules: words after quote removal, with every expansion kept as
// a marker, so a rule can tell `rm -rf "$DIR"` (unknown target) from `rm -rf dir`.

/** Stands for an expansion whose value is unknown: `$VAR`, `$(...)`, `` `...` ``, `~user`. */
export const VAR = '\uE000';
/** Stands for a leading `$HOME`, `${HOME}` or `~`: the one variable a path may start with. */
export const HOME = '\uE001';

/** A command substitution or process substitution and the commands it runs. */
export interface Sub {
  kind: '$(' | '`' | '<(' | '>(';
  /** Every command run inside it, nested ones included. */
  commands: SimpleCommand[];
}

export interface Word {
  /** After quote removal; expansions are VAR (or a leading HOME). */
  value: string;
  /** As written. */
  raw: string;
  /** The line shown was cut inside or right after this word, so its end is not known. */
  partial: boolean;
  /** The substitutions inside it. */
  subs: Sub[];
}

export interface Redirect {
  op: string;
  /** The fd or `{name}` written before the operator, if any. */
  fd: string | null;
  /** The file (a here-string's word too); null for a here-document and for fd duplication such as `2>&1`. */
  target: Word | null;
  /** Opens the target for writing. */
  writes: boolean;
  /** The text fed on stdin by `<<` or `<<<`. */
  body: string | null;
}

/** One link of the pipelines a command runs in, outermost first. */
export interface PipeRef {
  id: number;
  stage: number;
}

export interface SimpleCommand {
  /** The command as written, wrappers and redirects included. */
  text: string;
  /** The command after wrappers and leading assignments: words[0] is the program. */
  words: Word[];
  /** The basename of words[0], or null when it has an expansion or there is none. */
  program: string | null;
  redirects: Redirect[];
  /** The folder it runs in; null when it is not known. */
  cwd: string | null;
  /** Ran under sudo or doas, here or in a command line that started it. */
  sudo: boolean;
  pipes: PipeRef[];
}

export interface Split {
  commands: SimpleCommand[];
  /** The line did not parse whole (an unclosed quote, a stray `)`): this is the best split. */
  incomplete: boolean;
  /** A bound was hit (length, nesting, count), so part of the line was not read at all. */
  clipped: boolean;
}

export const hasMarker = (s: string): boolean => s.includes(VAR) || s.includes(HOME);

/** The basename of a literal program word. */
export function programName(w: Word | undefined): string | null {
  if (!w || w.value === '' || hasMarker(w.value)) return null;
  const i = w.value.lastIndexOf('/');
  return i === -1 ? w.value : w.value.slice(i + 1) || null;
}

/** A value for a person to read: markers shown as what they stand for. */
export function shown(value: string): string {
  return value.replaceAll(HOME, '~').replaceAll(VAR, '$…');
}
