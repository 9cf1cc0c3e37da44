// Captures the traffic between tuios agent-proto's Codex adapter (proto/codex.ts) and the real
// `codex app-server` (installed from npm into .cache/agents/codex), driven against the fake
// OpenAI Responses API in test/fake-apis, and writes each scenario as a fixture:
//
//   fixtures/protocol/codex/<version>/<scenario>.jsonl
//
//   node --import tsx scripts/capture-codex-proto.ts              # every scenario
//   node --import tsx scripts/capture-codex-proto.ts cancel failed  # some
//
// A fixture's first line says where it came from ({"fixture": {...}}); then one line per
// message, {"dir":"out"|"in","msg":...} (out: what the adapter sent, in: what Codex sent), and
// the script's own steps between them ({"do":"prompt","text":...}, {"do":"cancel"},
// {"do":"answer","choice":...}, {"do":"kill"}) and how the process ended ({"exit":"..."}).
// test/helpers/codex-replay.ts replays them through the adapter in the unit tests.
//
// Two messages are not captured: 0.171 answers update_plan with "unsupported call: update_plan"
// against this provider (gpt-5.5 and a model it has no metadata for alike), so no
// turn/plan/updated, and model/rerouted comes only from OpenAI's own cyber-risk rerouting. The
// unit tests add them to captured traffic in the shape `codex app-server generate-ts` gives
// (fixtures/protocol/codex/README.md).
//
// Each state is reached through the fake API, never through timing: a turn is held on the server
// (hold) for as long as the script needs it in flight.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeOpenAI } from '../test/fake-apis/openai.js';
import type { FakeApi } from '../test/fake-apis/common.js';
import { readStat } from '../core/pty/procfs.js';
import { REPO, agentHome, ensureAgent, killProcessesUsing, pidsUsing, type InstalledAgent } from '../test/helpers/agents.js';
import { RecordingSink } from '../test/helpers/proto-sink.js';
import { CodexAgent } from '../proto/codex.js';
import type { Tapped } from '../proto/codex-wire.js';

interface Ctx {
  agent: CodexAgent;
  sink: RecordingSink;
  api: FakeApi;
  note(step: Record<string, unknown>): void;
  /** Kills the app-server from outside (SIGKILL to its process group). */
  kill(): void;
}

interface Scenario {
  what: string;
  /** Extra -c overrides before `app-server`. */
  config?: string[];
  /** Arguments between the program and `app-server`. */
  argv?: string[];
  fake?: Parameters<typeof startFakeOpenAI>[0];
  run(c: Ctx): Promise<void>;
}

const NO_RETRIES = ['model_providers.fake.request_max_retries=0', 'model_providers.fake.stream_max_retries=0'];

const turnEnd = (c: Ctx) => c.sink.until((e) => e.call === 'turnEnded', 120_000, 'the turn to end');

const SCENARIOS: Record<string, Scenario> = {
  'approval-accept': {
    what: 'a turn whose shell command asks approval (exec_command with sandbox_permissions require_escalated), answered accept; the model then answers with text',
    async run(c) {
      c.sink.answer = (req) => {
        c.note({ do: 'answer', choice: 'accept' });
        return req.options.find((o) => o.id === 'accept')?.id ?? null;
      };
      c.note({ do: 'prompt', text: 'Please create hello.txt' });
      await c.agent.prompt('Please create hello.txt');
      await turnEnd(c);
    },
  },
  'approval-deny': {
    what: "the same approval answered with Codex's one-call deny (cancel: 0.171 offers no decline for it)",
    async run(c) {
      c.sink.answer = (req) => {
        const deny = req.options.find((o) => o.kind === 'deny')!;
        c.note({ do: 'answer', choice: deny.id });
        return deny.id;
      };
      c.note({ do: 'prompt', text: 'Please create hello.txt' });
      await c.agent.prompt('Please create hello.txt');
      await turnEnd(c);
    },
  },
  cancel: {
    what: 'a turn held on the fake API while the adapter sends turn/interrupt',
    fake: { command: null, finalText: 'Okay.' },
    async run(c) {
      c.api.hold();
      c.note({ do: 'prompt', text: 'Take your time.' });
      await c.agent.prompt('Take your time.');
      await c.api.waitHeld(1, 60_000);
      c.note({ do: 'cancel' });
      await c.agent.cancel();
      await turnEnd(c);
      c.api.release();
    },
  },
  'cancel-approval': {
    what: 'a turn cancelled while its approval is on screen (the pending request is resolved by the interrupt)',
    async run(c) {
      c.sink.answer = () => undefined; // never answered
      c.note({ do: 'prompt', text: 'Please create hello.txt' });
      await c.agent.prompt('Please create hello.txt');
      await c.sink.until((e) => e.call === 'permission', 120_000, 'the approval');
      c.note({ do: 'cancel' });
      await c.agent.cancel();
      await turnEnd(c);
    },
  },
  failed: {
    what: 'the fake API fails every main request with HTTP 500, retries off (-c model_providers.fake.request_max_retries=0, stream_max_retries=0)',
    config: NO_RETRIES,
    fake: { command: null, finalText: 'Okay.', failStatus: 500 },
    async run(c) {
      c.note({ do: 'prompt', text: 'Say something.' });
      await c.agent.prompt('Say something.');
      await turnEnd(c);
    },
  },
  'file-change': {
    what: 'model gpt-5.5 (Codex knows it, so apply_patch is offered as a freeform tool); the model adds notes.txt in the read-only sandbox, which asks approval; answered accept',
    config: ['model="gpt-5.5"'],
    async run(c) {
      c.api.setToolCall({ name: 'apply_patch', args: { input: '*** Begin Patch\n*** Add File: notes.txt\n+hello\n*** End Patch\n' } });
      c.sink.answer = (req) => {
        c.note({ do: 'answer', choice: 'accept' });
        return req.options.find((o) => o.id === 'accept')?.id ?? null;
      };
      c.note({ do: 'prompt', text: 'Add notes.txt.' });
      await c.agent.prompt('Add notes.txt.');
      await turnEnd(c);
    },
  },
  'user-input': {
    what: 'the model calls request_user_input (outside Plan mode with -c features.default_mode_request_user_input=true): Codex sends item/tool/requestUserInput, which tuios does not handle (method not found)',
    config: ['features.default_mode_request_user_input=true'],
    async run(c) {
      c.api.setToolCall({ name: 'request_user_input', args: { questions: [{ header: 'Pick', id: 'pick', question: 'Which one?', options: [{ label: 'A (Recommended)', description: 'the first' }, { label: 'B', description: 'the second' }] }] } });
      c.note({ do: 'prompt', text: 'Ask me.' });
      await c.agent.prompt('Ask me.');
      await turnEnd(c);
    },
  },
  exit: {
    what: 'the app-server killed (SIGKILL to its process group) while idle after opening',
    async run(c) {
      c.note({ do: 'kill' });
      c.kill();
      await c.sink.until((e) => e.call === 'exited', 30_000, 'the exit');
    },
  },
  'start-fails': {
    what: 'codex started with an option it does not know (codex --no-such-option app-server): it exits before it answers initialize',
    argv: ['--no-such-option'],
    async run() {},
  },
};

async function capture(a: InstalledAgent, name: string, s: Scenario): Promise<void> {
  const api = await startFakeOpenAI(s.fake ?? { command: 'touch hello.txt', finalText: 'Done! I created hello.txt.\nIt is empty.' });
  const base = join('/var/tmp', `tuios-codex-proto-${process.pid}-${name}`);
  rmSync(base, { recursive: true, force: true });
  const run = agentHome('codex', { apiUrl: api.url, cwd: join(base, 'project'), home: join(base, 'home') });
  const t0 = Date.now();
  const lines: string[] = [];
  const rec = (o: Record<string, unknown>) => lines.push(JSON.stringify({ ...o, t: Date.now() - t0 }));
  let pgid = 0;
  const agent = new CodexAgent({
    command: [a.bin, ...(s.argv ?? []), ...(s.config ?? []).flatMap((c) => ['-c', c])],
    log: () => undefined,
    cwd: run.cwd,
    env: { ...process.env, ...run.env, PATH: `${a.binDir}:${process.env.PATH}` },
    tap: (t: Tapped) => rec({ dir: t.dir, msg: t.msg }),
    launch: async (o) => {
      const { launchAppServer } = await import('../proto/codex-process.js');
      const io = await launchAppServer(o);
      void io.exited.then((why) => rec({ exit: why }));
      return io;
    },
  });
  const sink = new RecordingSink();
  const ctx: Ctx = {
    agent,
    sink,
    api,
    note: (step) => rec(step),
    kill: () => {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        // gone
      }
    },
  };
  try {
    const started = agent.start(sink);
    // The process group is the app-server's pid (it leads its own session).
    pgid = await findGroup(run.home);
    await started.then(() => s.run(ctx), (e: Error) => rec({ note: `start failed: ${e.message}` }));
  } finally {
    await agent.close();
    // Anything the adapter left behind is a fault in its stop: say so (killProcessesUsing ends it).
    for (const p of pidsUsing(run.home)) {
      const st = readStat(p);
      console.log(`  left running: ${p} ${st?.comm} session ${st?.session} group ${st?.pgrp}`);
    }
    const left = await killProcessesUsing(run.home);
    await api.close();
    run.cleanup();
    rmSync(base, { recursive: true, force: true });
    if (left.length) console.log(`  ${name}: ${left.length} process(es) outlived the app-server and were killed: ${left.join(' ')}`);
  }
  const out = join(REPO, 'fixtures', 'protocol', 'codex', a.version);
  mkdirSync(out, { recursive: true });
  const header = { fixture: { program: `@openai/codex ${a.version}`, run: `codex ${(s.argv ?? []).map((x) => `${x} `).join('')}${(s.config ?? []).map((c) => `-c ${c} `).join('')}app-server (stdio), driven by proto/codex.ts`, scenario: name, what: s.what, how: 'node --import tsx scripts/capture-codex-proto.ts, against the fake Responses API in test/fake-apis/openai.ts', captured: new Date().toISOString().slice(0, 10) } };
  writeFileSync(join(out, `${name}.jsonl`), [JSON.stringify(header), ...lines].join('\n') + '\n');
  console.log(`  ${name}: ${lines.length} lines; sink saw ${sink.events.map((e) => e.call).join(' ')}`);
}

/** The app-server's process group: the session leader whose CODEX_HOME is this home. */
async function findGroup(home: string): Promise<number> {
  const { readdirSync, readFileSync } = await import('node:fs');
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    for (const n of readdirSync('/proc')) {
      if (!/^\d+$/.test(n)) continue;
      try {
        const env = readFileSync(`/proc/${n}/environ`, 'utf8');
        const stat = readFileSync(`/proc/${n}/stat`, 'utf8');
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        if (env.includes(`CODEX_HOME=${home}/.codex`) && Number(f[3]) === Number(n)) return Number(n);
      } catch {
        // gone or not ours
      }
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return 0;
}

async function main(): Promise<void> {
  const a = ensureAgent('codex');
  if ('skip' in a) throw new Error(a.skip);
  const names = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(SCENARIOS);
  for (const n of names) {
    const s = SCENARIOS[n];
    if (!s) throw new Error(`no scenario ${n} (known: ${Object.keys(SCENARIOS).join(', ')})`);
    console.log(`${n}: ${s.what}`);
    await capture(a, n, s);
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
