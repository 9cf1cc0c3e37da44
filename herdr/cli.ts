// herdr's command line, for tools that call `$HERDR_BIN_PATH` (spec: herdr's command line): tuios
// started under the name `herdr` sends each command to HERDR_SOCKET_PATH as a socket method and
// prints what herdr prints. A wrong command: the usage on stderr, exit 2. An error answer: the
// answer as one JSON line on stderr, exit 1. An answer: one JSON line on stdout, exit 0, except
// the commands that print nothing (the sends and the reports) or the text read (pane read, agent
// read). Its own bundle (dist/herdr-cli.js): the `tuios` CLI loads it only under that name.
import { connect } from 'node:net';
import { join } from 'node:path';
import { HERDR_VERSION } from './limits.js';
import { planLayout, planFocusDirection, LAYOUT_USAGE } from './cli-layout.js';
import { planMisc, MISC_USAGE } from './cli-misc.js';
import { planTabs, TABS_USAGE } from './cli-tabs.js';

const USAGE = `usage: herdr <command> [args]   (tuios answering herdr ${HERDR_VERSION.split('+')[0]}'s command line)

commands tuios answers here:
  herdr --version
  herdr status server [--json]
  herdr session list [--json]
  herdr api snapshot
  herdr server reload-config
  herdr workspace list | get WORKSPACE
  herdr tab list [--workspace WORKSPACE] | get TAB
  herdr pane list [--workspace WORKSPACE] | get PANE | current | layout PANE | close PANE
  herdr pane read PANE [--source visible|recent|recent_unwrapped|detection] [--lines N]
  herdr pane send-text PANE TEXT
  herdr pane send-keys PANE KEY...
  herdr pane focus PANE
  herdr pane report-agent PANE --source S --agent A --state working|blocked|idle|unknown --seq N [--message M]
  herdr pane release-agent PANE --source S [--agent A] [--seq N]
  herdr agent list | get TARGET | read TARGET | focus TARGET
${LAYOUT_USAGE}${MISC_USAGE}${TABS_USAGE}`;

/** Commands that do their work on herdr's own machine: herdr's error shape, code unsupported, exit 1. */
const UNSUPPORTED = [
  'config',
  'session attach',
  'session stop',
  'session delete',
  'terminal attach',
  'terminal session',
  'machine',
  'channel',
  'update',
  'completion',
  'integration',
  'api schema',
  'agent attach',
  'server stop',
  'plugin install',
  'plugin uninstall',
];

class Usage extends Error {}

interface Io {
  out(s: string): void;
  err(s: string): void;
}

/** The herdr socket: HERDR_SOCKET_PATH, else the daemon socket's, as tuios finds it, with .herdr. */
export function herdrSocket(env: Record<string, string | undefined>): string {
  if (env.HERDR_SOCKET_PATH) return env.HERDR_SOCKET_PATH;
  if (env.TUIOS_SERVER) return `${env.TUIOS_SERVER}.herdr`;
  const run = env.XDG_RUNTIME_DIR ? join(env.XDG_RUNTIME_DIR, 'tuios') : `/tmp/tuios-${process.getuid?.() ?? 0}`;
  return join(run, 'tuios.sock.herdr');
}

/** One request, one answer line; rejects when the socket does not answer. */
function request(socket: string, method: string, params: Record<string, unknown>): Promise<{ line: string; answer: { result?: Record<string, unknown>; error?: unknown } }> {
  return new Promise((resolve, reject) => {
    const s = connect(socket);
    let buf = '';
    s.setEncoding('utf8');
    s.on('data', (x: string) => (buf += x));
    s.on('error', reject);
    s.on('close', () => {
      const line = buf.split('\n')[0] ?? '';
      try {
        resolve({ line, answer: JSON.parse(line) });
      } catch {
        reject(new Error('the herdr socket closed without an answer'));
      }
    });
    s.write(JSON.stringify({ id: `cli:${process.pid}`, method, params }) + '\n');
  });
}

/** Splits `--flag value` and `--flag=value` from the positionals; `bool` flags take no value. */
function parseFlags(args: string[], known: string[], bool: string[] = []): { pos: string[]; flags: Record<string, string | true> } {
  const pos: string[] = [];
  const flags: Record<string, string | true> = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      pos.push(...args.slice(i + 1));
      break;
    }
    if (!a.startsWith('--') || a === '-') {
      pos.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = a.slice(2, eq < 0 ? undefined : eq);
    if (bool.includes(name)) {
      flags[name] = true;
      continue;
    }
    if (!known.includes(name)) throw new Usage(`unexpected argument '${a}'`);
    const v = eq >= 0 ? a.slice(eq + 1) : args[++i];
    if (v === undefined) throw new Usage(`a value is required for '--${name}'`);
    flags[name] = v;
  }
  return { pos, flags };
}

function one(pos: string[], what: string): string {
  if (pos.length !== 1) throw new Usage(`${what} is required`);
  return pos[0]!;
}

function int(v: string | true | undefined, name: string): number | undefined {
  if (v === undefined || v === true) return undefined;
  if (!/^\d{1,15}$/.test(v)) throw new Usage(`invalid value '${v.slice(0, 32)}' for '--${name}'`);
  return Number(v);
}

/** What a command becomes: a method and its params, and how its answer prints. */
interface Plan {
  method: string;
  params: Record<string, unknown>;
  print: 'json' | 'none' | 'text';
  /** What runs after a good answer, with further requests; its line is printed instead (`agent start` waits). */
  then?: (request: (method: string, params: Record<string, unknown>) => ReturnType<typeof request>, first: Awaited<ReturnType<typeof request>>) => Promise<{ ok: boolean; line: string }>;
}

/** What the layout commands (cli-layout.ts) borrow from here. */
const LAYOUT_TOOLS = { parseFlags: (a: string[], k: string[], b?: string[]) => parseFlags(a, k, b), usage: (m: string) => new Usage(m) };

function plan(words: string[]): Plan {
  const [group, sub, ...rest] = words;
  const json = (method: string, params: Record<string, unknown> = {}): Plan => ({ method, params, print: 'json' });
  const none = (method: string, params: Record<string, unknown>): Plan => ({ method, params, print: 'none' });
  switch (`${group} ${sub ?? ''}`.trim()) {
    case 'api snapshot':
      return json('session.snapshot');
    case 'server reload-config':
      return json('server.reload_config');
    case 'workspace list':
      return json('workspace.list');
    case 'workspace get':
      return json('workspace.get', { workspace_id: one(rest, 'WORKSPACE') });
    case 'tab list': {
      const { pos, flags } = parseFlags(rest, ['workspace']);
      if (pos.length) throw new Usage(`unexpected argument '${pos[0]}'`);
      return json('tab.list', flags.workspace ? { workspace_id: flags.workspace } : {});
    }
    case 'tab get':
      return json('tab.get', { tab_id: one(rest, 'TAB') });
    case 'pane list': {
      const { pos, flags } = parseFlags(rest, ['workspace']);
      if (pos.length) throw new Usage(`unexpected argument '${pos[0]}'`);
      return json('pane.list', flags.workspace ? { workspace_id: flags.workspace } : {});
    }
    case 'pane get':
      return json('pane.get', { pane_id: one(rest, 'PANE') });
    case 'pane current':
      return json('pane.current');
    case 'pane layout':
      return json('pane.layout', { pane_id: one(rest, 'PANE') });
    case 'pane close':
      return json('pane.close', { pane_id: one(rest, 'PANE') });
    case 'pane focus': {
      const byDirection = planFocusDirection(rest, LAYOUT_TOOLS);
      if (byDirection) return byDirection;
      const { pos, flags } = parseFlags(rest, ['pane']);
      return json('pane.focus', { pane_id: typeof flags.pane === 'string' ? flags.pane : one(pos, 'PANE') });
    }
    case 'pane read': {
      const { pos, flags } = parseFlags(rest, ['source', 'lines']);
      return { method: 'pane.read', params: { pane_id: one(pos, 'PANE'), ...(flags.source ? { source: flags.source } : {}), ...(flags.lines ? { lines: int(flags.lines, 'lines') } : {}) }, print: 'text' };
    }
    case 'pane send-text': {
      const { pos } = parseFlags(rest, []);
      if (pos.length !== 2) throw new Usage('PANE and TEXT are required');
      return none('pane.send_text', { pane_id: pos[0], text: pos[1] });
    }
    case 'pane send-keys': {
      const { pos } = parseFlags(rest, []);
      if (pos.length < 2) throw new Usage('PANE and at least one KEY are required');
      return none('pane.send_keys', { pane_id: pos[0], keys: pos.slice(1) });
    }
    case 'pane report-agent': {
      const { pos, flags } = parseFlags(rest, ['source', 'agent', 'state', 'seq', 'message']);
      for (const f of ['source', 'agent', 'state', 'seq']) if (flags[f] === undefined) throw new Usage(`the following required argument was not provided: --${f}`);
      return none('pane.report_agent', { pane_id: one(pos, 'PANE'), source: flags.source, agent: flags.agent, state: flags.state, seq: int(flags.seq, 'seq'), ...(flags.message ? { message: flags.message } : {}) });
    }
    case 'pane release-agent': {
      const { pos, flags } = parseFlags(rest, ['source', 'agent', 'seq']);
      if (flags.source === undefined) throw new Usage('the following required argument was not provided: --source');
      return none('pane.release_agent', { pane_id: one(pos, 'PANE'), source: flags.source, ...(flags.agent ? { agent: flags.agent } : {}), ...(flags.seq ? { seq: int(flags.seq, 'seq') } : {}) });
    }
    case 'agent list':
      return json('agent.list');
    case 'agent get':
      return json('agent.get', { target: one(rest, 'TARGET') });
    case 'agent focus':
      return json('agent.focus', { target: one(rest, 'TARGET') });
    case 'agent read': {
      const { pos, flags } = parseFlags(rest, ['source', 'lines']);
      return { method: 'agent.read', params: { target: one(pos, 'TARGET'), ...(flags.source ? { source: flags.source } : {}), ...(flags.lines ? { lines: int(flags.lines, 'lines') } : {}) }, print: 'text' };
    }
  }
  const tabs = planTabs(`${group} ${sub ?? ''}`.trim(), rest, { usage: (m: string) => new Usage(m) });
  if (tabs) return tabs;
  const misc = planMisc(`${group} ${sub ?? ''}`.trim(), rest, { Usage, parseFlags, one, int });
  if (misc) return misc;
  const layout = planLayout(`${group} ${sub ?? ''}`.trim(), rest, LAYOUT_TOOLS);
  if (layout) return layout;
  throw new Usage(`unrecognized command '${words.join(' ').slice(0, 64)}'`);
}

export async function herdrCommand(argv: string[], env: Record<string, string | undefined> = process.env, io: Io = { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) }): Promise<number> {
  const words = argv.filter((a) => a !== '--json');
  const asJson = argv.includes('--json');
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    io[argv.length === 0 ? 'err' : 'out'](USAGE);
    return argv.length === 0 ? 2 : 0;
  }
  if (argv[0] === '--version' || argv[0] === '-V') {
    io.out(`herdr ${HERDR_VERSION}\n`);
    return 0;
  }
  const socket = herdrSocket(env);
  const two = words.slice(0, 2).join(' ');
  if (UNSUPPORTED.includes(words[0]!) || UNSUPPORTED.includes(two)) {
    const cmd = UNSUPPORTED.includes(two) ? two : words[0]!;
    io.err(JSON.stringify({ error: { code: 'unsupported', message: `tuios does not answer herdr ${cmd}: it does its work on herdr's own machine` } }) + '\n');
    return 1;
  }
  if (two === 'status server') {
    let running = false;
    try {
      running = !!(await request(socket, 'ping', {})).answer.result;
    } catch {
      running = false;
    }
    // tuios does not serve herdr's client protocol, so no herdr client can attach.
    if (asJson) io.out(JSON.stringify({ status: running ? 'running' : 'not running', socket, version: HERDR_VERSION, server: 'tuios', endpoint_compatible: false }) + '\n');
    else io.out(`status: ${running ? 'running' : 'not running'}\n`);
    return 0;
  }
  if (two === 'session list') {
    // One session, `default`, at the herdr socket.
    if (asJson) io.out(JSON.stringify({ sessions: [{ name: 'default', socket }] }) + '\n');
    else io.out('default\n');
    return 0;
  }
  let p: Plan;
  try {
    p = plan(words);
  } catch (e) {
    if (e instanceof Usage) {
      io.err(`error: ${e.message}\n\n${USAGE}`);
      return 2;
    }
    throw e;
  }
  let r;
  try {
    r = await request(socket, p.method, p.params);
  } catch (e) {
    io.err(JSON.stringify({ error: { code: 'server_unavailable', message: `the herdr socket ${socket} does not answer: ${e instanceof Error ? e.message : String(e)}` } }) + '\n');
    return 1;
  }
  if (r.answer.error) {
    io.err(r.line + '\n');
    return 1;
  }
  if (p.then) {
    let after;
    try {
      after = await p.then((m, params) => request(socket, m, params), r);
    } catch (e) {
      io.err(JSON.stringify({ error: { code: 'server_unavailable', message: `the herdr socket ${socket} does not answer: ${e instanceof Error ? e.message : String(e)}` } }) + '\n');
      return 1;
    }
    io[after.ok ? 'out' : 'err'](after.line + '\n');
    return after.ok ? 0 : 1;
  }
  if (p.print === 'none') return 0;
  if (p.print === 'text') {
    const text = (r.answer.result?.read as { text?: string } | undefined)?.text ?? '';
    io.out(text.endsWith('\n') ? text : text + '\n');
    return 0;
  }
  io.out(r.line + '\n');
  return 0;
}
