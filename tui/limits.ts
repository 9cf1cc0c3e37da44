// Every budget and delay the TUI keeps, each with the reason for its number.

/** Frames while output flows: one per 33 ms (30 a second) is smooth to the eye and bounds the
 *  bytes a scrolling pane costs the client to a screenful per frame, whatever the pane prints. */
export const FRAME_INTERVAL_MS = 33;
/** The first output after a key that went to a pane, within this long, is that key's echo: it
 *  is drawn at once, outside the pacing (a remote shell's echo can take a few hundred ms). */
export const ECHO_WINDOW_MS = 1000;
/** Echo frames drawn outside the pacing come no closer than this: faster than a person types
 *  (125 keys a second), so a script writing keys adds at most that many frames to the cap. */
export const ECHO_FRAME_GAP_MS = 8;
/** The longest echo sent ahead of its frame (tui/echo-ahead.ts): a typed key's, or a few typed
 *  faster than the pane answers. Longer output is a program printing, which the frame draws. */
export const ECHO_AHEAD_MAX_BYTES = 32;
/** Output the client has not read yet above which frames wait: a slow link never grows us. */
export const MAX_CLIENT_BACKLOG_BYTES = 1024 * 1024;
/** Input bytes one tui-input call may carry (a large paste arrives in several). */
export const MAX_INPUT_BYTES = 256 * 1024;
/** An unterminated bracketed paste kept waiting for its end, at most: a reply's block may be 8 MB
 *  (spec: Large pastes), and one a little larger must arrive whole to be refused as too large. */
export const MAX_PASTE_BYTES = 8 * 1024 * 1024 + 64 * 1024;

/** The rail's width as shipped (spec: the shipped rail is 24). */
export const RAIL_WIDTH = 24;
/** Under this many columns the rail folds away and the panes get the width. */
export const RAIL_MIN_TERMINAL_COLS = 60;
/** From this many columns up to the rail's, the rail folds to its collapsed strip of marks: a
 *  state still reads at a glance, and the panes lose three columns, not twenty-four. */
export const STRIP_MIN_TERMINAL_COLS = 40;

/** A row moves group, and a card takes keys, only once it has been as it is for this long. */
export const SETTLE_MS = 400;
/** A risky allow needs the same key again within this long. */
export const RISKY_SECOND_PRESS_MS = 3000;
/** How long a dock message stays. */
export const DOCK_MESSAGE_MS = 6000;
/** Alerts that arrive within this long of each other are one message (a fan's burst). */
export const ALERT_BURST_MS = 250;
/** A row shows its age once its state is this old (spec: five minutes). */
export const AGE_SHOWN_AFTER_MS = 5 * 60_000;
/** `ctx NN%` shows from this much context (spec: 80%). */
export const CONTEXT_WARN_PERCENT = 80;
/** At rest for longer than this, an agent is under Earlier in the agents view. */
export const EARLIER_AFTER_MS = 60 * 60_000;
/** `u` undoes a dismiss or snooze made this long ago at most (spec: 10 seconds). */
export const UNDO_WINDOW_MS = 10_000;
/** `O` again within this long goes to the next older finished turn. */
export const WALK_AGAIN_MS = 5000;
/** One bulk reply goes to this many marked agents at most. */
export const MAX_BULK_REPLY = 32;
/** The reply editor grows to this many rows, then scrolls. */
export const EDITOR_MAX_ROWS = 8;
/** A paste longer than this (characters or lines) shows as one block in the editor. */
export const PASTE_BLOCK_CHARS = 800;
export const PASTE_BLOCK_LINES = 3;
/** A draft the editor holds, at most (a queued message is bounded by the queue anyway). */
export const MAX_DRAFT_CHARS = 64 * 1024;
/** The times on agent rows move on once a minute while they are on screen. */
export const AGE_TICK_MS = 60_000;
/** Keys typed into a linked host's pane go in calls of at most this many bytes... */
export const REMOTE_KEYS_PER_CALL_BYTES = 4096;
/** ...and at most this many wait for the link; past it a key is dropped and the dock says so. */
export const REMOTE_KEYS_MAX_PENDING_BYTES = 64 * 1024;
/** The mailbox reads the mailboxes of at most this many panes (a read is one verb call each;
 *  a daemon holds far fewer panes than this in practice). */
export const MAIL_PANES_READ_MAX = 512;
/** Columns a workspace's name takes in the dock beside its number (the rest is cut with an ellipsis). */
export const WORKSPACE_NAME_COLS = 12;
/** `@` in the reply editor: the list shows this many entries at most (it is narrowed by typing). */
export const NAMES_SHOWN_MAX = 6;
/** Folders of the reply's pane kept listed while a draft names files (walking in and out reads none twice). */
export const NAMES_FOLDERS_CACHED = 32;
/** ctrl+g: a file the person's editor saved is read back only up to this (the largest message, 8 MB, and its words). */
export const DRAFT_FILE_MAX_BYTES = 8 * 1024 * 1024 + 64 * 1024;

/** A clipboard tool (wl-paste, xclip, osascript, PowerShell) answers within this, or is stopped:
 *  a clipboard owner that hangs must not hold the reply editor. */
export const CLIPBOARD_READ_MS = 3000;

/** The strip of a reply draft's images (spec: Images): each image this many rows high, at most
 *  THUMB_MAX_COLS wide (a panorama is cut to a strip's share), STRIP_MAX shown, then `+N more`. */
export const THUMB_ROWS = 3;
export const THUMB_MAX_COLS = 24;
export const STRIP_MAX = 4;
/** The image ctrl+o shows larger: the draft's rows high, at most this many columns wide. */
export const LARGE_MAX_COLS = 120;
