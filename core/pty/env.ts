// The environment a pane starts with (spec: Environment, What a pane says its terminal is).
import { existsSync, lstatSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { TUIOS_BIN } from '../self.js';

export interface PaneIdentity {
  socket: string;
  /** Set when the daemon runs on a socket named by --server, so `tuios` in the pane reaches it. */
  explicitSocket: boolean;
  windowId: string;
  sessionName: string;
  paneToken: string;
  grants?: string;
  /** Whether the pane gets herdr's variables (herdrVarsWanted); absent: it does. */
  herdr?: boolean;
  /** The window's session id and the tab number of the workspace it starts on: the pane's herdr ids. */
  sessionId: string;
  workspace: number;
}

// herdr's ids for a session, a workspace and a window (spec: How tuios maps onto herdr), here so
// the pane's HERDR_* variables and the herdr socket (herdr/ids.ts) read one definition.
export function herdrWorkspaceId(sessionId: string): string {
  return `w${sessionId.slice(0, 12)}`;
}

export function herdrTabId(sessionId: string, tab: number): string {
  return `${herdrWorkspaceId(sessionId)}:t${tab}`;
}

/** The link named `herdr` to tuios that the daemon makes beside its socket (herdr/index.ts). */
/** Whether `p` is a symlink that leads somewhere (the daemon's herdr link, made at start). */
function isLink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink() && existsSync(p);
  } catch {
    return false;
  }
}

export function herdrBinPath(socket: string): string {
  return join(dirname(socket), 'herdr', 'bin', 'herdr');
}

export function herdrPaneId(sessionId: string, windowId: string): string {
  return `${herdrWorkspaceId(sessionId)}:p${windowId.slice(0, 12)}`;
}

/**
 * The programs of the agents that report to herdr by themselves when they find its variables:
 * Crush, Kiro CLI and Command Code (`cmd`). Under herdr_protocol = "agents" only a pane whose
 * command is one of them gets the variables.
 */
const HERDR_REPORTERS = new Set(['crush', 'kiro-cli', 'cmd']);

/**
 * Whether a new pane gets herdr's variables (spec: herdr's pane state protocol): every pane
 * ("all", the default), a pane that starts a known reporter ("agents"), or none ("off").
 */
export function herdrVarsWanted(mode: 'all' | 'agents' | 'off', argv: readonly string[], isShell: boolean): boolean {
  if (mode === 'all') return true;
  if (mode === 'off' || isShell) return false;
  return HERDR_REPORTERS.has(basename(argv[0] ?? ''));
}

/** Variables from the daemon's own environment that must not leak into a pane. */
const DROP = new Set(['TMUX', 'TMUX_PANE', 'TUIOS_SERVER', 'TUIOS_AGENT', 'INIT_CWD']);
const DROP_PREFIX = ['TUIOS_', 'HERDR_', 'npm_'];

/** The daemon's own environment less what must not leak into a pane. */
function inherited(base: Record<string, string | undefined>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) {
    if (v === undefined || DROP.has(k) || DROP_PREFIX.some((p) => k.startsWith(p))) continue;
    env[k] = v;
  }
  return env;
}

export function buildPaneEnv(
  base: Record<string, string | undefined>,
  extra: Record<string, string>,
  id: PaneIdentity,
  term: string,
): Record<string, string> {
  const env = inherited(base);
  for (const [k, v] of Object.entries(extra)) env[k] = v;
  env.TERM = term;
  env.TUIOS_ENV = '1';
  env.TUIOS_SOCKET = id.socket;
  env.TUIOS_PANE_ID = id.windowId;
  env.TUIOS_WINDOW_ID = id.windowId;
  env.TUIOS_SESSION = id.sessionName;
  env.TUIOS_PANE_TOKEN = id.paneToken;
  if (id.grants) env.TUIOS_PANE_GRANTS = id.grants;
  if (id.explicitSocket) env.TUIOS_SERVER = id.socket;
  // herdr's environment (spec: herdr's pane state protocol), so an agent that reports to herdr
  // reports to tuios's herdr socket. The tab is the workspace the pane starts on, and stays.
  if (id.herdr !== false) {
    env.HERDR_ENV = '1';
    env.HERDR_SOCKET_PATH = `${id.socket}.herdr`;
    env.HERDR_PANE_ID = herdrPaneId(id.sessionId, id.windowId);
    env.HERDR_TAB_ID = herdrTabId(id.sessionId, id.workspace);
    env.HERDR_WORKSPACE_ID = herdrWorkspaceId(id.sessionId);
    // herdr's command line through the daemon's link; when it could not make one, the tuios
    // program itself, which answers herdr's `pane` and `notification` commands (spec: herdr's
    // command line).
    const bin = herdrBinPath(id.socket);
    env.HERDR_BIN_PATH = isLink(bin) ? bin : TUIOS_BIN;
  }
  if (!env.TERM_PROGRAM || env.TERM_PROGRAM === 'tmux') env.TERM_PROGRAM = 'TUIOS';
  return env;
}

/**
 * The environment of a process this machine runs for a window held on another machine (spec: A
 * pane on another machine): the window's id there in TUIOS_PANE_ID, TUIOS_PANE_HOSTED=1, and no
 * TUIOS_SOCKET or TUIOS_SESSION, so `tuios` in it reaches this machine's own daemon, which
 * forwards its reports. TUIOS_SERVER is kept when this daemon runs on a socket named by --server.
 */
export function buildHostedPaneEnv(
  base: Record<string, string | undefined>,
  extra: Record<string, string>,
  id: { windowId: string; socket: string; explicitSocket: boolean },
  term: string,
): Record<string, string> {
  const env = inherited(base);
  for (const [k, v] of Object.entries(extra)) if (!isReservedEnvName(k)) env[k] = v;
  env.TERM = term;
  env.TUIOS_ENV = '1';
  env.TUIOS_PANE_ID = id.windowId;
  env.TUIOS_PANE_HOSTED = '1';
  if (id.explicitSocket) env.TUIOS_SERVER = id.socket;
  if (!env.TERM_PROGRAM || env.TERM_PROGRAM === 'tmux') env.TERM_PROGRAM = 'TUIOS';
  return env;
}

/** Variables a caller may not set on a pane: ours, and tmux's, which would confuse programs. */
export function isReservedEnvName(name: string): boolean {
  // TUIOS_AGENT is the one the user sets, on a wrapper, to name the harness it runs.
  return (name.startsWith('TUIOS_') && name !== 'TUIOS_AGENT') || name === 'TMUX' || name === 'TMUX_PANE';
}

/**
 * TERM for a new pane: the client's TERM when this machine has a terminfo entry for it, else
 * xterm-256color, so curses programs keep working (ncurses' search order).
 */
export function resolvePaneTerm(clientTerm: string | undefined, env: Record<string, string | undefined>): string {
  const fallback = 'xterm-256color';
  if (!clientTerm || !/^[A-Za-z0-9._+-]{1,64}$/.test(clientTerm)) return fallback;
  const dirs: string[] = [];
  if (env.TERMINFO) dirs.push(env.TERMINFO);
  if (env.HOME) dirs.push(join(env.HOME, '.terminfo'));
  if (env.TERMINFO_DIRS) dirs.push(...env.TERMINFO_DIRS.split(':').filter(Boolean));
  dirs.push('/etc/terminfo', '/lib/terminfo', '/usr/share/terminfo', '/usr/lib/terminfo');
  const first = clientTerm[0]!;
  const hex = first.charCodeAt(0).toString(16);
  for (const d of dirs) {
    if (existsSync(join(d, first, clientTerm)) || existsSync(join(d, hex, clientTerm))) return clientTerm;
  }
  return fallback;
}
