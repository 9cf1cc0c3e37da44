// The activity ring's, the recap's and fan comparison's limits (spec: What the agent has been
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
