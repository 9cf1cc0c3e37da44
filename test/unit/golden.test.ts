// The golden suite: every captured (or derived) screen under fixtures/screens runs through the
// engine and must decide exactly its expected state, every captured notification
// (fixtures/screens/<harness>/notifications-*.json) runs through the harness's notify rules and
// must decide its expected state, and every bundled screen, title and notify rule must decide at
// least one fixture. A rule no fixture justifies is a rule written against an imagined screen
// (ADR-0046, Tradeoffs), and this is where it fails loudly. Every observed-*.json (the titles,
// progress reports and notifications a capture run saw) must say where it came from as a screen
// does (program_version, provenance, obtained) and agree with the screens of its run.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fixtureFiles, parseFixture, type Fixture } from '../../core/detection/fixture.js';
import { loadManifests, findHarness } from '../../core/detection/manifest.js';
import { decideLook } from '../../core/detection/rules/look.js';
import { evaluateNotify, evaluateTitle } from '../../core/detection/rules/evaluate.js';
import { nullLogger } from '../../core/log.js';
import { ROOT } from '../helpers/daemon.js';

const manifests = loadManifests(join(ROOT, 'manifests'), null, nullLogger);
const dir = join(ROOT, 'fixtures', 'screens');


const files = fixtureFiles(dir).sort();
const fixtures: Array<{ file: string; f: Fixture }> = files.map((file) => ({ file: relative(ROOT, file), f: parseFixture(readFileSync(file, 'utf8'), file) }));
/** Rules that decided at least one fixture, by `harness/rule-id`. */
const decidedBy = new Set<string>();

test('the bundled manifests load without a failure', () => {
  assert.equal(manifests.failures, []);
});

for (const { file, f } of fixtures) {
  test(`${file} decides ${f.expect.state}${f.expect.kind ? ` (${f.expect.kind})` : ''}`, () => {
    // fixtures/screens/<harness>/[<version>/]<name>.screen
    const [harness, version] = file.split('/').slice(2, -1);
    assert.is(f.harness, harness, 'harness is the folder it sits in');
    if (version !== undefined) assert.is(f.program_version, version, 'program_version is the version folder it sits in');
    const m = findHarness(manifests, f.harness);
    assert.ok(m, `a manifest for ${f.harness}`);
    assert.ok(f.provenance === 'measured' || f.provenance === 'derived');
    assert.ok(f.obtained.length > 0, 'the fixture says how it was obtained');
    const d = decideLook(m!.rules, f.lines, f.title);
    if (d.decided?.rule) decidedBy.add(`${m!.id}/${d.decided.rule.id}`);
    // Both tiers are credited when they agree with the look: each is applied as its own claim.
    for (const v of [d.applyScreen, d.applyTitle]) {
      if (v && v !== 'keep' && v.rule && v.state === d.decided?.state) decidedBy.add(`${m!.id}/${v.rule.id}`);
    }
    if (d.freeze && d.screen?.verdict.rule) decidedBy.add(`${m!.id}/${d.screen.verdict.rule.id}`);
    if (f.progress && m!.rules.title) {
      const p = evaluateTitle(m!.rules.title, f.progress, 'osc_progress').verdict;
      if (p.rule) decidedBy.add(`${m!.id}/${p.rule.id}`);
    }
    if (f.expect.freeze) {
      assert.ok(d.freeze, 'a skip-state rule freezes the state');
      return;
    }
    const got = d.decided?.state ?? 'none';
    assert.is(got, f.expect.state, `state (rule ${d.decided?.rule?.id ?? 'none'})`);
    if (f.expect.kind !== undefined) assert.is(d.decided?.kind ?? '', f.expect.kind, 'kind');
    if (f.expect.message !== undefined) assert.is(d.decided?.message ?? '', f.expect.message, 'message');
  });
}

/** A notifications-<cols>x<rows>.json file: what `scripts/capture-agents.ts --notify-only` wrote. */
interface NotificationFixture {
  harness: string;
  program_version: string;
  provenance: string;
  obtained: string;
  config: string;
  notifications: Array<{ osc: number; title: string; body: string; during: string; screen: string[]; expect: { state: string; kind?: string } | null }>;
}

const notificationFiles = fixtureFiles(dir, (n) => /^notifications-.*\.json$/.test(n)).sort();

test('the captured notifications are there for every harness whose manifest has notify rules', () => {
  const have = new Set(notificationFiles.map((f) => (JSON.parse(readFileSync(f, 'utf8')) as NotificationFixture).harness));
  const missing = manifests.list.filter((m) => m.rules.notify?.rules.length && !have.has(m.id)).map((m) => m.id);
  assert.equal(missing, [], 'a manifest with notify rules and no captured notification');
});

for (const file of notificationFiles) {
  const doc = JSON.parse(readFileSync(file, 'utf8')) as NotificationFixture;
  const rel = relative(ROOT, file);
  test(`${rel}: says where it came from`, () => {
    assert.ok(doc.provenance === 'measured', 'a notification is only ever measured');
    assert.ok(doc.program_version, 'program_version');
    assert.ok(doc.obtained.length > 0, 'obtained');
    assert.ok(doc.config.length > 0, 'the notification setting the harness ran with');
    assert.ok(doc.notifications.length > 0, 'at least one notification');
  });
  doc.notifications.forEach((n, i) => {
    test(`${rel} #${i} (${n.during}) ${JSON.stringify(n.body).slice(0, 60)} decides ${n.expect?.state ?? '(no expectation)'}${n.expect?.kind ? ` (${n.expect.kind})` : ''}`, () => {
      assert.ok(n.expect, 'every captured notification says what it must decide');
      assert.ok([9, 777, 99].includes(n.osc), 'osc');
      assert.ok(n.screen.length > 0, 'the screen when it arrived');
      const m = findHarness(manifests, doc.harness);
      assert.ok(m, `a manifest for ${doc.harness}`);
      const block = m!.rules.notify;
      const v = block?.enabled ? evaluateNotify(block, n.title, n.body).verdict : null;
      if (v?.rule) decidedBy.add(`${m!.id}/${v.rule.id}`);
      assert.is(v?.state ?? 'none', n.expect!.state, `state (rule ${v?.rule?.id ?? 'none'})`);
      if (n.expect!.kind !== undefined) assert.is(v?.kind ?? '', n.expect!.kind, 'kind');
    });
  });
}

/**
 * An observed-<cols>x<rows>.json file: every distinct title, OSC 9;4 report and notification the
 * pane produced during the run that captured the folder's screens of that size. It carries its
 * provenance the way a screen does: harness, program_version, provenance, obtained.
 */
interface ObservedFixture {
  harness: string;
  program_version: string;
  provenance: string;
  obtained: string;
  size: string;
  titles: string[];
  osc_progress: string[];
  notifications: Array<{ title: string; body: string; osc: number; during: string }>;
}

const observedFiles = fixtureFiles(dir, (n) => /^observed-.*\.json$/.test(n)).sort();

test('there are observed files', () => {
  assert.ok(observedFiles.length > 0, 'no fixtures/screens/<harness>/observed-*.json');
});

for (const file of observedFiles) {
  const doc = JSON.parse(readFileSync(file, 'utf8')) as ObservedFixture;
  const rel = relative(ROOT, file);
  test(`${rel}: ${doc.provenance ?? 'NO PROVENANCE'}, says where it came from`, () => {
    // fixtures/screens/<harness>/[<version>/]observed-<size>.json
    const [harness, version] = rel.split('/').slice(2, -1);
    assert.is(doc.harness, harness, 'harness is the folder it sits in');
    assert.ok(typeof doc.program_version === 'string' && doc.program_version.length > 0, 'program_version');
    if (version !== undefined) assert.is(doc.program_version, version, 'program_version is the version folder it sits in');
    assert.is(doc.provenance, 'measured', 'provenance: an observation is only ever measured');
    assert.ok(typeof doc.obtained === 'string' && doc.obtained.startsWith('measured '), 'obtained: when and how it was captured, starting "measured <date>"');
    assert.is(`observed-${doc.size}.json`, rel.split('/').at(-1), 'size is the one in its name');
    assert.ok(Array.isArray(doc.titles) && Array.isArray(doc.osc_progress) && Array.isArray(doc.notifications), 'titles, osc_progress, notifications');
    // The same run as the folder's screens of its size (first-run dialogs come from runs of their own).
    // Only the screens in its own folder: a harness folder's flat files and its version folders are different runs.
    const folder = rel.split('/').slice(0, -1).join('/');
    const screens = fixtures.filter((x) => x.file.split('/').slice(0, -1).join('/') === folder && x.file.endsWith(`-${doc.size}.screen`) && !x.file.split('/').at(-1)!.startsWith('first-run-'));
    assert.ok(screens.length > 0, `screens of ${doc.size} beside it`);
    for (const { file: s, f } of screens) {
      assert.is(f.program_version, doc.program_version, `${s}: the same program version`);
      assert.ok(doc.titles.includes(f.title), `${s}: its title ${JSON.stringify(f.title)} is among the observed titles`);
    }
  });
}

test('every bundled screen, title and notify rule decides at least one fixture', () => {
  const undecided: string[] = [];
  for (const m of manifests.list) {
    for (const block of [m.rules.screen, m.rules.title, m.rules.notify]) {
      for (const r of block?.rules ?? []) if (!decidedBy.has(`${m.id}/${r.id}`)) undecided.push(`${m.id}/${r.id}`);
    }
  }
  assert.equal(undecided, [], 'rules with no fixture that they decide must be deleted, not kept');
});

test.run();
