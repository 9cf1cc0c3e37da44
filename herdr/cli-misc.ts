// herdr's command line for agent start, notification show, worktree and workspace
// report-metadata (spec: herdr's command line), as herdr 0.9.5 reads them. cli.ts sends the method
// and prints the answer; `agent start` then waits, as herdr's does, until the agent is at rest
// (idle or done), and prints the agent as it is then. cli.ts hands in its flag readers and its
// usage error (imported, they would make a cycle).

type Request = (method: string, params: Record<string, unknown>) => Promise<{ line: string; answer: { result?: Record<string, unknown>; error?: unknown } }>;

/** What a command becomes (cli.ts's Plan): a method and its params, how its answer prints, and what runs after it. */
export interface MiscPlan {
  method: string;
  params: Record<string, unknown>;
  print: 'json' | 'none' | 'text';
  then?: (request: Request, first: Awaited<ReturnType<Request>>) => Promise<{ ok: boolean; line: string }>;
}

/** cli.ts's readers: the usage error, the flag splitter, one positional, an integer flag. */
export interface CliReaders {
  Usage: new (message: string) => Error;
  parseFlags(args: string[], known: string[], bool?: string[]): { pos: string[]; flags: Record<string, string | true> };
  one(pos: string[], what: string): string;
  int(v: string | true | undefined, name: string): number | undefined;
}

/** The kinds herdr's `agent start` starts: any other fails in the command line, exit 2. */
const HERDR_KINDS = new Set([
  'pi', 'claude', 'claude-code', 'codex', 'gemini', 'cursor', 'cursor-agent', 'devin', 'devin-cli', 'agy', 'antigravity', 'antigravity-cli',
  'cline', 'omp', 'mastracode', 'mastra-code', 'opencode', 'opencode2', 'open-code', 'copilot', 'github-copilot', 'ghcs', 'kimi', 'kimi-code',
  'kiro', 'kiro-cli', 'droid', 'amp', 'amp-local', 'grok', 'grok-build', 'hermes', 'hermes-agent', 'kilo', 'kilo-code', 'qodercli', 'qoderclicn',
  'qoder', 'qodercn', 'maki',
]);

/** herdr's `agent start` waits for startup this long when --timeout is not given. */
const AGENT_START_WAIT_MS = 30_000;
/** How often `agent start` reads the agent while it waits. */
const AGENT_START_POLL_MS = 250;

/**
 * After agent.start answers: agent.get on the pane until its status is idle or done, or the
 * timeout. The answer printed is agent.start's with the agent as it is at rest, or the error.
 */
function waitAtRest(paneId: string, timeoutMs: number) {
  return async (request: Request, first: { line: string; answer: { result?: Record<string, unknown> } }) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const r = await request('agent.get', { target: paneId });
      const agent = r.answer.result?.agent as { agent_status?: string } | undefined;
      if (agent && (agent.agent_status === 'idle' || agent.agent_status === 'done')) {
        return { ok: true, line: JSON.stringify({ ...JSON.parse(first.line), result: { ...first.answer.result, agent } }) };
      }
      if (Date.now() >= deadline) {
        return { ok: false, line: JSON.stringify({ id: 'cli:agent:start', error: { code: 'timeout', message: `timed out waiting for agent startup after ${timeoutMs} ms` } }) };
      }
      await new Promise((res) => setTimeout(res, AGENT_START_POLL_MS));
    }
  };
}

/** `--token NAME=VALUE` and `--clear-token NAME`, repeatable: herdr's token map. */
function tokensOf(args: string[], Usage: CliReaders['Usage']): { rest: string[]; tokens: Record<string, string | null> } {
  const rest: string[] = [];
  const tokens: Record<string, string | null> = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--token' || a === '--clear-token') {
      const v = args[++i];
      if (v === undefined) throw new Usage(`a value is required for '${a}'`);
      if (a === '--clear-token') tokens[v] = null;
      else {
        const eq = v.indexOf('=');
        if (eq <= 0) throw new Usage(`invalid value '${v.slice(0, 32)}' for '--token': expected NAME=VALUE`);
        tokens[v.slice(0, eq)] = v.slice(eq + 1);
      }
    } else rest.push(a);
  }
  return { rest, tokens };
}

/** The source folder flags of the worktree commands. */
function source(flags: Record<string, string | true>, Usage: CliReaders['Usage']): Record<string, unknown> {
  if (typeof flags.workspace === 'string' && typeof flags.cwd === 'string') throw new Usage('use at most one of --workspace or --cwd');
  return { ...(typeof flags.workspace === 'string' ? { workspace_id: flags.workspace } : {}), ...(typeof flags.cwd === 'string' ? { cwd: flags.cwd } : {}) };
}

export function planMisc(command: string, rest: string[], r: CliReaders): MiscPlan | null {
  const { Usage, parseFlags, one, int } = r;
  const json = (method: string, params: Record<string, unknown> = {}): MiscPlan => ({ method, params, print: 'json' });
  switch (command) {
    case 'agent start': {
      const sep = rest.indexOf('--');
      const own = sep < 0 ? rest : rest.slice(0, sep);
      const args = sep < 0 ? [] : rest.slice(sep + 1);
      const { pos, flags } = parseFlags(own, ['kind', 'pane', 'timeout']);
      const name = one(pos, 'NAME');
      if (typeof flags.kind !== 'string') throw new Usage('missing required --kind');
      if (typeof flags.pane !== 'string') throw new Usage('missing required --pane');
      if (!HERDR_KINDS.has(flags.kind.toLowerCase())) throw new Usage(`unsupported interactive agent kind: ${flags.kind.slice(0, 64)}`);
      const timeout = int(flags.timeout, 'timeout');
      return { ...json('agent.start', { name, kind: flags.kind, pane_id: flags.pane, args, ...(timeout !== undefined ? { timeout_ms: timeout } : {}) }), then: waitAtRest(flags.pane, timeout ?? AGENT_START_WAIT_MS) };
    }
    case 'notification show': {
      const { pos, flags } = parseFlags(rest, ['body', 'position', 'sound']);
      return json('notification.show', { title: one(pos, 'TITLE'), ...(typeof flags.body === 'string' ? { body: flags.body } : {}), ...(typeof flags.sound === 'string' ? { sound: flags.sound } : {}), ...(typeof flags.position === 'string' ? { position: flags.position } : {}) });
    }
    case 'worktree list': {
      const { pos, flags } = parseFlags(rest, ['workspace', 'cwd']);
      if (pos.length) throw new Usage(`unexpected argument '${pos[0]}'`);
      return json('worktree.list', source(flags, Usage));
    }
    case 'worktree create': {
      const { pos, flags } = parseFlags(rest, ['workspace', 'cwd', 'branch', 'base', 'path', 'label'], ['focus', 'no-focus']);
      if (pos.length) throw new Usage(`unexpected argument '${pos[0]}'`);
      const p: Record<string, unknown> = { ...source(flags, Usage), focus: flags.focus === true };
      for (const f of ['branch', 'base', 'path', 'label']) if (typeof flags[f] === 'string') p[f] = flags[f];
      return json('worktree.create', p);
    }
    case 'worktree open': {
      const { pos, flags } = parseFlags(rest, ['workspace', 'cwd', 'branch', 'path', 'label'], ['focus', 'no-focus']);
      if (pos.length) throw new Usage(`unexpected argument '${pos[0]}'`);
      if ((typeof flags.path === 'string') === (typeof flags.branch === 'string')) throw new Usage('use exactly one of --path or --branch');
      const p: Record<string, unknown> = { ...source(flags, Usage), focus: flags.focus === true };
      for (const f of ['branch', 'path', 'label']) if (typeof flags[f] === 'string') p[f] = flags[f];
      return json('worktree.open', p);
    }
    case 'worktree remove': {
      const { pos, flags } = parseFlags(rest, ['workspace'], ['force']);
      if (pos.length) throw new Usage(`unexpected argument '${pos[0]}'`);
      if (typeof flags.workspace !== 'string') throw new Usage('the following required argument was not provided: --workspace');
      return json('worktree.remove', { workspace_id: flags.workspace, force: flags.force === true });
    }
    case 'workspace report-metadata': {
      const { rest: others, tokens } = tokensOf(rest, Usage);
      const { pos, flags } = parseFlags(others, ['source', 'seq', 'ttl-ms']);
      if (typeof flags.source !== 'string') throw new Usage('the following required argument was not provided: --source');
      const seq = int(flags.seq, 'seq');
      const ttl = int(flags['ttl-ms'], 'ttl-ms');
      return { method: 'workspace.report_metadata', params: { workspace_id: one(pos, 'WORKSPACE'), source: flags.source, tokens, ...(seq !== undefined ? { seq } : {}), ...(ttl !== undefined ? { ttl_ms: ttl } : {}) }, print: 'none' };
    }
  }
  return null;
}

export const MISC_USAGE = `  herdr agent start NAME --kind KIND --pane PANE [--timeout MS] [-- AGENT_ARGS...]
  herdr notification show TITLE [--body TEXT] [--sound none|done|request]
  herdr worktree list [--workspace ID | --cwd PATH]
  herdr worktree create [--workspace ID | --cwd PATH] --branch NAME [--base REF] [--label TEXT]
  herdr worktree open [--workspace ID | --cwd PATH] (--path PATH | --branch NAME) [--label TEXT]
  herdr worktree remove --workspace ID [--force]
  herdr workspace report-metadata WORKSPACE --source ID [--token NAME=VALUE] [--clear-token NAME] [--seq N] [--ttl-ms N]
`;
