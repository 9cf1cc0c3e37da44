// `tuios link-serve --stdio`: what OpenSSH's sshd runs for a hub that links to this machine. It
// hands its stdin and stdout to the daemon's link socket, byte for byte, and exits when either
// side ends. It starts no daemon: a link to a machine whose daemon is not running says so
// (exit 3, `no daemon` in the hub's `hosts ls`).
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { resolveSocket } from '../config/paths.js';
import { err } from './out.js';

export const EXIT_NO_DAEMON = 3;
const USAGE = 'usage: tuios link-serve --stdio [--server PATH]';

export async function linkServeCommand(args: string[]): Promise<number> {
  let stdio = false;
  let server: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--stdio') stdio = true;
    else if (a === '--server') server = args[++i];
    else if (a.startsWith('--server=')) server = a.slice(9);
    else {
      err(`tuios link-serve: unexpected argument ${a}\n${USAGE}\n`);
      return 2;
    }
  }
  if (!stdio) {
    err(`tuios link-serve: only --stdio is served\n${USAGE}\n`);
    return 2;
  }
  const path = join(dirname(resolveSocket(process.env, server).socket), 'link.sock');
  return new Promise((resolve) => {
    const sock = connect(path);
    let done = false;
    const finish = (code: number) => {
      if (done) return;
      done = true;
      resolve(code);
    };
    sock.once('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT' || e.code === 'ECONNREFUSED') {
        err(`tuios link-serve: no daemon is running on this machine (${path}); start it with: tuios daemon\n`);
        return finish(EXIT_NO_DAEMON);
      }
      err(`tuios link-serve: ${e.message}\n`);
      finish(1);
    });
    sock.once('connect', () => {
      process.stdin.pipe(sock);
      sock.pipe(process.stdout);
      process.stdin.once('end', () => sock.end());
      // stdout to a pipe is written asynchronously: everything goes out before the exit.
      sock.once('close', () => process.stdout.write('', () => finish(0)));
      process.stdout.once('error', () => sock.destroy());
    });
  });
}
