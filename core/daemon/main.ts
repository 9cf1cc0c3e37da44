// The daemon's composition root: builds every service in order, listens on the socket, and
// tears everything down on kill-server or a signal. `tuios daemon` lands here.
import { existsSync, unlinkSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { resolvePaths, ensurePrivateDir, type Paths } from '../config/paths.js';
import { ConfigStore } from '../config/config.js';
import { FileLogger } from '../log.js';
import { Bus } from '../bus.js';
import { Model } from '../model/model.js';
import { PtyStarter } from '../pty/starter.js';
import { startHeapTrimmer } from './heap-trim.js';
import { startLoopDelay } from './loop-delay.js';
import { onReaderFailure } from '../pty/pty-reader.js';
import { SnapshotStore } from '../store/snapshot.js';
import { sweepTempFiles } from '../store/atomic.js';
import { hasProcfs, readStat } from '../pty/procfs.js';
import { Dispatcher } from '../rpc/dispatch.js';
import { RpcServer } from '../rpc/server.js';
import { allVerbs } from '../verbs/index.js';
import { acquireLock, socketAnswers } from './lock.js';
import { removeStateFile } from '../integrations/statusline/state-file.js';
import { spawnDaemon } from './spawn.js';
import { placementOf } from '../security/placement.js';
import type { Services } from './services.js';
import type { Caller } from '../rpc/caller.js';
import type { VerbDef } from '../rpc/verb.js';
import { VERSION } from '../version.js';
import { AgentStore } from '../agent-state/store.js';
import { watchPaneOsc } from '../detection/osc.js';
import { AfterStateHook } from '../integrations/hook-runner.js';
import { addWindowFields } from '../verbs/present.js';
import { loadManifests, findHarness } from '../detection/manifest.js';
import { Detector, type DetectorConfig } from '../detection/detector.js';
import { procReader } from '../detection/proc-reader.js';
import { ScreenTier } from '../detection/screen-tier.js';
import { PersonRegistry } from '../security/person.js';
import { Inbox } from '../inbox/inbox.js';
import { HoldRegistry } from '../inbox/holds.js';
import { offerResumes } from '../integrations/resume-offers.js';
import type { Window } from '../model/window.js';
import { MailStore } from '../mail/mail.js';
import { AskStore } from '../mail/ask.js';
import { PermissionsState, permissionsFrom } from '../security/permissions.js';
import { enforce } from '../security/access.js';
import { grantsOf, grantsText, parseGrants } from '../security/grants.js';
import { OpCache } from '../delivery/typing.js';
import { PasteFolder } from '../delivery/paste-folder.js';
import { StagedPastes } from '../delivery/paste-stage.js';
import { ReplyHistory } from '../delivery/reply-history.js';
import { DeliveryQueue } from '../delivery/queue.js';
import { packageRoot } from '../config/package-root.js';
import { installFleet } from '../git/fleet.js';
import { installPackStream } from '../git/pack-stream.js';
import { HostedPanes } from '../hosts/hosted-serve.js';
import { hostedPaneStream } from '../hosts/hosted-stream.js';
import { forwardCall, remoteTargetFor } from '../hosts/forward.js';
import { HOSTED_PANE_STREAM, HostedPane } from '../hosts/hosted-pane.js';
import { join } from 'node:path';
import type { Config } from '../config/schema.js';
import { StreamKinds } from '../hosts/streams.js';
import { CheckpointService } from '../git/checkpoint-service.js';
import { ReviewNotes } from '../review/notes.js';
import { ShipState } from '../git/ship-journal.js';
import { PrPoller } from '../git/pr-poll.js';
import { SHIP_PR_POLL_MS } from '../limits.js';
import { ActivityLog } from '../activity/log.js';
import { FanChecks } from '../activity/fan-checks.js';
import { AttachedClients } from './clients.js';

export interface DaemonArgs {
  foreground: boolean;
  server?: string;
}

export interface RunningDaemon {
  svc: Services;
  stopped: Promise<void>;
  /** Lines the extensions want printed at start (the SSH command to connect, ...). */
  banner: string[];
}

/**
 * A part of the daemon outside core (the SSH server, the link, the TUI): core imports none of
 * them; the entry point hands them to startDaemon, which starts each once the core is up.
 */
export interface DaemonExtension {
  name: string;
  verbs?: VerbDef[];
  start(svc: Services): Promise<ExtensionHandle | void>;
}

export interface ExtensionHandle {
  banner?: string[];
  dispose(): Promise<void> | void;
}

function say(line: string): void {
  process.stdout.write(line + '\n');
}

/** `tuios daemon`: foreground runs here; otherwise a detached child runs it and we wait for it. */
export async function daemonCommand(args: DaemonArgs, extensions: DaemonExtension[] = []): Promise<number> {
  const paths = resolvePaths(process.env, args.server);
  if (!args.foreground) return startDetached(paths, args);
  try {
    const d = await startDaemon(paths, extensions);
    say(`tuios ${VERSION} daemon (pid ${process.pid}) listening on ${paths.socket}`);
    for (const line of d.banner) say(line);
    say(`log: ${paths.logFile}`);
    await d.stopped;
    return 0;
  } catch (e) {
    process.stderr.write(`tuios daemon: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
}

async function startDetached(paths: Paths, args: DaemonArgs): Promise<number> {
  if (await socketAnswers(paths.socket)) {
    say(`a tuios daemon already answers on ${paths.socket}`);
    return 0;
  }
  const ok = await spawnDaemon(paths.socket, args.server);
  if (!ok) {
    process.stderr.write(`tuios daemon: it did not answer on ${paths.socket} in time; see ${paths.logFile}\n`);
    return 1;
  }
  say(`tuios daemon started; socket ${paths.socket}`);
  return 0;
}

/** Whether the process that named a temp file still runs (a zombie does not write). */
function writerRuns(pid: number): boolean {
  if (pid === process.pid) return true;
  if (!hasProcfs) {
    try {
      process.kill(pid, 0);
      return true;
    } catch (e) {
      return (e as NodeJS.ErrnoException).code === 'EPERM';
    }
  }
  const st = readStat(pid);
  return st !== null && st.state !== 'Z' && st.state !== 'X';
}

/** Builds and starts every service. Exported for tests that want a daemon in-process. */
export async function startDaemon(paths: Paths, extensions: DaemonExtension[] = []): Promise<RunningDaemon> {
  ensurePrivateDir(paths.runtimeDir);
  ensurePrivateDir(paths.stateDir);
  // Ownership the kernel releases when a daemon dies, zombie or not (core/daemon/lock.ts).
  const lock = await acquireLock(paths.socket);
  if (!lock.ok) throw new Error(`another tuios daemon owns ${paths.socket} (${lock.holder})`);
  const releaseLock = lock.release;
  if (existsSync(paths.socket)) {
    // We hold the lock, so a file there is left over from a daemon that died, unless a daemon
    // that never took this lock still answers on it (one from before this lock, or one in
    // another network namespace, which has its own abstract names): that one is left alone.
    if (await socketAnswers(paths.socket)) {
      await releaseLock();
      throw new Error(`another tuios daemon answers on ${paths.socket}`);
    }
    unlinkSync(paths.socket);
  }

  const log = new FileLogger(paths.logFile, process.env.TUIOS_LOG_LEVEL === 'debug' ? 'debug' : 'info', { pid: process.pid });
  onReaderFailure((why) => log.warn('panes read their terminals on the main thread', { why }));
  // A daemon killed while it wrote a file left its temp file (the file it replaced is whole).
  const torn = sweepTempFiles(paths.stateDir, writerRuns);
  if (torn.length) log.warn('removed temp files a killed writer left', { files: torn.slice(0, 32), count: torn.length });
  const config = new ConfigStore(paths.configFile, log);
  const first = config.load();
  if (first.error) process.stderr.write(`tuios: ${first.error} (using defaults)\n`);
  for (const w of first.warnings) process.stderr.write(`tuios: ${w}\n`);
  config.watch();

  const bus = new Bus(log);
  const activity = new ActivityLog(bus);
  const baseEnv = { ...process.env };
  const defaultCwd = baseEnv.HOME && existsSync(baseEnv.HOME) ? baseEnv.HOME : '/';

  let resolveStopped!: () => void;
  const stopped = new Promise<void>((r) => (resolveStopped = r));
  let stopping = false;

  // The model and the starter need each other (a started pane reports back to the model).
  let model!: Model;
  let agents!: AgentStore;
  let detector!: Detector;
  let tier!: ScreenTier;
  const starter = new PtyStarter({
    config: () => config.current,
    socket: paths.socket,
    explicitSocket: paths.socketExplicit,
    baseEnv,
    onExit: (w, st) => model.windowExited(w, st),
    // new-window --host: the process runs on a linked host, over its link.
    hosted: (spec) => HostedPane.open(svc.remote, spec),
    paneGrants: (w) => grantsText(grantsOf(w, permissions.current).grants),
    onStarted: (w) => {
      w.addScreenHooks({ onTitle: (t) => model.windowRetitled(w, t), onCwd: (uri) => (w.oscCwd = fileUriPath(uri)) });
      watchPaneOsc(w, agents, log, tier);
      activity.watch(w);
      detector.watch(w);
    },
  });
  model = new Model(bus, log, starter, defaultCwd);
  // The store asks the tier's last look before a stall demotion; the tier asks the detector for
  // its confirmation looks; the detector runs its looks through the tier. Each call comes from a
  // pane's output or a timer, after all three exist.
  agents = new AgentStore({ bus, model, log, stallMs: stallMs(process.env), lastLook: (w) => tier.lastLook(w) });
  const manifests = loadManifests(join(packageRoot(), 'manifests'), paths.userManifestsDir, log);
  tier = new ScreenTier(agents, () => manifests, (w) => detector.lookNow(w, undefined, true));
  detector = new Detector(model, agents, () => manifests, detectorConfig(config.current, process.env), procReader, log, tier);
  bus.on('window-closed', (ev) => {
    detector.forget(ev.window_id);
    tier.forget(ev.window_id);
    // The pane's status line throttle file, beside the socket, goes with it.
    removeStateFile(paths.socket, ev.window_id);
  });
  const snapshot = new SnapshotStore(paths.snapshotFile, model, bus, log);
  const person = new PersonRegistry();
  const permissions = new PermissionsState(permissionsFrom(config.current));
  config.onChange((c) => permissions.offer(permissionsFrom(c)));
  const inbox = new Inbox(bus, model, agents);
  const holds = new HoldRegistry(bus, inbox, log);
  const mail = new MailStore(bus, inbox);
  const asks = new AskStore(bus, inbox, mail, model);
  bus.on('session-closed', (ev) => mail.dropSession(ev.session_id));
  // The conversation a pane last ran survives a restart, for resuming it; its state does not.
  const resumable: Window[] = [];
  snapshot.registerWindowAttr('agent_session', {
    save: (w) => {
      const s = agents.sessionOf(w);
      // live: the agent still ran when this was saved, which is what a restart offers to resume.
      const live = agents.stateOf(w) !== 'none' || agents.harnessOf(w) !== null;
      return s.id ? { id: s.id, harness: s.harness, ...(live ? { live: true } : {}) } : undefined;
    },
    restore: (w, v) => {
      const r = v as { id?: unknown; harness?: unknown; live?: unknown };
      if (typeof r?.id === 'string') agents.setSession(w, r.id, typeof r.harness === 'string' ? r.harness : null);
      if (r?.live === true && typeof r.id === 'string') resumable.push(w);
    },
  });
  snapshot.registerWindowAttr('grants', {
    save: (w) => w.attrs.get('grants'),
    restore: (w, v) => {
      if (Array.isArray(v)) w.attrs.set('grants', parseGrants(v.map(String)));
    },
  });
  // The grants check reads where a caller runs (svc.placement), which needs the finished graph: a
  // call made before the services exist cannot happen (the socket listens after).
  // Paste blocks of large replies: files beside the socket, written when a reply is typed.
  const pastes = new PasteFolder(join(paths.runtimeDir, 'paste'), log).start();
  const queue = new DeliveryQueue({ bus, model, agents, manifests, config, inbox, mail, log, pastes, enforce: (caller, o) => enforce(svc, caller, o) });
  agents.addInfo((w) => ({ queued: queue.count(w) }));
  const fanChecks = new FanChecks(bus, model);
  const checkpoints = new CheckpointService({ bus, model, agents, config, log, cacheDir: join(paths.stateDir, 'checkpoints') });
  const reviews = new ReviewNotes(join(paths.stateDir, 'review', 'notes.json'), bus, log);
  const ship = new ShipState(join(paths.stateDir, 'ship'), log);
  const hook = new AfterStateHook(bus, model, log, () => ({ command: config.current.hooks.after_agent_state ?? null, timeoutMs: config.current.hooks.timeout_ms, on: config.current.hooks.after_agent_state_on, notifications: config.current.notifications, clients: svc.clients.list().length }), baseEnv);

  const svc: Services = {
    paths,
    config,
    log,
    bus,
    model,
    snapshot,
    agents,
    manifests,
    detector,
    person,
    inbox,
    holds,
    mail,
    asks,
    permissions,
    ops: new OpCache(),
    queue,
    pastes,
    pasteStage: new StagedPastes(),
    replyHistory: new ReplyHistory(),
    checkpoints,
    reviews,
    ship,
    activity,
    fanChecks,
    clients: new AttachedClients(),
    remote: null,
    linkStreams: new StreamKinds(),
    hostedPanes: new HostedPanes(),
    forward: { targetFor: (verb, params) => remoteTargetFor(svc, verb, params), call: (verb, target, params, caller, signal) => forwardCall(svc, verb, target, params, caller, signal) },
    endpoints: new Map(),
    harnessNames: (id: string) => findHarness(manifests, id)?.names ?? [],
    // The verbs run with these services and the services call verbs: the dispatcher is built
    // from them just below, and reached through this view, whose calls come after start-up.
    dispatcher: { list: () => dispatcher.list(), get: (name) => dispatcher.get(name), call: (...a) => dispatcher.call(...a) },
    bootId: randomBytes(8).toString('hex'),
    startedAt: Date.now(),
    baseEnv,
    placement: (c: Caller) => placementOf(c, { model, socket: paths.socket, daemonPid: process.pid }),
    callerPane: (c: Caller) => {
      const p = placementOf(c, { model, socket: paths.socket, daemonPid: process.pid });
      if (p.kind === 'pane') return p.window;
      if (p.kind === 'inside' && c.paneHint) return model.windows.get(c.paneHint) ?? null;
      if (p.kind === 'outside' && c.paneHint) return model.windows.get(c.paneHint) ?? null;
      return null;
    },
    shutdown: (reason: string) => void stop(reason),
  };
  addWindowFields(svc, (w) => ({ agent_state: agents.info(w), ...(w.attrs.has('grants') ? { grants: w.attrs.get('grants') } : {}) }));
  const fleet = installFleet(svc);
  // worktree pull HOST:SESSION from a linked host opens this stream here.
  const unregisterPacks = installPackStream(svc);
  // A window on a linked host whose process runs here (its new-window --host).
  const unregisterHosted = svc.linkStreams.register(HOSTED_PANE_STREAM, hostedPaneStream(svc.hostedPanes));
  const dispatcher = new Dispatcher(svc, [...allVerbs, ...extensions.flatMap((e) => e.verbs ?? [])], { checkResults: process.env.TUIOS_CHECK_RESULTS === '1' });

  const restored = snapshot.restore(defaultCwd);
  if (restored.sessions > 0) log.info('restored sessions', restored);
  const resumes = offerResumes(svc, resumable);
  reviews.load((id) => model.windows.has(id));
  // Open pull requests read again once a minute, only while a client is attached.
  const prPoll = new PrPoller({ bus, model, clients: svc.clients, log, intervalMs: Number(process.env.TUIOS_PR_POLL_MS) || SHIP_PR_POLL_MS });
  // A ship step the last daemon did not finish (killed mid-step): undone or kept, and said.
  await ship.recover();
  snapshot.start();

  detector.start();
  const heapTrim = startHeapTrimmer();
  const loopDelay = startLoopDelay();
  const rpc = new RpcServer(dispatcher, log);
  await rpc.listen(paths.socket);
  log.info('daemon started', { version: VERSION, socket: paths.socket });
  const handles: ExtensionHandle[] = [];
  const banner: string[] = [];
  for (const ext of extensions) {
    try {
      const h = await ext.start(svc);
      if (h) {
        handles.push(h);
        banner.push(...(h.banner ?? []));
      }
    } catch (e) {
      // A part that cannot start (a port in use) is logged; the daemon goes on without it.
      log.error('extension did not start', { extension: ext.name, error: e instanceof Error ? e.message : String(e) });
      banner.push(`${ext.name}: not started: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  async function stop(reason: string): Promise<void> {
    if (stopping) return;
    stopping = true;
    log.info('daemon stopping', { reason });
    // Processes on linked hosts are hung up while their links still carry the word.
    for (const w of model.windows.values()) if (w.host) w.kill();
    for (const h of handles.reverse()) {
      try {
        await h.dispose();
      } catch (e) {
        log.warn('extension did not stop cleanly', { error: String(e) });
      }
    }
    snapshot.dispose();
    snapshot.saveNow();
    hook.dispose();
    checkpoints.dispose();
    reviews.dispose();
    prPoll.dispose();
    activity.dispose();
    fanChecks.dispose();
    asks.dispose();
    queue.dispose();
    pastes.dispose();
    fleet.dispose();
    unregisterPacks();
    unregisterHosted();
    svc.hostedPanes.dispose();
    resumes.dispose();
    holds.dispose();
    inbox.dispose();
    detector.dispose();
    agents.dispose();
    await rpc.close();
    heapTrim.dispose();
    loopDelay.dispose();
    model.dispose();
    config.dispose();
    try {
      unlinkSync(paths.socket);
    } catch {
      // already gone
    }
    await releaseLock();
    resolveStopped();
  }

  const onSignal = (sig: NodeJS.Signals) => void stop(sig);
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  process.on('SIGPIPE', () => {});
  process.on('uncaughtException', (e) => {
    // Bad input must never take the daemon down; log it and go on.
    log.error('uncaught exception', { error: e instanceof Error ? e.stack : String(e) });
  });
  process.on('unhandledRejection', (e) => {
    log.error('unhandled rejection', { error: e instanceof Error ? e.stack : String(e) });
  });

  return { svc, stopped, banner };
}

/** [daemon] agent_autodetect / agent_detect_seconds / agent_binaries, and the env that stands in for them. */
function detectorConfig(c: Config, env: Record<string, string | undefined>): DetectorConfig {
  let autodetect = c.daemon.agent_autodetect;
  if (autodetect === undefined) {
    const e = (env.TUIOS_AGENT_AUTODETECT ?? '').toLowerCase();
    autodetect = !['0', 'false', 'no', 'off'].includes(e);
  }
  let secs = c.daemon.agent_detect_seconds;
  if (secs === undefined && env.TUIOS_AGENT_DETECT_SECONDS !== undefined) {
    const n = Number(env.TUIOS_AGENT_DETECT_SECONDS);
    secs = Number.isFinite(n) && n > 0 ? n : -1;
  }
  const intervalMs = secs === undefined || secs === 0 ? 2000 : secs < 0 ? 0 : Math.max(200, secs * 1000);
  const extra = (env.TUIOS_AGENT_BINARIES ?? '').split(',').map((x) => x.trim()).filter(Boolean);
  return { autodetect: autodetect && intervalMs > 0, intervalMs, extraBinaries: [...c.daemon.agent_binaries, ...extra] };
}

/** TUIOS_AGENT_STALL_SECONDS (default 30; 0 or less turns the stall heuristic off). */
function stallMs(env: Record<string, string | undefined>): number {
  const raw = env.TUIOS_AGENT_STALL_SECONDS;
  if (raw === undefined || raw === '') return 30_000;
  const n = Number(raw);
  return Number.isFinite(n) && n > 0 ? n * 1000 : 0;
}

function fileUriPath(uri: string): string | null {
  try {
    const u = new URL(uri);
    return u.protocol === 'file:' ? decodeURIComponent(u.pathname) : null;
  } catch {
    return null;
  }
}
