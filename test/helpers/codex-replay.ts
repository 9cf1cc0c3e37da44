// Replays captured Codex app-server traffic (fixtures/protocol/codex/<version>/*.jsonl, written
// by scripts/capture-codex-proto.ts) through the adapter in proto/codex.ts, as a stand-in for
// the process: what Codex sent is written to the adapter, in order, and each message the adapter
// sent at capture must come from it again before the replay goes on (the same method, and for an
// answer to Codex's request the same id). Ids of the adapter's own requests are mapped, so
// Codex's answers reach the request they answered.
//
//   const r = new Replay(readFixture('approval-accept'));
//   const agent = new CodexAgent({ argv: ['codex'], launch: r.launch });
//   await r.play(agent, sink);
//   r.sent   // every message the adapter sent
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import type { AppServerIo } from '../../proto/codex-process.js';
import type { CodexAgent } from '../../proto/codex.js';
import type { ProtoSink } from '../../proto/agent.js';
import type { Json } from '../../proto/codex-wire.js';
import { REPO } from './agents.js';

export const CODEX_FIXTURES = join(REPO, 'fixtures', 'protocol', 'codex', '0.171.0');

export interface FixtureLine {
  fixture?: Record<string, string>;
  dir?: 'in' | 'out';
  msg?: Json;
  do?: 'prompt' | 'cancel' | 'answer' | 'kill';
  text?: string;
  choice?: string;
  exit?: string;
  note?: string;
  t?: number;
}

/** A captured fixture's lines, header first. */
export function readFixture(name: string): FixtureLine[] {
  return readFileSync(join(CODEX_FIXTURES, `${name}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as FixtureLine);
}

/** A message Codex sent, to put into captured traffic (what a derived test adds or changes). */
export function incoming(msg: Json): FixtureLine {
  return { dir: 'in', msg };
}

export class Replay {
  /** Every message the adapter wrote, in order. */
  readonly sent: Json[] = [];
  private readonly stdout = new PassThrough();
  private readonly stdin: Writable;
  private inbox: Json[] = [];
  private wake: (() => void) | null = null;
  private exitWhy: (why: string) => void = () => undefined;
  private readonly exited = new Promise<string>((r) => (this.exitWhy = r));
  /** The adapter's request ids, by the id they had at capture. */
  private readonly ids = new Map<number, number>();
  stopped = false;

  constructor(readonly lines: FixtureLine[]) {
    let partial = '';
    this.stdin = new Writable({
      write: (chunk: Buffer, _enc, cb) => {
        partial += chunk.toString('utf8');
        let nl: number;
        while ((nl = partial.indexOf('\n')) >= 0) {
          const msg = JSON.parse(partial.slice(0, nl));
          partial = partial.slice(nl + 1);
          this.sent.push(msg);
          this.inbox.push(msg);
          this.wake?.();
        }
        cb();
      },
    });
  }

  /** Stands in for launchAppServer. */
  launch = async (): Promise<AppServerIo> => ({
    pid: null,
    stdin: this.stdin,
    stdout: this.stdout,
    exited: this.exited,
    stop: async () => {
      this.stopped = true;
      this.end('stopped');
    },
  });

  private end(why: string): void {
    if (!this.stdout.writableEnded) this.stdout.end();
    this.exitWhy(why);
  }

  private async next(timeoutMs: number, what: string): Promise<Json> {
    const deadline = Date.now() + timeoutMs;
    while (this.inbox.length === 0) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`the adapter did not send ${what} within ${timeoutMs} ms (it sent: ${this.sent.map((m) => m.method ?? `answer ${m.id}`).join(', ')})`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, left);
        this.wake = () => {
          clearTimeout(t);
          r();
        };
      });
      this.wake = null;
    }
    return this.inbox.shift();
  }

  /**
   * Starts the agent and plays the fixture to its end; resolves when every line is played and
   * start() has settled. `prompt` and `cancel` steps call the agent as the capture did.
   */
  async play(agent: CodexAgent, sink: ProtoSink, timeoutMs = 5_000): Promise<void> {
    const started = agent.start(sink).catch(() => undefined);
    for (const line of this.lines) {
      if (line.dir === 'in') {
        const msg = { ...line.msg };
        // An answer to the adapter's request goes to the id it has now.
        if (msg.method === undefined && typeof msg.id === 'number' && this.ids.has(msg.id)) msg.id = this.ids.get(msg.id);
        this.stdout.write(`${JSON.stringify(msg)}\n`);
        await new Promise((r) => setImmediate(r));
      } else if (line.dir === 'out') {
        const want = line.msg;
        const what = want.method ?? `the answer to request ${want.id}`;
        const got = await this.next(timeoutMs, what);
        if (want.method !== undefined) {
          if (got.method !== want.method) throw new Error(`the adapter sent ${got.method ?? `an answer to ${got.id}`} where it sent ${want.method} at capture`);
          if (typeof want.id === 'number') this.ids.set(want.id, got.id);
        } else if (got.method !== undefined || got.id !== want.id) {
          throw new Error(`the adapter sent ${got.method ?? `an answer to ${got.id}`} where it answered request ${want.id} at capture`);
        }
      } else if (line.do === 'prompt') void agent.prompt(line.text ?? '').catch(() => undefined);
      else if (line.do === 'cancel') void agent.cancel();
      else if (line.exit !== undefined) this.end(line.exit);
    }
    await started;
  }
}

/** The lines of a fixture with the first line the predicate accepts replaced (or dropped, for null). */
export function replaceLine(lines: FixtureLine[], pred: (l: FixtureLine) => boolean, by: (l: FixtureLine) => FixtureLine | null): FixtureLine[] {
  const i = lines.findIndex(pred);
  if (i < 0) throw new Error('no such line in the fixture');
  const out = [...lines];
  const r = by(lines[i]!);
  if (r === null) out.splice(i, 1);
  else out[i] = r;
  return out;
}

/** The lines with `add` inserted after the first line the predicate accepts. */
export function insertAfter(lines: FixtureLine[], pred: (l: FixtureLine) => boolean, ...add: FixtureLine[]): FixtureLine[] {
  const i = lines.findIndex(pred);
  if (i < 0) throw new Error('no such line in the fixture');
  return [...lines.slice(0, i + 1), ...add, ...lines.slice(i + 1)];
}

/** Whether a line is Codex's notification of this method. */
export const isIn = (method: string) => (l: FixtureLine) => l.dir === 'in' && l.msg?.method === method;
