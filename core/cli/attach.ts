// `tuios attach [-s SESSION]` and `tuios` alone: the terminal client. A thin relay: the terminal
// in raw mode, its keys to the daemon (tui-input), the daemon's drawing to the terminal (the
// attach stream's output events), its size on SIGWINCH (tui-resize). The TUI itself runs in the
// daemon; this process holds no nonce and draws nothing of its own.
import { RpcClient, RpcError } from '../rpc/client.js';
import { resolveSocket } from '../config/paths.js';
import { out, err } from './out.js';
import { ATTACH_INPUT_CHUNK_BYTES } from '../limits.js';

const USAGE = 'usage: tuios attach [-s SESSION] [--ascii-only] [--server PATH]\n       tuios            (attach, making a session when there is none)';
/** What the relay leaves the terminal in, whatever the TUI last set: modes off, main screen. */
const RESTORE = '\x1b[?1003l\x1b[?1002l\x1b[?1000l\x1b[?9l\x1b[?1006l\x1b[?2004l\x1b[?1l\x1b>\x1b[0m\x1b[?25h\x1b[?1049l';

interface AttachArgs {
  session?: string;
  server?: string;
  ascii: boolean;
}

function parse(args: string[]): AttachArgs | string {
  const a: AttachArgs = { ascii: false };
  for (let i = 0; i < args.length; i++) {
    const x = args[i]!;
    const value = () => {
      const v = args[++i];
      if (v === undefined) throw new Error(`${x} needs a value`);
      return v;
    };
    try {
      if (x === '-s' || x === '--session' || x === '-t') a.session = value();
      else if (x.startsWith('--session=')) a.session = x.slice(10);
      else if (x === '--server') a.server = value();
      else if (x.startsWith('--server=')) a.server = x.slice(9);
      else if (x === '--ascii-only' || x === '--ascii') a.ascii = true;
      else if (x === '-h' || x === '--help') return '';
      else return `unexpected argument ${x}`;
    } catch (e) {
      return (e as Error).message;
    }
  }
  return a;
}

async function connect(socket: string, server: string | undefined): Promise<RpcClient> {
  const pane = process.env.TUIOS_PANE_ID ?? null;
  try {
    return await RpcClient.connect(socket, { pane });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ECONNREFUSED') throw e;
  }
  const { spawnDaemon } = await import('../daemon/spawn.js');
  if (!(await spawnDaemon(socket, server))) throw new Error(`the daemon did not start on ${socket}`);
  return RpcClient.connect(socket, { pane });
}

/** Runs the client until it detaches or its session ends; returns the exit code. */
export async function attachCommand(argv: string[], opts: { create: boolean }): Promise<number> {
  const a = parse(argv);
  if (typeof a === 'string') {
    if (a) err(`tuios attach: ${a}\n`);
    (a ? err : out)(USAGE + '\n');
    return a ? 2 : 0;
  }
  const stdin = process.stdin;
  const stdout = process.stdout;
  if (!stdin.isTTY || !stdout.isTTY) {
    err('tuios attach: this needs a terminal (stdin and stdout must be a TTY)\n');
    return 1;
  }
  const { socket } = resolveSocket(process.env, a.server);
  let client: RpcClient;
  try {
    client = await connect(socket, a.server);
  } catch (e) {
    err(`tuios: cannot reach the daemon on ${socket}: ${(e as Error).message}\n`);
    return 1;
  }

  let id: number | null = null;
  let reason = '';
  let sessionName = '';
  const early: Buffer[] = [];
  const send = (b: Buffer) => {
    for (let i = 0; i < b.length; i += ATTACH_INPUT_CHUNK_BYTES) {
      client.call('tui-input', { client: id, data: b.subarray(i, i + ATTACH_INPUT_CHUNK_BYTES).toString('base64') }).catch(() => undefined);
    }
  };
  const onKeys = (b: Buffer) => (id === null ? early.push(b) : send(b));
  const onResize = () => {
    if (id !== null) client.call('tui-resize', { client: id, cols: stdout.columns, rows: stdout.rows }).catch(() => undefined);
  };

  stdin.setRawMode(true);
  stdin.on('data', onKeys);
  stdin.resume();
  stdout.on('resize', onResize);
  const restore = () => {
    stdout.off('resize', onResize);
    stdin.off('data', onKeys);
    try {
      stdin.setRawMode(false);
    } catch {
      // the terminal went away
    }
    stdin.pause();
    out(RESTORE);
  };

  const code = await new Promise<number>((resolveExit) => {
    client
      .stream<{ client_id: number; session: string }>('attach', { mode: 'tui', session: a.session, cols: stdout.columns, rows: stdout.rows, term: process.env.TERM, ascii: a.ascii, create: opts.create && !a.session, editor: process.env.VISUAL || process.env.EDITOR || undefined }, (ev) => {
        const e = ev as { type?: string; data?: string; reason?: string; error?: { message: string; code: string } };
        if (e.type === 'output' && typeof e.data === 'string') out(e.data);
        else if (e.type === 'exit') reason = e.reason ?? '';
        else if (e.type === 'stream-error' && e.error) {
          reason = `${e.error.message} (${e.error.code})`;
          resolveExit(1);
        } else if (e.type === 'stream-closed') resolveExit(0);
      })
      .then((first) => {
        id = first.client_id;
        sessionName = first.session;
        for (const b of early.splice(0)) send(b);
        // The size may have changed between the request and the answer.
        onResize();
      })
      .catch((e) => {
        restore();
        if (e instanceof RpcError) err(`tuios: ${e.body.message} (${e.body.code})\n${e.body.hint ? `  ${e.body.hint}\n` : ''}`);
        else err(`tuios: ${(e as Error).message}\n`);
        resolveExit(1);
      });
  });
  if (id !== null) restore();
  client.close();
  if (id !== null) out(reason === 'detached' ? `[detached (from session ${sessionName})]\n` : `[exited${reason ? `: ${reason}` : ''}]\n`);
  return code;
}
