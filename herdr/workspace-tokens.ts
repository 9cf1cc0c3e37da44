// workspace.report_metadata's tokens (spec: herdr compatibility, Methods): kept in memory per
// daemon, keyed by session and token name, shown under `tokens` in workspace.list, workspace.get
// and the snapshot until a ttl_ms runs out or the session closes. tuios does not draw them. herdr's
// limits hold: 16 keys a report, 32 kept per workspace, values cut to 80 characters, 32 sequenced
// sources per workspace in its lifetime. Expiry and a closed session are read lazily, so no timer
// runs for them.
import type { Services } from '../core/daemon/services.js';
import { HERDR_TOKENS_PER_WORKSPACE, HERDR_TOKEN_SOURCES_PER_WORKSPACE } from './limits.js';
import { HerdrError } from './params.js';

interface Token {
  value: string;
  /** Date.now() past which it is gone; null: until replaced, cleared or the session closes. */
  expiresAt: number | null;
}

interface Workspace {
  tokens: Map<string, Token>;
  /** The last seq per source; never released, as in herdr. */
  seqs: Map<string, number>;
}

export class WorkspaceTokens {
  private readonly byId = new Map<string, Workspace>();

  constructor(private readonly alive: (sessionId: string) => boolean) {}

  /** The live tokens of a session, as herdr's map of name to value. */
  read(sessionId: string, now = Date.now()): Record<string, string> {
    const ws = this.byId.get(sessionId);
    if (!ws) return {};
    if (!this.alive(sessionId)) {
      this.byId.delete(sessionId);
      return {};
    }
    const out: Record<string, string> = {};
    for (const [k, t] of ws.tokens) {
      if (t.expiresAt !== null && t.expiresAt <= now) ws.tokens.delete(k);
      else out[k] = t.value;
    }
    return out;
  }

  /**
   * Applies one report: a string sets a key, null (or a value empty once normalized) clears it.
   * False when its seq is at or below the last from its source (the report changes nothing).
   */
  apply(sessionId: string, r: { source: string; seq: number | null; tokens: Record<string, string | null>; ttlMs: number | null }, now = Date.now()): boolean {
    this.sweep();
    let ws = this.byId.get(sessionId);
    if (!ws) this.byId.set(sessionId, (ws = { tokens: new Map(), seqs: new Map() }));
    if (r.seq !== null) {
      const last = ws.seqs.get(r.source);
      if (last !== undefined && r.seq <= last) return false;
      if (last === undefined && ws.seqs.size >= HERDR_TOKEN_SOURCES_PER_WORKSPACE) {
        throw new HerdrError('invalid_params', `a workspace accepts sequenced token reports from at most ${HERDR_TOKEN_SOURCES_PER_WORKSPACE} sources`);
      }
      ws.seqs.set(r.source, r.seq);
    }
    this.read(sessionId, now); // expired keys do not count against the limit
    const adds = Object.entries(r.tokens).filter(([k, v]) => v !== null && !ws.tokens.has(k)).length;
    if (ws.tokens.size + adds > HERDR_TOKENS_PER_WORKSPACE) {
      throw new HerdrError('invalid_params', `a workspace keeps at most ${HERDR_TOKENS_PER_WORKSPACE} tokens`);
    }
    const expiresAt = r.ttlMs === null ? null : now + r.ttlMs;
    for (const [k, v] of Object.entries(r.tokens)) {
      if (v === null) ws.tokens.delete(k);
      else ws.tokens.set(k, { value: v, expiresAt });
    }
    return true;
  }

  /** Forgets the sessions that closed. */
  private sweep(): void {
    for (const id of this.byId.keys()) if (!this.alive(id)) this.byId.delete(id);
  }
}

const stores = new WeakMap<Services, WorkspaceTokens>();

/** The daemon's token store. */
export function workspaceTokens(svc: Services): WorkspaceTokens {
  let t = stores.get(svc);
  if (!t) stores.set(svc, (t = new WorkspaceTokens((id) => svc.model.sessions.has(id))));
  return t;
}
