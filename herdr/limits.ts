// The herdr socket's own bounds and the version it answers as (spec: herdr compatibility). The
// line and per-process connection limits are the verb socket's (core/limits.ts).

/** The herdr release whose socket API tuios follows, with tuios as semver build metadata. */
export const HERDR_VERSION = '0.9.5+tuios';
/** herdr 0.9.5's protocol number. */
export const HERDR_PROTOCOL = 22;
/** A wait's timeout_ms is 24 hours at most. */
export const HERDR_MAX_WAIT_MS = 24 * 60 * 60 * 1000;
/** pane.read's `recent` reads 80 lines when `lines` is not given, 1000 at most. */
export const HERDR_READ_DEFAULT_LINES = 80;
export const HERDR_READ_MAX_LINES = 1000;
/** An id, a label or a method name longer than this is bad input, answered before any lookup. */
export const HERDR_ID_MAX = 300;
/** The seq marks kept per pane: one per report source, the oldest dropped past this. */
export const HERDR_MAX_SOURCES_PER_PANE = 32;
/** A blocked report's message is cut to this (the length a reported message is cut to in core). */
export const HERDR_MESSAGE_MAX = 4096;
/** A pane's burst of pane.report_metadata and notification.show, then so many a second. */
export const HERDR_NOTIFY_BURST = 20;
export const HERDR_NOTIFY_PER_SECOND = 5;
/** Event streams (events.subscribe) one process may hold at once. */
export const HERDR_MAX_STREAMS_PER_PROCESS = 8;
/** notification.show: herdr cuts the title to 80 characters and the body to 240, whitespace collapsed. */
export const HERDR_NOTIFY_TITLE_MAX = 80;
export const HERDR_NOTIFY_BODY_MAX = 240;
/** workspace.report_metadata, herdr's limits: 16 token keys a report, 32 kept per workspace, a value cut to 80 characters. */
export const HERDR_TOKENS_PER_REPORT = 16;
export const HERDR_TOKENS_PER_WORKSPACE = 32;
export const HERDR_TOKEN_VALUE_MAX = 80;
/** A metadata source id: 80 characters at most, ASCII letters, digits, colon, dot, underscore and hyphen. */
export const HERDR_SOURCE_MAX = 80;
/** A metadata report's ttl_ms: 1 ms to 24 hours. */
export const HERDR_TOKEN_TTL_MAX_MS = 24 * 60 * 60 * 1000;
/** Sequenced token sources a workspace accepts in its lifetime, as herdr. */
export const HERDR_TOKEN_SOURCES_PER_WORKSPACE = 32;
/** agent.start: the arguments typed after the agent's program, and each one's length. */
export const HERDR_AGENT_ARGS_MAX = 64;
export const HERDR_AGENT_ARG_MAX = 4096;
/** agent.start's timeout_ms, herdr's bounds: above 3 s and at most 5 minutes . */
export const HERDR_AGENT_START_MIN_MS = 3000;
export const HERDR_AGENT_START_MAX_MS = 300_000;
/** The crash clear: a reported pane at its shell prompt clears once its last report is this old and no recorded process runs. */
export const HERDR_CRASH_CLEAR_MS = 2000;
/** How often the crash clear looks at the panes a herdr report holds. */
export const HERDR_CRASH_CHECK_MS = 500;
