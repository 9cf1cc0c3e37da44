// Starting a daemon in the background: used by `tuios daemon` and by the CLI's auto-start. Light
// on imports, since the CLI bundle carries it.
import { spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { homedir } from 'node:os';
import { ensurePrivateDir } from '../config/paths.js';
import { socketAnswers } from './lock.js';
import { DAEMON_START_TIMEOUT_MS } from '../limits.js';

/** Starts `tuios daemon --foreground` detached from this process and waits until it answers. */
export async function spawnDaemon(socket: string, server?: string): Promise<boolean> {
  const bin = process.argv[1]!;
  const argv = [bin, 'daemon', '--foreground'];
  if (server) argv.push('--server', server);
  let out: number | 'ignore' = 'ignore';
  try {
    // Early start-up failures (before the log exists) go to a file beside the socket.
    ensurePrivateDir(socketDir(socket));
    out = openSync(`${socket}.start.log`, 'a', 0o600);
  } catch {
    out = 'ignore';
  }
  const child = spawn(process.execPath, argv, { detached: true, stdio: ['ignore', out, out], env: process.env, cwd: homedir() });
  child.unref();
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  const deadline = Date.now() + DAEMON_START_TIMEOUT_MS;
  let delay = 10;
  while (Date.now() < deadline) {
    if (await socketAnswers(socket, 500)) return true;
    if (exited && !(await socketAnswers(socket, 500))) return false;
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 200);
  }
  return false;
}

function socketDir(socket: string): string {
  return socket.slice(0, socket.lastIndexOf('/')) || '/';
}

