// A pane on another machine is identified from the process snapshots its host sends (core/hosts/
// hosted-procs.ts), through the detector's own tick. A snapshot read between fork and exec shows
// the daemon's child under its old name; once the program is exec'd in its place (same pid, group
// and start time, a new name), the next snapshot must identify it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { Bus } from '../../core/bus.js';
import { Model, type PaneStarter } from '../../core/model/model.js';
import { AgentStore } from '../../core/agent-state/store.js';
import { Detector } from '../../core/detection/detector.js';
import { loadManifests } from '../../core/detection/manifest.js';
import { procReader } from '../../core/detection/proc-reader.js';
import { snapshotReader, type ProcSnapshot } from '../../core/hosts/hosted-procs.js';
import type { WindowProcess } from '../../core/pty/window-process.js';
import { nullLogger } from '../../core/log.js';
import { ROOT } from '../helpers/daemon.js';

const starter: PaneStarter = {
  prepare: (_s, spec) => ({ name: spec.name ?? 'w', argv: ['claude'], startCwd: '/', cols: 80, rows: 24, scrollback: 10, isShell: false, env: {} }),
  start: () => {},
};

/** The pane's own process (pid 700) in the foreground, named `comm`, running `argv`. */
function snapshot(comm: string, argv: string[]): ProcSnapshot {
  return { pid: 700, tpgid: 700, leaderStart: 12345, procs: [{ pid: 700, ppid: 1, pgrp: 700, comm, argv, exe: null, cwd: '/home/u/project', agent: null, resolved: {} }] };
}

test('a remote leader exec\'d in place (same pid, group and start, a new name) is identified from the next snapshot', () => {
  const bus = new Bus();
  const model = new Model(bus, nullLogger, starter, '/');
  const store = new AgentStore({ bus, model, log: nullLogger, stallMs: 0 });
  const w = model.createWindow(model.createSession({ name: 's' }), { name: 'a' });
  let snap = snapshot('node', ['/usr/bin/node', '/opt/tuios/dist/daemon.js']);
  const remote: WindowProcess = {
    pid: null,
    ttyName: null,
    host: 'build',
    exitStatus: null,
    isPaused: false,
    onData() {},
    onExit() {},
    write() {},
    resize() {},
    pause() {},
    resume() {},
    kill() {},
    procView: () => ({ pid: snap.pid, tpgid: snap.tpgid, leaderStart: snap.leaderStart, reader: snapshotReader(snap) }),
  };
  w.attachProcess(remote, () => {});
  const manifests = loadManifests(join(ROOT, 'manifests'), null, nullLogger);
  const det = new Detector(model, store, () => manifests, { autodetect: true, intervalMs: 1000, extraBinaries: [] }, procReader, nullLogger);
  det.watch(w);
  det.tick(w);
  assert.is(store.harnessOf(w), null, 'the daemon\'s child before its exec is no agent');
  // The same process after exec: Claude Code.
  snap = snapshot('claude', ['/home/u/.local/bin/claude']);
  det.tick(w);
  assert.is(store.harnessOf(w), 'claude-code', 'identified from the snapshot after the exec');
  det.forget(w.id);
});

test.run();
