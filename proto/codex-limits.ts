// The budgets of the Codex app-server adapter (proto/codex.ts), each with the reason for its number.

/**
 * The longest line read from the app-server, in bytes. A turn/completed carries the turn's items
 * and a file change carries its diff; past this a line is dropped whole (and counted), never
 * buffered without end.
 */
export const CODEX_LINE_MAX_BYTES = 8 * 1024 * 1024;

/** Requests of ours awaiting an answer at once: the adapter sends a few; more is a fault. */
export const CODEX_PENDING_MAX = 32;

/** How long initialize and thread/start may take: Codex 0.171 opens in 1-2 s, a loaded box far slower. */
export const CODEX_START_TIMEOUT_MS = 60_000;

/** How long turn/start and turn/interrupt may take to be acknowledged (the turn itself has no limit). */
export const CODEX_REQUEST_TIMEOUT_MS = 30_000;

/** The tail of the app-server's stderr kept to say why it exited or did not start. */
export const CODEX_STDERR_TAIL_BYTES = 4 * 1024;

/** From SIGTERM to SIGKILL when the agent is stopped. */
export const CODEX_CLOSE_GRACE_MS = 3_000;

/** A command longer than this is not shown whole in a permission's title, so it is never one-line. */
export const CODEX_TITLE_MAX_CHARS = 500;

/** The reply text kept per turn to find its first line (the transcript gets every piece as it comes). */
export const CODEX_REPLY_KEEP_CHARS = 4 * 1024;

/** File change items remembered by id, for the approval that names one; the oldest go first. */
export const CODEX_ITEMS_KEPT = 64;

/** Files listed under a file change approval's title; the rest are counted. */
export const CODEX_APPROVAL_FILES_SHOWN = 20;

/** Plan steps passed on from one turn/plan/updated; a plan longer than this is cut. */
export const CODEX_PLAN_STEPS_MAX = 50;

/** Approvals waiting on the pane at once; Codex asks one at a time, so more is answered not approved. */
export const CODEX_APPROVALS_PENDING_MAX = 8;
