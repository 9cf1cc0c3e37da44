// How an adapter starts its agent (spec: What the agent can do through tuios): in a session of its
// own (setsid, via detached) with no controlling terminal, its standard input and output pipes to
// agent-proto and its errors to a log, never the pane's terminal, so it cannot write to the pane.
import { spawn, type ChildProcess } from 'node:child_process';

export interface AdapterOptions {
  /** The agent's command line: program and arguments. */
  command: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Where the agent's standard error goes, line by line (agent-proto's log). */
  log: (line: string) => void;
}

/** Starts the agent with stdin/stdout pipes only; `error` fires if it could not start. */
export function spawnAgent(o: AdapterOptions): ChildProcess {
  const [program, ...args] = o.command;
  if (!program) throw new Error('no agent command');
  const env = { ...o.env };
  // The pane's identity is agent-proto's, not the agent's: it never reports for the pane itself.
  delete env.TUIOS_PANE_ID;
  const child = spawn(program, args, { cwd: o.cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  let errTail = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (d: string) => {
    errTail = (errTail + d).slice(-4096);
    const lines = errTail.split('\n');
    errTail = lines.pop() ?? '';
    for (const l of lines) if (l.trim()) o.log(`agent: ${l.slice(0, 500)}`);
  });
  return child;
}

/** Splits `opencode acp` into words; quotes group words, nothing else is interpreted. */
export function splitCommand(text: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(text); m; m = re.exec(text)) out.push(m[1] ?? m[2] ?? m[3]!);
  return out;
}
