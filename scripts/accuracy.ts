// How well the bundled rules decide captures: a harness × version table from the golden screens.
//
//   npm run accuracy                      # fixtures/screens against manifests/
//   npm run accuracy -- --dir DIR         # any folder of .screen files (captures a user saved)
//   npm run accuracy -- --manifests DIR   # against another folder of manifests
//   npm run accuracy -- --check           # exit 1 when a goal fails (otherwise it is a report: exit 0)
//   npm run accuracy -- --json            # the same figures as JSON
//
// Each .screen (core/detection/fixture.ts) is classified as the daemon would publish it from that
// capture alone (core/detection/rules/classify.ts classifyCapture): the look (decideLook: screen and
// title rules), the OSC 9;4 progress report (a manifest's osc_progress rules, else the sequence's
// published meaning, as osc.ts and ScreenTier.progressRule read it), and the precedence between
// the screen claim and the osc claims, by applying them to a core/agent-state/record.ts AgentRecord as
// the store does. That cannot be mirrored exactly from one capture, which has no history:
//   - the capture is taken as settled: the idle hold and the start-up grace have passed, and the
//     progress report came over 2 s before the last look, with output between (so a prompt on
//     the screen takes the pane from a progress claim that says anything but needs_input: the
//     visible-blocker loan);
//   - the title claim and the progress claim are both source osc, and the daemon keeps the later;
//     a capture does not say which came later, so the title is taken as later (the report lists
//     the captures this decided);
//   - a skip-state rule keeps a screen claim the capture does not have (scored as a freeze);
//   - the detector's presence claim (unknown) is left out: no rule deciding reads `none`;
//   - notifications are not part of a capture.
// A capture is right when its state is the one [expect] asks (and its kind, when [expect] names
// one; a freeze fixture needs the skip-state rule). A false needs_input is a capture classified
// needs_input whose [expect] says otherwise: the error the fail-safe exists to avoid.
//
// Goals, per harness with captures: at least 95% right and no false needs_input.
//
// The leave-one-version-out figure: for each harness with captures from three or more versions,
// the newest version's captures are scored against the manifests as they were in git before those
// captures were first committed (the parent of the oldest commit that added one of them, found
// with git log --diff-filter=A --no-renames; captures not yet committed are scored against HEAD's
// manifests). It says how rules written from older releases held on a release they were not
// written from. It is computed only for a folder inside this repository.
import { readFileSync, statSync, mkdtempSync, rmSync, realpathSync } from 'node:fs';
import { join, relative, resolve, dirname, sep } from 'node:path';
import { tmpdir } from 'node:os';
import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fixtureFiles, parseFixture, type Fixture } from '../core/detection/fixture.js';
import { loadManifests, findHarness, type ManifestSet } from '../core/detection/manifest.js';
import { classifyCapture, judge } from '../core/detection/rules/classify.js';
import { compareVersions } from '../core/detection/harness-version.js';
import { nullLogger } from '../core/log.js';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const GOAL_PERCENT = 95;
export const LOVO_MIN_VERSIONS = 3;

export interface Scored {
  file: string;
  harness: string;
  version: string;
  expected: string;
  got: string;
  rule: string | null;
  tier: string | null;
  right: boolean;
  falseNeedsInput: boolean;
  orderAssumed: boolean;
}

export interface Unreadable {
  file: string;
  reason: string;
}

export interface Row {
  harness: string;
  version: string;
  right: number;
  total: number;
  falseNeedsInput: number;
}

export interface Goal {
  harness: string;
  percent: number;
  falseNeedsInput: number;
  holds: boolean;
}

/** One version's captures scored with the manifests from before they were committed. */
export interface HeldOut {
  version: string;
  right: number;
  total: number;
  falseNeedsInput: number;
  /** The commit whose manifests scored it (the parent of `addedIn`, or HEAD). */
  base: string | null;
  addedIn: string | null;
  /** Another version's captures were committed first: the rules had not been written from these. */
  unseen: boolean;
  misses: Scored[];
  note: string | null;
}

/** A harness's newest version held out, and every older one that was captured after another. */
export interface LovoLine extends HeldOut {
  harness: string;
  versions: number;
  /** The older versions whose captures came after another version's (unseen), in release order. */
  heldOut: HeldOut[];
}


function expectedText(f: Fixture): string {
  if (f.expect.freeze) return 'freeze';
  return `${f.expect.state}${f.expect.kind ? ` (${f.expect.kind})` : ''}`;
}

/** Scores parsed fixtures against a manifest set. `name` is how a file is shown. */
export function scoreFixtures(fixtures: Array<{ file: string; f: Fixture }>, manifests: ManifestSet): Scored[] {
  return fixtures.map(({ file, f }) => {
    const m = findHarness(manifests, f.harness);
    const base = { file, harness: f.harness, version: f.program_version, expected: expectedText(f) };
    if (!m) return { ...base, got: 'no manifest', rule: null, tier: null, right: false, falseNeedsInput: false, orderAssumed: false };
    const c = classifyCapture(m.rules, { lines: f.lines, title: f.title, progress: f.progress });
    const j = judge(c, f.expect);
    return { ...base, got: j.got, rule: c.rule, tier: c.tier, right: j.right, falseNeedsInput: j.falseNeedsInput, orderAssumed: c.orderAssumed };
  });
}

export function readFixtures(files: string[], shownFrom: string): { fixtures: Array<{ file: string; f: Fixture }>; unreadable: Unreadable[] } {
  const fixtures: Array<{ file: string; f: Fixture }> = [];
  const unreadable: Unreadable[] = [];
  for (const p of files) {
    const file = relative(shownFrom, p) || p;
    try {
      if (statSync(p).size > 1024 * 1024) throw new Error('larger than 1 MiB');
      fixtures.push({ file, f: parseFixture(readFileSync(p, 'utf8'), file) });
    } catch (e) {
      unreadable.push({ file, reason: e instanceof Error ? e.message : String(e) });
    }
  }
  return { fixtures, unreadable };
}

/** Per harness and version (versions oldest first), and a total per harness. */
export function tabulate(scored: Scored[]): { rows: Row[]; totals: Row[] } {
  const by = new Map<string, Map<string, Row>>();
  for (const s of scored) {
    let h = by.get(s.harness);
    if (!h) by.set(s.harness, (h = new Map()));
    let r = h.get(s.version);
    if (!r) h.set(s.version, (r = { harness: s.harness, version: s.version, right: 0, total: 0, falseNeedsInput: 0 }));
    r.total++;
    if (s.right) r.right++;
    if (s.falseNeedsInput) r.falseNeedsInput++;
  }
  const rows: Row[] = [];
  const totals: Row[] = [];
  for (const harness of [...by.keys()].sort()) {
    const vs = [...by.get(harness)!.values()].sort((a, b) => compareVersions(a.version, b.version));
    rows.push(...vs);
    totals.push(vs.reduce((t, r) => ({ ...t, right: t.right + r.right, total: t.total + r.total, falseNeedsInput: t.falseNeedsInput + r.falseNeedsInput }), { harness, version: 'total', right: 0, total: 0, falseNeedsInput: 0 }));
  }
  return { rows, totals };
}

export function percent(right: number, total: number): number {
  return total === 0 ? 0 : (100 * right) / total;
}

export function goals(totals: Row[]): Goal[] {
  return totals.map((t) => {
    const p = percent(t.right, t.total);
    return { harness: t.harness, percent: p, falseNeedsInput: t.falseNeedsInput, holds: t.total > 0 && p >= GOAL_PERCENT && t.falseNeedsInput === 0 };
  });
}

function git(args: string[], cwd: string): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
}

/** The manifests folder as it was at `rev`, loaded; the temporary copy is removed. */
export function manifestsAt(repo: string, rev: string, manifestsPath = 'manifests'): ManifestSet {
  const tmp = mkdtempSync(join(tmpdir(), 'tuios-accuracy-'));
  try {
    const tar = execFileSync('git', ['archive', '--format=tar', rev, manifestsPath], { cwd: repo, maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
    execFileSync('tar', ['-x', '-C', tmp], { input: tar });
    return loadManifests(join(tmp, manifestsPath), null, nullLogger);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * The oldest commit that added any of `files`, under any name they had: the history of the folders
 * they are in is read once with renames detected (-M), so a capture moved into its version folder
 * keeps the commit that first brought it, and a move never passes for a new capture. A file whose
 * content changed beyond recognition in the move counts from the move. Null when none is
 * committed. (Not `git log --follow`: it guesses across files and takes a new capture for a copy of
 * an older version's.)
 */
export function firstAdded(repo: string, files: string[]): string | null {
  if (files.length === 0) return null;
  const dirs = [...new Set(files.map((f) => dirname(dirname(f))))];
  const out = git(['log', '--reverse', '-M', '--diff-filter=AR', '--name-status', '--format=C %H', '--', ...dirs], repo);
  const origin = new Map<string, string>(); // path now -> the commit that first added its content
  let commit = '';
  for (const line of out.split('\n')) {
    if (line.startsWith('C ')) commit = line.slice(2);
    else if (line.startsWith('A\t')) origin.set(line.slice(2), commit);
    else if (line.startsWith('R')) {
      const [, from, to] = line.split('\t');
      origin.set(to!, origin.get(from!) ?? commit);
      origin.delete(from!);
    }
  }
  // --reverse lists oldest first, so the first commit met among the files' origins is the oldest.
  const wanted = new Set(files.map((f) => origin.get(f)).filter((c): c is string => !!c));
  if (wanted.size === 0) return null;
  for (const line of out.split('\n')) if (line.startsWith('C ') && wanted.has(line.slice(2))) return line.slice(2);
  return null;
}

function isAncestor(repo: string, a: string, b: string): boolean {
  try {
    execFileSync('git', ['merge-base', '--is-ancestor', a, b], { cwd: repo, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * The leave-one-version-out lines. `fixtures` carry paths relative to `repo`; the manifests are
 * read from `manifestsPath` (relative to `repo`) at the commit before the newest version's
 * captures were first committed.
 */
export function leaveOneVersionOut(repo: string, fixtures: Array<{ file: string; f: Fixture }>, manifestsPath = 'manifests'): LovoLine[] {
  const byHarness = new Map<string, Array<{ file: string; f: Fixture }>>();
  for (const x of fixtures) {
    const l = byHarness.get(x.f.harness) ?? [];
    l.push(x);
    byHarness.set(x.f.harness, l);
  }
  const out: LovoLine[] = [];
  for (const harness of [...byHarness.keys()].sort()) {
    const all = byHarness.get(harness)!;
    const versions = [...new Set(all.map((x) => x.f.program_version))].sort(compareVersions);
    if (versions.length < LOVO_MIN_VERSIONS) continue;
    const newest = versions[versions.length - 1]!;
    const line: LovoLine = { harness, versions: versions.length, ...heldOut(repo, harness, all, newest, manifestsPath), heldOut: [] };
    for (const v of versions.slice(0, -1)) {
      const h = heldOut(repo, harness, all, v, manifestsPath);
      if (h.unseen) line.heldOut.push(h);
    }
    out.push(line);
  }
  return out;
}

/**
 * One version's captures against the manifests as they were just before those captures were first
 * committed (HEAD's when they are not committed yet). `unseen` is true when another version's
 * captures were committed before them: the rules then had been written from other releases, so the
 * score says how they hold on a release they were not written from.
 */
function heldOut(repo: string, harness: string, all: Array<{ file: string; f: Fixture }>, version: string, manifestsPath: string): HeldOut {
  const mine = all.filter((x) => x.f.program_version === version);
  const line: HeldOut = { version, right: 0, total: mine.length, falseNeedsInput: 0, base: null, addedIn: null, unseen: false, misses: [], note: null };
  let added: string | null = null;
  try {
    added = firstAdded(repo, mine.map((x) => x.file));
  } catch (e) {
    line.note = `git log failed: ${(e as Error).message.split('\n')[0]}`;
    return line;
  }
  if (added === null) {
    line.base = git(['rev-parse', 'HEAD'], repo).trim();
    line.note = 'its captures are not committed yet: scored against the manifests at HEAD';
  } else {
    line.addedIn = added;
    try {
      line.base = git(['rev-parse', `${line.addedIn}^`], repo).trim();
    } catch {
      line.note = `the commit that added its captures (${line.addedIn.slice(0, 10)}) has no parent: there were no manifests before`;
      return line;
    }
  }
  let set: ManifestSet;
  try {
    set = manifestsAt(repo, line.base!, manifestsPath);
  } catch (e) {
    line.note = `the manifests at ${line.base!.slice(0, 10)} cannot be read: ${(e as Error).message.split('\n')[0]}`;
    return line;
  }
  const failed = set.failures.filter((x) => x.file.endsWith(`${sep}${harness}.toml`));
  const notes: string[] = line.note ? [line.note] : [];
  if (failed.length) notes.push(`its manifest at ${line.base!.slice(0, 10)} does not load with today's loader: ${failed[0]!.reason}`);
  const before = findHarness(set, harness);
  const ruleCount = (before?.rules.screen?.rules.length ?? 0) + (before?.rules.title?.rules.length ?? 0);
  if (!failed.length && ruleCount === 0) notes.push(`${harness} had no screen or title rules then`);
  // Were any other version's captures in git before? If not, the rules were written from these.
  const others = all.filter((x) => x.f.program_version !== version).map((x) => x.file);
  try {
    const first = firstAdded(repo, others);
    line.unseen = first !== null && isAncestor(repo, first, line.base!);
  } catch {
    // no history for them: not earlier
  }
  if (!line.unseen) notes.push('no other version\'s captures were in git before these, so the rules were first written from them: this says nothing about a release they were not written from');
  line.note = notes.length ? notes.join('; ') : null;
  const scored = scoreFixtures(mine, set);
  line.right = scored.filter((s) => s.right).length;
  line.falseNeedsInput = scored.filter((s) => s.falseNeedsInput).length;
  line.misses = scored.filter((s) => !s.right);
  return line;
}

const pct = (r: number, t: number) => `${percent(r, t).toFixed(1)}%`;

export interface Report {
  dir: string;
  manifests: string;
  rows: Row[];
  totals: Row[];
  misses: Scored[];
  unreadable: Unreadable[];
  goals: Goal[];
  lovo: LovoLine[] | null;
  lovoNote: string | null;
  orderAssumed: string[];
}

/** The printed report. The table's lines are `harness version right/total percent% false_needs_input`. */
export function formatReport(r: Report): string {
  const lines: string[] = [];
  const count = r.totals.reduce((n, t) => n + t.total, 0);
  lines.push(`accuracy: ${count} captures in ${r.dir}, classified with the manifests in ${r.manifests}`);
  lines.push('');
  const hw = Math.max(12, ...r.rows.map((x) => x.harness.length)) + 2;
  const vw = Math.max(10, ...r.rows.map((x) => x.version.length)) + 2;
  lines.push(`${'harness'.padEnd(hw)}${'version'.padEnd(vw)}${'right/total'.padStart(11)}${'%'.padStart(8)}  false needs_input`);
  for (const t of r.totals) {
    for (const x of r.rows.filter((y) => y.harness === t.harness)) {
      lines.push(`${x.harness.padEnd(hw)}${x.version.padEnd(vw)}${`${x.right}/${x.total}`.padStart(11)}${pct(x.right, x.total).padStart(8)}  ${x.falseNeedsInput}`);
    }
    lines.push(`${t.harness.padEnd(hw)}${'total'.padEnd(vw)}${`${t.right}/${t.total}`.padStart(11)}${pct(t.right, t.total).padStart(8)}  ${t.falseNeedsInput}`);
  }
  if (r.totals.length === 0) lines.push('(no captures)');
  lines.push('');
  if (r.misses.length === 0) lines.push('misses: none');
  else {
    lines.push(`misses: ${r.misses.length}`);
    for (const m of r.misses) lines.push(`  ${m.file}  expected ${m.expected}  got ${m.got}  rule ${m.rule ?? 'none'}${m.tier ? ` (${m.tier})` : ''}${m.falseNeedsInput ? '  FALSE NEEDS_INPUT' : ''}`);
  }
  if (r.unreadable.length) {
    lines.push(`unreadable: ${r.unreadable.length} (not counted)`);
    for (const u of r.unreadable) lines.push(`  ${u.file}: ${u.reason}`);
  }
  if (r.orderAssumed.length) {
    lines.push(`decided by taking the title as later than the progress report: ${r.orderAssumed.length}`);
    for (const f of r.orderAssumed) lines.push(`  ${f}`);
  }
  lines.push('');
  lines.push(`goals: at least ${GOAL_PERCENT}% right per harness with captures, and 0 false needs_input`);
  for (const g of r.goals) lines.push(`  ${g.harness.padEnd(hw)}${`${g.percent.toFixed(1)}%`.padStart(7)}  ${g.falseNeedsInput} false needs_input  ${g.holds ? 'holds' : 'FAILS'}`);
  lines.push(`  ${r.goals.every((g) => g.holds) ? 'every goal holds' : `${r.goals.filter((g) => !g.holds).length} of ${r.goals.length} harnesses miss a goal`}`);
  lines.push('');
  lines.push(`leave-one-version-out (harnesses with captures from ${LOVO_MIN_VERSIONS} or more versions: the newest version against the manifests before its captures were committed, then each older version whose captures came after another version's):`);
  if (r.lovoNote) lines.push(`  ${r.lovoNote}`);
  else if (!r.lovo || r.lovo.length === 0) lines.push(`  no harness has captures from ${LOVO_MIN_VERSIONS} or more versions yet`);
  else {
    for (const l of r.lovo) {
      const at = l.base ? ` with the manifests at ${l.base.slice(0, 10)}${l.addedIn ? ` (before ${l.addedIn.slice(0, 10)} added its captures)` : ''}` : '';
      lines.push(`  ${l.harness} ${l.version} (newest of ${l.versions}): ${l.right}/${l.total} ${pct(l.right, l.total)} right${at}, ${l.falseNeedsInput} false needs_input${l.note ? `; ${l.note}` : ''}`);
      // The misses of a version the rules were first written from say nothing about generalising.
      if (l.unseen) for (const m of l.misses) lines.push(`    ${m.file}  expected ${m.expected}  got ${m.got}  rule ${m.rule ?? 'none'}`);
      for (const h of l.heldOut) {
        lines.push(`    also held out: ${h.version}: ${h.right}/${h.total} ${pct(h.right, h.total)} right with the manifests at ${h.base?.slice(0, 10) ?? '?'}${h.addedIn ? ` (before ${h.addedIn.slice(0, 10)} added its captures)` : ''}, ${h.falseNeedsInput} false needs_input${h.note ? `; ${h.note}` : ''}`);
      }
    }
  }
  return lines.join('\n') + '\n';
}

function insideRepo(dir: string, repo: string): boolean {
  try {
    const a = realpathSync(dir);
    const b = realpathSync(repo);
    return a === b || a.startsWith(b + sep);
  } catch {
    return false;
  }
}

export function buildReport(opts: { dir?: string; manifests?: string; repo?: string; lovo?: boolean }): Report {
  const repo = opts.repo ?? ROOT;
  const dir = resolve(opts.dir ?? join(repo, 'fixtures', 'screens'));
  const manifestsDir = resolve(opts.manifests ?? join(repo, 'manifests'));
  const set = loadManifests(manifestsDir, null, nullLogger);
  const shownFrom = insideRepo(dir, repo) ? repo : dir;
  const { fixtures, unreadable } = readFixtures(fixtureFiles(dir), shownFrom);
  const scored = scoreFixtures(fixtures, set);
  const { rows, totals } = tabulate(scored);
  let lovo: LovoLine[] | null = null;
  let lovoNote: string | null = null;
  if (opts.lovo === false) lovoNote = 'not computed (--no-lovo)';
  else if (!insideRepo(dir, repo)) lovoNote = `not computed: ${dir} is not inside the repository, whose history it needs`;
  else {
    const relManifests = relative(repo, manifestsDir);
    if (relManifests.startsWith('..')) lovoNote = 'not computed: the manifests folder is not inside the repository';
    else lovo = leaveOneVersionOut(repo, fixtures, relManifests || 'manifests');
  }
  return {
    dir: relative(process.cwd(), dir) || '.',
    manifests: relative(process.cwd(), manifestsDir) || '.',
    rows,
    totals,
    misses: scored.filter((s) => !s.right),
    unreadable,
    goals: goals(totals),
    lovo,
    lovoNote,
    orderAssumed: scored.filter((s) => s.orderAssumed).map((s) => s.file),
  };
}

const USAGE = 'usage: npm run accuracy -- [--dir DIR] [--manifests DIR] [--check] [--json] [--no-lovo]';

export function main(argv: string[]): number {
  const opts: { dir?: string; manifests?: string; lovo?: boolean } = {};
  let check = false;
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--dir') opts.dir = argv[++i];
    else if (a.startsWith('--dir=')) opts.dir = a.slice(6);
    else if (a === '--manifests') opts.manifests = argv[++i];
    else if (a.startsWith('--manifests=')) opts.manifests = a.slice(12);
    else if (a === '--check') check = true;
    else if (a === '--json') json = true;
    else if (a === '--no-lovo') opts.lovo = false;
    else if (a === '-h' || a === '--help') {
      process.stdout.write(USAGE + '\n');
      return 0;
    } else {
      process.stderr.write(`accuracy: unknown argument ${a}\n${USAGE}\n`);
      return 2;
    }
  }
  if ((opts.dir === undefined && argv.includes('--dir')) || (opts.manifests === undefined && argv.includes('--manifests'))) {
    process.stderr.write(`accuracy: --dir and --manifests take a folder\n${USAGE}\n`);
    return 2;
  }
  const r = buildReport(opts);
  process.stdout.write(json ? JSON.stringify(r, null, 2) + '\n' : formatReport(r));
  if (check && !r.goals.every((g) => g.holds)) return 1;
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = main(process.argv.slice(2));
}
