// A daemon in the test's own process, for the tests (and benchmarks) that reach inside it: a TUI
// made to fail on purpose, panes fed through Window.feed, a frame's cost measured around the
// frame. Its folders are fresh temp ones (XDG runtime, config, state, and a HOME), and they are
// set in process.env for as long as it runs, with SHELL=/bin/sh: the daemon takes its panes'
// environment from process.env when it starts, and a few parts (git, the integrations) read it
// later. stop() shuts it down, puts process.env back and removes the folders.
import { mkdtempSync, mkdirSync, chmodSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon, type DaemonExtension, type RunningDaemon } from '../../core/daemon/main.js';
import { resolvePaths, type Paths } from '../../core/config/paths.js';

export interface InProcessDaemonOptions {
  /** The parts outside core to run (the TUI, the SSH server, ...). */
  extensions: DaemonExtension[];
  /** config.toml's text (none: the defaults). */
  config?: string;
  /** More files in the config folder (tuios/), written 0600: authorized_keys, ... */
  configFiles?: Record<string, string>;
}

export interface InProcessDaemon {
  daemon: RunningDaemon;
  svc: RunningDaemon['svc'];
  /** The temp folder everything is under. */
  dir: string;
  paths: Paths;
  /** Shuts the daemon down, restores process.env and removes the folders. */
  stop(): Promise<void>;
}

export async function startInProcessDaemon(o: InProcessDaemonOptions): Promise<InProcessDaemon> {
  const dir = mkdtempSync(join(tmpdir(), 'tuios-test-inproc-'));
  const env = {
    HOME: join(dir, 'home'),
    XDG_RUNTIME_DIR: join(dir, 'run'),
    XDG_CONFIG_HOME: join(dir, 'config'),
    XDG_STATE_HOME: join(dir, 'state'),
    SHELL: '/bin/sh',
    // Every result is checked against its verb's result schema (core/rpc/dispatch.ts).
    TUIOS_CHECK_RESULTS: '1',
  };
  const configDir = join(env.XDG_CONFIG_HOME, 'tuios');
  for (const d of [env.HOME, env.XDG_RUNTIME_DIR, configDir, env.XDG_STATE_HOME]) mkdirSync(d, { recursive: true });
  chmodSync(env.XDG_RUNTIME_DIR, 0o700);
  if (o.config !== undefined) writeFileSync(join(configDir, 'config.toml'), o.config);
  for (const [name, text] of Object.entries(o.configFiles ?? {})) writeFileSync(join(configDir, name), text, { mode: 0o600 });

  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  const restoreEnv = () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  Object.assign(process.env, env);
  const paths = resolvePaths(env);
  let daemon: RunningDaemon;
  try {
    daemon = await startDaemon(paths, o.extensions);
  } catch (e) {
    restoreEnv();
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  let stopped = false;
  return {
    daemon,
    svc: daemon.svc,
    dir,
    paths,
    async stop() {
      if (stopped) return;
      stopped = true;
      daemon.svc.shutdown('tests done');
      await daemon.stopped;
      restoreEnv();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
