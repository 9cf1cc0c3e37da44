// Gives a new window its process: fills in the defaults (shell, folder, size, scrollback), builds
// the pane environment and spawns it under node-pty.
import { basename } from 'node:path';
import type { NewWindowSpec, PaneStarter, Session } from '../model/model.js';
import type { Window } from '../model/window.js';
import type { ExitStatus, WindowProcess } from './window-process.js';
import { PaneProcess } from './pane-process.js';
import { buildPaneEnv, herdrVarsWanted, resolvePaneTerm } from './env.js';
import type { Config } from '../config/schema.js';
import { DEFAULT_COLS, DEFAULT_ROWS } from '../limits.js';
import { TuiosError } from '../errors.js';

export interface HostedSpec {
  host: string;
  /** The window's id here: the pane's TUIOS_PANE_ID there. */
  windowId: string;
  /** Empty: the host's shell for the user. */
  argv: string[];
  /** A folder on the host; null: the user's home there. */
  cwd: string | null;
  cols: number;
  rows: number;
  env: Record<string, string>;
  /** The client's TERM; the host keeps it when it has a terminfo entry for it. */
  term: string | undefined;
}

export interface StarterDeps {
  config(): Config;
  socket: string;
  explicitSocket: boolean;
  baseEnv: Record<string, string | undefined>;
  onExit(w: Window, s: ExitStatus): void;
  /** A process on a linked host for a window here (new-window --host); absent: refused. */
  hosted?(spec: HostedSpec): WindowProcess;
  /** Services that watch every window (title events, agent readers) hook in here. */
  onStarted(w: Window, s: Session): void;
  /** Extra identity the pane env carries (grants), decided by core/security. */
  paneGrants?(w: Window, s: Session): string | undefined;
}

export class PtyStarter implements PaneStarter {
  constructor(private readonly deps: StarterDeps) {}

  userShell(): string {
    return this.deps.config().daemon.shell || this.deps.baseEnv.SHELL || '/bin/sh';
  }

  prepare(session: Session, spec: NewWindowSpec) {
    if (spec.host) {
      // The host runs its own shell when no command is given, in its own folder when none is named.
      const argv = spec.argv ?? [];
      return {
        name: spec.name ?? (argv[0] ? basename(argv[0]) : spec.host),
        argv,
        startCwd: spec.cwd ?? '~',
        cols: spec.cols ?? DEFAULT_COLS,
        rows: spec.rows ?? DEFAULT_ROWS,
        scrollback: this.deps.config().daemon.scrollback,
        isShell: argv.length === 0,
        env: spec.env ?? {},
        host: spec.host,
      };
    }
    const isShell = !spec.argv || spec.argv.length === 0;
    const argv = isShell ? [this.userShell()] : spec.argv!;
    return {
      name: spec.name ?? basename(argv[0]!),
      argv,
      startCwd: spec.cwd ?? session.cwd,
      cols: spec.cols ?? DEFAULT_COLS,
      rows: spec.rows ?? DEFAULT_ROWS,
      scrollback: this.deps.config().daemon.scrollback,
      isShell,
      env: spec.env ?? {},
    };
  }

  start(w: Window, session: Session, extraEnv: Record<string, string>): void {
    if (w.host) {
      if (!this.deps.hosted) throw new TuiosError('unsupported', 'This daemon cannot run a window\'s process on another machine.');
      const p = this.deps.hosted({ host: w.host, windowId: w.id, argv: w.argv, cwd: w.startCwd === '~' ? null : w.startCwd, cols: w.cols, rows: w.rows, env: extraEnv, term: session.term });
      w.attachProcess(p, (win, st) => this.deps.onExit(win, st));
      this.deps.onStarted(w, session);
      return;
    }
    const term = resolvePaneTerm(session.term, this.deps.baseEnv);
    const env = buildPaneEnv(
      this.deps.baseEnv,
      extraEnv,
      {
        socket: this.deps.socket,
        explicitSocket: this.deps.explicitSocket,
        windowId: w.id,
        sessionName: session.name,
        sessionId: session.id,
        // herdr's tab: the number of the tab the pane starts on (core/model/tabs.ts).
        workspace: session.tabs.numberOf(w.workspace) ?? w.workspace,
        paneToken: w.paneToken,
        herdr: herdrVarsWanted(this.deps.config().agents.herdr_protocol, w.argv, w.isShell),
        grants: this.deps.paneGrants?.(w, session),
      },
      term,
    );
    const p = PaneProcess.spawn({ argv: w.argv, cwd: w.startCwd, cols: w.cols, rows: w.rows, env, term });
    w.attachProcess(p, (win, st) => this.deps.onExit(win, st));
    this.deps.onStarted(w, session);
  }
}
