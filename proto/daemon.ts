// agent-proto's two connections to the daemon (spec: Headless agents over a protocol). The state
// connection carries the pane's own reports and its Inbox holds, in order; the side connection
// carries activity and metadata from a queue of its own, so a slow daemon never holds the pane's
// typing or its state reports. A failed side call is tried again a few times; the queue is bounded
// (metadata keeps each key's newest value, the oldest activity goes first).
import { RpcClient } from '../core/rpc/client.js';
import { resolveSocket } from '../core/config/paths.js';
import type { ProtoState, StateReport } from './state.js';

/** Tries per side call before it is given up. */
export const SIDE_TRIES = 3;
/** The wait before the next try grows from this. */
export const SIDE_RETRY_MS = 200;
/** Activity reports queued at most; past it the oldest is dropped. */
export const SIDE_QUEUE_MAX = 256;

export interface PaneIds {
  socket: string;
  window: string;
}

/** The pane the process runs in, from its environment; null outside tuios. */
export function paneIds(env: NodeJS.ProcessEnv): PaneIds | null {
  const window = env.TUIOS_PANE_ID;
  if (!window) return null;
  return { socket: resolveSocket(env).socket, window };
}

export type ActivityEvent = 'UserPromptSubmit' | 'PreToolUse' | 'PostToolUse' | 'PostToolUseFailure' | 'Stop';

type SideJob = { kind: 'meta'; values: Record<string, string> } | { kind: 'activity'; event: ActivityEvent; text: string; state: ProtoState };

export class DaemonLink {
  private state: RpcClient | null = null;
  private side: RpcClient | null = null;
  private readonly jobs: SideJob[] = [];
  private running = false;
  private closed = false;
  /** Whether the daemon's set-agent-state takes `activity` (null until asked). */
  private activityOk: boolean | null = null;

  constructor(
    private readonly ids: PaneIds,
    private readonly harness: string,
    private readonly log: (line: string) => void,
  ) {}

  private async client(which: 'state' | 'side'): Promise<RpcClient> {
    const cur = which === 'state' ? this.state : this.side;
    if (cur) return cur;
    const c = await RpcClient.connect(this.ids.socket, { pane: this.ids.window });
    c.onClose(() => {
      if (which === 'state' && this.state === c) this.state = null;
      if (which === 'side' && this.side === c) this.side = null;
    });
    if (which === 'state') this.state = c;
    else this.side = c;
    return c;
  }

  /** The pane's own report: source `report`, under its harness. */
  async report(r: StateReport): Promise<void> {
    const params = { window: this.ids.window, state: r.state, source: 'report', harness: this.harness, ...(r.message ? { message: r.message } : {}), ...(r.kind ? { kind: r.kind } : {}) };
    for (let i = 0; i < SIDE_TRIES; i++) {
      try {
        await (await this.client('state')).call('set-agent-state', params);
        return;
      } catch (e) {
        this.log(`state report ${r.state} failed: ${(e as Error).message}`);
        if (i + 1 < SIDE_TRIES) await delay(SIDE_RETRY_MS * (i + 1));
      }
    }
  }

  /**
   * Holds a one-line request for the Inbox and waits: the person's allow or deny, or null when the
   * hold ended without one (or could not be made). `signal` ends the wait (a key in the pane).
   */
  async hold(tool: string, line: string, signal: AbortSignal): Promise<'allow' | 'deny' | null> {
    // A connection of its own: ending the hold is closing it, which the daemon reads as the
    // requester giving up, and the state connection stays free for reports meanwhile.
    let c: RpcClient;
    try {
      c = await RpcClient.connect(this.ids.socket, { pane: this.ids.window });
    } catch (e) {
      this.log(`no hold: ${(e as Error).message}`);
      return null;
    }
    const onAbort = () => c.close();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const r = await c.call<{ held: boolean; why: string; decision?: { behavior: 'allow' | 'deny' } | null }>('request-approval', { window: this.ids.window, harness: this.harness, tool, input: { line } });
      if (!r.held) this.log(`not held for the Inbox: ${r.why}`);
      return r.held && r.decision ? r.decision.behavior : null;
    } catch (e) {
      if (!signal.aborted) this.log(`hold failed: ${(e as Error).message}`);
      return null;
    } finally {
      signal.removeEventListener('abort', onAbort);
      c.close();
    }
  }

  /** Metadata, source `protocol`; an empty value clears a key. Queued on the side connection. */
  meta(values: Record<string, string>): void {
    if (Object.keys(values).length === 0) return;
    // A newer value of a key makes the older one still queued pointless.
    for (const j of this.jobs) if (j.kind === 'meta') for (const k of Object.keys(values)) delete j.values[k];
    this.push({ kind: 'meta', values: { ...values } });
  }

  /** Activity for the daemon's ring, with the state last reported and if_state none. */
  activity(event: ActivityEvent, text: string, state: ProtoState): void {
    this.push({ kind: 'activity', event, text, state });
  }

  private push(j: SideJob): void {
    if (this.closed) return;
    this.jobs.push(j);
    while (this.jobs.length > SIDE_QUEUE_MAX) {
      const i = this.jobs.findIndex((x) => x.kind === 'activity');
      this.jobs.splice(i < 0 ? 0 : i, 1);
    }
    void this.drain();
  }

  /** Resolves once every queued side call was sent or given up (tests, the pane leaving). */
  async flush(): Promise<void> {
    while (this.running || this.jobs.length > 0) {
      await delay(10);
      if (!this.running && this.jobs.length > 0) void this.drain();
    }
  }

  private async drain(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (this.jobs.length > 0 && !this.closed) {
        const j = this.jobs.shift()!;
        if (j.kind === 'meta' && Object.keys(j.values).length === 0) continue;
        for (let i = 0; i < SIDE_TRIES; i++) {
          try {
            await this.sendSide(j);
            break;
          } catch (e) {
            this.log(`${j.kind} failed (try ${i + 1}): ${(e as Error).message}`);
            if (i + 1 < SIDE_TRIES) await delay(SIDE_RETRY_MS * (i + 1));
          }
        }
      }
    } finally {
      this.running = false;
    }
  }

  private async sendSide(j: SideJob): Promise<void> {
    const c = await this.client('side');
    if (j.kind === 'meta') {
      await c.call('set-agent-meta', { window: this.ids.window, values: j.values, source: 'protocol' });
      return;
    }
    if (this.activityOk === null) {
      const r = await c.call<{ verbs: Array<{ params: Array<{ name: string }> }> }>('list-verbs', { verb: 'set-agent-state' }).catch(() => null);
      this.activityOk = !!r?.verbs[0]?.params.some((p) => p.name === 'activity');
    }
    if (!this.activityOk) return;
    // The state part is refused on any pane that has a state: it changes nothing, and a pane
    // whose state was lost mid-turn gets it back.
    await c.call('set-agent-state', { window: this.ids.window, state: j.state, source: 'report', harness: this.harness, if_state: ['none'], activity: j.text, event: j.event });
  }

  close(): void {
    this.closed = true;
    this.state?.close();
    this.side?.close();
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
