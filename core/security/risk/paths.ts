// Where a path lands, and whether that is inside the pane's root (spec: Risk rules, the pane's
// root). Pure: the only file-system access is the injected `realpath`, so tests run on made-up
// trees and the daemon passes `fs.realpathSync.native`.
import { HOME, VAR } from './words.js';
import { RISK_MAX_PATH_CHARS, RISK_MAX_PATH_SEGMENTS } from '../../limits.js';

/** Resolves links in an existing path; throws (or returns a non-absolute value) for a missing one. */
export type Realpath = (path: string) => string;

/** `..`, `.` and repeated slashes resolved by text, the way the shell's `cd` reads a path. */
export function normalizePath(abs: string): string {
  const out: string[] = [];
  for (const seg of abs.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') out.pop();
    else out.push(seg);
  }
  return '/' + out.join('/');
}

/** A folder given as an argument (`cd DIR`) made absolute, or null when the line does not say. */
export function resolveFolder(value: string, cwd: string | null, home: string | null): string | null {
  if (value.includes(VAR) || value.lastIndexOf(HOME) > 0) return null;
  let abs: string | null;
  if (value.startsWith(HOME)) abs = home === null ? null : home + '/' + value.slice(1);
  else if (value.startsWith('/')) abs = value;
  else abs = cwd === null ? null : cwd + '/' + value;
  return abs === null || abs.length > RISK_MAX_PATH_CHARS ? null : normalizePath(abs);
}

/** Not outside: writing there changes no file of yours. */
const HARMLESS = /^\/dev\/(null|tty|stdout|stderr|stdin|zero|fd\/\d+|pts\/\d+)$|^\/proc\/self\/fd\/\d+$/;

const within = (p: string, root: string) => p === root || p.startsWith(root === '/' ? '/' : root + '/');

export interface PathEnv {
  /** The pane's root; null when no folder qualifies. */
  root: string | null;
  home: string | null;
  realpath?: Realpath;
}

/** Answers "is this path outside the root", resolving links once per path. */
export class PathJudge {
  private readonly links = new Map<string, string | null>();
  private readonly answers = new Map<string, boolean>();
  private realRoot: string | null | undefined;

  constructor(private readonly env: PathEnv) {}

  /**
   * `value` is a word's value (markers for expansions). A partial value is a path the line does not
   * show whole: it is outside only when no completion of the part shown lands inside the root.
   * `cwd` is the folder a relative path is read from.
   */
  outside(value: string, partial: boolean, cwd: string | null): boolean {
    const key = `${partial ? 1 : 0}\0${cwd ?? ''}\0${value}`;
    let answer = this.answers.get(key);
    if (answer === undefined) {
      answer = this.judge(value, partial, cwd);
      this.answers.set(key, answer);
    }
    return answer;
  }

  private judge(value: string, partial: boolean, cwd: string | null): boolean {
    let v = value;
    const stars = v.indexOf('***');
    if (stars !== -1) {
      v = v.slice(0, stars);
      partial = true;
    }
    if (v === '' && partial) return false;
    const lead = v.startsWith(HOME);
    const rest = lead ? v.slice(1) : v;
    if (rest.includes(VAR) || rest.includes(HOME)) return true;
    let abs: string;
    if (lead) {
      if (this.env.home === null) return true;
      abs = this.env.home + '/' + rest;
    } else if (v.startsWith('/')) {
      abs = v;
    } else {
      if (cwd === null || !cwd.startsWith('/')) return true;
      abs = cwd + '/' + v;
    }
    if (!partial && HARMLESS.test(normalizePath(abs))) return false;
    const root = this.root();
    if (root === null) return true;
    if (!lead && !v.startsWith('/')) {
      const folder = this.physical(cwd!);
      if (folder === null || !within(folder, root)) return true;
    }
    if (!partial) {
      const real = this.physical(abs);
      return real === null || !within(real, root);
    }
    // Only the folders before the last `/` are whole; the last part may go on.
    const cut = abs.lastIndexOf('/');
    const dir = this.physical(abs.slice(0, cut) || '/');
    if (dir === null) return true;
    const head = (dir === '/' ? '' : dir) + '/' + abs.slice(cut + 1);
    return !(head.startsWith(root + '/') || head === root || (root + '/').startsWith(head));
  }

  /** The root with its links resolved. */
  root(): string | null {
    if (this.realRoot === undefined) {
      const r = this.env.root;
      this.realRoot = r === null || !r.startsWith('/') ? null : this.physical(r);
    }
    return this.realRoot;
  }

  /** The path the kernel would reach: each part's links resolved in turn, then `..` from there. */
  physical(abs: string): string | null {
    if (abs.length > RISK_MAX_PATH_CHARS) return null;
    const segs = abs.split('/').filter((s) => s !== '' && s !== '.');
    if (segs.length > RISK_MAX_PATH_SEGMENTS) return null;
    let cur = '/';
    for (const seg of segs) {
      if (seg === '..') {
        cur = cur.slice(0, cur.lastIndexOf('/')) || '/';
        continue;
      }
      const next = cur === '/' ? '/' + seg : cur + '/' + seg;
      cur = this.link(next) ?? next;
    }
    return cur;
  }

  private link(p: string): string | null {
    const rp = this.env.realpath;
    if (!rp) return null;
    const hit = this.links.get(p);
    if (hit !== undefined) return hit;
    let r: string | null;
    try {
      const v = rp(p);
      r = typeof v === 'string' && v.startsWith('/') ? v : null;
    } catch {
      r = null; // missing (not created yet): keep the name as written
    }
    this.links.set(p, r);
    return r;
  }
}

/** System trees a pane's start folder never makes a root of: a call there is outside whatever the pane does. */
const SYSTEM_TREES = ['/bin', '/boot', '/dev', '/etc', '/lib', '/lib32', '/lib64', '/libx32', '/proc', '/run', '/sbin', '/sys', '/usr'];

/**
 * The pane's root: the first candidate (session worktree, start folder, agent folder) that
 * qualifies; null when none does. A folder inside the home folder qualifies, but not the home
 * folder itself. A folder outside it qualifies too (a project under /tmp or /srv, with or without
 * git), so the root never depends on where $HOME is: but not `/`, a folder directly under `/`
 * (/tmp, /var), a folder that holds the home folder, or one in a system tree (/usr, /etc, /proc...).
 */
export function chooseRoot(candidates: ReadonlyArray<string | null | undefined>, home: string | null, realpath?: Realpath): string | null {
  const judge = new PathJudge({ root: null, home, realpath });
  const realHome = home !== null && home.startsWith('/') ? judge.physical(home) : null;
  for (const c of candidates) {
    if (!c || !c.startsWith('/')) continue;
    const real = judge.physical(c);
    if (real === null) continue;
    if (realHome !== null && (real === realHome || within(realHome, real))) continue;
    if (realHome !== null && within(real, realHome)) return c;
    if (real.split('/').filter(Boolean).length < 2) continue;
    if (SYSTEM_TREES.some((t) => within(real, t))) continue;
    return c;
  }
  return null;
}
