// Which conversation may report into a pane (spec: Nested and foreign events). A hook fires for
// every process of a harness, so a `claude -p` a tool call started inside the pane reports too;
// without this its Stop would mark the pane done mid-turn. Pure: the caller passes what the pane
// knows and applies the answer.
import { SESSION_OWNERS_KEPT, SESSION_STARTERS_KEPT } from '../limits.js';
import type { AgentState } from './state.js';

export interface GuardReport {
  sessionId: string | undefined;
  harness: string | undefined;
  /** The harness process, already checked to be the caller or its ancestor. */
  harnessPid: number | undefined;
  /** A SessionStart's source (startup, resume, clear, compact), when this report is one. */
  sessionStart: string | undefined;
}

export interface GuardPane {
  sessionId: string | null;
  /** The pane's harness (its attribution). */
  harness: string | null;
  /** The state that stands, when a report holds it. */
  reportedState: AgentState | null;
  harnessPid: number | null;
  /** The manifest says one server runs every conversation's hooks (Codex). */
  sharedServer: boolean;
}

export type GuardAnswer = { ok: true; owner: string | null } | { ok: false; code: 'foreign_session'; why: string };

function midTurn(p: GuardPane): boolean {
  return p.reportedState === 'working' || p.reportedState === 'needs_input';
}

export class SessionGuard {
  /** The conversation that owns the pane (Codex: set by SessionStart). */
  owner: string | null = null;
  /** The last owners, newest last: any of them takes the pane back. */
  readonly owners: string[] = [];
  /** Conversations that sent a SessionStart for the pane. */
  readonly starters: string[] = [];

  /** Forgets every conversation (the agent left the pane, or set-agent-session named one). */
  reset(): void {
    this.owner = null;
    this.owners.length = 0;
    this.starters.length = 0;
  }

  private displace(next: string): void {
    if (this.owner && this.owner !== next) {
      remove(this.owners, this.owner);
      this.owners.push(this.owner);
      while (this.owners.length > SESSION_OWNERS_KEPT) this.owners.shift();
    }
    remove(this.owners, next);
    this.owner = next;
  }

  private started(id: string): void {
    remove(this.starters, id);
    this.starters.push(id);
    while (this.starters.length > SESSION_STARTERS_KEPT) this.starters.shift();
  }

  /** Decides, and on yes records the new owner. */
  admit(r: GuardReport, p: GuardPane): GuardAnswer {
    const sid = r.sessionId;
    if (p.sharedServer) {
      if (!sid) return { ok: true, owner: this.owner }; // notify carries no id: never refused
      if (r.sessionStart && r.sessionStart !== 'compact') {
        this.started(sid);
        this.displace(sid);
        return { ok: true, owner: sid };
      }
      if (this.owner === null || sid === this.owner) return { ok: true, owner: this.owner };
      if (this.owners.includes(sid) || this.starters.includes(sid)) {
        this.displace(sid);
        return { ok: true, owner: sid };
      }
      return { ok: false, code: 'foreign_session', why: `the conversation ${sid} does not own this pane (${this.owner} does, from its SessionStart)` };
    }
    if (midTurn(p) && p.harness && r.harness && p.harness !== r.harness) {
      return { ok: false, code: 'foreign_session', why: `the pane's ${p.harness} is ${p.reportedState}; a ${r.harness} report does not interrupt it` };
    }
    if (!sid) return { ok: true, owner: this.owner };
    const cur = p.sessionId;
    if (!cur || sid === cur || !midTurn(p)) {
      this.displace(sid);
      return { ok: true, owner: sid };
    }
    // Mid-turn, another conversation: the same harness process (a /clear after an interrupt) or
    // a recent owner takes it; a nested run is refused.
    if (r.harnessPid !== undefined && p.harnessPid !== null && r.harnessPid === p.harnessPid) {
      this.displace(sid);
      return { ok: true, owner: sid };
    }
    if (this.owners.includes(sid)) {
      this.displace(sid);
      return { ok: true, owner: sid };
    }
    return { ok: false, code: 'foreign_session', why: `the pane is ${p.reportedState} for the conversation ${cur}; ${sid} is another run` };
  }
}

function remove(a: string[], x: string): void {
  const i = a.indexOf(x);
  if (i >= 0) a.splice(i, 1);
}
