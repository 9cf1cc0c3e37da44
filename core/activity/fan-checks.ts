// verify-fan's checks (spec: Comparing a fan): one per attempt session, the last one run. The
// check's window runs the command in the attempt; its exit decides: 0 passed, and the window
// closes; anything else failed, and the window stays for the person to read. A window closed
// before its command exited is a failed check with no exit status. Dropped with the session.
import type { Bus, Disposable } from '../bus.js';
import type { Model } from '../model/model.js';

export type FanCheckState = 'running' | 'passed' | 'failed';

export interface FanCheck {
  command: string;
  state: FanCheckState;
  exit: number | null;
  window_id: string;
  started_at: number;
  ended_at: number | null;
}

export class FanChecks implements Disposable {
  private readonly checks = new Map<string, FanCheck>();
  private readonly waiters = new Set<() => void>();
  private readonly subs: Disposable[];

  constructor(bus: Bus, private readonly model: Model) {
    this.subs = [
      bus.on('window-exit', (ev) => {
        const c = this.checks.get(ev.session_id);
        if (!c || c.window_id !== ev.window_id || c.state !== 'running') return;
        const code = ev.exit_code ?? null;
        this.finish(c, code === 0 ? 'passed' : 'failed', code);
        if (code === 0) {
          const w = this.model.windows.get(ev.window_id);
          // The attempt's session stays: its agent's pane is still in it.
          if (w) this.model.closeWindow(w, { keepSession: true });
        }
      }),
      bus.on('window-closed', (ev) => {
        const c = this.checks.get(ev.session_id);
        if (c && c.window_id === ev.window_id && c.state === 'running') this.finish(c, 'failed', null);
      }),
      bus.on('session-closed', (ev) => this.checks.delete(ev.session_id)),
    ];
  }

  private finish(c: FanCheck, state: FanCheckState, exit: number | null): void {
    c.state = state;
    c.exit = exit;
    c.ended_at = Date.now();
    for (const fn of [...this.waiters]) fn();
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
    for (const fn of [...this.waiters]) fn();
    this.checks.clear();
  }

  start(sessionId: string, windowId: string, command: string): FanCheck {
    const c: FanCheck = { command, state: 'running', exit: null, window_id: windowId, started_at: Date.now(), ended_at: null };
    this.checks.set(sessionId, c);
    return c;
  }

  of(sessionId: string): FanCheck | null {
    return this.checks.get(sessionId) ?? null;
  }

  /** Resolves once none of these sessions' checks runs, or `ms` passes, or the call ends. */
  settled(sessionIds: string[], ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(t);
        this.waiters.delete(check);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const check = () => {
        if (sessionIds.every((id) => this.checks.get(id)?.state !== 'running')) done();
      };
      const t = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
      this.waiters.add(check);
      check();
    });
  }
}
