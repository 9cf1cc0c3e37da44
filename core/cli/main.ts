// The `tuios` command: argv → one verb call on the socket → printed result. Starts the daemon
// when none answers. Exit codes: 0 ok, 1 the verb failed, 2 usage, 124 a wait timed out.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { RpcClient, RpcError } from '../rpc/client.js';
import { resolveSocket } from '../config/paths.js';
import { parseVerbArgs, findVerb, resolveVerb, verbUsage, UsageError, type VerbRow, type Parsed } from './args.js';
import { VERSION } from '../version.js';
import { out, err } from './out.js';

const EXIT_OK = 0;
const EXIT_FAIL = 1;
const EXIT_USAGE = 2;
const EXIT_TIMEOUT = 124;

function loadTable(): VerbRow[] {
  const text = readFileSync(new URL('./verbs.json', import.meta.url), 'utf8');
  return JSON.parse(text) as VerbRow[];
}

function mainUsage(table: VerbRow[]): string {
  const width = Math.max(...table.map((v) => v.name.length));
  return [
    'usage: tuios VERB [FLAGS]    (tuios help VERB for one verb)',
    '       tuios daemon [--foreground]',
    '       tuios agent-hook HARNESS [--explain]    (what a harness\'s hooks run)',
    '       tuios agent-statusline claude-code [--then CMD]    (Claude Code\'s status line command)',
    '       tuios integration install|uninstall|status HARNESS|--all [--command PATH] [--statusline [--then CMD]]',
    '       tuios doctor agents',
    '       tuios mcp [--write] [--scope all]    (tuios as MCP tools, on stdin/stdout)',
    '       tuios agent-proto --protocol acp|codex -- CMD   (a protocol pane\'s process; start-agent --protocol runs it)',
    '       tuios link-serve --stdio    (what a linked hub runs here over OpenSSH)',
    '       tuios --skill [TOPIC]    (how an agent in a pane drives tuios; no daemon needed)',
    '',
    'verbs:',
    ...table.map((v) => `  ${v.name.padEnd(width)}  ${v.summary}`),
    '',
    'global: -s/--session S, -w/--window W, --json, --server PATH (or TUIOS_SERVER)',
  ].join('\n');
}

/** Fills what the CLI knows and the daemon cannot: its folder, its TERM, relative paths. */
function addCallerContext(p: Parsed): void {
  const has = (k: string) => p.verb.params.some((x) => x.name === k);
  if (typeof p.params.cwd === 'string') p.params.cwd = resolve(p.params.cwd);
  const here = p.verb.cli.callerCwd;
  if (here && p.params[here] === undefined) p.params[here] = process.cwd();
  if (typeof p.params.screen_file === 'string') p.params.screen_file = resolve(p.params.screen_file);
  if (has('term') && p.params.term === undefined && process.env.TERM) p.params.term = process.env.TERM;
}

async function connectOrStart(socket: string, server: string | undefined, autostart: boolean): Promise<RpcClient> {
  const pane = process.env.TUIOS_PANE_ID ?? null;
  try {
    return await RpcClient.connect(socket, { pane });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (!autostart || (code !== 'ENOENT' && code !== 'ECONNREFUSED')) throw e;
  }
  // Loaded only when a daemon must be started: child_process costs every other call start-up time.
  const { spawnDaemon } = await import('../daemon/spawn.js');
  const ok = await spawnDaemon(socket, server);
  if (!ok) throw new Error(`the daemon did not start on ${socket}`);
  return RpcClient.connect(socket, { pane });
}

function printError(body: { code: string; message: string; hint?: string }): void {
  err(`tuios: ${body.message} (${body.code})\n`);
  if (body.hint) err(`  ${body.hint}\n`);
}

async function runVerb(p: Parsed): Promise<number> {
  const { socket } = resolveSocket(process.env, p.server);
  const autostart = p.verb.name !== 'kill-server';
  let client: RpcClient;
  try {
    client = await connectOrStart(socket, p.server, autostart);
  } catch (e) {
    if (!autostart) {
      err(`tuios: no daemon is running on ${socket}\n`);
      return EXIT_FAIL;
    }
    err(`tuios: cannot reach the daemon on ${socket}: ${(e as Error).message}\n`);
    return EXIT_FAIL;
  }
  addCallerContext(p);
  // A pull draws its progress on a terminal (core/cli/progress.ts); loaded only for it.
  const progress = p.verb.name === 'pull-worktree' || p.verb.name.startsWith('ship-') ? await (await import('./progress.js')).startProgress(socket, p) : null;
  try {
    if (p.verb.stream) {
      const code = await new Promise<number>((resolveExit) => {
        client
          .stream(p.verb.name, p.params, (ev) => {
            const e = ev as { type?: string; error?: { code: string; message: string; hint?: string } };
            if (e.type === 'stream-error' && e.error) {
              printError(e.error);
              resolveExit(EXIT_FAIL);
            } else if (e.type === 'stream-closed') resolveExit(EXIT_OK);
            else out(JSON.stringify(ev) + '\n');
          })
          .then((first) => {
            if (p.json) out(JSON.stringify(first) + '\n');
          })
          .catch((err) => {
            if (err instanceof RpcError) printError(err.body);
            else err(`tuios: ${(err as Error).message}\n`);
            resolveExit(EXIT_FAIL);
          });
      });
      return code;
    }
    let answer: { result: unknown; text: string };
    try {
      answer = await callConfirmed(client, p);
    } catch (e) {
      if (!autostart || p.verb.mutates || !droppedUnanswered(e)) throw e;
      // A daemon killed as this call connected: the kernel took the connection into the dying
      // socket's backlog (its other threads still held it open) and reset it unread. A verb that
      // changes nothing is asked again, of the daemon that now answers or one started for it.
      client.close();
      client = await connectOrStart(socket, p.server, autostart);
      answer = await callConfirmed(client, p);
    }
    const { result, text: printed } = answer;
    progress?.stop(result);
    const text = p.json ? JSON.stringify(result, null, 2) : printed;
    if (text) out(text + '\n');
    return EXIT_OK;
  } catch (e) {
    if (e instanceof RpcError) {
      printError(e.body);
      return e.code === 'timeout' ? EXIT_TIMEOUT : EXIT_FAIL;
    }
    err(`tuios: ${(e as Error).message}\n`);
    return EXIT_FAIL;
  } finally {
    progress?.stop();
    client.close();
  }
}

/** The connection was reset or closed before any answer came: the daemon never took the call. */
function droppedUnanswered(e: unknown): boolean {
  if (e instanceof RpcError) return false;
  const code = (e as NodeJS.ErrnoException).code;
  return code === 'ECONNRESET' || code === 'EPIPE' || (e as Error).message === 'the daemon closed the connection';
}

/** Asks one yes/no question on the terminal; false on anything but y or yes. */
async function askYes(question: string): Promise<boolean> {
  const { createInterface } = await import('node:readline');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const a = await new Promise<string>((r) => rl.question(question, r));
    return /^y(es)?$/i.test(a.trim());
  } finally {
    rl.close();
  }
}

/** With --json the result alone; else the daemon prints it too, from the verb's record. */
async function callOnce(client: RpcClient, p: Parsed, params: Record<string, unknown>): Promise<{ result: unknown; text: string }> {
  if (p.json) return { result: await client.call(p.verb.name, params), text: '' };
  return client.callPrinted(p.verb.name, params);
}

/**
 * One call; a `confirm_required` answer (a write by selector, a new host key) is confirmed with
 * its token: by --yes, or by the person at a terminal after reading what it names.
 */
async function callConfirmed(client: RpcClient, p: Parsed): Promise<{ result: unknown; text: string }> {
  try {
    return await callOnce(client, p, p.params);
  } catch (e) {
    const body = e instanceof RpcError ? (e.body as { code: string; message: string; confirm?: unknown }) : null;
    if (!body || body.code !== 'confirm_required' || typeof body.confirm !== 'string' || p.params.confirm !== undefined) throw e;
    if (!p.local.yes) {
      if (!process.stdin.isTTY || !process.stderr.isTTY) throw e;
      err(`tuios: ${body.message}\n`);
      if (!(await askYes('Go ahead? [y/N] '))) throw e;
    }
    return callOnce(client, p, { ...p.params, confirm: body.confirm });
  }
}

const STATUS_USAGE = 'usage: tuios status STATE [-m MESSAGE] [--kind approval|question|auth] [--progress N]\n  STATE: working, needs_input, idle, done, errored, none';

/** `tuios status`: writes an OSC 7501 Program Status report to the terminal; no daemon needed. */
async function statusCommand(args: string[]): Promise<number> {
  const { formatProgramStatus } = await import('../detection/program-status.js');
  let state: string | undefined;
  let message: string | undefined;
  let kind: string | undefined;
  let progress: number | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-m' || a === '--message') message = args[++i];
    else if (a === '--kind') kind = args[++i];
    else if (a === '--progress') progress = Number(args[++i]);
    else if (a === '-h' || a === '--help') {
      out(STATUS_USAGE + '\n');
      return EXIT_OK;
    } else if (!a.startsWith('-') && state === undefined) state = a;
    else {
      err(`tuios status: unexpected argument ${a}\n${STATUS_USAGE}\n`);
      return EXIT_USAGE;
    }
  }
  const states = ['working', 'needs_input', 'idle', 'done', 'errored', 'none'];
  if (!state || !states.includes(state)) {
    err(`tuios status: ${state ? `${state} is not a state` : 'a state is required'}\n${STATUS_USAGE}\n`);
    return EXIT_USAGE;
  }
  if (kind !== undefined && !['approval', 'question', 'auth'].includes(kind)) {
    err(`tuios status: --kind is approval, question or auth\n`);
    return EXIT_USAGE;
  }
  if (progress !== undefined && !(progress >= 0 && progress <= 100)) {
    err('tuios status: --progress is a number from 0 to 100\n');
    return EXIT_USAGE;
  }
  const seq = formatProgramStatus({ state, message, kind, progress });
  const { openSync, writeSync, closeSync } = await import('node:fs');
  try {
    // The terminal itself, so a script whose output is piped still reports.
    const fd = openSync('/dev/tty', 'w');
    writeSync(fd, seq);
    closeSync(fd);
  } catch {
    out(seq);
  }
  return EXIT_OK;
}

export async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === '--version' || first === '-V' || first === 'version') {
    out(`tuios ${VERSION}\n`);
    return EXIT_OK;
  }
  if (first === 'daemon') {
    let foreground = false;
    let server: string | undefined;
    for (let i = 0; i < rest.length; i++) {
      if (rest[i] === '--foreground' || rest[i] === '-f') foreground = true;
      else if (rest[i] === '--server') server = rest[++i];
      else if (rest[i]?.startsWith('--server=')) server = rest[i]!.slice(9);
      else {
        err(`tuios daemon: unknown argument ${rest[i]}\nusage: tuios daemon [--foreground] [--server PATH]\n`);
        return EXIT_USAGE;
      }
    }
    const mod = (await import(new URL('./daemon.js', import.meta.url).href)) as {
      runDaemon(a: { foreground: boolean; server?: string }): Promise<number>;
    };
    return mod.runDaemon({ foreground, server });
  }
  if (first === '--skill') return (await import('./skill.js')).skillCommand(rest);
  // HERDR_BIN_PATH names tuios itself when the daemon could not make its `herdr` link: then
  // herdr's `pane` and `notification` commands answer as `tuios pane ...` (spec: herdr's command
  // line). tuios has no verb of either name, so nothing else is shadowed.
  if ((first === 'pane' || first === 'notification') && process.env.HERDR_SOCKET_PATH) {
    return ((await import(new URL('./herdr-cli.js', import.meta.url).href)) as { herdrCommand(a: string[]): Promise<number> }).herdrCommand(argv);
  }
  if (first === 'status') return statusCommand(rest);
  if (first === 'link-serve') {
    const { linkServeCommand } = await import('./link-serve.js');
    return linkServeCommand(rest);
  }
  // A harness's hook: its own fast path, which never starts a daemon and always exits 0.
  if (first === 'agent-hook') return (await import('./agent-hook.js')).agentHookCommand(rest);
  // Claude Code's status line command (bin/tuios.cjs loads its own bundle for it; this is the same code).
  if (first === 'agent-statusline') return (await import('./agent-statusline.js')).agentStatuslineCommand(rest);
  // The MCP server: its own bundle (dist/mcp.js), so the SDK loads for it alone.
  if (first === 'mcp') return ((await import(new URL('./mcp.js', import.meta.url).href)) as { mcpCommand(a: string[]): Promise<number> }).mcpCommand(rest);
  // A protocol pane's process (start-agent --protocol): its own bundle (dist/agent-proto.js).
  if (first === 'agent-proto') return ((await import(new URL('./agent-proto.js', import.meta.url).href)) as { agentProtoCommand(a: string[]): Promise<number> }).agentProtoCommand(rest);
  if (first === 'integration') return (await import('./integration.js')).integrationCommand(rest);
  if (first === 'doctor' && rest[0] === 'agents') return (await import('./integration.js')).doctorAgentsCommand(rest.slice(1));
  // The terminal client (core/cli/attach.ts); `attach --mode control` stays a plain verb call.
  if (first === undefined || (first === 'attach' && !rest.some((x) => x === '--mode' || x.startsWith('--mode=')))) {
    const { attachCommand } = await import('./attach.js');
    return attachCommand(rest, { create: first === undefined });
  }
  const table = loadTable();
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    const v = first === 'help' && rest[0] ? findVerb(table, rest[0]) : undefined;
    out((v ? verbUsage(v) : mainUsage(table)) + '\n');
    return first === undefined ? EXIT_USAGE : EXIT_OK;
  }
  // `tuios queue ls` and `tuios queue rm q3`: a subcommand word after an alias.
  const { verb, rest: words } = resolveVerb(table, [first, ...rest]);
  if (!verb) {
    err(`tuios: unknown verb "${first}"; tuios help lists them\n`);
    return EXIT_USAGE;
  }
  let parsed: Parsed;
  try {
    parsed = parseVerbArgs(verb, words);
  } catch (e) {
    if (e instanceof UsageError) {
      err(`tuios ${verb.name}: ${e.message}\n\n${verbUsage(verb)}\n`);
      return EXIT_USAGE;
    }
    throw e;
  }
  if (parsed.help) {
    out(verbUsage(verb) + '\n');
    return EXIT_OK;
  }
  return runVerb(parsed);
}

// Started as `herdr` (the link HERDR_BIN_PATH names): herdr's command line, its own bundle.
const asHerdr = /(^|[\\/])herdr(\.exe)?$/.test(process.argv[1] ?? '');
(asHerdr ? import(new URL('./herdr-cli.js', import.meta.url).href).then((m: { herdrCommand(a: string[]): Promise<number> }) => m.herdrCommand(process.argv.slice(2))) : main(process.argv.slice(2))).then(
  (code) => {
    // Output is written synchronously (out.ts); leaving now skips the socket's orderly
    // teardown, which a hook pays on every call.
    process.exit(code);
  },
  (e) => {
    err(`tuios: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(EXIT_FAIL);
  },
);
