// Every budget the daemon enforces, in one place, each with the reason for its number.
// A limit that a caller can hit answers a typed error; none is silent growth.

/** One verb request or reply line. Larger lines close the connection: framing is lost. */
export const MAX_LINE_BYTES = 1024 * 1024;

/** Concurrent socket connections a single caller process may hold (spec: herdr socket, issue 2). */
export const MAX_CONNECTIONS_PER_PROCESS = 64;

/** Bytes queued to a subscriber's socket before it is declared too slow and gets `events_lost`. */
export const SUBSCRIBER_MAX_PENDING_BYTES = 4 * 1024 * 1024;

/** Default scrollback per pane, in lines. */
export const DEFAULT_SCROLLBACK_LINES = 5000;
/** Upper bound on a configured scrollback: 100k lines of 200 columns is ~240 MB in xterm's buffer. */
export const MAX_SCROLLBACK_LINES = 100_000;

/**
 * PTY flow control. The emulator parses a few tens of MB/s; a program can write faster.
 * Above HIGH unparsed bytes the PTY is paused (the kernel then blocks the writer), below LOW it
 * resumes. @xterm/headless throws past 50 MB pending, so HIGH stays far below that.
 */
export const PTY_HIGH_WATERMARK_BYTES = 512 * 1024;
export const PTY_LOW_WATERMARK_BYTES = 64 * 1024;

/**
 * After a pane's process exits, how long its terminal may stay quiet (a background process can
 * hold it open) before the exit is told without waiting for EOF. node-pty waits 200 ms.
 */
export const PTY_EXIT_DRAIN_MS = 250;

/** Output parsed in one turn of the event loop per pane: ~10-20 ms at the parser's speed. */
export const PARSE_SLICE_BYTES = 256 * 1024;

/** Pane sizes accepted from callers: a 1x1 pane is legal, anything past 1000 is a mistake. */
export const MIN_COLS = 2;
export const MIN_ROWS = 1;
export const MAX_COLS = 1000;
export const MAX_ROWS = 500;
export const DEFAULT_COLS = 80;
export const DEFAULT_ROWS = 24;

/** Text typed by send-text in one call. */
export const MAX_SEND_TEXT_BYTES = 256 * 1024;
/** Keys in one send-keys call. */
export const MAX_SEND_KEYS = 512;
/** Lines capture-pane may return from scrollback in one call. */
export const MAX_CAPTURE_LINES = 100_000;
/** Lines a wait-for window-output reads back from its start marker (plus the screen). */
export const WAIT_OUTPUT_MAX_LINES = 2000;
/** Longest any wait may run (spec: 24 hours). */
export const MAX_WAIT_MS = 24 * 60 * 60 * 1000;
/** Default wait-for timeout when the caller names none. */
export const DEFAULT_WAIT_MS = 30_000;
/** Throttle for re-reading a screen during a wait-for window-output while output flows. */
export const WAIT_OUTPUT_THROTTLE_MS = 30;
/** Longest RE2 pattern accepted from a caller. */
export const MAX_PATTERN_BYTES = 4096;

/** Environment passed to new-window: count and size. */
export const MAX_ENV_VARS = 256;
export const MAX_ENV_VALUE_BYTES = 32 * 1024;
export const MAX_ARGV = 1024;

/** Sessions and windows a daemon holds; past this, creation is refused (`limit_reached`). */
export const MAX_SESSIONS = 1000;
export const MAX_WINDOWS = 2000;

/** Daemon log rotation: rotate at this size, keep this many old files. */
export const LOG_MAX_BYTES = 5 * 1024 * 1024;
export const LOG_KEEP_FILES = 2;

/** Restore snapshot: coalesce bursts of changes into one atomic write. */
export const SNAPSHOT_DEBOUNCE_MS = 100;

/** How long the CLI waits for an auto-started daemon to answer (a loaded 2-core box is slow). */
export const DAEMON_START_TIMEOUT_MS = 15_000;

/**
 * Quiet after the paste is on the screen before the submit key, so a TUI has read the paste as
 * one event first: Gemini CLI takes an Enter within 40 ms of a paste as a newline (see typing.ts).
 */
export const SUBMIT_DELAY_MS = 100;
/** Most the wait after the paste shows grows for a program slow to draw it (twice its draw time). */
export const SUBMIT_SLOW_MAX_MS = 2000;
/** Quiet after a paste that never showed its text (a placeholder) before the submit key goes. */
export const SUBMIT_PLACEHOLDER_QUIET_MS = 300;
/** Longest wait for the pane to show a paste before the submit key goes anyway. */
export const SUBMIT_ECHO_MAX_MS = 1500;

/** A prompt is typed once the pane has printed nothing for this long (see quiet in agent/deliver.ts), */
export const TYPE_QUIET_MS = 400;
/** ... waiting at most this long. */
export const TYPE_QUIET_MAX_MS = 3000;

/** respond presses nothing until the pane has been on its prompt this long (see settle in verbs/prompt.ts). */
export const PROMPT_SETTLE_MS = 800;
/** ... and has printed nothing for this long, */
export const PROMPT_QUIET_MS = 150;
/** ... waiting at most this long for both. */
export const PROMPT_SETTLE_MAX_MS = 3000;

/** Config file size read at all. */
export const MAX_CONFIG_BYTES = 1024 * 1024;

// --- Compact scrollback (core/screen/scrollback.ts) ---

/**
 * Scrollback lines a pane's xterm keeps in its own cells (12 bytes per cell at full width, about
 * 1 KB per 80-column line) and reflows on resize. Older lines, up to the configured scrollback,
 * move to the compact store at 1-2 bytes per used cell. A few screens' worth covers what a
 * resize should re-wrap.
 */
export const SCROLLBACK_HOT_LINES = 200;
/** Words (4 bytes) per arena chunk of the compact store: 64 KB, several hundred lines of text. */
export const SCROLLBACK_CHUNK_WORDS = 16 * 1024;
/**
 * How long a line taken over in a flood stays as xterm's object before it is packed. Output is a
 * flood when more lines than the store holds leave xterm within this time: then they would be
 * dropped before being packed, so packing them is skipped. Packing costs about a microsecond a
 * line (a fifth of parsing it); 5000 lines of text last ~25 ms at 17 MB/s.
 */
export const SCROLLBACK_PACK_DELAY_MS = 100;
/** xterm line objects kept once a flood's lines are packed, to hand back to xterm in the next one. */
export const SCROLLBACK_SPARE_LINES = 32;

// --- Links between hosts (link/) ---

/** One link frame (4-byte length + Avro). A snapshot is sent in chunks well under it. */
export const LINK_MAX_FRAME_BYTES = 1024 * 1024;
/** Rows per snapshot frame: 200 rows of at most ~2 KB stay far under the frame limit. */
export const LINK_SNAPSHOT_CHUNK_ROWS = 200;
/** Agent rows, and Inbox rows, kept per linked host (spec: at most 256 rows per host). */
export const LINK_MAX_ROWS_PER_HOST = 256;
/** Deltas a host keeps for followers that resume; an older sequence gets a snapshot instead. */
export const LINK_JOURNAL_ENTRIES = 4096;
/** Mail waiting for one host (spec: 64 per machine). */
export const LINK_OUTBOX_PER_HOST = 64;
/** Retry of waiting mail while the link is up: at once, then 1 s doubling to 30 s (spec). */
export const LINK_RETRY_FIRST_MS = 1000;
export const LINK_RETRY_MAX_MS = 30_000;
/** A send waits this long for the other machine's answer before it is left to the outbox (spec: 10 s). */
export const LINK_SEND_TIMEOUT_MS = 10_000;
/** A remote verb call: as long as the longest local one a link carries (respond waits up to a minute). */
export const LINK_CALL_TIMEOUT_MS = 90_000;
/**
 * A verb with its own budget (fan, start-agent, worktree new wait for checkouts and for agents to
 * be ready) is waited for that long plus this: its quick steps around the waits and the round trip.
 */
export const LINK_CALL_MARGIN_MS = 30_000;
/** Remote calls one link carries at once; more wait for `limit_reached`. */
export const LINK_MAX_INFLIGHT_CALLS = 64;
/** Pane and file streams one link carries at once. */
export const LINK_MAX_STREAMS = 16;
/** Ping interval; a link that hears nothing for three of them is down (a pulled cable sends no FIN). */
export const LINK_PING_MS = 5000;
export const LINK_DEAD_PINGS = 3;
/** Redial after a link drops: soon, then backing off, never slower than this. */
export const LINK_REDIAL_FIRST_MS = 500;
export const LINK_REDIAL_MAX_MS = 10_000;
/** TCP connect through authentication, and the Hello after it. */
export const LINK_CONNECT_TIMEOUT_MS = 10_000;
/** Bytes written to a link that the peer has not taken: past this it is too slow and is dropped (it resumes on redial). */
export const LINK_MAX_PENDING_BYTES = 8 * 1024 * 1024;
/** Outbox ids a host remembers, so a resend after a lost answer is not delivered twice. */
export const LINK_SEEN_MAIL_IDS = 1024;
/** A peer's schema text in its Hello. */
export const LINK_MAX_SCHEMA_BYTES = 64 * 1024;
/** One text in a remote call's answer (a screen is lines far shorter); the frame limit bounds the whole. */
export const LINK_MAX_TEXT_BYTES = 64 * 1024;
/** Nesting of a remote call's answer: verbs answer a few levels; deeper is not ours. */
export const LINK_MAX_RESULT_DEPTH = 16;
/** Links served at once (hosts that dialed this machine): a host keeps one, a fleet a few dozen. */
export const LINK_MAX_SERVED = 64;
/** Refused mail rows kept per host until the person dismisses them. */
export const LINK_REFUSALS_KEPT = 16;
/** StreamData payload: small enough to interleave streams with state frames. */
export const LINK_STREAM_CHUNK_BYTES = 64 * 1024;
/** Bytes one stream may hold in the link's send buffer before its source waits. */
export const LINK_STREAM_HIGH_WATER = 1024 * 1024;

// ---- panes on another machine (new-window --host) ----
/** Processes one daemon runs for windows held on other machines. */
export const HOSTED_PANES_MAX = 64;
/** Output a hosted pane's peer holds for the link before it pauses the PTY (then the program blocks). */
export const HOSTED_SEND_HIGH_BYTES = 256 * 1024;
export const HOSTED_SEND_LOW_BYTES = 64 * 1024;
/** How long new-window --host waits for the peer to say the process started. */
export const HOSTED_START_TIMEOUT_MS = 20_000;
/** After a kill, how long the window's end waits for the peer's exit before the stream is dropped. */
export const HOSTED_KILL_GRACE_MS = 5000;
/**
 * A hosted pane whose link dropped: the peer keeps the process (its PTY paused) this long for the
 * window's owner to re-attach, and the owner keeps trying as long. After it the process is hung up.
 */
export const HOSTED_REATTACH_MS = 5 * 60_000;
/** Output the peer keeps to send again on a re-attach (what was in flight when the link dropped). */
export const HOSTED_RESEND_BYTES = 2 * 1024 * 1024;
/** How often the peer reads a hosted pane's process tree for the owner's detector (sent only when it changed). */
export const HOSTED_PROCS_MS = 1000;
/** After output, the tree is read again this soon (a program started or ended). */
export const HOSTED_PROCS_SOON_MS = 250;
/**
 * A `wait-for agent-message` from inside a hosted pane runs on the window's owner for at most this
 * (a longer --timeout is cut to it); the link waits this plus LINK_CALL_MARGIN_MS for its answer.
 */
export const HOSTED_WAIT_MAX_MS = 3_600_000;

/** OSC 9/777/99 notifications a pane's emulator keeps for capture-state: the last few say what it announced. */
export const RECENT_NOTIFICATIONS = 8;
/** Characters of a kept notification's title and body (the bus publishes 512 bytes of each). */
export const RECENT_NOTIFICATION_CHARS = 512;
/** Captures capture-state keeps under the state folder; the oldest go first. A capture is a screen (tens of KB). */
export const CAPTURES_MAX = 200;
/** A capture's .ansi (the screen with its colours): whole rows up to this; a 300x100 pane in many colours is under 1 MB. */
export const CAPTURE_ANSI_MAX_BYTES = 4 * 1024 * 1024;
/** The person's note on a capture: a sentence or two, not a document. */
export const CAPTURE_NOTE_MAX_BYTES = 1024;

/** The approval hold time [approvals] hold_seconds may ask for, in seconds (spec: kept between 10 and 300). */
export const HOLD_SECONDS_MIN = 10;
export const HOLD_SECONDS_MAX = 300;
export const HOLD_SECONDS_DEFAULT = 120;
