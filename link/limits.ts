// Every budget link/'s own code enforces, each with the reason for its number.
// The link's protocol budgets (frame size, rows per host, outbox, timeouts, pings, streams) are in
// core/limits.ts's "Links between hosts" section: core reads several of them (core/hosts,
// worktree diffs over the link) and core imports nothing from link/. What only link/ bounds is
// here.

/** Words and bytes held for a handler that does not listen yet; past it the stream is ended (the
 *  bytes by LINK_STREAM_HIGH_WATER, the count of words and chunks by this). */
export const EARLY_MAX_ITEMS = 256;

/** Peer schemas kept parsed, by their text (link/codec/frames.ts): a fleet runs a few builds at
 *  once, and each text is at most LINK_MAX_SCHEMA_BYTES (64 KiB), so 8 hold at most 512 KiB. */
export const LINK_SCHEMAS_KEPT = 8;
