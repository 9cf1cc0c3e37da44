// One real agent CLI in a pane of its own daemon, for a suite's before and after hooks: the agent
// installed from npm (its prerequisite: missing, the suite's tests report themselves skipped, or
// fail under CI), its fake model API, a daemon, a project folder inside the daemon's home (so the
// risk rules take it as the pane's root), the agent's home, the events the pane publishes, and the
// agent started in a pane.
//
//   const a = new RealAgent('pi', { prepare: async (a) => { ... integration install ... } });
//   const it = a.gate(t);
//   t.before(() => a.start());
//   t.after(() => a.stop());
//   it('comes to rest', async () => { await a.waitState('idle'); });
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Test } from 'uvu';
import type { FakeApi, FakeApiOptions } from '../fake-apis/common.js';
import type { RpcClient } from '../../core/rpc/client.js';
import { TestDaemon, type DaemonOptions } from './daemon.js';
import { agentHome, ensureAgent, screenText, startAgentInPane, startFakeFor, stopAgent, type AgentHomeOptions, type AgentPane, type AgentRun, type InstalledAgent } from './agents.js';
import { agentRow, stateOf, waitRow, waitState, type AgentRow, type AgentState, type StateWait } from './agent-state.js';
import { prerequisite, type Prerequisite } from './prereq.js';

/** An event of the pane's, as `subscribe` gave it. */
export interface PaneEvent {
  type?: string;
  window_id?: string;
  state?: string;
  kind?: string;
  message?: string;
  source?: string | null;
  title?: string;
  body?: string;
  osc?: number;
}

export interface RealAgentOptions {
  /** The window's name (default: the harness id). */
  name?: string;
  /** Another release than the pinned one (test/helpers/agents.ts AGENTS), installed from npm in set-up. */
  version?: string;
  daemon?: DaemonOptions;
  /** The fake model's script (default: it asks to run `touch hello.txt`, then says so). */
  fake?: FakeApiOptions;
  /** The project folder the agent starts in (default: `project` inside the daemon's home); made when missing. */
  project?: (d: TestDaemon) => string;
  /** More for the agent's home (trust, hooks, modes). */
  home?: Partial<AgentHomeOptions>;
  /** Event types kept in `events` (default agent-state). */
  subscribe?: string[];
  cols?: number;
  rows?: number;
  /** Runs once the daemon and the home exist, before the agent starts (integration install, config). */
  prepare?: (a: RealAgent) => Promise<void>;
  /** A wrapper the pane's shell runs under (`['env', 'FOO=1']`), see startAgentInPane. */
  wrap?: string[];
}

type Want<R> = string | readonly string[] | ((r: R) => boolean);

export class RealAgent {
  readonly needs: Prerequisite;
  d!: TestDaemon;
  fake!: FakeApi;
  run!: AgentRun;
  pane!: AgentPane;
  agent: InstalledAgent | null = null;
  project = '';
  /** Every event of the pane, in order, from a subscribe stream held for the suite. */
  readonly events: PaneEvent[] = [];
  private stream: RpcClient | null = null;
  private started = false;

  constructor(
    readonly id: string,
    private readonly opts: RealAgentOptions = {},
  ) {
    this.needs = prerequisite(`${id}${opts.version ? `@${opts.version}` : ''} installed from npm`);
  }

  /** uvu's test (or a suite) gated on the agent being installable here. */
  gate(t: Test): ReturnType<Prerequisite['gate']> {
    return this.needs.gate(t);
  }

  get window(): string {
    return this.pane.window;
  }

  /** The pane's agent-state events, in order. */
  get states(): PaneEvent[] {
    return this.events.filter((e) => e.state !== undefined);
  }

  /** The suite's before hook. When the agent cannot be installed here, marks it missing and does nothing else. */
  async start(): Promise<void> {
    const a = ensureAgent(this.id, this.opts.version);
    if ('skip' in a) return this.needs.missing(a.skip);
    this.agent = a;
    this.started = true;
    this.fake = await startFakeFor(this.id, this.opts.fake ?? { command: 'touch hello.txt', finalText: 'Created hello.txt.' });
    this.d = await TestDaemon.start({ ...this.opts.daemon, env: { TUIOS_AGENT_DETECT_SECONDS: '0.5', ...this.opts.daemon?.env } });
    this.project = this.opts.project?.(this.d) ?? join(this.d.home, 'project');
    mkdirSync(this.project, { recursive: true });
    this.run = agentHome(this.id, { ...this.opts.home, apiUrl: this.fake.url, cwd: this.project });
    const types = this.opts.subscribe ?? ['agent-state'];
    this.stream = await this.d.client();
    await this.stream.stream('subscribe', { types }, (e) => {
      const ev = e as PaneEvent;
      if (this.pane && ev.window_id === this.pane.window) this.events.push(ev);
    });
    await this.opts.prepare?.(this);
    this.pane = await startAgentInPane(this.d, { agent: a, run: this.run, session: 'agents', name: this.opts.name ?? this.id, cols: this.opts.cols ?? 120, rows: this.opts.rows ?? 40, wrap: this.opts.wrap });
  }

  /** The suite's after hook: the agent and its helpers, the fake API, the daemon. */
  async stop(): Promise<void> {
    if (!this.started) return;
    this.stream?.close();
    if (this.pane) await stopAgent(this.d, this.pane, this.run).catch(() => undefined);
    await this.fake.close();
    await this.d.stop();
  }

  screen(): Promise<string> {
    return screenText(this.d, this.window);
  }

  state(): Promise<AgentState> {
    return stateOf(this.d, this.window);
  }

  row(): Promise<AgentRow | undefined> {
    return agentRow(this.d, this.window);
  }

  /** Waits on get-agent-state; on a timeout says the events the pane published too. */
  waitState(want: Want<AgentState>, opts: StateWait = {}): Promise<AgentState> {
    return waitState(this.d, this.window, want, { timeout: 120_000, explain: () => this.published(), ...opts });
  }

  /**
   * Waits for the SessionStart hook's report: the pane at rest, reported by its hooks (Claude
   * Code's). A hook gives up after 500 ms, so on a machine the rest of the suite keeps busy one
   * report may be dropped (by design): /clear then starts a new conversation, whose SessionStart
   * must land. Three tries in all; the last one's timeout fails the wait.
   */
  async sessionStartReported(timeout = 60_000): Promise<AgentState> {
    for (let attempt = 0; ; attempt++) {
      if (attempt > 0) {
        console.log(`# the SessionStart report did not land (attempt ${attempt}); /clear for a new one`);
        await this.d.ok(['send-text', '-w', this.window, '/clear']);
        await this.d.ok(['send-keys', '-w', this.window, 'Enter']);
      }
      const r = await this.waitState((x) => x.state === 'idle' && x.source === 'report', { what: 'the SessionStart report', timeout }).catch((e: Error) => {
        if (attempt >= 2) throw e;
        return null;
      });
      if (r) return r;
    }
  }

  /** Waits on the pane's list-agents row. */
  waitRow(want: Want<AgentRow>, opts: StateWait = {}): Promise<AgentRow> {
    return waitRow(this.d, this.window, want, { timeout: 120_000, explain: () => this.published(), ...opts });
  }

  /**
   * Waits for the fake API to see a request; on a timeout says what the pane showed, the states
   * it published and what was queued for it, so a run that never reached the model says where it stopped.
   */
  async waitRequest(pred: Parameters<FakeApi['waitRequest']>[0], timeoutMs = 120_000): Promise<Awaited<ReturnType<FakeApi['waitRequest']>>> {
    try {
      return await this.fake.waitRequest(pred, timeoutMs);
    } catch (e) {
      const queued = await this.d.call('list-queued', {}).then((r) => JSON.stringify(r).slice(0, 2000), (q: unknown) => String(q));
      const screen = await this.screen().catch((q: unknown) => String(q));
      throw new Error(`${(e as Error).message}\n${this.published()}\nqueued: ${queued}\nthe pane:\n${screen}`);
    }
  }

  /** The states published so far, for failure messages. */
  published(from = 0): string {
    return `published: ${this.states
      .slice(from)
      .map((e) => `${e.state}${e.source ? `/${e.source}` : ''}${e.message ? ` (${e.message})` : ''}`)
      .join(' → ')}`;
  }
}
