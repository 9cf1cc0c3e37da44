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
