// `tuios agent-proto --protocol acp|codex [--harness H] -- CMD...`: the process of a protocol pane
// (spec: Headless agents over a protocol). start-agent --protocol runs it; its own bundle
// (dist/agent-proto.js), loaded by the CLI for this command alone.
import { ADAPTERS, PROTOCOLS, type Protocol } from './adapters.js';
import { ProtoPane } from './pane.js';
import { DaemonLink, paneIds } from './daemon.js';
import { harnessFor } from './state.js';
import { splitCommand } from './spawn.js';

const USAGE = 'usage: tuios agent-proto --protocol acp|codex [--harness H] -- CMD [ARGS...]\n';

export interface ProtoArgs {
  protocol: Protocol;
  harness: string;
  command: string[];
}

export function parseProtoArgs(argv: string[]): ProtoArgs | string {
  let protocol: string | null = null;
  let harness: string | null = null;
  let i = 0;
  for (; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      i++;
      break;
    }
    if (a === '--protocol') protocol = argv[++i] ?? null;
    else if (a === '--harness') harness = argv[++i] ?? null;
    else break;
  }
  if (!protocol || !(PROTOCOLS as readonly string[]).includes(protocol)) return `the protocol is acp or codex`;
  const rest = argv.slice(i);
  const command = rest.length === 1 ? splitCommand(rest[0]!) : rest;
  if (command.length === 0) return 'no agent command';
  return { protocol: protocol as Protocol, harness: harnessFor(harness, protocol), command };
}

export async function agentProtoCommand(argv: string[]): Promise<number> {
  const args = parseProtoArgs(argv);
  if (typeof args === 'string') {
    process.stderr.write(`tuios agent-proto: ${args}\n${USAGE}`);
    return 2;
  }
  const ids = paneIds(process.env);
  if (!ids) {
    process.stderr.write('tuios agent-proto: runs inside a tuios pane (TUIOS_PANE_ID is not set); start it with tuios start-agent --protocol\n');
    return 2;
  }
  // Nothing the agent or the daemon says is written to the pane's error stream: a log line would
  // draw over the transcript. The log is kept for the last lines only.
  const log: string[] = [];
  const note = (l: string) => {
    log.push(l);
    if (log.length > 200) log.shift();
  };
  const link = new DaemonLink(ids, args.harness, note);
  const agent = ADAPTERS[args.protocol]({ command: args.command, cwd: process.cwd(), env: process.env, log: note });
  const out = (s: string) => void process.stdout.write(s);
  return new Promise<number>((resolve) => {
    const leave = () => {
      void agent.close().finally(() => {
        void link.flush().finally(() => {
          out('\x1b[?2004l\r\n');
          link.close();
          resolve(0);
        });
      });
    };
    const pane = new ProtoPane(agent, link, out, () => Date.now(), leave);
    if (process.stdin.isTTY) process.stdin.setRawMode(true);
    // Pastes arrive bracketed, so a paste never answers a question or submits a line.
    out('\x1b[?2004h');
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (d: string) => pane.input(d));
    process.stdin.on('end', leave);
    process.on('SIGHUP', leave);
    process.on('SIGTERM', leave);
    void agent.start(pane);
  });
}
