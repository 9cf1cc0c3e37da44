// The bundled manifests against what /proc showed for each real agent CLI installed from npm
// (fixtures/process/*.toml, measured): the pane's foreground group, read the way the daemon reads
// it, is attributed to the fixture's harness, and only to it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { identify, type ProcReader } from '../../core/detection/identify.js';
import { loadManifests, findHarness } from '../../core/detection/manifest.js';
import { nullLogger } from '../../core/log.js';
import { ROOT } from '../helpers/daemon.js';

const set = loadManifests(join(ROOT, 'manifests'), null, nullLogger);
const dir = join(ROOT, 'fixtures', 'process');

interface Proc {
  pid: number;
  ppid: number;
  pgid: number;
  comm: string;
  argv: string[];
  exe: string;
}

interface ProcessFixture {
  harness: string;
  program_version: string;
  provenance: string;
  foreground_leader: Proc;
  pane_shell: Proc;
  tree?: Proc[];
  /** Symlinks as they resolved on the capture machine (npm's node_modules/.bin links). */
  links?: Record<string, string>;
}

function reader(f: ProcessFixture): ProcReader {
  const all = [f.pane_shell, f.foreground_leader, ...(f.tree ?? [])];
  const by = new Map(all.map((p) => [p.pid, p]));
  return {
    info: (pid) => {
      const p = by.get(pid);
      return p ? { pid: p.pid, ppid: p.ppid, pgrp: p.pgid, comm: p.comm, argv: p.argv, exe: p.exe, cwd: '/home/u/project' } : null;
    },
    children: (pid) => all.filter((p) => p.ppid === pid).map((p) => p.pid),
    env: () => null,
    realpath: (path) => f.links?.[path] ?? path,
  };
}

const files = readdirSync(dir).filter((n) => n.endsWith('.toml')).sort();

test('there are measured process fixtures', () => {
  // Nine from full captures, five from --process-only starts (Qoder CLI's two bins, Amp, Grok CLI, Droid).
  assert.ok(files.length >= 14, `${files.length} fixtures`);
});

for (const name of files) {
  const f = parse(readFileSync(join(dir, name), 'utf8')) as unknown as ProcessFixture;
  test(`${name}: ${f.harness} ${f.program_version} as /proc showed it is attributed to ${f.harness}`, () => {
    assert.is(f.provenance, 'measured');
    const v = identify(f.foreground_leader.pgid, f.pane_shell.pid, reader(f), { manifests: set.list, extraBinaries: [], findByName: (n) => findHarness(set, n) });
    assert.is(v.kind, 'agent', JSON.stringify(v));
    assert.is((v as { harness: string }).harness, f.harness);
  });
}

test.run();
