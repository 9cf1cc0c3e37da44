// The budgets of every git call tuios makes, each with the reason for its number. A call that
// passes one is killed (its whole process group) and answers a typed error, never a hang.

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
/**
 * Delta search window of the work pack (uncommitted files). A changed file's base, its version at
 * HEAD, sorts beside it: on 1,666 files with a line added, window 2 packs 557 KB, 10 packs 554 KB
 * and 0 packs 2 MB, while on thousands of new files a wide window costs seconds for nothing.
 */
export const PULL_WORK_DELTA_WINDOW = 2;
/**
 * zlib level of both packs. Deflate is most of a pull's CPU: on 50 MB of source-like changes
 * level 1 packs in ~20% less CPU than git's default (6) for ~6% more bytes (bench: worktree).
 */
export const PULL_PACK_COMPRESSION = 1;
/** Progress callbacks at most this often (plus one per phase change). */
export const PULL_PROGRESS_BYTES = 1024 * 1024;

/** How long start-agent and fan wait for an agent to be ready before typing its first prompt. */
export const READY_WAIT_MS = 30 * 60_000;
/** How long start-agent's call waits by default before it answers with the prompt still pending. */
export const START_AGENT_WAIT_MS = 5 * 60_000;
/** A pane not ready this long on a screen no rule reads becomes an Inbox question (spec: Fleets). */
export const FIRST_RUN_QUESTION_MS = 30_000;
