// Which release of a harness runs in a pane, read without running it, and whether its manifest's
// rules were captured from that release's range (spec: Recognising a harness, Seeing what the
// detector saw). Read once per process identity and cached; never on the idle tick.
//
// Where the version comes from, in order:
//   1. the package.json of the npm package the entry point sits in: the executable for a native
//      program (.../node_modules/@anthropic-ai/claude-code/bin/claude.exe), the script for an
//      interpreter (node .../node_modules/@anthropic-ai/claude-code/cli.js). The file must sit in
//      a package folder (right under node_modules, or under an npm scope there) whose path names
//      the package.json's own `name`, so a project's package.json above a binary is never read;
//      at most PACKAGE_LEVELS folders up, and at most PACKAGE_JSON_MAX_BYTES of it.
//   2. a release folder or file in the executable's path (installers that keep one binary per
//      release: .../claude/versions/2.1.332), for a program that is not an interpreter only,
//      so node's own version folder is never taken for the agent's.
//
// Coverage, against the manifest's captured_versions: a version from the oldest captured to the
// newest captured (both included) is covered; one newer than the newest or older than the oldest
// is not. Unknown (null) when the version cannot be read, or the manifest lists no captured
// version (nothing was captured to compare with).
import { closeSync, openSync, readSync, fstatSync } from 'node:fs';
import { dirname, basename, join } from 'node:path';
import { PACKAGE_JSON_MAX_BYTES, PACKAGE_LEVELS, VERSION_CACHE_MAX } from '../limits.js';

const VERSION_TEXT = /^v?(\d+(?:\.\d+){1,3})(?:[-+][0-9A-Za-z.-]{1,64})?$/;
const PACKAGE_NAME = /^(?:@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/i;

export interface HarnessVersion {
  version: string;
  /** Where it was read: `package.json <path>` or `path <exe>`. */
  from: string;
}

/** Whether a string reads as a release (1.2, 2.1.332, v0.61.0, 0.0.1790142911-g7618fb). */
export function isVersionText(s: string): boolean {
  return VERSION_TEXT.test(s);
}

/**
 * Orders two releases: numeric dotted parts first, then a release above a pre-release of the
 * same numbers (1.0.0 > 1.0.0-rc.1), then the suffix as text. A leading v is ignored.
 */
export function compareVersions(a: string, b: string): number {
  const split = (v: string) => {
    const m = /^v?(\d+(?:\.\d+)*)(.*)$/.exec(v);
    return m ? { nums: m[1]!.split('.').map(Number), rest: m[2]! } : { nums: [] as number[], rest: v };
  };
  const x = split(a);
  const y = split(b);
  for (let i = 0; i < Math.max(x.nums.length, y.nums.length); i++) {
    const d = (x.nums[i] ?? 0) - (y.nums[i] ?? 0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  if (x.rest === y.rest) return 0;
  // A pre-release (-rc.1) sorts below its release; a build suffix (+5) is the release itself,
  // ordered after it by its text only so the order is total.
  const parts = (r: string) => {
    const plus = r.indexOf('+');
    return { pre: plus < 0 ? r : r.slice(0, plus), build: plus < 0 ? '' : r.slice(plus) };
  };
  const p = parts(x.rest);
  const q = parts(y.rest);
  if (p.pre !== q.pre) {
    if (p.pre === '') return 1;
    if (q.pre === '') return -1;
    return p.pre < q.pre ? -1 : 1;
  }
  return p.build < q.build ? -1 : 1;
}

export interface Coverage {
  covered: boolean | null;
  /** One sentence for a person. */
  note: string;
}

/** The coverage rule (see the header): inside [oldest, newest] captured is covered. */
export function versionCoverage(version: string | null, captured: readonly string[] | undefined, harness = 'the harness'): Coverage {
  if (version === null) return { covered: null, note: `The version of ${harness} running here cannot be read, so its coverage is unknown.` };
  const list = [...(captured ?? [])].sort(compareVersions);
  if (list.length === 0) return { covered: null, note: `${harness} ${version}: its manifest lists no captured version to compare with.` };
  const oldest = list[0]!;
  const newest = list[list.length - 1]!;
  const range = list.length === 1 ? oldest : `${oldest} to ${newest}`;
  if (compareVersions(version, newest) > 0) return { covered: false, note: `${harness} ${version} is newer than the newest version its rules were captured from (${range}); its screens may have changed.` };
  if (compareVersions(version, oldest) < 0) return { covered: false, note: `${harness} ${version} is older than the oldest version its rules were captured from (${range}); its screens may differ.` };
  const exact = list.some((v) => compareVersions(v, version) === 0);
  return { covered: true, note: exact ? `${harness} ${version} is a version its rules were captured from.` : `${harness} ${version} lies within the versions its rules were captured from (${range}).` };
}

/** Reads at most `max` bytes of a regular file; null when it is missing, not a file or larger. */
function readSmall(path: string, max: number): string | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > max) return null;
    const buf = Buffer.alloc(st.size);
    let got = 0;
    while (got < st.size) {
      const n = readSync(fd, buf, got, st.size - got, got);
      if (n <= 0) break;
      got += n;
    }
    return buf.subarray(0, got).toString('utf8');
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** The package folders above a file: `.../node_modules/<name>` or `.../node_modules/@scope/<name>`, nearest first. */
function packageDirs(file: string): Array<{ dir: string; name: string }> {
  const out: Array<{ dir: string; name: string }> = [];
  let dir = dirname(file);
  for (let i = 0; i <= PACKAGE_LEVELS && dir !== dirname(dir); i++, dir = dirname(dir)) {
    const parent = dirname(dir);
    if (basename(parent) === 'node_modules') out.push({ dir, name: basename(dir) });
    else if (basename(parent).startsWith('@') && basename(dirname(parent)) === 'node_modules') out.push({ dir, name: `${basename(parent)}/${basename(dir)}` });
  }
  return out;
}

/** The version in the package.json of the package a file belongs to, or null. */
export function versionFromPackage(file: string, read = readSmall): HarnessVersion | null {
  for (const { dir, name } of packageDirs(file)) {
    const path = join(dir, 'package.json');
    const text = read(path, PACKAGE_JSON_MAX_BYTES);
    if (text === null) continue;
    try {
      const pkg = JSON.parse(text) as { name?: unknown; version?: unknown };
      if (typeof pkg.name !== 'string' || !PACKAGE_NAME.test(pkg.name) || pkg.name !== name) continue;
      if (typeof pkg.version === 'string' && isVersionText(pkg.version)) return { version: pkg.version, from: `package.json ${path}` };
    } catch {
      // not JSON: not this one
    }
  }
  return null;
}

/** A release folder or file name in an executable's path (the last such of its final components). */
export function versionFromPath(exe: string): HarnessVersion | null {
  const parts = exe.replace(/ \(deleted\)$/, '').split('/').filter(Boolean);
  for (let i = parts.length - 1; i >= Math.max(0, parts.length - PACKAGE_LEVELS); i--) {
    if (isVersionText(parts[i]!)) return { version: parts[i]!.replace(/^v/, ''), from: `path ${exe}` };
  }
  return null;
}

/** What identifies the agent's program on disk: its script for an interpreter, else its executable. */
export interface EntryPoint {
  pid: number;
  exe: string | null;
  /** The script an interpreter runs, resolved (null for a native program). */
  script: string | null;
  interpreter: boolean;
}

/** Reads the version for an entry point (no cache). */
export function readHarnessVersion(e: EntryPoint, read = readSmall): HarnessVersion | null {
  if (e.interpreter) return e.script ? versionFromPackage(e.script, read) : null;
  if (!e.exe) return null;
  const exe = e.exe.replace(/ \(deleted\)$/, '');
  return versionFromPackage(exe, read) ?? versionFromPath(exe);
}

/** One read per process identity (pid and the path it runs from), bounded. */
export class VersionCache {
  private readonly map = new Map<string, HarnessVersion | null>();
  reads = 0;
  constructor(private readonly read: (e: EntryPoint) => HarnessVersion | null = (e) => readHarnessVersion(e)) {}

  get(e: EntryPoint): HarnessVersion | null {
    const key = `${e.pid}\0${e.interpreter ? (e.script ?? '') : (e.exe ?? '')}`;
    if (this.map.has(key)) return this.map.get(key)!;
    this.reads++;
    const v = this.read(e);
    if (this.map.size >= VERSION_CACHE_MAX) this.map.delete(this.map.keys().next().value!);
    this.map.set(key, v);
    return v;
  }
}
