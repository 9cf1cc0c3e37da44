// Typed errors: a stable code, a full-sentence message, and a hint a person can act on.
// Codes are the spec's; a caller branches on `code`, never on the message.

export const ERROR_CODES = [
  'invalid_request',
  'unknown_verb',
  'invalid_params',
  'session_not_found',
  'window_not_found',
  'ambiguous_target',
  'window_exited',
  'name_taken',
  'limit_reached',
  'line_too_long',
  'rate_limited',
  'timeout',
  'forbidden',
  'not_human',
  'peek_forced',
  'agent_blocked',
  'prompt_changed',
  'prompt_stalled',
  'confirm_required',
  'queue_full',
  'events_lost',
  'unsupported',
  'spawn_failed',
  'not_found',
  'conflict',
  'not_ready',
  'foreign_session',
  'foreign_pane',
  'protocol_mismatch',
  'host_not_found',
  'host_down',
  'not_repo',
  'dirty_worktree',
  'git_failed',
  'merge_conflict',
  'checkout_dirty',
  'gh_unavailable',
  'no_client',
  'pane_split_failed',
  'internal',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  hint?: string;
  /** Extra, code-specific fields (e.g. `available` and `confirm` for confirm_required). */
  [extra: string]: unknown;
}

export class TuiosError extends Error {
  readonly code: ErrorCode;
  readonly hint?: string;
  readonly extra: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, hint?: string, extra: Record<string, unknown> = {}) {
    super(message);
    this.name = 'TuiosError';
    this.code = code;
    this.hint = hint;
    this.extra = extra;
  }

  toBody(): ErrorBody {
    const body: ErrorBody = { ...this.extra, code: this.code, message: this.message };
    if (this.hint) body.hint = this.hint;
    return body;
  }
}

export function isTuiosError(e: unknown): e is TuiosError {
  return e instanceof TuiosError;
}

/** Turns anything thrown into an error body that is safe to send: internal details stay in the log. */
export function toErrorBody(e: unknown): ErrorBody {
  if (isTuiosError(e)) return e.toBody();
  return { code: 'internal', message: 'The daemon hit an internal error; it has been logged.' };
}

export function errorText(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}
