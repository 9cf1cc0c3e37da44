// herdr's workspace.report_metadata (spec: herdr compatibility, Methods): tokens on a workspace,
// shown under `tokens` in workspace.list, workspace.get and the snapshot until a ttl_ms runs out or
// the session closes. It needs admin, as a change to a session's accent does. herdr's limits and
// words apply; a report with a seq at or below the last from its source changes nothing.
import { HerdrError, field, reqString } from './params.js';
import { View, check, ok, type Method } from './view.js';
import { workspaceTokens } from './workspace-tokens.js';
import { HERDR_SOURCE_MAX, HERDR_TOKENS_PER_REPORT, HERDR_TOKEN_TTL_MAX_MS, HERDR_TOKEN_VALUE_MAX } from './limits.js';

const SOURCE_RE = /^[A-Za-z0-9:._-]+$/;
const TOKEN_NAME_RE = /^[A-Za-z0-9_-]{1,32}$/;

/** A token's value as herdr keeps it: control characters out, trimmed, cut to 80 characters. Empty clears. */
function tokenValue(v: string): string | null {
  // eslint-disable-next-line no-control-regex
  const s = v.replace(/[\x00-\x1f\x7f-\x9f]/g, '').trim().slice(0, HERDR_TOKEN_VALUE_MAX);
  return s === '' ? null : s;
}

export const workspaceMetaMethods: Record<string, Method> = {
  async 'workspace.report_metadata'(ctx) {
    const id = reqString(ctx.params, 'workspace_id');
    const source = reqString(ctx.params, 'source', HERDR_SOURCE_MAX);
    if (!SOURCE_RE.test(source)) throw new HerdrError('invalid_params', '`source` is ASCII letters, digits, colon, dot, underscore and hyphen');
    const raw = field(ctx.params, 'tokens');
    if (raw === undefined || raw === null) throw new HerdrError('invalid_request', 'missing field `tokens`');
    if (typeof raw !== 'object' || Array.isArray(raw)) throw new HerdrError('invalid_request', 'invalid type for `tokens`: expected a map');
    const entries = Object.entries(raw as Record<string, unknown>);
    if (entries.length > HERDR_TOKENS_PER_REPORT) throw new HerdrError('invalid_params', `a report mentions at most ${HERDR_TOKENS_PER_REPORT} token keys`);
    const tokens: Record<string, string | null> = {};
    for (const [k, v] of entries) {
      if (!TOKEN_NAME_RE.test(k)) throw new HerdrError('invalid_params', `token name ${JSON.stringify(k.slice(0, 40))} is not 1 to 32 ASCII letters, digits, underscores or hyphens`);
      if (v !== null && typeof v !== 'string') throw new HerdrError('invalid_request', `invalid type for token \`${k}\`: expected a string or null`);
      tokens[k] = v === null ? null : tokenValue(v);
    }
    const ttl = field(ctx.params, 'ttl_ms');
    if (ttl !== undefined && ttl !== null && (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 1 || ttl > HERDR_TOKEN_TTL_MAX_MS)) {
      throw new HerdrError('invalid_params', `ttl_ms is from 1 to ${HERDR_TOKEN_TTL_MAX_MS}`);
    }
    const seq = field(ctx.params, 'seq');
    if (seq !== undefined && seq !== null && (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0)) throw new HerdrError('invalid_request', 'invalid type for `seq`: expected a non-negative integer');
    const v = await View.read(ctx);
    const s = v.session(id);
    check(ctx, { verb: 'workspace.report_metadata', access: 'admin', target: null, sessionId: s.id });
    workspaceTokens(ctx.svc).apply(s.id, { source, seq: typeof seq === 'number' ? seq : null, tokens, ttlMs: typeof ttl === 'number' ? ttl : null });
    return ok();
  },
};
