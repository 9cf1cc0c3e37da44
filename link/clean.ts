// Every text from a peer is data (DESIGN: Principles): control and invisible characters removed,
// each text cut to its limit, numbers kept finite, before anything here stores or shows it.
import { cleanName, cleanUntrusted } from '../core/mail/fence.js';
import { ERROR_CODES, TuiosError, type ErrorBody, type ErrorCode } from '../core/errors.js';
import type { AgentRow, ItemRow } from './codec/schema.js';
import { LINK_MAX_RESULT_DEPTH, LINK_MAX_TEXT_BYTES } from '../core/limits.js';

/** A one-line text from a peer: cleaned, cut to `max` characters (empty stays empty). */
export function peerLine(s: string, max: number): string {
  if (!s) return '';
  const one = cleanName(s, max);
  return one === '(no name)' ? '' : one;
}

export function peerOptional(s: string | null, max: number): string | null {
  if (s === null) return null;
  const v = peerLine(s, max);
  return v === '' ? null : v;
}

/** A longer text (a body, a screen line): line breaks kept, cut to `maxBytes` on a character boundary. */
export function peerText(s: string, maxBytes = LINK_MAX_TEXT_BYTES): string {
  const clean = cleanUntrusted(s);
  const b = Buffer.from(clean);
  if (b.length <= maxBytes) return clean;
  let end = maxBytes;
  while (end > 0 && (b[end]! & 0xc0) === 0x80) end--;
  return b.subarray(0, end).toString('utf8');
}

function num(n: number, min = 0): number {
  return Number.isFinite(n) ? Math.max(min, Math.min(n, Number.MAX_SAFE_INTEGER)) : min;
}

/** Ids are shown and sent back: printable, short. */
function peerId(s: string): string {
  return s.replace(/[^A-Za-z0-9_.:-]/g, '').slice(0, 64);
}

export function cleanAgentRow(r: AgentRow): AgentRow {
  return {
    window_id: peerId(r.window_id),
    short_id: peerId(r.short_id),
    name: peerLine(r.name, 128),
    session: peerLine(r.session, 128).replace(/:/g, '-'),
    session_id: peerId(r.session_id),
    workspace: Math.trunc(num(r.workspace, 1)),
    harness: peerOptional(r.harness, 64),
    state: peerLine(r.state, 16),
    kind: peerLine(r.kind, 16),
    message: peerLine(r.message, 300),
    source: peerOptional(r.source, 32),
    needs_you: !!r.needs_you,
    state_since: num(r.state_since),
    completion_seq: num(r.completion_seq),
    finished_unread: !!r.finished_unread,
    group: peerOptional(r.group, 200),
    cwd: peerOptional(r.cwd, 4096),
  };
}

export function cleanItemRow(r: ItemRow): ItemRow {
  return {
    id: Math.trunc(num(r.id)),
    kind: peerLine(r.kind, 16),
    window_id: r.window_id === null ? null : peerId(r.window_id),
    session_id: r.session_id === null ? null : peerId(r.session_id),
    session: peerOptional(r.session, 128),
    name: peerOptional(r.name, 128),
    harness: peerOptional(r.harness, 64),
    summary: peerLine(r.summary, 200),
    opened_at: num(r.opened_at),
    updated_at: num(r.updated_at),
    options: r.options.slice(0, 16).map((o) => peerLine(o, 80)),
    held: !!r.held,
    unread: !!r.unread,
  };
}

/** A remote call's answer: every string cleaned and cut, depth bounded, nothing but plain JSON kept. */
export function cleanResult(v: unknown, depth = 0): unknown {
  if (depth > LINK_MAX_RESULT_DEPTH) return null;
  if (typeof v === 'string') return peerText(v);
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (v === null || typeof v === 'boolean') return v;
  if (Array.isArray(v)) return v.map((x) => cleanResult(x, depth + 1));
  if (typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      const key = k.replace(/[^A-Za-z0-9_.-]/g, '').slice(0, 64);
      if (key && key !== '__proto__') out[key] = cleanResult(x, depth + 1);
    }
    return out;
  }
  return null;
}

/** A refusal from a peer: a code this build knows (else internal), its words cleaned and cut. */
export function cleanErrorBody(v: unknown, host: string): ErrorBody {
  const o = (v && typeof v === 'object' ? v : {}) as Record<string, unknown>;
  const code = typeof o.code === 'string' && (ERROR_CODES as readonly string[]).includes(o.code) ? (o.code as ErrorCode) : 'internal';
  const message = typeof o.message === 'string' && o.message ? peerLine(o.message, 1000) : `${host} refused the call.`;
  const body: ErrorBody = { ...(cleanResult(o) as Record<string, unknown>), code, message: `${host}: ${message}`, host };
  if (typeof o.hint === 'string' && o.hint) body.hint = peerLine(o.hint, 1000);
  else delete body.hint;
  return body;
}

/** Settles a call with a peer's Result: its value cleaned, or its refusal as a typed error. */
export function settleResult(r: { ok: boolean; result: string; error: string }, host: string, c: { resolve(v: unknown): void; reject(e: Error): void }): void {
  const parse = (t: string): unknown => {
    try {
      return JSON.parse(t) as unknown;
    } catch {
      return null;
    }
  };
  if (r.ok) c.resolve(cleanResult(parse(r.result)));
  else {
    const { code, message, hint, ...extra } = cleanErrorBody(parse(r.error), host);
    c.reject(new TuiosError(code, message, hint, extra));
  }
}
