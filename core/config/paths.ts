// Where tuios keeps things, per the XDG base directory rules. Pure: reads only the env it is given.
import { homedir } from 'node:os';
import { join, dirname, resolve } from 'node:path';
import { mkdirSync, statSync, chmodSync } from 'node:fs';
import { TuiosError } from '../errors.js';

export type Env = Record<string, string | undefined>;

export interface Paths {
  /** The verb socket. */
  socket: string;
  /** The folder that holds the socket; 0700. */
  runtimeDir: string;
  /** True when the socket was named by --server or TUIOS_SERVER rather than derived. */
  socketExplicit: boolean;
  configDir: string;
  configFile: string;
  stateDir: string;
  logFile: string;
  snapshotFile: string;
  userManifestsDir: string;
}

function home(env: Env): string {
  return env.HOME || homedir();
}

export function uid(): number {
  return typeof process.getuid === 'function' ? process.getuid() : 0;
}

/** The socket path: --server, then TUIOS_SERVER, then $XDG_RUNTIME_DIR/tuios, then /tmp/tuios-UID. */
export function resolveSocket(env: Env, server?: string): { socket: string; explicit: boolean } {
  const named = server || env.TUIOS_SERVER;
  if (named) return { socket: resolve(named), explicit: true };
  if (env.XDG_RUNTIME_DIR) return { socket: join(env.XDG_RUNTIME_DIR, 'tuios', 'tuios.sock'), explicit: false };
  return { socket: join('/tmp', `tuios-${uid()}`, 'tuios.sock'), explicit: false };
}

export function resolvePaths(env: Env, server?: string): Paths {
  const { socket, explicit } = resolveSocket(env, server);
  const configHome = env.XDG_CONFIG_HOME || join(home(env), '.config');
  const stateHome = env.XDG_STATE_HOME || join(home(env), '.local', 'state');
  const configDir = join(configHome, 'tuios');
  const stateDir = join(stateHome, 'tuios');
  return {
    socket,
    runtimeDir: dirname(socket),
    socketExplicit: explicit,
    configDir,
    configFile: join(configDir, 'config.toml'),
    stateDir,
    logFile: join(stateDir, 'daemon.log'),
    snapshotFile: join(stateDir, 'sessions.json'),
    userManifestsDir: env.TUIOS_HARNESS_DIR || join(configDir, 'harnesses'),
  };
}

/**
 * Makes a private folder (0700) or checks an existing one. A folder another user owns is refused:
 * its owner could swap the socket under us.
 */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = statSync(dir);
  if (!st.isDirectory()) {
    throw new TuiosError('forbidden', `${dir} is not a folder.`, 'Remove it, or point --server at another path.');
  }
  if (st.uid !== uid()) {
    throw new TuiosError(
      'forbidden',
      `The folder ${dir} belongs to another user (uid ${st.uid}); tuios will not put its socket there.`,
      'Set XDG_RUNTIME_DIR to a folder you own, or use --server PATH.',
    );
  }
  if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
}
