// scripts/accuracy.ts (npm run accuracy): its table over fixtures/screens parses and adds up, --dir
// scores a folder of captures and --check fails on a goal, and the leave-one-version-out figure
// reads the manifests from before the newest version's captures were committed (on a repository
// made here).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { formatFixture, type Fixture } from '../../core/detection/fixture.js';
import { buildReport, formatReport, leaveOneVersionOut, readFixtures, type LovoLine } from '../../scripts/accuracy.js';
import { ROOT } from '../helpers/daemon.js';

const SCRIPT = join(ROOT, 'scripts', 'accuracy.ts');
const run = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', SCRIPT, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });

/** `harness version right/total percent% false` */
const ROW = /^(\S+)\s+(\S+)\s+(\d+)\/(\d+)\s+(\d+\.\d)%\s+(\d+)$/;

interface Parsed {
  rows: Array<{ harness: string; version: string; right: number; total: number; pct: number; fni: number }>;
  misses: number;
  goals: Array<{ harness: string; holds: boolean }>;
}

function parseTable(out: string): Parsed {
  const lines = out.split('\n');
  const head = lines.findIndex((l) => /^harness\s+version\s+right\/total\s+%\s+false needs_input$/.test(l));
  assert.ok(head >= 0, `a table header in:\n${out}`);
  const rows: Parsed['rows'] = [];
  for (const l of lines.slice(head + 1)) {
    if (l === '') break;
    const m = ROW.exec(l);
    assert.ok(m, `a table row: ${JSON.stringify(l)}`);
    rows.push({ harness: m![1]!, version: m![2]!, right: Number(m![3]), total: Number(m![4]), pct: Number(m![5]), fni: Number(m![6]) });
  }
  const missLine = lines.find((l) => l.startsWith('misses: '));
  assert.ok(missLine, 'a misses line');
  const misses = missLine === 'misses: none' ? 0 : Number(missLine!.slice(8));
  const g = lines.findIndex((l) => l.startsWith('goals: '));
  const goals: Parsed['goals'] = [];
  for (const l of lines.slice(g + 1)) {
    const m = /^ {2}(\S+)\s+\d+\.\d%\s+\d+ false needs_input\s+(holds|FAILS)$/.exec(l);
    if (!m) break;
    goals.push({ harness: m[1]!, holds: m[2] === 'holds' });
  }
  return { rows, misses, goals };
}

function screens(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? screens(p) : n.endsWith('.screen') ? [p] : [];
  });
}

test('npm run accuracy over fixtures/screens: a table that parses and adds up, goals, the leave-one-version-out section', () => {
  const r = run([]);
  assert.is(r.status, 0, r.stderr);
  const t = parseTable(r.stdout);
  const totals = t.rows.filter((x) => x.version === 'total');
  const versions = t.rows.filter((x) => x.version !== 'total');
  const files = screens(join(ROOT, 'fixtures', 'screens'));
  assert.is(versions.reduce((n, x) => n + x.total, 0), files.length, 'every .screen counted once');
  for (const tot of totals) {
    const mine = versions.filter((x) => x.harness === tot.harness);
    assert.ok(mine.length > 0, `${tot.harness} has version rows`);
    assert.is(tot.total, mine.reduce((n, x) => n + x.total, 0), `${tot.harness} total`);
    assert.is(tot.right, mine.reduce((n, x) => n + x.right, 0), `${tot.harness} right`);
    assert.is(tot.fni, mine.reduce((n, x) => n + x.fni, 0), `${tot.harness} false needs_input`);
  }
  for (const x of t.rows) assert.ok(Math.abs(x.pct - (100 * x.right) / x.total) < 0.06, `${x.harness} ${x.version} percent`);
  const harnessDirs = readdirSync(join(ROOT, 'fixtures', 'screens')).filter((n) => screens(join(ROOT, 'fixtures', 'screens', n)).length > 0);
  assert.equal(totals.map((x) => x.harness).sort(), harnessDirs.sort(), 'a total line per harness with captures');
  assert.is(t.misses, versions.reduce((n, x) => n + x.total - x.right, 0), 'every miss listed');
  assert.equal(t.goals.map((g) => g.harness), totals.map((x) => x.harness), 'a goal line per harness');
  for (const g of t.goals) {
    const tot = totals.find((x) => x.harness === g.harness)!;
    assert.is(g.holds, tot.pct >= 95 && tot.fni === 0, `${g.harness} goal`);
  }
  assert.match(r.stdout, /^leave-one-version-out /m);
  // --check agrees with the goal lines.
  const c = run(['--check', '--no-lovo']);
  assert.is(c.status, t.goals.every((g) => g.holds) ? 0 : 1, c.stdout);
  // --json carries the same figures.
  const j = JSON.parse(run(['--json', '--no-lovo']).stdout) as { totals: Array<{ harness: string; right: number; total: number }> };
  assert.equal(j.totals.map((x) => [x.harness, x.right, x.total]), totals.map((x) => [x.harness, x.right, x.total]));
});

const fixture = (over: Partial<Fixture> & { lines: string[]; expect: Fixture['expect'] }): string =>
  formatFixture({ harness: 'claude-code', program_version: '9.9.9', provenance: 'measured', obtained: 'made by a test', cols: 80, rows: 24, title: '', extra: {}, ...over });

test('--dir scores a folder of captures; a false needs_input is listed and fails --check', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tuios-acc-'));
  try {
    writeFileSync(join(dir, 'plain.screen'), fixture({ lines: ['nothing an agent draws'], expect: { state: 'none' } }));
    // A paused progress report (4;4) reads as needs_input: expecting idle makes it a false needs_input.
    writeFileSync(join(dir, 'paused.screen'), fixture({ lines: ['nothing'], progress: '4;4', expect: { state: 'idle' } }));
    writeFileSync(join(dir, 'broken.screen'), 'no header here\n');
    const r = run(['--dir', dir]);
    assert.is(r.status, 0, 'a report exits 0 without --check');
    const t = parseTable(r.stdout);
    assert.equal(t.rows.map((x) => [x.harness, x.version, x.right, x.total, x.fni]), [
      ['claude-code', '9.9.9', 1, 2, 1],
      ['claude-code', 'total', 1, 2, 1],
    ]);
    assert.match(r.stdout, /paused\.screen {2}expected idle {2}got needs_input {2}rule osc-9;4 \(progress\) {2}FALSE NEEDS_INPUT/);
    assert.match(r.stdout, /unreadable: 1 \(not counted\)\n {2}broken\.screen: /);
    assert.equal(t.goals, [{ harness: 'claude-code', holds: false }]);
    assert.match(r.stdout, /not computed: .* is not inside the repository/);
    assert.is(run(['--dir', dir, '--check']).status, 1, '--check fails on the goal');
    assert.is(run(['--bogus']).status, 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** The report's leave-one-version-out text for one line. */
const formatLovo = (l: LovoLine) => {
  const empty = mkdtempSync(join(tmpdir(), 'tuios-lovo-empty-'));
  try {
    return formatReport({ ...buildReport({ dir: empty, lovo: false }), lovo: [l], lovoNote: null });
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
};

test('leave-one-version-out: the newest version against the manifests before its captures were committed', () => {
  const repo = mkdtempSync(join(tmpdir(), 'tuios-lovo-'));
  const git = (...a: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'commit.gpgsign=false', ...a], { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] }).toString();
  const manifest = (words: string[]) =>
    `id = "demo"\nname = "Demo"\n[screen]\nfold_case = true\n[[screen.rule]]\nid = "ask"\nstate = "needs_input"\nkind = "approval"\nany = [${words.map((w) => JSON.stringify(w)).join(', ')}]\n`;
  const write = (version: string, name: string, lines: string[], state: string) => {
    const d = join(repo, 'fixtures', 'screens', 'demo', version);
    mkdirSync(d, { recursive: true });
    writeFileSync(join(d, `${name}.screen`), fixture({ harness: 'demo', program_version: version, lines, expect: { state, ...(state === 'needs_input' ? { kind: 'approval' } : {}) } }));
  };
  try {
    git('init', '-q');
    mkdirSync(join(repo, 'manifests'));
    writeFileSync(join(repo, 'manifests', 'demo.toml'), manifest(['Allow?']));
    for (const v of ['1.0.0', '1.10.0']) {
      write(v, 'ask', ['Allow? yes/no'], 'needs_input');
      write(v, 'quiet', ['$ '], 'none');
    }
    git('add', '.');
    git('commit', '-qm', 'manifest and two versions');
    const before = git('rev-parse', 'HEAD').trim();
    // 2.0.0 words its prompt differently; its captures come first, the rule follows.
    write('2.0.0', 'ask', ['Permit? yes/no'], 'needs_input');
    write('2.0.0', 'quiet', ['$ '], 'none');
    git('add', 'fixtures');
    git('commit', '-qm', '2.0.0 captures');
    const added = git('rev-parse', 'HEAD').trim();
    writeFileSync(join(repo, 'manifests', 'demo.toml'), manifest(['Allow?', 'Permit?']));
    git('commit', '-qam', 'the rule learns 2.0.0');

    const r = buildReport({ repo });
    assert.equal(r.totals.map((x) => [x.harness, x.right, x.total]), [['demo', 6, 6]], 'today\'s manifests decide every version');
    assert.equal(r.rows.map((x) => x.version), ['1.0.0', '1.10.0', '2.0.0'], 'versions in release order');
    assert.is(r.lovo!.length, 1);
    const l = r.lovo![0]!;
    assert.equal([l.harness, l.version, l.versions, l.right, l.total, l.falseNeedsInput, l.base, l.addedIn], ['demo', '2.0.0', 3, 1, 2, 0, before, added]);
    assert.equal(l.misses.map((m) => [m.file, m.expected, m.got]), [['fixtures/screens/demo/2.0.0/ask.screen', 'needs_input (approval)', 'none']]);
    assert.is(l.note, null, 'older versions were captured first and the rules were there: nothing to add');
    assert.equal(l.heldOut, [], '1.0.0 and 1.10.0 came in one commit, the first: neither is held out');
    const text = formatReport(r);
    assert.match(text, new RegExp(`demo 2\\.0\\.0 \\(newest of 3\\): 1/2 50\\.0% right with the manifests at ${before.slice(0, 10)} \\(before ${added.slice(0, 10)} added its captures\\), 0 false needs_input`));

    // Moving the captures into another folder (as the pinned release's flat files were moved into
    // their version folder) keeps the commit that first brought them.
    git('mv', 'fixtures/screens/demo/2.0.0', 'fixtures/screens/demo/release-2.0.0');
    git('commit', '-qm', 'move 2.0.0 into a folder of its own');
    const moved = buildReport({ repo }).lovo![0]!;
    assert.equal([moved.version, moved.right, moved.total, moved.base, moved.addedIn], ['2.0.0', 1, 2, before, added], 'a move is not a new capture');
    // A newer version not committed yet is scored against HEAD's manifests.
    write('2.1.0', 'ask', ['Permit? yes/no'], 'needs_input');
    const r2 = buildReport({ repo });
    const l2 = r2.lovo![0]!;
    assert.equal([l2.version, l2.versions, l2.right, l2.total, l2.addedIn, l2.base], ['2.1.0', 4, 1, 1, null, git('rev-parse', 'HEAD').trim()]);
    assert.match(l2.note ?? '', /not committed yet/);
    // A newest version whose captures came first (the rules were written from them) says so.
    const first = join(repo, 'fixtures', 'screens', 'first');
    mkdirSync(first, { recursive: true });
    for (const [v, state] of [['3.0.0', 'needs_input'], ['1.0.0', 'none'], ['2.0.0', 'none']] as const) {
      writeFileSync(join(first, `${v}.screen`), fixture({ harness: 'demo', program_version: v, lines: state === 'none' ? ['$ '] : ['Permit?'], expect: { state, ...(state === 'none' ? {} : { kind: 'approval' }) } }));
      if (v === '3.0.0') {
        git('add', 'fixtures/screens/first');
        git('commit', '-qm', 'the newest first');
      }
    }
    const l3 = leaveOneVersionOut(repo, readFixtures([join(first, '3.0.0.screen'), join(first, '1.0.0.screen'), join(first, '2.0.0.screen')], repo).fixtures)[0]!;
    assert.equal([l3.version, l3.right, l3.total], ['3.0.0', 1, 1]);
    assert.match(l3.note ?? '', /no other version's captures were in git before these/);
    // The older versions captured after it are held out too: the rules had not been written from them.
    assert.equal(l3.heldOut.map((h) => [h.version, h.unseen, h.right, h.total]), [['1.0.0', true, 1, 1], ['2.0.0', true, 1, 1]]);
    assert.match(formatLovo(l3), /also held out: 1\.0\.0: 1\/1 100\.0% right/);
    // Fewer than three versions: no line.
    assert.equal(buildReport({ repo, dir: join(repo, 'fixtures', 'screens', 'demo', 'release-2.0.0') }).lovo, []);
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
});

test.run();
