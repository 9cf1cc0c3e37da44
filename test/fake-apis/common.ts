// What the three fake model APIs share: an HTTP server on 127.0.0.1, a record of every request,
// and the gate that holds the main answers until a test releases them. A "main" request is one
// that offers the shell tool, the model's real turn; everything else (titles, routers, quota
// checks) is a side request and is answered at once, so holding a turn never stalls the chrome.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  id: number;
  at: number;
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  /** main: the model's turn (the shell tool is on offer); side: titles, routers and the like. */
  role: 'main' | 'side' | 'other';
  /** What the server answered: 'tool_call', 'text', 'side', or the HTTP status for 'other'. */
  answer?: string;
  /** True while the answer waits on hold(). */
  held?: boolean;
}

export interface FakeApiOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Held before every main answer, in ms (default 0). hold() holds on top of it. */
  delayMs?: number;
  /** The shell command the model asks to run on a fresh turn; null answers with text only. */
  command?: string | null;
  /** The model's text when the tool result is back (or when command is null). */
  finalText?: string;
  /** The title side requests get (Claude Code and opencode show it). */
  title?: string;
  /** Main answers fail with this HTTP status and an error body (default: none, they answer). */
  failStatus?: number | null;
  /**
   * The token use main answers report (default 100 in, 20 out). Claude Code's status line takes
   * its context use and cost from it: 420000 input tokens of a 1M window read as 42%.
   */
  usage?: FakeUsage;
}

export interface FakeUsage {
  input_tokens: number;
  output_tokens: number;
}

export interface FakeApi {
  port: number;
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
  /** From now on main answers wait until release(). */
  hold(): void;
  /** Lets every held answer go and stops holding. */
  release(): void;
  /** Lets the held answers the predicate accepts go, and keeps holding; returns how many went. */
  releaseWhere(pred: (r: RecordedRequest) => boolean): number;
  /** How many main answers are waiting on the hold now. */
  held(): number;
  /** Resolves when at least n main answers are waiting on the hold. */
  waitHeld(n?: number, timeoutMs?: number): Promise<void>;
  /** Resolves when a request the predicate accepts has arrived (counting ones already in). */
  waitRequest(pred: (r: RecordedRequest) => boolean, timeoutMs?: number): Promise<RecordedRequest>;
  /** Changes the shell command the next fresh turn asks for (null: text only). */
  setCommand(cmd: string | null): void;
  setFinalText(text: string): void;
  /**
   * From now on main answers fail with this HTTP status (500: a server error) and a JSON error
   * body, after the delay and the hold like any answer; null answers again. Side requests still
   * answer. A harness that retries sees the same status on every try.
   */
  failWith(status: number | null): void;
  /**
   * The next fresh turns call this tool instead of the shell command, when the request offers a
   * tool of that name (a question tool, say); null goes back to the shell command. Used by the
   * APIs that implement it (openai.ts, anthropic.ts).
   */
  setToolCall(call: ToolCall | null): void;
  /** The token use the next main answers report (anthropic.ts). */
  setUsage(usage: FakeUsage): void;
  /**
   * The next fresh turns hand work to a subagent (anthropic.ts): the lead calls the Agent tool
   * (Task in older releases) with this description and prompt; the subagent, known by the prompt
   * in its first message, runs `command` with Bash and ends with `result`; the lead then ends with
   * the final text. null goes back to the shell command.
   */
  setSubagent(script: SubagentScript | null): void;
  readonly command: string | null;
}

export interface SubagentScript {
  description: string;
  /** What the subagent is asked; its first message holds it, which is how its requests are told from the lead's. */
  prompt: string;
  subagentType?: string;
  /** The shell command the subagent runs. */
  command: string;
  /** What the subagent ends with. */
  result: string;
  /** Launched in the background: the lead's call answers at once and its turn can end first. */
  background?: boolean;
}

/** A tool call a fresh turn makes instead of the shell command (setToolCall). */
export interface ToolCall {
  name: string;
  /** The call's arguments; a freeform (custom) tool takes `input`, its text. */
  args: Record<string, unknown>;
  /** Made even when the request does not offer the tool (the API only answers; the agent decides). */
  unlisted?: boolean;
}

export interface Plan {
  role: 'main' | 'side';
  answer: 'tool_call' | 'text' | 'side';
}

export interface Handler {
  /** Answers a request the generic layer did not; returns false to fall through to a 200 {}. */
  (ctx: { req: IncomingMessage; res: ServerResponse; rec: RecordedRequest; api: FakeApiState }): Promise<boolean> | boolean;
}

export interface FakeApiState {
  command: string | null;
  /** A tool call a fresh turn makes instead of the shell command, when the tool is offered. */
  toolCall: ToolCall | null;
  subagent: SubagentScript | null;
  finalText: string;
  title: string;
  delayMs: number;
  /** The token use a main answer reports (FakeApiOptions.usage). */
  usage: FakeUsage;
  /** Waits for the delay and the hold: call it before writing a main answer. */
  mainGate(rec: RecordedRequest): Promise<void>;
}

/** Thrown by mainGate when main answers are set to fail (failWith): the request gets that status. */
class FailAnswer extends Error {
  constructor(readonly status: number) {
    super(`fail with HTTP ${status}`);
  }
}

export async function startFakeApi(opts: FakeApiOptions, handler: Handler): Promise<FakeApi> {
  const requests: RecordedRequest[] = [];
  let holding = false;
  let waiters: Array<{ rec: RecordedRequest; go: () => void }> = [];
  const watchers = new Set<() => void>();
  const notify = () => {
    for (const w of [...watchers]) w();
  };
  let failStatus = opts.failStatus ?? null;
  const state: FakeApiState = {
    command: opts.command === undefined ? 'touch hello.txt' : opts.command,
    toolCall: null,
    subagent: null,
    finalText: opts.finalText ?? 'Done! I created hello.txt in the current directory.',
    title: opts.title ?? 'Create hello file',
    delayMs: opts.delayMs ?? 0,
    usage: opts.usage ?? { input_tokens: 100, output_tokens: 20 },
    async mainGate(rec) {
      if (state.delayMs > 0) await new Promise((r) => setTimeout(r, state.delayMs));
      if (holding) {
        rec.held = true;
        await new Promise<void>((go) => {
          waiters.push({ rec, go });
          notify();
        });
        rec.held = false;
      }
      if (failStatus !== null) throw new FailAnswer(failStatus);
    },
  };
  let n = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = {};
      try {
        body = raw ? JSON.parse(raw) : {};
      } catch {
        body = { raw };
      }
      const rec: RecordedRequest = { id: ++n, at: Date.now(), method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, role: 'other' };
      requests.push(rec);
      notify();
      // A client that gives up on a held answer (the agent was interrupted) is no longer held.
      res.on('close', () => {
        if (!rec.held) return;
        const i = waiters.findIndex((w) => w.rec === rec);
        if (i >= 0) waiters.splice(i, 1)[0]!.go();
        notify();
      });
      Promise.resolve(handler({ req, res, rec, api: state }))
        .then((done) => {
          if (!done && !res.headersSent) {
            rec.answer = '200';
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end('{}');
          }
          notify();
        })
        .catch((e: unknown) => {
          const status = e instanceof FailAnswer ? e.status : 500;
          if (e instanceof FailAnswer) rec.answer = String(status);
          if (!res.headersSent) res.writeHead(status, { 'content-type': 'application/json' });
          const message = e instanceof FailAnswer ? `The fake server failed this request on purpose (HTTP ${status}).` : String(e);
          res.end(JSON.stringify({ error: { message, type: 'server_error', code: null, param: null } }));
          notify();
        });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const until = <T>(check: () => T | undefined, timeoutMs: number, what: string) =>
    new Promise<T>((resolve, reject) => {
      const first = check();
      if (first !== undefined) return resolve(first);
      const t = setTimeout(() => {
        watchers.delete(w);
        reject(new Error(`fake API on ${port}: timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      const w = () => {
        const v = check();
        if (v === undefined) return;
        clearTimeout(t);
        watchers.delete(w);
        resolve(v);
      };
      watchers.add(w);
    });
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    requests,
    get command() {
      return state.command;
    },
    hold() {
      holding = true;
    },
    release() {
      holding = false;
      const w = waiters;
      waiters = [];
      for (const r of w) r.go();
    },
    releaseWhere(pred) {
      const go = waiters.filter((w) => pred(w.rec));
      waiters = waiters.filter((w) => !go.includes(w));
      for (const w of go) w.go();
      return go.length;
    },
    held: () => waiters.length,
    waitHeld(count = 1, timeoutMs = 120_000) {
      return until(() => (waiters.length >= count ? true : undefined), timeoutMs, `${count} held main answer(s)`).then(() => undefined);
    },
    waitRequest(pred, timeoutMs = 120_000) {
      return until(() => requests.find(pred), timeoutMs, 'a matching request');
    },
    setCommand(cmd) {
      state.command = cmd;
    },
    setFinalText(text) {
      state.finalText = text;
    },
    failWith(status) {
      failStatus = status;
    },
    setToolCall(call) {
      state.toolCall = call;
    },
    setUsage(usage) {
      state.usage = usage;
    },
    setSubagent(script) {
      state.subagent = script;
    },
    async close() {
      holding = false;
      const w = waiters;
      waiters = [];
      for (const r of w) r.go();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** Writes an SSE response's head. */
export function sseHead(res: ServerResponse, extra: Record<string, string> = {}): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', ...extra });
}

export function json(res: ServerResponse, value: unknown, status = 200): true {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
  return true;
}
