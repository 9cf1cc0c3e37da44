// The paths a command writes, deletes or creates: what "outside the worktree" and "disk" look at.
// Only the ones a command names: `cp /etc/hosts .` reads outside and writes inside, so it is fine.
import { gitCall } from './git.js';
import { hasFlag, parseOpts, valuesOf, type Arg, type Opts } from './options.js';
import { shown, type SimpleCommand, type Word } from './words.js';

export interface Target {
  value: string;
  /** As written. */
  text: string;
  partial: boolean;
  /** The folder a relative value is read from. */
  cwd: string | null;
}

type Writer = (w: Word[], cmd: SimpleCommand, home: string | null) => Array<Arg | Target>;

/** `-t DIR`, else the last operand when there are two or more (`cp a b DEST`). */
function destination(o: Opts): Arg[] {
  const t = valuesOf(o, '-t', '--target-directory');
  if (t.length > 0) return t;
  const last = o.operands[o.operands.length - 1];
  return o.operands.length >= 2 && last ? [last] : [];
}

const operands =
  (valued = '', longValued: string[] = []): Writer =>
  (w) =>
    parseOpts(w, 1, { valued, longValued }).operands;

const COPY = { valued: 'tS', longValued: ['target-directory', 'suffix'] };
/** curl's short options that take a value, so `-sSLo out` reads `out` as `-o`'s. */
const CURL_VALUED = 'AbcCdDeEFHKmoPQrtTuUwxXyYz';
const CURL_LONG = ['output', 'output-dir', 'header', 'data', 'data-raw', 'data-binary', 'user', 'user-agent', 'request', 'referer', 'cookie', 'cookie-jar', 'config', 'form', 'proxy', 'max-time', 'connect-timeout', 'retry', 'cacert', 'cert', 'key', 'write-out', 'url', 'range', 'resolve'];
const TAR_VALUED = 'fCTXbHKNVgI';
const TAR_LONG = ['file', 'directory', 'files-from', 'exclude-from', 'exclude', 'blocking-factor', 'format', 'label', 'newer', 'use-compress-program', 'transform', 'owner', 'group', 'mode'];

function chmodLike(w: Word[], modeFirst: boolean): Arg[] {
  const ops: Arg[] = [];
  let reference = false;
  for (let i = 1; i < w.length; i++) {
    const v = w[i]!.value;
    if (v.startsWith('--reference')) reference = true;
    if (/^-[Rvcfh]+$/.test(v) || v.startsWith('--')) continue;
    ops.push({ value: v, text: w[i]!.raw, partial: w[i]!.partial, index: i });
  }
  return modeFirst && !reference ? ops.slice(1) : ops;
}

/** tar reads `tar xzf a.tar -C dir` (letters without a dash) like `tar -x -z -f a.tar -C dir`. */
function tarOpts(w: Word[]): Opts {
  const first = w[1];
  if (!first || first.value.startsWith('-') || !/^[A-Za-z]+$/.test(first.value)) return parseOpts(w, 1, { valued: TAR_VALUED, longValued: TAR_LONG });
  const words: Word[] = [w[0]!];
  let next = 2;
  for (const letter of first.value) {
    words.push({ value: '-' + letter, raw: '-' + letter, partial: false, subs: [] });
    if (TAR_VALUED.includes(letter) && next < w.length) words.push(w[next++]!);
  }
  words.push(...w.slice(next));
  return parseOpts(words, 1, { valued: TAR_VALUED, longValued: TAR_LONG });
}

/** A local path in an rsync or scp destination; `host:path` and `rsync://` are another machine. */
const isRemote = (v: string) => /^[^/]*:/.test(v) || v.startsWith('rsync://');

const WRITERS: Record<string, Writer> = {
  tee: operands(),
  cp: (w) => destination(parseOpts(w, 1, COPY)),
  ln: (w) => {
    const o = parseOpts(w, 1, COPY);
    const d = destination(o);
    return d.length > 0 || o.operands.length !== 1 ? d : [{ value: '.', text: '.', partial: false, index: -1 }];
  },
  mv: (w) => {
    const o = parseOpts(w, 1, COPY);
    return [...o.operands, ...valuesOf(o, '-t', '--target-directory')];
  },
  install: (w) => {
    const o = parseOpts(w, 1, { valued: 'mogSt', longValued: ['mode', 'owner', 'group', 'suffix', 'target-directory', 'strip-program'] });
    return hasFlag(o, '-d', '--directory') ? o.operands : destination(o);
  },
  rm: operands(),
  rmdir: operands(),
  unlink: operands(),
  touch: operands('drt', ['date', 'reference', 'time']),
  mkdir: operands('m', ['mode', 'context']),
  shred: operands('ns', ['iterations', 'size', 'random-source']),
  truncate: operands('sr', ['size', 'reference']),
  chmod: (w) => chmodLike(w, true),
  chown: (w) => chmodLike(w, true),
  chgrp: (w) => chmodLike(w, true),
  sed: (w) => {
    const o = parseOpts(w, 1, { valued: 'efl', attached: 'i', longValued: ['expression', 'file', 'line-length'] });
    if (!hasFlag(o, '-i', '--in-place')) return [];
    return valuesOf(o, '-e', '--expression', '-f', '--file').length > 0 ? o.operands : o.operands.slice(1);
  },
  curl: (w) => valuesOf(parseOpts(w, 1, { valued: CURL_VALUED, longValued: CURL_LONG }), '-o', '--output', '--output-dir'),
  wget: (w) => {
    const o = parseOpts(w, 1, { valued: 'OoaPetTwQUiBDlY', longValued: ['output-document', 'output-file', 'append-output', 'directory-prefix', 'user-agent', 'header', 'tries', 'timeout'] });
    return valuesOf(o, '-O', '--output-document', '-P', '--directory-prefix', '-o', '--output-file', '-a', '--append-output');
  },
  tar: (w) => {
    const o = tarOpts(w);
    const out: Arg[] = [];
    if (hasFlag(o, '-c', '--create', '-r', '--append', '-u', '--update', '-A', '--catenate', '--concatenate')) out.push(...valuesOf(o, '-f', '--file'));
    if (hasFlag(o, '-x', '--extract', '--get')) out.push(...valuesOf(o, '-C', '--directory'));
    return out;
  },
  dd: (w) =>
    w
      .slice(1)
      .filter((x) => x.value.startsWith('of='))
      .map((x) => ({ value: x.value.slice(3), text: shown(x.value.slice(3)), partial: x.partial, index: -1 })),
  rsync: (w) => {
    const o = parseOpts(w, 1, { valued: 'eBfMT', longValued: ['rsh', 'rsync-path', 'filter', 'exclude', 'include', 'exclude-from', 'include-from', 'files-from', 'temp-dir', 'partial-dir', 'backup-dir', 'log-file', 'chmod', 'chown', 'password-file', 'port', 'suffix'] });
    const last = o.operands[o.operands.length - 1];
    return o.operands.length >= 2 && last && !isRemote(last.value) ? [last] : [];
  },
  scp: (w) => {
    const o = parseOpts(w, 1, { valued: 'cFiJloPS' });
    const last = o.operands[o.operands.length - 1];
    return o.operands.length >= 2 && last && !isRemote(last.value) ? [last] : [];
  },
  unzip: (w) => {
    const i = w.findIndex((x, k) => k > 0 && x.value === '-d');
    return i > 0 && w[i + 1] ? [{ value: w[i + 1]!.value, text: w[i + 1]!.raw, partial: w[i + 1]!.partial, index: i + 1 }] : [];
  },
  git: (_w, cmd, home) => {
    const g = gitCall(cmd, home);
    if (!g) return [];
    const o = parseOpts(g.args, 0, {
      valued: 'bojcu',
      longValued: ['branch', 'origin', 'depth', 'config', 'reference', 'reference-if-able', 'separate-git-dir', 'upload-pack', 'template', 'jobs', 'filter', 'shallow-since', 'shallow-exclude', 'server-option', 'bundle-uri'],
    });
    let dir: Arg | undefined;
    if (g.sub === 'clone') {
      const url = o.operands[0];
      // No folder given: git makes one named after the repository, in the current folder.
      const name = url?.value.replace(/\/+$/, '').replace(/\.git$/, '').split(/[/:]/).pop();
      dir = o.operands[1] ?? (url && name ? { value: name, text: shown(name), partial: url.partial, index: -1 } : undefined);
    } else if (g.sub === 'worktree' && o.operands[0]?.value === 'add') dir = o.operands[1];
    return dir ? [{ value: dir.value, text: dir.text, partial: dir.partial, cwd: g.cwd }] : [];
  },
};

/** Two rules read each command's paths; they are worked out once. */
const memo = new WeakMap<SimpleCommand, Target[]>();

/** Every path the command writes, the targets of its redirects included. */
export function writtenPaths(cmd: SimpleCommand, home: string | null): Target[] {
  const hit = memo.get(cmd);
  if (hit) return hit;
  const out: Target[] = [];
  for (const r of cmd.redirects) if (r.writes && r.target) out.push({ value: r.target.value, text: r.target.raw, partial: r.target.partial, cwd: cmd.cwd });
  const writer = cmd.program ? WRITERS[cmd.program] : undefined;
  if (writer) {
    for (const a of writer(cmd.words, cmd, home)) {
      if (a.value === '-' || a.value === '') continue; // stdout, or nothing
      out.push({ value: a.value, text: a.text, partial: a.partial, cwd: 'cwd' in a ? a.cwd : cmd.cwd });
    }
  }
  memo.set(cmd, out);
  return out;
}
