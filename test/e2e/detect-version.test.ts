// The running harness's release, read from the package.json beside its entry point, and whether
// its manifest's rules were captured from that range: list-agents --json, explain-agent-detect and
// tuios doctor agents say so. Stand-ins laid out the way npm installs Claude Code: a copy of sleep
// as .../node_modules/@anthropic-ai/claude-code/bin/claude.exe (the native build) and a node
// script as .../cli.js (the JS build), each with its package.json.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, writeFileSync, copyFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { TestDaemon, ROOT } from '../helpers/daemon.js';
import { waitRow, type AgentRow } from '../helpers/agent-state.js';
import { loadManifests } from '../../core/detection/manifest.js';
import { compareVersions } from '../../core/detection/harness-version.js';
import { nullLogger } from '../../core/log.js';

interface Row extends AgentRow {
  identity: string;
  harness_version: string | null;
  version_covered: boolean | null;
}

interface Explain {
  verdict: string;
  harness: string;
  version: { harness_version: string | null; version_covered: boolean | null; read_from: string | null; captured_versions: string[] | null; note: string } | null;
  agent_state: { harness_version: string | null; version_covered: boolean | null };
  text: string;
}

const captured = [...(loadManifests(join(ROOT, 'manifests'), null, nullLogger).byId.get('claude-code')!.captured_versions ?? [])].sort(compareVersions);
const newest = captured[captured.length - 1]!;
/** One past the newest captured release. */
const NEWER = newest.replace(/^(\d+)\..*$/, (_, major: string) => `${Number(major) + 1}.0.0`);

let d: TestDaemon;
const panes: Record<string, string> = {};

/** A fake npm install of Claude Code at `dir`, with `version` in its package.json. */
function install(dir: string, version: string | null): string {
  const pkg = join(dir, 'lib', 'node_modules', '@anthropic-ai', 'claude-code');
  mkdirSync(join(pkg, 'bin'), { recursive: true });
  if (version !== null) writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: '@anthropic-ai/claude-code', version }, null, 2));
  copyFileSync('/usr/bin/sleep', join(pkg, 'bin', 'claude.exe'));
  chmodSync(join(pkg, 'bin', 'claude.exe'), 0o755);
  writeFileSync(join(pkg, 'cli.js'), 'setInterval(() => {}, 1000);\n');
  return pkg;
}

const row = (name: string, want: (r: Row) => boolean = (r) => r.harness_id === 'claude-code') =>
  waitRow(d, panes[name]!, (r) => want(r as Row), { timeout: 20_000, what: `${name} attributed to claude-code` }) as Promise<Row>;

test.before(async () => {
  d = await TestDaemon.start({ env: { TUIOS_AGENT_DETECT_SECONDS: '0.3' } });
  await d.ok(['new-session', 'ver']);
  const open = async (name: string, ...argv: string[]) => (panes[name] = (await d.ok(['new-window', '-s', 'ver', name, ...argv])).trim());
  await open('newer', join(install(join(d.dir, 'newer'), NEWER), 'bin', 'claude.exe'), '600');
  await open('older-js', process.execPath, join(install(join(d.dir, 'older'), '0.1.0'), 'cli.js'));
  await open('pinned', join(install(join(d.dir, 'pinned'), newest), 'bin', 'claude.exe'), '600');
  await open('unread', join(install(join(d.dir, 'unread'), null), 'bin', 'claude.exe'), '600');
});

test.after(async () => {
  await d.stop();
});

test(`list-agents --json: a release newer than the captured ones (${NEWER} > ${newest}) is version_covered false`, async () => {
  await row('newer');
  const agents = (await d.json<{ agents: Row[] }>(['list-agents'])).agents;
  const r = agents.find((a) => a.window_id === panes.newer)!;
  assert.equal([r.harness_id, r.identity, r.harness_version, r.version_covered], ['claude-code', 'manifest', NEWER, false]);
  console.log(`[tuios-test-note] list-agents --json row of the newer pane: ${JSON.stringify({ window_id: r.window_id, name: r.name, harness_id: r.harness_id, identity: r.identity, state: r.state, harness_version: r.harness_version, version_covered: r.version_covered })}`);
});

test('explain-agent-detect: the release, where it was read, the captured range and the verdict in words', async () => {
  const e = await d.json<Explain>(['explain-agent-detect', '-w', panes.newer!]);
  assert.is(e.harness, 'claude-code');
  assert.equal([e.version?.harness_version, e.version?.version_covered, e.version?.captured_versions], [NEWER, false, captured]);
  assert.match(e.version!.read_from ?? '', /^package\.json .*\/node_modules\/@anthropic-ai\/claude-code\/package\.json$/);
  assert.match(e.version!.note, new RegExp(`Claude Code ${NEWER.replace(/\./g, '\\.')} is newer than the newest version its rules were captured from`));
  assert.equal([e.agent_state.harness_version, e.agent_state.version_covered], [NEWER, false]);
  assert.match(e.text, /\nversion: Claude Code .* is newer than the newest version .*\(read from package\.json /);
});

test('an interpreter\'s script: node .../claude-code/cli.js older than the captured ones is not covered', async () => {
  const r = await row('older-js');
  assert.equal([r.harness_version, r.version_covered], ['0.1.0', false]);
  const e = await d.json<Explain>(['explain-agent-detect', '-w', panes['older-js']!]);
  assert.match(e.version!.note, /is older than the oldest version its rules were captured from/);
  assert.match(e.version!.read_from!, /\/older\/lib\/node_modules\/@anthropic-ai\/claude-code\/package\.json$/, 'the script\'s package, never node\'s own release');
});

test('a captured release is covered; a package with no package.json is unknown (null)', async () => {
  const p = await row('pinned');
  assert.equal([p.harness_version, p.version_covered], [newest, true]);
  const u = await row('unread');
  assert.equal([u.harness_version, u.version_covered], [null, null]);
  const e = await d.json<Explain>(['explain-agent-detect', '-w', panes.unread!]);
  assert.match(e.version!.note, /cannot be read/);
});

test('tuios doctor agents names the panes outside the captured range', async () => {
  const j = JSON.parse(await d.ok(['doctor', 'agents', '--json'])) as { panes_uncovered: Array<{ window_id: string; harness: string; harness_version: string; note: string }> };
  assert.equal(j.panes_uncovered.map((p) => [p.window_id, p.harness_version]).sort(), [[panes.newer, NEWER], [panes['older-js'], '0.1.0']].sort());
  const text = await d.ok(['doctor', 'agents']);
  assert.match(text, new RegExp(`pane newer \\(ver\\): Claude Code ${NEWER.replace(/\./g, '\\.')} is newer than the newest version its rules were captured from`));
  assert.match(text, /pane older-js \(ver\): Claude Code 0\.1\.0 is older than the oldest/);
});

test.run();
