// Every budget the daemon enforces, in one place, each with the reason for its number.
// A limit that a caller can hit answers a typed error; none is silent growth.

/** One verb request or reply line. Larger lines close the connection: framing is lost. */
export const MAX_LINE_BYTES = 1024 * 1024;

/**
 * Bytes of unfinished request lines the verb socket holds across all its connections. One
 * connection holds at most MAX_LINE_BYTES, but hundreds of half lines (from several processes)
 * would add up, and native memory once taken is not all given back: past this, the connection
 * whose line does not fit is closed with `rate_limited`. Sixteen largest lines at once.
 */
export const MAX_PARTIAL_LINE_BYTES = 16 * 1024 * 1024;

/** Fewest milliseconds between two trims of the C heap (core/daemon/heap-trim.ts): a trim walks every free chunk. */
export const HEAP_TRIM_MIN_INTERVAL_MS = 5_000;

/**
 * Nesting of arrays and objects in one request line: no verb's params go past a few levels, and a
 * hook's tool input rarely past ten; deeper lines are refused before parsing (core/rpc/json-depth.ts).
 */
export const MAX_JSON_DEPTH = 128;

/** Concurrent socket connections a single caller process may hold (spec: herdr socket, issue 2). */
export const MAX_CONNECTIONS_PER_PROCESS = 64;

/**
 * Bytes of replies a verb-socket connection may have unread before the daemon stops reading its
 * requests (core/rpc/request-flow.ts): a client that writes and does not read cannot grow the
 * daemon (issue 26). Above the subscriber's own limit, so a slow subscriber still gets
 * `events_lost` first; one reply larger than this still goes out whole.
 */
export const CONNECTION_MAX_PENDING_BYTES = 8 * 1024 * 1024;
/** Requests one connection may have running at once (waits included); more wait their turn unread. */
export const CONNECTION_MAX_IN_FLIGHT = 256;
/** Bytes of request lines one connection may have running at once (one always runs, whatever its size). */
export const CONNECTION_MAX_IN_FLIGHT_BYTES = 16 * 1024 * 1024;
/** Requests started from one read before the next turn, when their replies are counted. */
export const CONNECTION_LINES_PER_TURN = 16;

/** Bytes queued to a subscriber's socket before it is declared too slow and gets `events_lost`. */
export const SUBSCRIBER_MAX_PENDING_BYTES = 4 * 1024 * 1024;

/**
 * Events the bus keeps for a subscriber that resumes after a sequence (`subscribe --since`,
 * `tuios_events` with last_seq): a few minutes of a busy fleet. Older ones are gone, and a resume
 * from before them says `events_lost`.
 */
export const EVENTS_REPLAY_KEPT = 2000;

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
/** Output of at most this many bytes into a pane with nothing unparsed is parsed at once, not on the next turn (a typed key's echo). */
export const ECHO_PARSE_NOW_BYTES = 1024;
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
 * How long a starting daemon looks again at a held lock before it gives up: a daemon killed a
 * moment ago still holds it until its last thread has exited (tens of ms; core/daemon/lock.ts).
 */
export const DAEMON_LOCK_WAIT_MS = 1000;

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
/**
 * StreamData payload: small enough to interleave streams with state frames, and a frame of it (its
 * head is at most 32 bytes) fits one SSH channel packet (32 KB, what ssh2 and OpenSSH offer), so
 * the reader takes each frame whole from one read, as a view. At 64 KB every frame spanned two
 * packets and was joined by a copy.
 */
export const LINK_STREAM_CHUNK_BYTES = 32 * 1024 - 32;
/** Bytes one stream may hold in the link's send buffer before its source waits. */
export const LINK_STREAM_HIGH_WATER = 1024 * 1024;
/**
 * A stream's window: bytes its opener takes unread before the server's source waits for credit
 * (StreamCredit, granted as the opener's reader takes them). Under LINK_MAX_PENDING_BYTES, so a
 * reader that stops is paused, never cut for what it holds; 4 MB keeps a 64 KB-frame stream going
 * through a credit's round trip on a loaded event loop (100 ms at 40 MB/s).
 */
export const LINK_STREAM_WINDOW_BYTES = 4 * 1024 * 1024;
/** Credit is granted in steps of at least this (one small frame per MB read), at most the window. */
export const LINK_STREAM_CREDIT_BYTES = 1024 * 1024;
/**
 * A source that waits this long for credit ends its stream `slow`: the opener holds a full window
 * and reads none of it. Long enough for a reader that spools to a busy disk, short enough that a
 * dead one does not hold a git process or a pane's stream for long.
 */
export const LINK_STREAM_UNREAD_MS = 120_000;

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

// --- The agent state store (core/agent-state/) ---
// Owners a pane remembers, subagents it lists, the id a subagent report may carry (spec: Nested
// and foreign events, Each subagent), and what a report may carry.

/** Conversations that owned a pane and may take it back (spec: the last four owners). */
export const SESSION_OWNERS_KEPT = 4;
/** Conversations that sent a SessionStart for a pane, remembered for taking it back. */
export const SESSION_STARTERS_KEPT = 16;
/** Subagents a pane keeps running at once; a start past it is not kept (spec: at most 64 running). */
export const SUBAGENTS_MAX = 64;
/** Subagents `subagent_list` holds (spec: at most 16). */
export const SUBAGENT_LIST_MAX = 16;
/** Launches (the Agent tool's PreToolUse) kept waiting for their SubagentStart. */
export const SUBAGENT_LAUNCHES_MAX = 16;
/** A subagent's description, tool and result, in bytes (spec: 80 bytes). */
export const SUBAGENT_TEXT_MAX_BYTES = 80;
/** A finished subagent stays listed this long after it ended (spec: a minute for done and stopped)... */
export const SUBAGENT_DONE_KEEP_MS = 60_000;
/** ...and a failed one this long (spec: five minutes). */
export const SUBAGENT_FAILED_KEEP_MS = 5 * 60_000;
/** A subagent heard nothing of this long is dropped: a stop that never came (spec: an hour). */
export const SUBAGENT_SILENT_MS = 60 * 60_000;
/** Subagent events a pane may report in a burst, then this many a second (spec: 64, then 10). */
export const SUBAGENT_EVENTS_BURST = 64;
export const SUBAGENT_EVENTS_PER_SECOND = 10;
/** Subagent tool calls reach attached clients at most this often per session (spec: four times a second). */
export const SUBAGENT_PUSH_MIN_MS = 250;
/** A subagent id: 1 to 128 letters, digits, _ . : @ - (spec: Claude Code SubagentStart). */
export const AGENT_ID_RE = /^[A-Za-z0-9_.:@-]{1,128}$/;
/** Longest message a state carries, in characters. */
export const STATE_MESSAGE_MAX = 300;
/** Agent metadata (set-agent-meta): keys set in one call (spec's limit). */
export const META_KEYS_PER_CALL = 16;
/** Agent metadata keys a pane holds at once (spec's limit). */
export const META_KEYS_PER_PANE = 32;
/** Characters of one agent metadata value; longer is cut (spec's limit). */
export const META_VALUE_MAX = 80;
/** Tokens one `[appearance.sidebar.agent_row]` list may hold: every row token and a dozen metadata keys. */
export const AGENT_ROW_TOKENS_MAX = 32;

// --- tuios agent-hook: its budgets and the holds it asks for ---
// (spec: Failure behaviour, Approvals from the Inbox.)

/** The whole hook call, report included: harnesses run some hooks synchronously. */
export const HOOK_TIMEOUT_MS = 500;
/** A hook that waits on a hold gives up after this, below the 310 s its harness allows it. */
export const HOOK_HOLD_MAX_MS = 305_000;
/** The timeout tuios writes for the hook that may hold (Claude Code and Qwen Code read ms ≥ 1000 as ms). */
export const HOLD_HOOK_TIMEOUT_S = 310;
/** Stdin a hook reads at most: a payload with a plan or a long tool input fits well inside. */
export const HOOK_STDIN_MAX_BYTES = 1024 * 1024;
/** The rollout tail read for Codex's automatic reviewer: its turn context is written near the end. */
export const CODEX_ROLLOUT_TAIL_BYTES = 256 * 1024;
/** A key answers a held approval only once it has been on screen this long, unchanged. */
export const HOLD_SETTLE_MS = 400;
/** A reason typed for a deny, in bytes. */
export const REASON_MAX_BYTES = 500;
/** A resume id: letters, digits, _ . / : -, not starting with -, at most 256 bytes. */
export const RESUME_ID_RE = /^[A-Za-z0-9_./:][A-Za-z0-9_./:-]{0,255}$/;
/** Auto resume waits this long for each new shell's prompt, and staggers panes by this much. */
export const RESUME_PROMPT_WAIT_MS = 10_000;
export const RESUME_STAGGER_MS = 100;
/** A shell that sent no OSC 133 marks counts as at its prompt after this long quiet. */
export const RESUME_QUIET_MS = 300;
/** The length a reported message and an approval line are cut to (the risk rules' APPROVAL_LINE_MAX). */
export const HOOK_MESSAGE_MAX = 100;
/** A plan is held only when its text fits (spec: Plans). */
export const PLAN_MAX_BYTES = 32 * 1024;
/** The tool input a held call may carry at all. */
export const HOLD_INPUT_MAX_BYTES = 16 * 1024;
/** Rules that `2` (always) may add to a held approval and still be shown; more offer allow-once only. */
export const APPROVAL_OFFER_MAX_RULES = 4;
/** Processes walked up from a hook looking for its harness (shells and wrappers in between). */
export const HOOK_ANCESTRY_MAX_DEPTH = 32;

// --- tuios agent-statusline: Claude Code's status line feed (spec: The status line feed) ---

/** Stdin the wrapper reads for itself; a longer payload is passed on to --then but not read. */
export const STATUSLINE_STDIN_MAX_BYTES = 1024 * 1024;
/** The wrapper gives up on the daemon this long after its start: Claude Code waits on it. */
export const STATUSLINE_DAEMON_MS = 300;
/** A pane's status line writes at most once this often while its values change. */
export const STATUSLINE_INTERVAL_MS = 15_000;
/** Context use crossing this percentage goes at once, whatever the interval. */
export const STATUSLINE_CONTEXT_MARK = 80;
/** Throttle files kept beside the socket; past this the least recently written go. */
export const STATUSLINE_STATE_FILES_MAX = 256;
/** A throttle file is a few short values: a longer one is not read. */
export const STATUSLINE_STATE_FILE_MAX_BYTES = 4096;
/** Sessions the opencode and Kilo plugin sums costs for; past this the oldest is forgotten. */
export const PLUGIN_STATUS_MAX_SESSIONS = 64;
/** Assistant messages a session's cost sums; later ones are not added (a session that long is rare). */
export const PLUGIN_STATUS_MAX_MESSAGES = 4096;
/**
 * The budget a plugin gives each `tuios agent-hook` it runs (--timeout). Nothing waits on that
 * child, so it can outlast the 500 ms a waited hook has: at a harness's start the machine is at
 * its busiest, and the session-start report is the one that must not be lost.
 */
export const PLUGIN_HOOK_TIMEOUT_MS = 3000;
/** Reports a plugin holds while one runs; past this the oldest waiting one is dropped. */
export const PLUGIN_REPORT_QUEUE_MAX = 32;

// --- Integrations (core/integrations/) ---

/** The after-agent-state hook: one run is killed past this unless [hooks] timeout_ms says otherwise (its default). */
export const AFTER_STATE_HOOK_TIMEOUT_MS = 10_000;
/** after-agent-state hook runs at once; more wait in its queue. */
export const AFTER_STATE_HOOK_CONCURRENCY = 4;
/** Transitions waiting for an after-agent-state hook run; past this the oldest is dropped and logged. */
export const AFTER_STATE_HOOK_QUEUE_MAX = 64;
/** Ancestors walked looking for a harness daemon that runs a process outside its pane (foreign_pane). */
export const FOREIGN_PANE_MAX_ANCESTRY = 64;

// --- Git, worktrees and fleets (core/git/) ---
// The budgets of every git call tuios makes. A call that passes one is killed (its whole process
// group) and answers a typed error, never a hang.

/** One quick git call (rev-parse, config, status, worktree add): a healthy repository answers in ms. */
export const GIT_TIMEOUT_MS = 10_000;
/** All the git calls of one diff together (spec: Reviewing, "bounded at 10 seconds together"). */
export const GIT_DIFF_BUDGET_MS = 10_000;
/** Packing or unpacking a worktree for `worktree pull`: a large repository over a slow disk. */
export const GIT_TRANSFER_TIMEOUT_MS = 10 * 60_000;
/** Output collected from one git call; more is a failure (or a cut, where the caller asked for one). */
export const GIT_MAX_OUTPUT_BYTES = 16 * 1024 * 1024;
/** stderr kept from one git call, for the error message. */
export const GIT_MAX_STDERR_BYTES = 64 * 1024;
/** How long a repository's neutralising config is reused before it is read again. */
export const GIT_SAFETY_CACHE_MS = 2_000;
/** Repositories whose neutralising config is cached at once. */
export const GIT_SAFETY_CACHE_ENTRIES = 256;

/** Text of one diff (spec: a diff stops at 2 MiB of text). */
export const DIFF_MAX_BYTES = 2 * 1024 * 1024;
/** Files listed by one diff (spec: 400 files). */
export const DIFF_MAX_FILES = 400;
/** A diff answered over the link: its JSON stays under one link frame (1 MiB) with room for the frame. */
export const DIFF_LINK_MAX_BYTES = 768 * 1024;
/** One piece of that patch: under the link's cut of one text (LINK_MAX_TEXT_BYTES, 64 KiB). */
export const DIFF_LINK_PART_BYTES = 32 * 1024;
/** An untracked file larger than this is never read (spec: max_untracked_mb, 50 MB by default). */
export const MAX_UNTRACKED_FILE_BYTES = 50 * 1024 * 1024;

/** Attempts one `fan` starts: each is a worktree, a session and an agent. */
export const MAX_FAN = 16;
/** git calls run at once by `worktree ls` (one status per worktree). */
export const LS_CONCURRENCY = 4;

/** `worktree pull`: one frame of the wire format, and the header. */
export const PULL_CHUNK_BYTES = 1024 * 1024;
export const PULL_MAX_HEADER_BYTES = 256 * 1024;
/** The largest transfer accepted; past it the receiver stops and removes what it spooled. */
export const PULL_MAX_BYTES = 8 * 1024 * 1024 * 1024;
/** Ref tips a receiver offers as what it has: the most recent ones, enough for any real clone. */
export const PULL_MAX_HAVES = 1000;
/** Progress callbacks at most this often (plus one per phase change). */
export const PULL_PROGRESS_BYTES = 1024 * 1024;
/** A file a pull reads (sender) or writes (receiver) in one call; a larger one goes a frame at a time, through the thread pool. */
export const PULL_SMALL_FILE_BYTES = 64 * 1024;
/** Bytes of files a pull's receiver has taken and not yet written to disk before it reads on. */
export const PULL_SPOOL_PENDING_BYTES = 16 * 1024 * 1024;
/** A path in a pull, as Linux takes it (PATH_MAX); a link's target is held to the same. */
export const PULL_MAX_PATH_BYTES = 4096;

/** How long start-agent and fan wait for an agent to be ready before typing its first prompt. */
export const READY_WAIT_MS = 30 * 60_000;
/** How long start-agent's call waits by default before it answers with the prompt still pending. */
export const START_AGENT_WAIT_MS = 5 * 60_000;
/** A pane not ready this long on a screen no rule reads becomes an Inbox question (spec: Fleets). */
export const FIRST_RUN_QUESTION_MS = 30_000;

// --- Prompt delivery (core/delivery/) ---

/** Longest prompt typed in one submission. */
export const PROMPT_MAX_BYTES = 16 * 1024;
/** A queued message, in bytes of typed text (queue_full past it). */
export const QUEUE_MESSAGE_MAX_BYTES = 16 * 1024;
/** Bytes queued for one pane, all messages together (queue_full past it). */
export const QUEUE_PANE_TOTAL_BYTES = 32 * 1024 * 1024;
/** Bytes queued for every pane together (queue_full past it). */
export const QUEUE_ALL_TOTAL_BYTES = 128 * 1024 * 1024;
/** A message in parts (a reply holding paste blocks) of at most this goes in one paste, each
 *  block's text in its place; a larger one puts each block in a file (spec: Large pastes, 12 KB). */
export const PASTE_INLINE_MAX_BYTES = 12 * 1024;
/** A message in parts, its words and its pasted text together (spec: 8 MB; 8 MiB of pasted text). */
export const MESSAGE_PARTS_MAX_BYTES = 8 * 1024 * 1024;
/** Paste blocks in one message: far more than a person pastes into one reply, and each label typed
 *  costs at most PASTE_LABEL_MAX_BYTES of the typed text. */
export const PASTE_BLOCKS_MAX = 64;
/** One block's label as typed (`[Pasted text #N: PATH, N lines]`): the path is under the socket's
 *  folder, whose path a Unix socket keeps under 108 bytes. */
export const PASTE_LABEL_MAX_BYTES = 512;
/** What a message in parts types at most: its words (16 KiB) and a label in each block's place. */
export const PARTS_TYPED_MAX_BYTES = QUEUE_MESSAGE_MAX_BYTES + PASTE_BLOCKS_MAX * PASTE_LABEL_MAX_BYTES;
/** A paste file is kept this long, then swept (spec: kept for 24 hours, removed when the daemon stops). */
export const PASTE_FILE_KEEP_MS = 24 * 60 * 60_000;
/** How often the paste folder is swept of files past PASTE_FILE_KEEP_MS. */
export const PASTE_SWEEP_MS = 60 * 60_000;
/** A paste block sent ahead of its message in pieces (stage-paste: over a link a frame is 1 MiB):
 *  128 Ki characters stay under the frame even when every one is escaped in JSON (6 bytes). */
export const PASTE_STAGE_CHUNK_CHARS = 128 * 1024;
/** Blocks sent ahead and not yet taken by their message, at once, and how long one waits. */
export const PASTE_STAGES_MAX = 16;
export const PASTE_STAGE_TTL_MS = 60_000;

/** Images one message holds, each at most IMAGE_MAX_BYTES and all together at most
 *  IMAGES_TOTAL_BYTES (spec: Replying to an agent, Images: 8 images, 8 MB each and in all). */
export const IMAGES_MAX = 8;
export const IMAGE_MAX_BYTES = 8 * 1024 * 1024;
export const IMAGES_TOTAL_BYTES = 8 * 1024 * 1024;
/** An image of IMAGE_MAX_BYTES in base64, as it travels in a verb's params or is sent ahead. */
export const IMAGE_BASE64_MAX_CHARS = Math.ceil(IMAGE_MAX_BYTES / 3) * 4;
/** Bytes of blocks sent ahead and not yet taken, all together: two of the largest messages, their
 *  pastes and their images (in base64, as they travel). */
export const PASTE_STAGES_TOTAL_BYTES = 2 * (MESSAGE_PARTS_MAX_BYTES + Math.ceil(IMAGES_TOTAL_BYTES / 3) * 4);
/** Reply history (spec: Replying to an agent): pastes one remembered message keeps (a larger
 *  block is not kept, and the editor says so when the message comes back). */
export const REPLY_HISTORY_PASTE_BYTES = 256 * 1024;
/** Messages remembered per harness and folder, newest kept; and harness-folder pairs remembered. */
export const REPLY_HISTORY_PER_AGENT = 100;
export const REPLY_HISTORY_AGENTS = 256;
/** The $VISUAL or $EDITOR a terminal client passes on attach (ctrl+g in a reply), at most. */
export const EDITOR_COMMAND_MAX = 1024;
/** list-pane-files (the reply editor's `@` names): entries one answer lists at most (the editor
 *  narrows further as the person types), entries read from one folder at most before that (a
 *  folder of a million files is cut, not read whole), the folders a path walks down at most, and
 *  the longest name kept (longer is no name a person types: left out and counted). */
export const PANE_FILES_MAX_ENTRIES = 500;
export const PANE_FILES_SCAN_MAX = 10_000;
export const PANE_FILES_MAX_DEPTH = 16;
export const PANE_FILES_NAME_MAX_BYTES = 255;
/** The path param of list-pane-files: PANE_FILES_MAX_DEPTH names of PANE_FILES_NAME_MAX_BYTES. */
export const PANE_FILES_PATH_MAX_BYTES = 4096;
/** A typed prompt must be taken (working, a question, a finished turn) within this, or prompt_stalled. */
export const PROMPT_TAKE_MS = 5000;

// --- Mail and questions (core/mail/) ---

/** Messages a mailbox holds (one per session, and one for the person); the oldest go first. */
export const MAILBOX_MAX = 256;
/** One message's body, in bytes. */
export const BODY_MAX_BYTES = 16 * 1024;
/** Characters of a message's subject; longer is cut. */
export const SUBJECT_MAX = 120;
/** A sender's budget: a burst, then a steady rate. */
export const MAIL_RATE_BURST = 30;
export const MAIL_RATE_PER_SEC = 1;
/** An ask-human question, in bytes. */
export const QUESTION_MAX_BYTES = 160;
/** One fixed answer of an ask-human question, in bytes. */
export const ANSWER_MAX_BYTES = 60;
/** Fixed answers one ask-human question offers (at least 2). */
export const ASK_MAX_OPTIONS = 9;
/** How long ask-human waits for the answer when the caller names no timeout. */
export const DEFAULT_ASK_MS = 120_000;

// --- The Inbox (core/inbox/) ---

/** Characters of an Inbox item's summary; longer is cut. */
export const INBOX_SUMMARY_MAX = 200;
/** Items the Inbox holds at once. */
export const INBOX_MAX_ITEMS = 4096;

// --- Detection (core/detection/) ---

/** Processes an identification walks behind a pane's foreground (wrappers and their children). */
export const WALK_MAX_PROCESSES = 24;
/** Wrappers deep an identification walks (a launcher starting the agent). */
export const WALK_MAX_DEPTH = 4;
/** A manifest file larger than this is not read. */
export const MAX_MANIFEST_BYTES = 256 * 1024;
/** captured_versions a manifest may list. */
export const MAX_CAPTURED_VERSIONS = 256;
/** Characters of the message a rule's verdict carries; longer is cut with an ellipsis. */
export const RULE_MESSAGE_MAX = 200;
/** Screen lines a rule block reads when it names none ([screen].lines). */
export const DEFAULT_TAIL_LINES = 40;
/** Screen lines a rule block may ask to read. */
export const MAX_TAIL_LINES = 200;
/** Rule groups nest at most this deep. */
export const RULE_MAX_DEPTH = 8;
/** Rule groups in one manifest. */
export const RULE_MAX_GROUPS = 512;
/** Strings and patterns in one manifest's rules. */
export const RULE_MAX_STRINGS = 1024;
/** Longest message kept from a program status report (OSC 7501), in characters, after decoding. */
export const PROGRAM_MESSAGE_MAX = 200;
/** A harness's package.json is read up to this many bytes. */
export const PACKAGE_JSON_MAX_BYTES = 64 * 1024;
/** Folders walked up from the entry point's own folder looking for its package. */
export const PACKAGE_LEVELS = 4;
/** Process identities remembered; the oldest is dropped past this. */
export const VERSION_CACHE_MAX = 512;

// --- Where a caller is, and the risk rules (core/security/) ---

/** Ancestors walked at most when placing a caller: deeper trees than this do not occur for real panes. */
export const MAX_ANCESTRY = 64;
/** Past this many characters a line is not read (a held call's command is rarely over a few KB). */
export const RISK_MAX_LINE_CHARS = 64 * 1024;
/** Simple commands kept from one line; a real call runs a few dozen at most. */
export const RISK_MAX_COMMANDS = 1000;
/** Bounds the loop: no real command nests wrappers this deep. */
export const RISK_MAX_WRAPPERS = 32;
/** Substitutions, subshells and shell lines nest at most this deep; deeper is not read. */
export const RISK_MAX_NESTING = 16;
/** Characters read over all nested lines (`sh -c`, `eval`, backticks re-read their text). */
export const RISK_MAX_WORK_CHARS = 256 * 1024;
/** The length a reported approval line is clipped to. */
export const APPROVAL_LINE_MAX = 100;
/** No real path has this many parts; past it a path is not resolved and counts as outside. */
export const RISK_MAX_PATH_SEGMENTS = 256;
/** PATH_MAX: a folder the shell could not even enter is one the line does not show. */
export const RISK_MAX_PATH_CHARS = 4096;

// --- Process snapshots of a pane on another machine (core/hosts/hosted-procs.ts) ---

/** Processes a snapshot holds at most (identification walks fewer: WALK_MAX_PROCESSES). */
export const HOSTED_PROCS_MAX = 64;
/** Arguments kept per process in a snapshot. */
export const HOSTED_PROC_ARGV_MAX = 16;
/** Characters kept of one argument (and of a resolved name). */
export const HOSTED_PROC_ARG_MAX_CHARS = 512;
/** Characters kept of a path (exe, cwd, a resolved argument). */
export const HOSTED_PROC_PATH_MAX_CHARS = 1024;

// --- The PTY reader thread and the CLI ---

/** Bytes the PTY reader thread gathers for one pane before it stops reading (the program then blocks). */
export const PTY_READER_HOLD_BYTES = 256 * 1024;
/** Input up to this size (typed keys, a short paste) is written to a pane's terminal at once rather than through node-pty's queue (pane-process.ts writeNow). */
export const PTY_DIRECT_WRITE_BYTES = 4096;
/**
 * A pane's terminal is read on the main thread while it is quiet (a typed key's echo then skips
 * the hop between threads, ~0.5 ms on two busy cores) and moves to the reader thread once this
 * much comes within PTY_THREAD_FLOOD_WINDOW_MS: a flood reads there while the main thread parses.
 */
export const PTY_THREAD_FLOOD_BYTES = 64 * 1024;
export const PTY_THREAD_FLOOD_WINDOW_MS = 100;
/** A pane read in the thread with no output for this long comes back to main-thread reads. */
export const PTY_THREAD_QUIET_MS = 1000;
/** `tuios attach`: keys read in one go are sent as one call; a long paste goes in pieces of this size. */
export const ATTACH_INPUT_CHUNK_BYTES = 64 * 1024;
/** `tuios doctor agents`: at most this many uncovered panes are explained (one explain-agent-detect call each). */
export const DOCTOR_VERSION_PANES = 50;

// --- Verbs (core/verbs/) ---

/** Input one tui-input call carries, as base64 (a long paste comes in several calls). */
export const TUI_INPUT_MAX_B64 = 512 * 1024;
/** Panes one send-agent-message --select writes to at most. */
export const SELECT_MAX_MESSAGES = 32;
/** Panes one ask-agent --select asks at most. */
export const ASK_SELECT_MAX = 16;
/** How long ask-agent waits for the agent's turn to end, by default (--timeout). */
export const ASK_TURN_MS = 10 * 60_000;
/** How long ask-agent waits for a working agent to come to rest before it types (--force types now). */
export const ASK_READY_WAIT_MS = 10 * 60_000;
/** How long respond waits, by default, for the pane to move after the keys. */
export const DEFAULT_RESPOND_WAIT_MS = 5000;

// --- Turn checkpoints (core/git/checkpoints.ts) ---
// (spec: Turn checkpoints, [agents.checkpoints].)

/** One git call of a checkpoint (spec: "with a limit of 30 seconds each"). */
export const CHECKPOINT_GIT_TIMEOUT_MS = 30_000;
/** All the git calls of one checkpoint diff together: the caps of review-diff apply (spec). */
export const CHECKPOINT_DIFF_BUDGET_MS = 10_000;
/** Checkpoints a pane keeps by default, and the range `keep` may ask for (spec: 50, 1 to 1000). */
export const CHECKPOINT_KEEP_DEFAULT = 50;
export const CHECKPOINT_KEEP_MIN = 1;
export const CHECKPOINT_KEEP_MAX = 1000;
/** Checkpoints one list reads at most: the most `keep` allows. */
export const CHECKPOINT_LIST_MAX = 1000;
/** A checkpoint's label (a prompt, a last line): a short line, like a commit subject. */
export const CHECKPOINT_LABEL_MAX = 100;
/**
 * New untracked files one checkpoint saves: a tree an agent filled with an unignored dependency
 * folder is not copied into the object store every turn; the rest are listed as left out.
 */
export const CHECKPOINT_MAX_UNTRACKED_FILES = 20_000;
/** Paths a restore's answer lists per list (written, removed, kept); the counts say the rest. */
export const CHECKPOINT_REPORT_PATHS = 200;
/**
 * Folders watched per pane so a turn that changed nothing is known without reading the tree
 * (inotify watches; past this the look is git's every turn). A work tree with more folders than
 * this, less the ignored ones, costs one git call per turn instead.
 */
export const CHECKPOINT_WATCH_MAX_DIRS = 4096;
/** Folders watched for every pane together: below the 8192 inotify watches an older kernel gives a user. */
export const CHECKPOINT_WATCH_MAX_TOTAL = 6144;
/** How long the folders git ignores, read for a work tree's watcher, are trusted before a look reads them again (a change to .git/info/exclude or core.excludesFile is seen no later). */
export const CHECKPOINT_IGNORED_MAX_AGE_MS = 60_000;
/** Screen lines read back for a checkpoint's label when the turn ended with no message: the screen's foot. */
export const CHECKPOINT_LABEL_SCREEN_LINES = 40;
/** The fewest cells a tile keeps along a split's axis: its frame and one cell inside. */
export const LAYOUT_MIN_TILE_CELLS = 3;
/** A layout resize's share of the tab when none is given, and the most one resize moves (spec: pane.resize). */
export const LAYOUT_RESIZE_DEFAULT_SHARE = 0.05;
export const LAYOUT_RESIZE_MAX_SHARE = 0.5;
/** The title a client's terminal is given (set-client-title), in characters. */
export const CLIENT_TITLE_MAX = 256;

/** Notes on one worktree (spec: Reviewing an agent's changes, "at most 200 on a worktree"). */
export const REVIEW_NOTES_MAX = 200;
/** One note's text (spec: "1000 bytes each"). */
export const REVIEW_NOTE_MAX_BYTES = 1000;
/** A note's line is looked for this far from where it was before the whole file (spec: 50 lines). */
export const REVIEW_FIND_WINDOW = 50;
/** A quoted line in the message sent to the agent (spec: 120 characters). */
export const REVIEW_QUOTE_MAX = 120;
/** The message send-review composes (spec: "longer than 16 KiB is refused"). */
export const REVIEW_MESSAGE_MAX_BYTES = 16 * 1024;
/** Lines of one file's patch a review shows; past it the file has counts only (spec: 5000 lines). */
export const REVIEW_FILE_MAX_LINES = 5000;
/** A file read to place notes (its new or old side): larger files are not searched. */
export const REVIEW_FILE_READ_MAX_BYTES = 4 * 1024 * 1024;
/** Notes the daemon holds on every worktree together: the file stays small to write on each change. */
export const REVIEW_NOTES_TOTAL_MAX = 5000;
/** How long a push or pull request from a pane waits for the person's yes (spec: two minutes). */
export const SHIP_APPROVAL_WAIT_MS = 120_000;
/** One gh call of ship pr and ship status (a network call; gh has its own retries). */
export const SHIP_GH_TIMEOUT_MS = 60_000;
/** A pull request's fields kept on the session: its title and url, cut. */
export const SHIP_PR_TEXT_MAX = 300;

/** Workspaces per session, numbered 1 to 9 (one digit key each in the TUI). */
export const WORKSPACES = 9;
/** Highest herdr tab number (a tab id's digits): a tab number is never used twice in a session. */
export const MAX_TAB_NUMBER = 999_999_999;
/** How often an open pull request is read again while a client is attached (spec: once a minute). */
export const SHIP_PR_POLL_MS = 60_000;

// ---- The activity ring's, the recap's and fan comparison's limits (spec: What the agent has been
// doing, Comparing a fan).

/** Entries a pane's activity ring keeps, the newest (spec: "the newest 256 entries per pane, in memory only"). */
export const ACTIVITY_RING_MAX = 256;
/** One entry's text (a prompt, a tool call, what the agent said, a command line), cut to one line of this many characters. */
export const ACTIVITY_TEXT_MAX = 200;
/** Files a recap names before "and N more" (spec's example: three). */
export const RECAP_FILES_SHOWN = 3;
/** Test patterns [agents.recap] test_patterns may hold, and the length of one. */
export const RECAP_TEST_PATTERNS_MAX = 64;
export const RECAP_TEST_PATTERN_MAX = 100;
/** A verify-fan command: one shell command line. */
export const VERIFY_COMMAND_MAX = 4096;
/** How long verify-fan waits for its checks by default, and at most (--timeout). */
export const VERIFY_WAIT_MS = 10 * 60_000;
export const VERIFY_WAIT_MAX_MS = 60 * 60_000;
/** The files fan diff lists per side: the counts cover them all. */
export const FAN_DIFF_FILES_MAX = 400;

// ---- Bounds of the alert policy (spec: Alerts). Config values are held between these.
/** The settle window by default: 0, an alert goes out as soon as its burst closes. */
export const ALERT_SETTLE_MS_DEFAULT = 0;
/** The longest settle window: a state held back longer than this is no longer an alert. */
export const ALERT_SETTLE_MS_MAX = 60_000;
/** The sound cooldown by default: one bell or cue per this many ms, however many bursts. */
export const ALERT_SOUND_COOLDOWN_MS_DEFAULT = 2_000;
export const ALERT_SOUND_COOLDOWN_MS_MAX = 3_600_000;
/** The text of one notification escape (after the `tuios: ` lead), in characters. */
export const ALERT_NOTIFY_TEXT_MAX = 180;
/** Alerts waiting out their settle window at once (one per pane or item); past it the oldest goes now. */
export const ALERT_SETTLING_MAX = 256;
/** A cue file path in config. */
export const ALERT_CUE_PATH_MAX = 4096;
/** How long a system audio player may play one cue before it is killed. */
export const ALERT_CUE_PLAY_MS = 10_000;
/**
 * A burst closes this long after its last arrival (at most the client's ALERT_BURST_MS after its
 * first): items that arrive together, as a fan's do, are one alert, and a lone one is not held
 * the whole burst window (the prompt-to-notification goal is 300 ms).
 */
export const ALERT_BURST_QUIET_MS = 60;

// ---- Bounds of what get-config and set-config take.
/** A dotted config key. */
export const CONFIG_KEY_MAX = 200;
/** A value typed for set-config. */
export const CONFIG_VALUE_MAX = 4096;
/** Items of a list value (comma separated). */
export const CONFIG_LIST_MAX = 64;

// ---- Glyph sets of one's own ([appearance.glyph_sets.NAME]).

/** At most this many sets of one's own in a config. */
export const MAX_GLYPH_SETS = 16;
/** At most this many code points in a mark (a base and its variation selector or joiner fit). */
export const MAX_GLYPH_MARK_CHARS = 8;
