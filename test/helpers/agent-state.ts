// A pane's agent state as the e2e tests read it: `get-agent-state` for one window, the window's row
// of `list-agents`, and waits on either that say, when they time out, what the pane last was and
// what its screen showed.
import { waitFor } from './wait.js';

/** What the tests call verbs on: a TestDaemon, or a Host's daemon. */
export interface VerbCaller {
  call<T = Record<string, unknown>>(verb: string, params?: Record<string, unknown>): Promise<T>;
}

/** `get-agent-state`'s answer, the fields the tests read. */
export interface AgentState {
  window_id?: string;
  state: string;
  harness_id: string | null;
  kind?: string;
  message?: string;
  source?: string | null;
  agent_session_id?: string | null;
  agent_session_harness?: string | null;
}

/** A row of `list-agents`, the fields the tests read. */
export interface AgentRow extends AgentState {
  window_id: string;
  name: string;
  host?: string;
  queued?: number;
}

export interface StateWait {
  timeout?: number;
  /** Named in the timeout's message (default: `WINDOW to be STATE`). */
  what?: string;
  /** More to tell when it times out (the stand-in's log, the events seen). */
  explain?: () => string | Promise<string>;
}

export const stateOf = (d: VerbCaller, window: string): Promise<AgentState> => d.call<AgentState>('get-agent-state', { window });

export async function agentRow(d: VerbCaller, window: string): Promise<AgentRow | undefined> {
  return (await d.call<{ agents: AgentRow[] }>('list-agents')).agents.find((a) => a.window_id === window);
}

type Want<R> = string | readonly string[] | ((r: R) => boolean);

function matches<R extends AgentState>(want: Want<R>, r: R | undefined): boolean {
  if (!r) return false;
  if (typeof want === 'function') return want(r);
  return typeof want === 'string' ? r.state === want : want.includes(r.state);
}

function describe<R>(want: Want<R>): string {
  return typeof want === 'function' ? 'the wanted state' : typeof want === 'string' ? want : want.join(' or ');
}

async function waitOn<R extends AgentState>(d: VerbCaller, window: string, read: () => Promise<R | undefined>, want: Want<R>, opts: StateWait): Promise<R> {
  try {
    return await waitFor(async () => {
      const r = await read();
      return matches(want, r) ? r! : null;
    }, { timeout: opts.timeout ?? 60_000, what: opts.what ?? `${window} to be ${describe(want)}` });
  } catch (e) {
    const last = await read().catch((x: Error) => x.message);
    const lines = await d
      .call<{ lines: string[] }>('capture-pane', { window })
      .then((c) => c.lines.filter((l) => l.trim()).slice(-16).join('\n'))
      .catch((x: Error) => `(no screen: ${x.message})`);
    const more = opts.explain ? `\n${await opts.explain()}` : '';
    throw new Error(`${(e as Error).message}\nlast: ${JSON.stringify(last)}${more}\nscreen:\n${lines}`);
  }
}

/** Waits until `get-agent-state` of the window is `want` (a state, one of several, or a test). */
export function waitState(d: VerbCaller, window: string, want: Want<AgentState>, opts: StateWait = {}): Promise<AgentState> {
  return waitOn(d, window, () => stateOf(d, window), want, opts);
}

/** Waits until the window's `list-agents` row is `want`. */
export function waitRow(d: VerbCaller, window: string, want: Want<AgentRow>, opts: StateWait = {}): Promise<AgentRow> {
  return waitOn(d, window, () => agentRow(d, window), want, opts);
}
