// `tuios agent-statusline claude-code [--then CMD]`: Claude Code's status line command, which feeds
// the pane's `model`, `context` and `cost` (spec: The status line feed). The opencode and Kilo
// plugin runs `tuios agent-statusline opencode` (or kilo) with `model` and `cost` of its own. It prints nothing of its
// own; with --then it runs the person's own status line command on the same stdin, whose output
// is printed unchanged and whose status is the wrapper's. Whatever goes wrong on the tuios side it
// exits 0, and it gives up on the daemon STATUSLINE_DAEMON_MS after its start: Claude Code runs it
// on every status line refresh. It has a bundle of its own (dist/statusline.cjs), which
// bin/tuios.cjs loads for this command alone, so it starts without the rest of the CLI.
import type { ChildProcess } from 'node:child_process';
import type { Writable } from 'node:stream';
import { RpcClient } from '../rpc/client.js';
import { resolveSocket } from '../config/paths.js';
import { err } from './out.js';
import { readStdinCapped } from './stdin.js';
import { hookProcess } from '../integrations/hooks/ancestry.js';
import { findPane } from '../integrations/hooks/find-pane.js';
import { foreignEvent } from '../integrations/hooks/foreign.js';
import { readPluginPayload, readStatusPayload } from '../integrations/statusline/payload.js';
import { feedStatusLine } from '../integrations/statusline/feed.js';
import { STATUSLINE_DAEMON_MS, STATUSLINE_STDIN_MAX_BYTES } from '../limits.js';

export const STATUSLINE_USAGE = 'usage: tuios agent-statusline claude-code|opencode|kilo [--then CMD] [--explain] [-w WINDOW] [--integration N]';

/** The harnesses whose status this reads: Claude Code's status line, and the opencode and Kilo plugin. */
const STATUS_HARNESSES: Record<string, 'claude-code' | 'opencode' | 'kilo'> = { 'claude-code': 'claude-code', claude: 'claude-code', opencode: 'opencode', kilo: 'kilo' };

interface Args {
  harness: string;
  then: string | null;
  window?: string;
  server?: string;
  explain: boolean;
}

/** Milliseconds since the process started: the global `performance` would load perf_hooks at start. */
function sinceStart(): number {
  return process.uptime() * 1000;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { harness: '', then: null, explain: false };
  for (let i = 0; i < argv.length; i++) {
    const x = argv[i]!;
    if (x === '--then') a.then = argv[++i] ?? null;
    else if (x.startsWith('--then=')) a.then = x.slice(7);
    else if (x === '--explain') a.explain = true;
    else if (x === '-w' || x === '--window') a.window = argv[++i];
    else if (x === '--server') a.server = argv[++i];
    else if (x === '--integration') i++;
    else if (!a.harness && !x.startsWith('-')) a.harness = x;
  }
  return a;
}

/** The person's command, on its own shell as Claude Code runs a status line; resolves with its exit status. */
async function startThen(cmd: string): Promise<{ child: ChildProcess; done: Promise<number> }> {
  const { spawn } = await import('node:child_process');
  const child = spawn('/bin/sh', ['-c', cmd], { stdio: ['pipe', 'inherit', 'inherit'] });
  const done = new Promise<number>((resolve) => {
    child.on('error', () => resolve(127));
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 + (signalNumber(signal) ?? 0) : 1)));
  });
  return { child, done };
}

function signalNumber(name: NodeJS.Signals): number | undefined {
  const n = ({ SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGPIPE: 13, SIGALRM: 14, SIGTERM: 15 } as Record<string, number>)[name];
  return n;
}

/** Writes to the person's command's stdin, resolving once the pipe takes more (or is gone: a command need not read it). */
function forwarder(stream: Writable): (b: Buffer) => Promise<void> {
  let open = true;
  const shut = () => {
    open = false;
  };
  stream.on('error', shut);
  stream.on('close', shut);
  return (b) => {
    if (!open || stream.write(b)) return Promise.resolve();
    return new Promise((resolve) => {
      const go = () => {
        stream.off('drain', go);
        stream.off('close', go);
        resolve();
      };
      stream.once('drain', go);
      stream.once('close', go);
    });
  };
}

export async function agentStatuslineCommand(argv: string[]): Promise<never> {
  const args = parseArgs(argv);
  const explain = (line: string) => {
    if (args.explain) err(`agent-statusline: ${line}\n`);
  };
  let then: { child: ChildProcess; done: Promise<number> } | null = null;
  if (args.then !== null) {
    try {
      then = await startThen(args.then);
    } catch (e) {
      explain(`--then did not start: ${(e as Error).message}`);
    }
  }
  const exitWith = async (): Promise<never> => {
    const code = then ? await then.done : 0;
    if (args.explain) {
      const cpu = process.cpuUsage();
      explain(`exit ${code} after ${Math.round(sinceStart())} ms (cpu ${((cpu.user + cpu.system) / 1000).toFixed(1)} ms)`);
    }
    process.exit(code);
  };
  // The tuios side: fed within its budget or given up. The budget counts from here, not from the
  // process's start: on a loaded machine Node's own start can take most of it.
  const started = sinceStart();
  const left = () => Math.max(1, STATUSLINE_DAEMON_MS - (sinceStart() - started));
  const budget = new Promise<void>((resolve) => {
    const t = setTimeout(() => {
      explain(`gave up on the daemon after ${STATUSLINE_DAEMON_MS} ms`);
      resolve();
    }, left());
    t.unref();
  });
  const stdin = then?.child.stdin ?? null;
  // At most STATUSLINE_STDIN_MAX_BYTES for itself (past it, no payload); every byte goes on to
  // --then's command, whose stdin ends with ours.
  const text = readStdinCapped(STATUSLINE_STDIN_MAX_BYTES, stdin ? forwarder(stdin) : undefined).finally(() => stdin?.end());
  const fed = feed(args, text, explain, left).catch((e) => explain(`failed: ${e instanceof Error ? e.message : String(e)}`));
  await Promise.race([fed, budget]);
  return exitWith();
}

async function feed(args: Args, stdin: Promise<string | null>, explain: (l: string) => void, left: () => number): Promise<void> {
  const harness = STATUS_HARNESSES[args.harness];
  if (!harness) return explain(`tuios reads no status line of ${args.harness || '(no harness)'}\n${STATUSLINE_USAGE}`);
  const text = await stdin;
  if (text === null) return explain(`the payload is over ${STATUSLINE_STDIN_MAX_BYTES} bytes: not read`);
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    return explain('the payload is not JSON');
  }
  const p = payload && typeof payload === 'object' && !Array.isArray(payload) ? (payload as Record<string, unknown>) : null;
  if (!p) return explain('the payload is not a JSON object');
  const env = process.env;
  const foreign = foreignEvent(harness, p, env);
  if (foreign) return explain(`nothing reported: ${foreign}`);
  const values = harness === 'claude-code' ? readStatusPayload(p) : readPluginPayload(p);
  if (Object.keys(values).length === 0) return explain('the payload has no model, context or cost');
  const { socket } = resolveSocket(env, args.server);
  // The daemon is reached only when it must be: to find a pane the environment does not name, and
  // to write. A run the throttle holds or drops costs no connection.
  let client: Promise<RpcClient> | null = null;
  const connect = () =>
    (client ??= RpcClient.connect(socket, { timeoutMs: left(), pane: env.TUIOS_PANE_ID ?? null }).catch((e) => {
      throw Object.assign(new Error(`no daemon answers on ${socket} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`), { code: 'no_daemon' });
    }));
  const call = async <T>(verb: string, q: Record<string, unknown>): Promise<T> => (await connect()).call<T>(verb, q);
  try {
    // The whole parent chain only when the daemon must find the pane from it; else up to the harness.
    const named = !!(args.window || env.TUIOS_PANE_ID);
    const proc = hookProcess(process.pid, { untilHarness: named });
    const pane = await findPane({ window: args.window, env, proc, resolve: (q) => call('resolve-pane', q) });
    if (!pane) return explain('no pane: not run inside tuios');
    explain(`pane ${pane.window} (from ${pane.via})`);
    // The agent the values belong to: another conversation or another process starts afresh.
    const session = typeof p.session_id === 'string' ? p.session_id.slice(0, 128) : '';
    await feedStatusLine({ call, window: pane.window, socket, explain, warm: () => void connect().catch(() => undefined) }, `${session}:${proc.harnessPid ?? 0}`, values);
  } finally {
    if (client) (await (client as Promise<RpcClient>).catch(() => null))?.close();
  }
}
